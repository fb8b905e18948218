// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_reader: perf.data (file and pipe mode) into a snapshot. The
 * layouts are those tools/perf/util/header.c and session.c read; every
 * size and offset from the input is checked before it is used. The header
 * explains how records without PERF_SAMPLE_IDENTIFIER are handled.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "perf_record.h"
#include "perfdata_reader-internal.h"
#include "snapshot.h"

/**
 * perfdata_reader__fail - note what is wrong and where (the first failure wins)
 * @r: the reader
 * @err: the -errno to return
 * @offset: input offset of the bad part
 * @fmt: printf format of the message
 *
 * Returns @err.
 */
int perfdata_reader__fail(struct perfdata_reader *r, int err, uint64_t offset, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->err[0])
		return err;
	n = snprintf(r->err, sizeof(r->err), "offset %#llx: ", (unsigned long long)offset);
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return err;
}

/**
 * perfdata_reader__new - a reader for one input
 * @fd: perf.data file or pipe stream, read from its start (files) or
 *	its current position (pipes); never closed by the reader
 *
 * Returns the reader or NULL when out of memory.
 */
struct perfdata_reader *perfdata_reader__new(int fd)
{
	struct perfdata_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->buf = malloc(INPUT_BUFFER);
	if (!r->buf) {
		free(r);
		return NULL;
	}
	r->fd = fd;
	r->time_end = UINT64_MAX;
	return r;
}

/**
 * perfdata_reader__delete - free a reader
 * @r: the reader, or NULL
 */
void perfdata_reader__delete(struct perfdata_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nr_attrs; i++)
		free(r->attrs[i].ids);
	free(r->attrs);
	free(r->ids);
	for (size_t i = 0; i < r->nr_names; i++)
		free(r->names[i].name);
	free(r->names);
	for (size_t i = 0; i < r->nr_desc_names; i++)
		free(r->desc_names[i]);
	free(r->desc_names);
	for (size_t i = 0; i < r->nr_build_ids; i++)
		free((char *)r->build_ids[i].name);
	free(r->build_ids);
	perfdata_reader__decompress_free(r);
	tracing_meta__put(r->tracing);
	free(r->buf);
	free(r);
}

/**
 * perfdata_reader__set_time_range - keep only samples in a time range
 * @r: the reader, before __read
 * @start: first time kept (ns of the recording clock)
 * @end: last time kept, inclusive (UINT64_MAX: no end)
 *
 * Side-band records (COMM, MMAP...) are kept whatever their time, as perf
 * script --time does. Returns 0 or -EINVAL if @end < @start.
 */
int perfdata_reader__set_time_range(struct perfdata_reader *r, uint64_t start, uint64_t end)
{
	if (end < start)
		return -EINVAL;
	r->time_start = start;
	r->time_end = end;
	return 0;
}

/**
 * perfdata_reader__set_progress - be told how far __read has got
 * @r: the reader
 * @cb: called after each refill of the input buffer with the input offset
 *      reached and where the records end (0 for a pipe); NULL: none
 * @ctx: passed to @cb
 */
void perfdata_reader__set_progress(struct perfdata_reader *r,
				   void (*cb)(void *ctx, uint64_t done, uint64_t total), void *ctx)
{
	r->progress = cb;
	r->progress_ctx = ctx;
}

