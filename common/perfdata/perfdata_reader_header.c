// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_reader_header: what a perf.data declares besides its records:
 * the file-mode header, attrs and ids, feature sections (TRACING_DATA,
 * NRCPUS, EVENT_DESC; in pipe mode they come as HEADER_FEATURE records),
 * and event names. Every offset and size is checked against the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf_record.h"
#include "perfdata_reader-internal.h"

static int pread_exact(struct perfdata_reader *r, void *dst, size_t len, uint64_t offset,
		       const char *what)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(r->fd, (uint8_t *)dst + done, len - done, (off_t)(offset + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return perfdata_reader__fail(r, -errno, offset, "cannot read %s: %s", what,
						     strerror(errno));
		if (!n)
			return perfdata_reader__fail(r, -EPROTO, offset + done,
						     "file ends inside %s", what);
		done += (size_t)n;
	}
	r->stats.bytes += len;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * perfdata_reader__find_id - the attr an event id belongs to
 * @r: the reader
 * @id: the id
 *
 * Returns the id table entry or NULL.
 */
const struct id_entry *perfdata_reader__find_id(const struct perfdata_reader *r, uint64_t id)
{
	struct id_entry key = { .id = id };

	return bsearch(&key, r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
}

/* perf refuses events that disagree on where the id is; so does the reader. */
static int check_layout(struct perfdata_reader *r, const struct perf_event_attr *attr,
			uint64_t offset)
{
	const struct perf_event_attr *first;
	uint64_t first_type;

	if (!r->nr_attrs)
		return 0;
	first = &r->attrs[0].attr;
	first_type = r->attrs[0].input_sample_type;
	if (attr->sample_id_all != first->sample_id_all)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "events disagree on sample_id_all");
	if (perf_record__id_pos(attr->sample_type) < 0 || perf_record__id_pos(first_type) < 0)
		return perfdata_reader__fail(
			r, -EPROTO, offset,
			"several events, but samples carry no event id (no PERF_SAMPLE_ID)");
	if (perf_record__id_pos(attr->sample_type) != perf_record__id_pos(first_type) ||
	    (attr->sample_id_all &&
	     perf_record__is_pos(attr->sample_type) != perf_record__is_pos(first_type)))
		return perfdata_reader__fail(
			r, -EPROTO, offset,
			"events carry their id at different places (sample_type %#llx vs %#llx)",
			(unsigned long long)attr->sample_type, (unsigned long long)first_type);
	return 0;
}

/**
 * perfdata_reader__add_attr - declare an event of the input
 * @r: the reader
 * @attr: its attr as recorded (IDENTIFIER is added to the copy kept)
 * @ids: its ids
 * @nr_ids: number of @ids
 * @offset: input offset, for messages
 *
 * Returns 0, -EPROTO if its records cannot be told from the other
 * events', or -ENOMEM.
 */
int perfdata_reader__add_attr(struct perfdata_reader *r, const struct perf_event_attr *attr,
			      const uint64_t *ids, size_t nr_ids, uint64_t offset)
{
	struct attr_entry *attrs, *e;
	struct id_entry *id_table;
	int err;

	err = check_layout(r, attr, offset);
	if (err)
		return err;
	attrs = realloc(r->attrs, (r->nr_attrs + 1) * sizeof(*attrs));
	if (!attrs)
		return -ENOMEM;
	r->attrs = attrs;
	id_table = realloc(r->ids, (r->nr_ids + nr_ids + 1) * sizeof(*id_table));
	if (!id_table)
		return -ENOMEM;
	r->ids = id_table;
	e = &attrs[r->nr_attrs];
	memset(e, 0, sizeof(*e));
	e->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(*ids));
	if (!e->ids)
		return -ENOMEM;
	if (nr_ids)
		memcpy(e->ids, ids, nr_ids * sizeof(*ids));
	e->nr_ids = nr_ids;
	e->attr = *attr;
	e->input_sample_type = attr->sample_type;
	e->attr.sample_type |= PERF_SAMPLE_IDENTIFIER;
	/* Kernel ids count up from 1: the top of the range is free. */
	e->canonical_id = nr_ids ? ids[0] : UINT64_MAX - r->nr_attrs;
	for (size_t i = 0; i < nr_ids; i++)
		r->ids[r->nr_ids++] = (struct id_entry){ .id = ids[i], .attr = r->nr_attrs };
	r->nr_attrs++;
	qsort(r->ids, r->nr_ids, sizeof(*r->ids), cmp_id);
	return 0;
}

