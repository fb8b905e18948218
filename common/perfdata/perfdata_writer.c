// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_writer: streams a "PERFILE2" perf.data file to a file descriptor.
 *
 * Layout: file header (104 bytes), attrs (each followed by the file section
 * of its ids), the id arrays, the data section, then the feature section
 * table and the feature payloads. The header is written twice: a
 * provisional one by __begin_data (data size 0, no features: what perf
 * reports as an unterminated `perf record`) and the final one by __finish.
 * The feature payloads are built in perfdata_writer_features.c.
 * Part of common/: no logging, every error is a negative errno.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfdata_compress.h"
#include "byte_buffer.h"
#include "file_output.h"
#include "perfdata_writer-internal.h"
#include "perf_record.h"

#define FILE_SECTION_SIZE 16
#define FILE_HEADER_SIZE  104
/* adds_features is a 256-bit bitmap; perfsnapd uses the first 32 bits. */
#define FEAT_BITMAP_WORDS 4

_Static_assert(sizeof(struct perf_event_attr) >= FILE_ATTR_SIZE,
	       "perf_event_attr older than PERF_ATTR_SIZE_VER7");
/* The bits are perf's HEADER_* numbers (tools/perf/util/header.h). */
_Static_assert(PERFDATA_FEAT_TRACING_DATA == 1 && PERFDATA_FEAT_BUILD_ID == 2 &&
		       PERFDATA_FEAT_HOSTNAME == 3 && PERFDATA_FEAT_OSRELEASE == 4 &&
		       PERFDATA_FEAT_VERSION == 5 && PERFDATA_FEAT_ARCH == 6 &&
		       PERFDATA_FEAT_NRCPUS == 7 && PERFDATA_FEAT_CMDLINE == 11 &&
		       PERFDATA_FEAT_EVENT_DESC == 12 && PERFDATA_FEAT_SAMPLE_TIME == 21 &&
		       PERFDATA_FEAT_CLOCKID == 23 && PERFDATA_FEAT_COMPRESSED == 27,
	       "feature bits differ from perf's HEADER_* numbering");

struct file_section {
	uint64_t offset;
	uint64_t size;
};

struct file_header {
	char magic[8];
	uint64_t size;
	uint64_t attr_size;
	struct file_section attrs;
	struct file_section data;
	struct file_section event_types;
	uint64_t adds_features[FEAT_BITMAP_WORDS];
};

_Static_assert(sizeof(struct file_header) == FILE_HEADER_SIZE, "perf_file_header is 104 bytes");

/* A failed write leaves a file perf cannot read: the writer is done. */
static int failed(struct perfdata_writer *w, int err)
{
	if (err)
		w->state = WRITER_FAILED;
	return err;
}

/* Appends at the end of the file through the buffer. */
static int append(struct perfdata_writer *w, const void *data, size_t len)
{
	return failed(w, file_output__append(&w->out, data, len));
}

static uint64_t file_pos(const struct perfdata_writer *w)
{
	return file_output__pos(&w->out);
}

static int check_state(const struct perfdata_writer *w, enum writer_state want)
{
	if (!w)
		return -EINVAL;
	return w->state == want ? 0 : -EBADFD;
}

/* The attr as it goes to the file: VER7 layout, size field saying so. */
void perfdata_writer__file_attr(const struct writer_attr *a, unsigned char out[FILE_ATTR_SIZE])
{
	struct perf_event_attr attr = a->attr;

	attr.size = FILE_ATTR_SIZE;
	memcpy(out, &attr, FILE_ATTR_SIZE);
}

/**
 * perfdata_writer__new - create a writer for an open file
 * @fd: a regular file opened for writing (not O_APPEND), normally empty;
 *      the writer writes from offset 0 with pwrite() and never closes it
 *
 * Returns the writer, or NULL if memory ran out.
 */
struct perfdata_writer *perfdata_writer__new(int fd)
{
	struct perfdata_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	if (file_output__init(&w->out, fd, true)) {
		free(w);
		return NULL;
	}
	w->state = WRITER_ATTRS;
	return w;
}