/* Refills the input buffer. Returns the bytes added, 0 at the end, or -errno. */
static ssize_t fill(struct perfdata_reader *r)
{
	size_t want;
	ssize_t n;

	if (r->buf_pos) {
		memmove(r->buf, r->buf + r->buf_pos, r->buf_len - r->buf_pos);
		r->buf_len -= r->buf_pos;
		r->buf_pos = 0;
	}
	want = INPUT_BUFFER - r->buf_len;
	if (r->seekable) {
		uint64_t at = r->pos + r->buf_len;

		if (at >= r->limit)
			return 0;
		if (want > r->limit - at)
			want = (size_t)(r->limit - at);
	}
	do {
		if (r->seekable)
			n = pread(r->fd, r->buf + r->buf_len, want, (off_t)(r->pos + r->buf_len));
		else
			n = read(r->fd, r->buf + r->buf_len, want);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	r->buf_len += (size_t)n;
	if (r->progress)
		r->progress(r->progress_ctx, r->pos + r->buf_len, r->seekable ? r->limit : 0);
	return n;
}

/*
 * Copies the next @len input bytes to @dst (NULL skips them). Returns 0,
 * -ENODATA if the input ends first (*@ret_got says how much was there),
 * or -errno.
 */
static int input_take(struct perfdata_reader *r, void *dst, uint64_t len, uint64_t *ret_got)
{
	uint64_t got = 0;
	ssize_t n;

	while (got < len) {
		size_t k = r->buf_len - r->buf_pos;

		if (!k) {
			n = fill(r);
			if (n <= 0) {
				*ret_got = got;
				return n < 0 ? (int)n : -ENODATA;
			}
			continue;
		}
		if (k > len - got)
			k = (size_t)(len - got);
		if (dst)
			memcpy((uint8_t *)dst + got, r->buf + r->buf_pos, k);
		r->buf_pos += k;
		r->pos += k;
		r->stats.bytes += k;
		got += k;
	}
	*ret_got = got;
	return 0;
}

/*
 * The @size bytes that follow a record (tracing data, aux data): into a
 * malloc'ed *@ret, or skipped when @ret is NULL.
 */
static int take_payload(struct perfdata_reader *r, uint64_t size, uint8_t **ret, uint64_t offset,
			const char *what)
{
	uint8_t *buf = NULL, *n;
	uint64_t have = 0, got = 0;
	int err = 0;

	if (r->seekable && size > r->limit - r->pos)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "%s of %llu bytes runs past the end of the input",
					     what, (unsigned long long)size);
	/* Grow as the bytes arrive: a bogus size fails at the end of input, not in malloc. */
	while (!err && have < size) {
		uint64_t step = size - have < PAYLOAD_STEP ? size - have : PAYLOAD_STEP;

		if (ret) {
			n = realloc(buf, (size_t)(have + step));
			if (!n) {
				err = -ENOMEM;
				break;
			}
			buf = n;
		}
		err = input_take(r, ret ? buf + have : NULL, step, &got);
		have += got;
	}
	if (err) {
		free(buf);
		if (err == -ENODATA)
			return perfdata_reader__fail(
				r, -EPROTO, offset,
				"input ends inside %s (%llu of %llu bytes): truncated?", what,
				(unsigned long long)have, (unsigned long long)size);
		return err == -ENOMEM ? err :
					perfdata_reader__fail(r, err, r->pos, "cannot read %s: %s",
							      what, strerror(-err));
	}
	if (ret)
		*ret = buf;
	return 0;
}

static int record_attr(struct perfdata_reader *r, const struct perf_event_header *h,
		       uint64_t offset)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t avail = h->size - sizeof(*h), size;
	struct perf_event_attr attr;
	uint64_t *ids;
	size_t nr;
	int err;

	err = perfdata_reader__load_attr(r, p, avail, &attr, &size, offset);
	if (err)
		return err;
	nr = (avail - size) / 8;
	ids = malloc((nr ? nr : 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	memcpy(ids, p + size, nr * sizeof(*ids));
	err = perfdata_reader__add_attr(r, &attr, ids, nr, offset);
	free(ids);
	return err;
}

static int record_tracing_data(struct perfdata_reader *r, const struct perf_event_header *h,
			       uint64_t offset)
{
	uint8_t *data;
	uint32_t size;
	int err;

	if (h->size < sizeof(*h) + 8)
		return perfdata_reader__fail(r, -EPROTO, offset, "TRACING_DATA record of %u bytes",
					     h->size);
	memcpy(&size, h + 1, sizeof(size));
	if (size > MAX_FEATURE_SIZE)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "TRACING_DATA of %u bytes is too large", size);
	err = take_payload(r, size, &data, offset, "the tracing data");
	if (err)
		return err;
	return perfdata_reader__set_tracing_data(r, data, size, offset + h->size);
}