/**
 * perfdata_reader__load_attr - copy an on-file attr into ours
 * @r: the reader
 * @p: the attr bytes
 * @avail: bytes at @p that may belong to it
 * @ret: our attr, zero-filled past what the file has
 * @ret_size: set to the attr's size on file (0 there means 64)
 * @offset: input offset, for messages
 *
 * Returns 0 or -EPROTO.
 */
int perfdata_reader__load_attr(struct perfdata_reader *r, const uint8_t *p, size_t avail,
			       struct perf_event_attr *ret, size_t *ret_size, uint64_t offset)
{
	uint32_t size;

	if (avail < ATTR_SIZE_VER0)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "attr of %zu bytes is shorter than 64", avail);
	memcpy(&size, p + 4, sizeof(size));
	if (!size)
		size = ATTR_SIZE_VER0;
	if (size < ATTR_SIZE_VER0 || size > avail)
		return perfdata_reader__fail(r, -EPROTO, offset, "attr size %u outside 64..%zu",
					     size, avail);
	memset(ret, 0, sizeof(*ret));
	memcpy(ret, p, size < sizeof(*ret) ? size : sizeof(*ret));
	ret->size = sizeof(*ret);
	*ret_size = size;
	return 0;
}

/**
 * perfdata_reader__add_name - remember an event name for an id
 * @r: the reader
 * @id: the id
 * @name: the name, NUL-terminated within @len or cut there
 * @len: bytes at @name
 *
 * Returns 0 or -ENOMEM.
 */
int perfdata_reader__add_name(struct perfdata_reader *r, uint64_t id, const char *name, size_t len)
{
	struct name_entry *n = realloc(r->names, (r->nr_names + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->names = n;
	n[r->nr_names].id = id;
	n[r->nr_names].name = strndup(name, strnlen(name, len));
	if (!n[r->nr_names].name)
		return -ENOMEM;
	r->nr_names++;
	return 0;
}

struct cursor {
	const uint8_t *p;
	size_t left;
};

static bool cur_take(struct cursor *c, void *dst, size_t len)
{
	if (c->left < len)
		return false;
	if (dst)
		memcpy(dst, c->p, len);
	c->p += len;
	c->left -= len;
	return true;
}

/* One EVENT_DESC entry: attr, id count, name (u32 length, padded string), ids. */
static int event_desc_entry(struct perfdata_reader *r, struct cursor *c, uint32_t attr_size,
			    uint64_t offset)
{
	const char *name;
	uint32_t nr, len;
	uint64_t id = 0;
	int err;

	if (!cur_take(c, NULL, attr_size) || !cur_take(c, &nr, 4) || !cur_take(c, &len, 4))
		return perfdata_reader__fail(r, -EPROTO, offset, "EVENT_DESC entry cut short");
	name = (const char *)c->p;
	if (!len || !cur_take(c, NULL, len) || !memchr(name, 0, len))
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "EVENT_DESC name of %u bytes is cut or unterminated",
					     len);
	if (nr > c->left / 8)
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "EVENT_DESC has %u ids in %zu bytes", nr, c->left);
	r->desc_names[r->nr_desc_names] = strdup(name);
	if (!r->desc_names[r->nr_desc_names])
		return -ENOMEM;
	r->nr_desc_names++;
	for (uint32_t i = 0; i < nr; i++) {
		cur_take(c, &id, 8);
		err = perfdata_reader__add_name(r, id, name, len);
		if (err)
			return err;
	}
	return 0;
}

static int parse_event_desc(struct perfdata_reader *r, const uint8_t *data, size_t size,
			    uint64_t offset)
{
	struct cursor c = { data, size };
	uint32_t nr, attr_size;
	int err;

	if (r->desc_names)
		return 0; /* the first one wins */
	if (!cur_take(&c, &nr, 4) || !cur_take(&c, &attr_size, 4))
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "EVENT_DESC of %zu bytes is too short", size);
	if (attr_size < ATTR_SIZE_VER0 || nr > c.left / ((size_t)attr_size + 8))
		return perfdata_reader__fail(r, -EPROTO, offset,
					     "EVENT_DESC: %u attrs of %u bytes cannot fit", nr,
					     attr_size);
	r->desc_names = calloc(nr ? nr : 1, sizeof(*r->desc_names));
	if (!r->desc_names)
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		err = event_desc_entry(r, &c, attr_size, offset);
		if (err)
			return err;
	}
	return 0;
}