/**
 * perfdata_writer__delete - free a writer
 * @w: the writer, or NULL
 *
 * Buffered bytes not yet written are dropped; the fd stays open and the
 * file stays where it is (the caller unlinks an unfinished file).
 */
void perfdata_writer__delete(struct perfdata_writer *w)
{
	size_t i;

	if (!w)
		return;
	for (i = 0; i < w->nr_attrs; i++) {
		free(w->attrs[i].name);
		free(w->attrs[i].ids);
	}
	free(w->attrs);
	for (i = 0; i < FEAT_SLOTS; i++)
		byte_buffer__fini(&w->feat[i]);
	perfdata_compress__delete(w->zc);
	file_output__fini(&w->out);
	free(w);
}

static bool attr_fits_file(const struct perf_event_attr *attr)
{
	const unsigned char *p = (const unsigned char *)attr;
	size_t i;

	/* Fields past VER7 (config3) cannot be stored for perf 6.1. */
	for (i = FILE_ATTR_SIZE; i < sizeof(*attr); i++) {
		if (p[i])
			return false;
	}
	return true;
}

/**
 * perfdata_writer__add_attr - add an event description
 * @w: the writer, before __begin_data
 * @attr: the attr the event was opened with; copied
 * @name: display name, e.g. "sched:sched_switch"; copied
 * @ids: the ids of the event's fds (PERF_EVENT_IOC_ID); copied
 * @nr_ids: number of @ids, may be 0 (then @ids may be NULL)
 *
 * Returns 0, -EBADFD after __begin_data, -EINVAL for a missing argument
 * or an attr using fields past PERF_ATTR_SIZE_VER7, or -ENOMEM.
 */