static int record_user(struct perfdata_reader *r, const struct perf_event_header *h,
		       uint64_t offset)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t len = h->size - sizeof(*h);
	uint64_t v[2];

	r->stats.nr_user_records++;
	if (h->type == REC_HEADER_ATTR)
		return record_attr(r, h, offset);
	if (h->type == REC_HEADER_TRACING_DATA)
		return record_tracing_data(r, h, offset);
	if (h->type == REC_HEADER_BUILD_ID) /* one BUILD_ID entry, laid out as in the feature */
		return perfdata_reader__process_feature(r, FEAT_BUILD_ID, (const uint8_t *)h,
							h->size, offset);
	if (h->type != REC_AUXTRACE && h->type != REC_EVENT_UPDATE && h->type != REC_HEADER_FEATURE)
		return 0;
	/* AUXTRACE: size, offset...; EVENT_UPDATE: type, id...; HEADER_FEATURE: feat_id. */
	if (len < (h->type == REC_HEADER_FEATURE ? 8 : sizeof(v)))
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "record of type %u has only %zu bytes", h->type, len);
	memset(v, 0, sizeof(v));
	memcpy(v, p, len < sizeof(v) ? len : sizeof(v));
	if (h->type == REC_AUXTRACE) /* the aux area data follows the record */
		return take_payload(r, v[0], NULL, offset, "AUXTRACE data");
	if (h->type == REC_EVENT_UPDATE)
		return v[0] == EVENT_UPDATE_NAME ?
			       perfdata_reader__add_name(r, v[1], (const char *)p + 16, len - 16) :
			       0;
	return perfdata_reader__process_feature(r, v[0], p + 8, len - 8, offset);
}

/* The event a kernel record belongs to, and the id it should carry; NULL: none. */
static const struct attr_entry *record_event(const struct perfdata_reader *r,
					     const struct perf_event_header *h, uint64_t *ret_id)
{
	const struct attr_entry *first = &r->attrs[0];
	const struct id_entry *e;
	uint64_t id;

	if (perf_record__id_for(h, first->input_sample_type, &id) == 0 &&
	    (e = perfdata_reader__find_id(r, id))) {
		*ret_id = id;
		return &r->attrs[e->attr];
	}
	/* A lone event owns every record; perf's synthesised side-band has id 0. */
	if (r->nr_attrs == 1 || h->type != PERF_RECORD_SAMPLE) {
		*ret_id = first->canonical_id;
		return first;
	}
	return NULL;
}

/* Gives the record PERF_SAMPLE_IDENTIFIER's layout with @id. */
static int add_identifier(struct perfdata_reader *r, struct perf_event_header *h,
			  const struct attr_entry *e, uint64_t id, uint64_t offset)
{
	uint8_t *p = (uint8_t *)h;
	bool sample = h->type == PERF_RECORD_SAMPLE;
	int pos = sample ? perf_record__id_pos(e->input_sample_type) :
			   perf_record__is_pos(e->input_sample_type);

	/* A SAMPLE's id is word @pos after the header; others' is @pos words from the end. */
	if (pos >= 0 && h->size < sizeof(*h) + (size_t)(pos + sample) * 8)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "record of type %u and %u bytes cannot hold its id",
					     h->type, h->size);
	if (e->input_sample_type & PERF_SAMPLE_IDENTIFIER) {
		memcpy(sample ? p + sizeof(*h) : p + h->size - 8, &id, 8);
		return 0;
	}
	if (h->size > MAX_RECORD - 8)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "record of %u bytes is too large to add an id to",
					     h->size);
	if (sample)
		memmove(p + sizeof(*h) + 8, p + sizeof(*h), h->size - sizeof(*h));
	/* The sample_id_all trailer ends with IDENTIFIER: append it there. */
	memcpy(sample ? p + sizeof(*h) : p + h->size, &id, 8);
	h->size += 8;
	return 0;
}