/**
 * perfdata_reader__set_tracing_data - keep and parse the TRACING_DATA blob
 * @r: the reader
 * @data: the malloc'ed blob; the reader owns it from now on, even on error
 * @size: its size
 * @offset: input offset, for messages
 *
 * Returns 0, -EPROTO or -EPROTONOSUPPORT for a blob it cannot parse, or -ENOMEM.
 */
int perfdata_reader__set_tracing_data(struct perfdata_reader *r, uint8_t *data, size_t size,
				      uint64_t offset)
{
	char msg[256];
	int err;

	tracing_meta__put(r->tracing);
	r->tracing = NULL;
	msg[0] = '\0';
	err = tracing_meta__from_blob(data, size, &r->tracing, msg, sizeof(msg));
	if (err == -ENOMEM)
		return err;
	if (err)
		return perfdata_reader__fail(r, err, offset, "bad TRACING_DATA: %s", msg);
	return 0;
}

/*
 * A perf header string (u32 length, then that many bytes, NUL-padded) into
 * @out; one that does not fit, or is no string, leaves it "" (the name is
 * only informative: no reason to refuse the file).
 */
static void header_string(const uint8_t *data, size_t size, char *out, size_t out_size)
{
	uint32_t len;
	size_t n;

	out[0] = '\0';
	if (size < sizeof(len))
		return;
	memcpy(&len, data, sizeof(len));
	if (len > size - sizeof(len))
		return;
	n = strnlen((const char *)data + sizeof(len), len);
	if (n >= out_size)
		return;
	memcpy(out, data + sizeof(len), n);
	out[n] = '\0';
}

/* perf's build_id_event: header, pid, 20 id bytes, size and 3 reserved, the padded name. */
#define BUILD_ID_HEAD	   36
#define MISC_BUILD_ID_SIZE (1u << 15)

/* Without MISC_BUILD_ID_SIZE (perf before 5.11) the id is 20 bytes less trailing zero words. */
static uint8_t guess_build_id_size(const uint8_t *id)
{
	uint8_t n = 20;

	while (n >= 4 && !memcmp(id + n - 4, "\0\0\0\0", 4))
		n -= 4;
	return n;
}

/*
 * BUILD_ID is informative for a converter: an entry that does not parse
 * ends the list rather than the conversion.
 */
static int parse_build_ids(struct perfdata_reader *r, const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (size - off >= BUILD_ID_HEAD) {
		struct perfdata_build_id *b, e = { 0 };
		uint16_t hsize;
		const char *name;
		char *copy;

		memcpy(&e.misc, data + off + 4, 2);
		memcpy(&hsize, data + off + 6, 2);
		if (hsize <= BUILD_ID_HEAD || hsize > size - off)
			break;
		memcpy(&e.pid, data + off + 8, 4);
		memcpy(e.id, data + off + 12, 20);
		e.size = e.misc & MISC_BUILD_ID_SIZE ? data[off + 32] : guess_build_id_size(e.id);
		e.misc &= (uint16_t)~MISC_BUILD_ID_SIZE;
		name = (const char *)data + off + BUILD_ID_HEAD;
		off += hsize;
		if (!e.size || e.size > 20 || !memchr(name, '\0', hsize - BUILD_ID_HEAD))
			continue;
		copy = strdup(name);
		b = copy ? realloc(r->build_ids, (r->nr_build_ids + 1) * sizeof(*b)) : NULL;
		if (!b) {
			free(copy);
			return -ENOMEM;
		}
		e.name = copy;
		r->build_ids = b;
		r->build_ids[r->nr_build_ids++] = e;
	}
	return 0;
}

/**
 * perfdata_reader__process_feature - take in one feature section
 * @r: the reader
 * @feat: its feature bit (HEADER_TRACING_DATA, HEADER_NRCPUS, ...)
 * @data: its contents (a file section or a pipe HEADER_FEATURE payload)
 * @size: their size
 * @offset: input offset, for messages
 *
 * Features other than TRACING_DATA, NRCPUS, EVENT_DESC, HOSTNAME,
 * OSRELEASE, ARCH and CLOCK_DATA are ignored.
 * Returns 0 or -errno.
 */