int perfdata_writer__add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids)
{
	struct writer_attr *a;
	int err;

	err = check_state(w, WRITER_ATTRS);
	if (err)
		return err;
	if (!attr || !name || (nr_ids && !ids) || nr_ids > UINT32_MAX)
		return -EINVAL;
	if (!attr_fits_file(attr))
		return -EINVAL;
	if (w->nr_attrs == w->attrs_cap) {
		size_t cap = w->attrs_cap ? w->attrs_cap * 2 : 4;
		struct writer_attr *p = realloc(w->attrs, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		w->attrs = p;
		w->attrs_cap = cap;
	}
	a = &w->attrs[w->nr_attrs];
	memset(a, 0, sizeof(*a));
	a->attr = *attr;
	a->name = strdup(name);
	if (!a->name)
		return -ENOMEM;
	if (nr_ids) {
		a->ids = malloc(nr_ids * sizeof(*ids));
		if (!a->ids) {
			free(a->name);
			return -ENOMEM;
		}
		memcpy(a->ids, ids, nr_ids * sizeof(*ids));
	}
	a->nr_ids = nr_ids;
	w->nr_attrs++;
	return 0;
}

static int append_cb(void *ctx, const void *data, size_t len)
{
	return append(ctx, data, len);
}

/**
 * perfdata_writer__set_compression - compress the data section with zstd
 * @w: the writer, before __begin_data
 * @level: zstd level, 1..22, or 0 for none (the default)
 *
 * Records then reach the file inside PERF_RECORD_COMPRESSED records, and
 * __finish adds the COMPRESSED feature, as `perf record -z` does. Only a
 * perf built with zstd reads such a file.
 *
 * Returns 0, -EBADFD after __begin_data, -EINVAL for a level out of
 * range, or -ENOMEM.
 */
int perfdata_writer__set_compression(struct perfdata_writer *w, int level)
{
	struct perfdata_compress *zc = NULL;
	int err;

	err = check_state(w, WRITER_ATTRS);
	if (err)
		return err;
	if (level < 0 || level > PERFDATA_COMPRESS_LEVEL_MAX)
		return -EINVAL;
	if (level) {
		zc = perfdata_compress__new(level, append_cb, w);
		if (!zc)
			return -ENOMEM;
	}
	perfdata_compress__delete(w->zc);
	w->zc = zc;
	return 0;
}

static void fill_header(const struct perfdata_writer *w, struct file_header *h, uint64_t data_size)
{
	size_t i;

	memset(h, 0, sizeof(*h));
	memcpy(h->magic, "PERFILE2", 8);
	h->size = FILE_HEADER_SIZE;
	h->attr_size = FILE_ATTR_SIZE + FILE_SECTION_SIZE;
	h->attrs.offset = FILE_HEADER_SIZE;
	h->attrs.size = w->nr_attrs * h->attr_size;
	h->data.offset = w->data_offset;
	h->data.size = data_size;
	for (i = 0; i < FEAT_SLOTS; i++) {
		if (w->feat[i].len)
			h->adds_features[i / 64] |= 1ull << (i % 64);
	}
}

static int write_attrs(struct perfdata_writer *w)
{
	uint64_t ids_offset = FILE_HEADER_SIZE + w->nr_attrs * (FILE_ATTR_SIZE + FILE_SECTION_SIZE);
	unsigned char attr[FILE_ATTR_SIZE];
	struct file_section sec;
	size_t i;
	int err;

	for (i = 0; i < w->nr_attrs; i++) {
		perfdata_writer__file_attr(&w->attrs[i], attr);
		sec.offset = ids_offset;
		sec.size = w->attrs[i].nr_ids * sizeof(uint64_t);
		ids_offset += sec.size;
		err = append(w, attr, sizeof(attr));
		if (!err)
			err = append(w, &sec, sizeof(sec));
		if (err)
			return err;
	}
	for (i = 0; i < w->nr_attrs; i++) {
		err = append(w, w->attrs[i].ids, w->attrs[i].nr_ids * sizeof(uint64_t));
		if (err)
			return err;
	}
	return 0;
}

/**
 * perfdata_writer__begin_data - write the header, attrs and ids
 * @w: the writer, after at least one __add_attr
 *
 * The header written here has a zero data size and no features until
 * __finish rewrites it.
 *
 * Returns 0, -EBADFD if called twice or after a failure, -EINVAL without
 * attrs, or the -errno of a failed write.
 */
int perfdata_writer__begin_data(struct perfdata_writer *w)
{
	struct file_header h;
	size_t i;
	int err;

	err = check_state(w, WRITER_ATTRS);
	if (err)
		return err;
	if (!w->nr_attrs)
		return -EINVAL;
	w->data_offset = FILE_HEADER_SIZE + w->nr_attrs * (FILE_ATTR_SIZE + FILE_SECTION_SIZE);
	for (i = 0; i < w->nr_attrs; i++)
		w->data_offset += w->attrs[i].nr_ids * sizeof(uint64_t);
	fill_header(w, &h, 0);
	memset(h.adds_features, 0, sizeof(h.adds_features));
	err = append(w, &h, sizeof(h));
	if (!err)
		err = write_attrs(w);
	if (err) {
		w->state = WRITER_FAILED;
		return err;
	}
	w->state = WRITER_DATA;
	return 0;
}

/**
 * perfdata_writer__write_event - append one record to the data section
 * @w: the writer, after __begin_data
 * @event: the record; @event->size bytes are copied
 *
 * Returns 0, -EBADFD out of order, -EINVAL if the size is not a non-zero
 * multiple of 8, or the -errno of a failed write.
 */
int perfdata_writer__write_event(struct perfdata_writer *w, const struct perf_event_header *event)
{
	int err;

	err = check_state(w, WRITER_DATA);
	if (err)
		return err;
	if (!event || event->size < sizeof(*event) || event->size % 8)
		return -EINVAL;
	if (!w->zc)
		return append(w, event, event->size);
	err = perfdata_compress__add(w->zc, event, event->size);
	if (err)
		w->state = WRITER_FAILED;
	return err;
}

/*
 * What __write_events checks and writes at a time: large enough that the
 * file output writes most of it without a copy through the page cache
 * (twice its buffer there; a direct file copies every byte into its
 * aligned buffer), small enough to stay in the cache between the check and
 * the write.
 */
#define WRITE_EVENTS_PIECE (2 * FILE_OUTPUT_BUF_SIZE)

/**
 * perfdata_writer__write_events - append records that lie back to back
 * @w: the writer, after __begin_data
 * @events: whole records, each a multiple of 8 bytes long (8-byte aligned)
 * @len: their total size
 *
 * As __write_event for each; uncompressed, written in pieces (without a
 * copy through the page cache). Returns 0, -EBADFD out of order, -EINVAL for a record that is not
 * one or does not fit @len, or the -errno of a failed write. A refused
 * run leaves the writer usable if none of it was written, else failed.
 */
int perfdata_writer__write_events(struct perfdata_writer *w, const void *events, size_t len)
{
	const unsigned char *p = events;
	int err;

	err = check_state(w, WRITER_DATA);
	if (err)
		return err;
	if (!events && len)
		return -EINVAL;
	if (w->zc) {
		err = perfdata_compress__add_records(w->zc, events, len);
		if (err)
			w->state = WRITER_FAILED;
		return err;
	}
	/*
	 * Checked as the compressor checks what it copies (perf would misparse
	 * the file), a piece at a time, each written while its bytes are still
	 * in the cache from the check.
	 */
	while (len) {
		size_t n = 0;

		while (n < len && n < WRITE_EVENTS_PIECE && perf_record__next(p, len, &n))
			;
		if (n < len && n < WRITE_EVENTS_PIECE) {
			/* A torn run: what went before it is in the file already. */
			if ((const void *)p != events)
				w->state = WRITER_FAILED;
			return -EINVAL;
		}
		if ((err = append(w, p, n)))
			return err;
		p += n;
		len -= n;
	}
	return 0;
}

/* Writes the last COMPRESSED record and the feature that describes them. */
static int finish_compression(struct perfdata_writer *w)
{
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];
	struct byte_buffer b = { 0 };
	int err;

	err = perfdata_compress__finish(w->zc, feat);
	if (!err)
		err = byte_buffer__put(&b, feat, sizeof(feat));
	return err ? err : perfdata_writer_features__set(w, PERFDATA_FEAT_COMPRESSED, &b);
}