/**
 * perfdata_reader__record_kernel - take in one kernel record
 * @r: the reader
 * @s: the snapshot, inside its chunk
 * @h: the record, in a buffer with 8 spare bytes after it (an id may be added)
 * @offset: input offset, for messages
 *
 * Gives the record PERF_SAMPLE_IDENTIFIER's layout and appends it, unless
 * no event can be found for it or it is a sample outside the time range.
 * Returns 0 or -errno.
 */
int perfdata_reader__record_kernel(struct perfdata_reader *r, struct snapshot *s,
				   struct perf_event_header *h, uint64_t offset)
{
	const struct attr_entry *e;
	uint64_t id = 0, time;
	int err;

	if (h->size % 8)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "record of type %u has size %u, not a multiple of 8",
					     h->type, h->size);
	if (!r->nr_attrs) {
		if (h->type == PERF_RECORD_SAMPLE)
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "sample before any event attr");
		r->stats.nr_unattributed++;
		return 0;
	}
	/* Without sample_id_all, side-band records have neither id nor time. */
	if (h->type != PERF_RECORD_SAMPLE && !r->attrs[0].attr.sample_id_all) {
		r->stats.nr_unattributed++;
		return 0;
	}
	e = record_event(r, h, &id);
	if (!e) {
		r->stats.nr_unattributed++;
		return 0;
	}
	err = add_identifier(r, h, e, id, offset);
	if (err)
		return err;
	if (h->type == PERF_RECORD_SAMPLE &&
	    perf_record__time(h, e->attr.sample_type, &time) == 0 &&
	    (time < r->time_start || time > r->time_end)) {
		r->stats.nr_out_of_range++;
		return 0;
	}
	err = snapshot__append(s, h, h->size);
	if (err)
		return perfdata_reader__fail(r, err, offset, "cannot keep the record: %s",
					     strerror(-err));
	r->stats.nr_records++;
	r->stats.nr_samples += h->type == PERF_RECORD_SAMPLE;
	return 0;
}

static int read_records(struct perfdata_reader *r, struct snapshot *s)
{
	struct perf_event_header *h = (struct perf_event_header *)r->rec;
	uint64_t offset, got;
	int err;

	for (;;) {
		offset = r->pos;
		err = input_take(r, h, sizeof(*h), &got);
		if (err == -ENODATA && !got)
			return perfdata_reader__decompress_end(r, offset);
		if (err == -ENODATA)
			return perfdata_reader__fail(
				r, -EPROTO, offset,
				"input ends inside a record header: truncated?");
		if (err)
			return perfdata_reader__fail(r, err, offset, "cannot read: %s",
						     strerror(-err));
		if (h->size < sizeof(*h))
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "record size %u is smaller than its header",
						     h->size);
		err = input_take(r, h + 1, h->size - sizeof(*h), &got);
		if (err == -ENODATA)
			return perfdata_reader__fail(
				r, -EPROTO, offset,
				"input ends inside a record of type %u (%llu of %u bytes): truncated?",
				h->type, (unsigned long long)got + sizeof(*h), h->size);
		if (err)
			return perfdata_reader__fail(r, err, offset, "cannot read: %s",
						     strerror(-err));
		if (h->type == REC_COMPRESSED || h->type == REC_COMPRESSED2)
			err = perfdata_reader__decompress(r, s, h, offset);
		else if (h->type >= REC_USER_TYPE_START)
			err = record_user(r, h, offset);
		else
			err = perfdata_reader__record_kernel(r, s, h, offset);
		if (err)
			return err;
	}
}