int perfdata_reader__process_feature(struct perfdata_reader *r, uint64_t feat, const uint8_t *data,
				     size_t size, uint64_t offset)
{
	uint32_t cpus[2];
	uint8_t *copy;

	switch (feat) {
	case FEAT_TRACING_DATA:
		copy = malloc(size ? size : 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, data, size);
		return perfdata_reader__set_tracing_data(r, copy, size, offset);
	case FEAT_NRCPUS:
		if (size < sizeof(cpus))
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "NRCPUS of %zu bytes is too short", size);
		memcpy(cpus, data, sizeof(cpus));
		/* Consumers size per-CPU state from it: a wild count must not get through. */
		if (cpus[0] > MAX_NR_CPUS || cpus[1] > MAX_NR_CPUS)
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "NRCPUS claims %u/%u CPUs (at most %u)",
						     cpus[0], cpus[1], MAX_NR_CPUS);
		r->nr_cpus = cpus[1] ? cpus[1] : cpus[0];
		return 0;
	case FEAT_EVENT_DESC:
		return parse_event_desc(r, data, size, offset);
	case FEAT_HOSTNAME:
		header_string(data, size, r->host.hostname, sizeof(r->host.hostname));
		return 0;
	case FEAT_OSRELEASE:
		header_string(data, size, r->host.release, sizeof(r->host.release));
		return 0;
	case FEAT_ARCH:
		header_string(data, size, r->host.machine, sizeof(r->host.machine));
		return 0;
	case FEAT_BUILD_ID:
		return parse_build_ids(r, data, size);
	case FEAT_CLOCK_DATA: /* u32 version (1), u32 clockid, u64 wall-clock ns, u64 clockid ns */
		if (size < 24 || data[0] != 1)
			return 0; /* informative only: a layout we do not know is skipped */
		memcpy(&r->host.clockid, data + 4, 4);
		memcpy(&r->host.realtime_ref_ns, data + 8, 8);
		memcpy(&r->host.clock_ref_ns, data + 16, 8);
		r->host.has_clock_ref = true;
		return 0;
	default:
		return 0;
	}
}

static int check_section(struct perfdata_reader *r, const struct section *sec, const char *what,
			 uint64_t offset)
{
	if (sec->offset > r->file_size || sec->size > r->file_size - sec->offset)
		return perfdata_reader__fail(
			r, -EPROTO, offset,
			"%s section [%#llx, +%llu) runs past the end of the file (%llu bytes): truncated?",
			what, (unsigned long long)sec->offset, (unsigned long long)sec->size,
			(unsigned long long)r->file_size);
	return 0;
}

static int read_file_attr(struct perfdata_reader *r, const struct file_header *fh, uint8_t *buf,
			  uint64_t offset)
{
	size_t attr_bytes = (size_t)fh->attr_size - sizeof(struct section), size;
	struct perf_event_attr attr;
	struct section ids;
	uint64_t *id_buf;
	int err;

	err = pread_exact(r, buf, (size_t)fh->attr_size, offset, "an attr");
	if (!err)
		err = perfdata_reader__load_attr(r, buf, attr_bytes, &attr, &size, offset);
	if (err)
		return err;
	memcpy(&ids, buf + attr_bytes, sizeof(ids));
	err = check_section(r, &ids, "ids", offset + attr_bytes);
	if (err)
		return err;
	if (ids.size % 8)
		return perfdata_reader__fail(r, -EPROTO, offset + attr_bytes,
					     "ids section of %llu bytes",
					     (unsigned long long)ids.size);
	id_buf = malloc(ids.size ? (size_t)ids.size : 1);
	if (!id_buf)
		return -ENOMEM;
	err = pread_exact(r, id_buf, (size_t)ids.size, ids.offset, "the ids of an attr");
	if (!err)
		err = perfdata_reader__add_attr(r, &attr, id_buf, (size_t)(ids.size / 8), offset);
	free(id_buf);
	return err;
}