/* The section table (one entry per set bit, in bit order), then payloads. */
static int write_features(struct perfdata_writer *w)
{
	struct file_section sec;
	uint64_t offset;
	size_t i, nr = 0;
	int err;

	for (i = 0; i < FEAT_SLOTS; i++)
		nr += w->feat[i].len != 0;
	offset = file_pos(w) + nr * sizeof(sec);
	for (i = 0; i < FEAT_SLOTS; i++) {
		if (!w->feat[i].len)
			continue;
		sec.offset = offset;
		sec.size = w->feat[i].len;
		offset += sec.size;
		err = append(w, &sec, sizeof(sec));
		if (err)
			return err;
	}
	for (i = 0; i < FEAT_SLOTS; i++) {
		err = append(w, w->feat[i].data, w->feat[i].len);
		if (err)
			return err;
	}
	return 0;
}

/**
 * perfdata_writer__finish - complete the file
 * @w: the writer, after __begin_data
 *
 * Writes the last COMPRESSED record (when compressing), EVENT_DESC (built
 * from the attrs), every feature that was set, and the final header with
 * the data size and the feature bitmap. The writer does not fsync, close,
 * rename or unlink.
 *
 * Returns 0, -EBADFD out of order, -ENOMEM, or the -errno of a failed
 * write; after an error the file is unusable.
 */
int perfdata_writer__finish(struct perfdata_writer *w)
{
	struct file_header h;
	uint64_t data_size;
	int err;

	err = check_state(w, WRITER_DATA);
	if (err)
		return err;
	if (w->zc && (err = finish_compression(w)) < 0)
		goto out_fail;
	err = perfdata_writer_features__build_event_desc(w);
	if (err)
		return err;
	data_size = file_pos(w) - w->data_offset;
	err = write_features(w);
	if (err)
		goto out_fail;
	fill_header(w, &h, data_size);
	err = file_output__patch(&w->out, 0, &h, sizeof(h));
	if (err)
		goto out_fail;
	w->state = WRITER_DONE;
	return 0;

out_fail:
	w->state = WRITER_FAILED;
	return err;
}

/**
 * perfdata_writer__size - bytes written so far
 * @w: the writer
 *
 * Counts buffered bytes too; after __finish this is the file size.
 */
uint64_t perfdata_writer__size(const struct perfdata_writer *w)
{
	return w ? file_pos(w) : 0;
}