static void event_name(const struct perfdata_reader *r, size_t idx, char *buf, size_t len)
{
	const struct attr_entry *e = &r->attrs[idx];
	const struct tracing_data_format *f;

	/* The last name given wins: EVENT_UPDATE after EVENT_DESC. */
	for (size_t i = r->nr_names; i-- > 0;)
		for (size_t k = 0; k < e->nr_ids; k++)
			if (r->names[i].id == e->ids[k]) {
				snprintf(buf, len, "%s", r->names[i].name);
				return;
			}
	if (r->nr_desc_names == r->nr_attrs) {
		snprintf(buf, len, "%s", r->desc_names[idx]);
		return;
	}
	f = r->tracing && e->attr.type == PERF_TYPE_TRACEPOINT ?
		    tracing_data__find_id(tracing_meta__info(r->tracing), e->attr.config) :
		    NULL;
	if (f && f->name)
		snprintf(buf, len, "%s:%.*s", f->system, (int)f->name_len, f->name);
	else
		snprintf(buf, len, "type%u:%#llx", e->attr.type,
			 (unsigned long long)e->attr.config);
}

static int add_events(struct perfdata_reader *r, struct snapshot *s)
{
	char name[256];
	int err;

	if (!r->nr_attrs)
		return perfdata_reader__fail(r, -EPROTO, r->pos, "no event attrs in the input");
	for (size_t i = 0; i < r->nr_attrs; i++) {
		const struct attr_entry *e = &r->attrs[i];

		event_name(r, i, name, sizeof(name));
		err = snapshot__add_event(s, &e->attr, name, e->nr_ids ? e->ids : &e->canonical_id,
					  e->nr_ids ? e->nr_ids : 1);
		if (err)
			return perfdata_reader__fail(r, err, r->pos, "cannot add event '%s': %s",
						     name, strerror(-err));
	}
	return 0;
}

static int read_start(struct perfdata_reader *r)
{
	uint64_t hdr[2], got;
	struct stat st;
	int err;

	if (fstat(r->fd, &st))
		return perfdata_reader__fail(r, -errno, 0, "cannot stat the input: %s",
					     strerror(errno));
	r->seekable = S_ISREG(st.st_mode);
	r->file_size = (uint64_t)st.st_size;
	r->limit = r->file_size;
	err = input_take(r, hdr, sizeof(hdr), &got);
	if (err == -ENODATA)
		return got ? perfdata_reader__fail(r, -EPROTO, 0,
						   "%llu bytes are too few for a perf.data header",
						   (unsigned long long)got) :
			     perfdata_reader__fail(r, -ENODATA, 0, "empty input");
	if (err)
		return perfdata_reader__fail(r, err, 0, "cannot read: %s", strerror(-err));
	if (hdr[0] == MAGIC_PERFILE2_BE)
		return perfdata_reader__fail(r, -EPROTONOSUPPORT, 0,
					     "big-endian perf.data is not supported");
	if (hdr[0] == MAGIC_PERFFILE)
		return perfdata_reader__fail(r, -EPROTONOSUPPORT, 0,
					     "perf.data version 1 is not supported");
	if (hdr[0] != MAGIC_PERFILE2)
		return perfdata_reader__fail(r, -EPROTO, 0, "not a perf.data file (bad magic)");
	if (hdr[1] == PIPE_HEADER_SIZE) {
		r->pipe = true;
		return 0;
	}
	if (!r->seekable)
		return perfdata_reader__fail(
			r, -EPROTONOSUPPORT, 8,
			"a file-mode perf.data (header size %llu) cannot be read from a pipe (perf record -o - writes pipe mode)",
			(unsigned long long)hdr[1]);
	r->buf_pos = r->buf_len = 0;
	r->stats.bytes = 0;
	return perfdata_reader__read_file_header(r);
}