static int read_file_attrs(struct perfdata_reader *r, const struct file_header *fh)
{
	uint64_t nr;
	uint8_t *buf;
	int err = 0;

	if (fh->attr_size < ATTR_SIZE_VER0 + sizeof(struct section) ||
	    fh->attr_size > MAX_ATTR_ENTRY)
		return perfdata_reader__fail(r, -EPROTO, 16,
					     "attr entry size %llu is not in 80..%u",
					     (unsigned long long)fh->attr_size, MAX_ATTR_ENTRY);
	err = check_section(r, &fh->attrs, "attrs", 24);
	if (err)
		return err;
	if (fh->attrs.size % fh->attr_size)
		return perfdata_reader__fail(
			r, -EPROTO, 24, "attrs section of %llu bytes is no multiple of %llu",
			(unsigned long long)fh->attrs.size, (unsigned long long)fh->attr_size);
	nr = fh->attrs.size / fh->attr_size;
	if (!nr)
		return perfdata_reader__fail(r, -EPROTO, 24, "no event attrs");
	buf = malloc((size_t)fh->attr_size);
	if (!buf)
		return -ENOMEM;
	for (uint64_t i = 0; i < nr && !err; i++)
		err = read_file_attr(r, fh, buf, fh->attrs.offset + i * fh->attr_size);
	free(buf);
	return err;
}

static int read_file_feature(struct perfdata_reader *r, uint64_t feat, const struct section *sec,
			     uint64_t table_offset)
{
	uint8_t *data;
	int err;

	if (feat != FEAT_TRACING_DATA && feat != FEAT_BUILD_ID && feat != FEAT_NRCPUS &&
	    feat != FEAT_EVENT_DESC && feat != FEAT_HOSTNAME && feat != FEAT_OSRELEASE &&
	    feat != FEAT_ARCH && feat != FEAT_CLOCK_DATA)
		return 0;
	err = check_section(r, sec, "feature", table_offset);
	if (err)
		return err;
	if (sec->size > MAX_FEATURE_SIZE)
		return perfdata_reader__fail(
			r, -EPROTO, table_offset, "feature %llu of %llu bytes is too large",
			(unsigned long long)feat, (unsigned long long)sec->size);
	data = malloc(sec->size ? (size_t)sec->size : 1);
	if (!data)
		return -ENOMEM;
	err = pread_exact(r, data, (size_t)sec->size, sec->offset, "a feature section");
	if (!err)
		err = perfdata_reader__process_feature(r, feat, data, (size_t)sec->size,
						       sec->offset);
	free(data);
	return err;
}

/* The section table right after the data, one entry per feature bit set. */
static int read_file_features(struct perfdata_reader *r, const struct file_header *fh)
{
	struct section table = { .offset = fh->data.offset + fh->data.size };
	struct section sec;
	uint64_t at;
	int err;

	for (int bit = 0; bit < FEAT_BITS; bit++)
		table.size += (fh->features[bit / 64] >> (bit % 64) & 1) * sizeof(sec);
	err = check_section(r, &table, "feature table", 0x48);
	at = table.offset;
	for (int bit = 0; bit < FEAT_BITS && !err; bit++) {
		if (!(fh->features[bit / 64] >> (bit % 64) & 1))
			continue;
		err = pread_exact(r, &sec, sizeof(sec), at, "the feature table");
		if (!err)
			err = read_file_feature(r, (uint64_t)bit, &sec, at);
		at += sizeof(sec);
	}
	return err;
}

/**
 * perfdata_reader__read_file_header - read a file-mode header and what it points to
 * @r: the reader, on a seekable input
 *
 * Reads the attrs, ids and features, then sets the input position and
 * limit to the data section. Returns 0 or -errno.
 */
int perfdata_reader__read_file_header(struct perfdata_reader *r)
{
	struct file_header fh;
	int err;

	err = pread_exact(r, &fh, sizeof(fh), 0, "the file header");
	if (err)
		return err;
	if (fh.size != sizeof(fh))
		return perfdata_reader__fail(r, -EPROTONOSUPPORT, 8,
					     "header size %llu is neither 16 (pipe) nor %zu",
					     (unsigned long long)fh.size, sizeof(fh));
	err = read_file_attrs(r, &fh);
	if (!err)
		err = check_section(r, &fh.data, "data", 40);
	if (!err && !fh.data.size)
		return perfdata_reader__fail(r, -EPROTO, 40,
					     "empty data section (did perf record finish?)");
	if (!err)
		err = read_file_features(r, &fh);
	if (err)
		return err;
	r->pos = fh.data.offset;
	r->limit = fh.data.offset + fh.data.size;
	return 0;
}