/**
 * perfdata_reader__read - read the input into a snapshot
 * @r: the reader
 * @s: a snapshot with its spill file open, not sealed
 *
 * Appends every kernel record as one chunk (samples outside the time
 * range are left out), then adds one event per attr with its name (from
 * EVENT_UPDATE, EVENT_DESC, or the tracepoint's format in TRACING_DATA).
 * Returns 0 or -errno, see perfdata_reader.h; perfdata_reader__error()
 * then says what is wrong and where.
 */
int perfdata_reader__read(struct perfdata_reader *r, struct snapshot *s)
{
	int err, err2;

	r->err[0] = '\0';
	err = read_start(r);
	if (err)
		return err;
	err = snapshot__begin_chunk(s, -1, false);
	if (err)
		return perfdata_reader__fail(r, err, r->pos, "cannot start the snapshot: %s",
					     strerror(-err));
	err = read_records(r, s);
	err2 = snapshot__end_chunk(s);
	if (!err && err2)
		err = perfdata_reader__fail(r, err2, r->pos, "cannot keep the records: %s",
					    strerror(-err2));
	if (!err)
		err = add_events(r, s);
	/* What the writers need to decode its tracepoints travels with it. */
	if (!err)
		snapshot__set_tracing(s, r->tracing);
	return err;
}

/**
 * perfdata_reader__error - what went wrong
 * @r: the reader
 *
 * Returns the message of the first failure, "" if none.
 */
const char *perfdata_reader__error(const struct perfdata_reader *r)
{
	return r->err;
}

/**
 * perfdata_reader__is_pipe - whether the input was a pipe-mode stream
 * @r: the reader, after __read
 *
 * Returns true for a pipe-mode stream (from a pipe or a file).
 */
bool perfdata_reader__is_pipe(const struct perfdata_reader *r)
{
	return r->pipe;
}

/**
 * perfdata_reader__tracing_data - the input's TRACING_DATA, parsed
 * @r: the reader, after __read
 *
 * Returns it (valid while @r lives) or NULL if the input had none.
 */
const struct tracing_data_info *perfdata_reader__tracing_data(const struct perfdata_reader *r)
{
	return r->tracing ? tracing_meta__info(r->tracing) : NULL;
}

/**
 * perfdata_reader__nr_cpus - CPUs online at recording time
 * @r: the reader, after __read
 *
 * Returns the NRCPUS feature's online count, or 0 if the input had none.
 */
uint32_t perfdata_reader__nr_cpus(const struct perfdata_reader *r)
{
	return r->nr_cpus;
}

/**
 * perfdata_reader__nr_build_ids - entries of the input's BUILD_ID feature
 * @r: the reader, after __read
 *
 * Returns their number (0 without the feature).
 */
size_t perfdata_reader__nr_build_ids(const struct perfdata_reader *r)
{
	return r->nr_build_ids;
}

/**
 * perfdata_reader__build_id - one entry of the BUILD_ID feature
 * @r: the reader, after __read
 * @idx: below perfdata_reader__nr_build_ids()
 *
 * Returns the entry, valid while @r is, or NULL past the end.
 */
const struct perfdata_build_id *perfdata_reader__build_id(const struct perfdata_reader *r,
							  size_t idx)
{
	return idx < r->nr_build_ids ? &r->build_ids[idx] : NULL;
}

/**
 * perfdata_reader__host - the recording machine's names
 * @r: the reader, after __read
 *
 * Returns the HOSTNAME, OSRELEASE and ARCH features' strings, each ""
 * where the input had none (or one too long for a utsname field).
 */
const struct perfdata_host *perfdata_reader__host(const struct perfdata_reader *r)
{
	return &r->host;
}

/**
 * perfdata_reader__stats - what the reader kept and left out
 * @r: the reader
 *
 * Returns the counts (valid while @r lives).
 */
const struct perfdata_reader_stats *perfdata_reader__stats(const struct perfdata_reader *r)
{
	return &r->stats;
}
