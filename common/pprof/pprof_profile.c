// SPDX-License-Identifier: GPL-2.0-only
/*
 * pprof_profile: see pprof_profile.h. Each table keeps its messages
 * already encoded, as the Profile's repeated fields; the file is their
 * concatenation (a message's fields may come in any order), gzipped.
 *
 * A sample's key is its own encoding without the values: the packed
 * location ids and the labels. Equal keys are the same sample.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "intern.h"
#include "pb.h"
#include "pprof_profile.h"

/* Profile */
#define F_SAMPLE_TYPE	      1
#define F_SAMPLE	      2
#define F_MAPPING	      3
#define F_LOCATION	      4
#define F_FUNCTION	      5
#define F_STRING_TABLE	      6
#define F_TIME_NANOS	      9
#define F_DURATION_NANOS      10
#define F_PERIOD_TYPE	      11
#define F_PERIOD	      12
#define F_COMMENT	      13
#define F_DEFAULT_SAMPLE_TYPE 14

#define GZIP_WINDOW_BITS (15 + 16)
#define WRITE_CHUNK	 (256u << 10)

struct sample_key {
	size_t offset, len; /* in keys */
};

struct pprof_profile {
	int err;
	struct intern_table strings, mappings, functions, locations, samples;
	struct pb_buf strtab, types, mapping_msgs, function_msgs, location_msgs, comments;
	size_t nr_types;
	/* samples: key and nr_types values each, by id - 1 */
	struct pb_buf keys;
	struct sample_key *sample_keys;
	int64_t *values;
	size_t nr_samples, cap_samples;
	struct pb_buf scratch;
	int64_t time_nanos, duration_nanos, period;
	uint64_t period_type, period_unit, default_type;
};

static void fail(struct pprof_profile *p, int err)
{
	if (!p->err)
		p->err = err;
}

struct pprof_profile *pprof_profile__new(void)
{
	struct pprof_profile *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pprof_profile__string(p, ""); /* index 0, as profile.proto requires */
	if (p->err) {
		pprof_profile__delete(p);
		return NULL;
	}
	return p;
}

void pprof_profile__delete(struct pprof_profile *p)
{
	if (!p)
		return;
	intern_table__fini(&p->strings);
	intern_table__fini(&p->mappings);
	intern_table__fini(&p->functions);
	intern_table__fini(&p->locations);
	intern_table__fini(&p->samples);
	pb_buf__fini(&p->strtab);
	pb_buf__fini(&p->types);
	pb_buf__fini(&p->mapping_msgs);
	pb_buf__fini(&p->function_msgs);
	pb_buf__fini(&p->location_msgs);
	pb_buf__fini(&p->comments);
	pb_buf__fini(&p->keys);
	pb_buf__fini(&p->scratch);
	free(p->sample_keys);
	free(p->values);
	free(p);
}

/* The id of @key in @t (from 1), *is_new if just added; 0 on error. */
static uint64_t intern(struct pprof_profile *p, struct intern_table *t, const void *key, size_t len,
		       bool *is_new)
{
	uint64_t id;

	*is_new = false;
	if (p->err)
		return 0;
	id = intern_table__get(t, key, len, is_new);
	if (!id)
		fail(p, -ENOMEM);
	return id;
}

/* A table's new message in @b is complete: a sticky error in @b is the profile's. */
static void check(struct pprof_profile *p, const struct pb_buf *b)
{
	if (b->err)
		fail(p, b->err);
}

uint64_t pprof_profile__string(struct pprof_profile *p, const char *s)
{
	size_t len = strlen(s);
	bool is_new;
	uint64_t id = intern(p, &p->strings, s, len, &is_new);

	if (!id)
		return 0;
	if (is_new) {
		pb__bytes(&p->strtab, F_STRING_TABLE, s, len);
		check(p, &p->strtab);
	}
	return id - 1;
}

int pprof_profile__add_sample_type(struct pprof_profile *p, const char *type, const char *unit)
{
	uint64_t t = pprof_profile__string(p, type), u = pprof_profile__string(p, unit);
	pb_nested n;

	if (!p->err && p->nr_samples)
		fail(p, -EINVAL);
	if (p->err)
		return p->err;
	n = pb__begin(&p->types, F_SAMPLE_TYPE);
	pb__varint(&p->types, 1, t);
	pb__varint(&p->types, 2, u);
	pb__end(&p->types, n);
	check(p, &p->types);
	return p->err ? p->err : (int)p->nr_types++;
}

uint64_t pprof_profile__mapping(struct pprof_profile *p, const struct pprof_mapping *m)
{
	uint64_t key[5] = {
		m->start,
		m->limit,
		m->offset,
		pprof_profile__string(p, m->filename ? m->filename : ""),
		pprof_profile__string(p, m->build_id ? m->build_id : ""),
	};
	struct pb_buf *b = &p->mapping_msgs;
	bool is_new;
	uint64_t id = intern(p, &p->mappings, key, sizeof(key), &is_new);
	pb_nested n;

	if (!is_new)
		return id;
	n = pb__begin(b, F_MAPPING);
	pb__varint(b, 1, id);
	pb__varint(b, 2, m->start);
	pb__varint(b, 3, m->limit);
	pb__varint(b, 4, m->offset);
	pb__varint(b, 5, key[3]);
	if (key[4])
		pb__varint(b, 6, key[4]);
	/*
	 * has_functions: the names are resolved already, as far as they can
	 * be; pprof must not look for the files again (on another machine
	 * that names nothing, or the wrong build, and warns for every one).
	 */
	pb__varint(b, 7, 1);
	pb__end(b, n);
	check(p, b);
	return p->err ? 0 : id;
}

static uint64_t function(struct pprof_profile *p, const char *name)
{
	uint64_t name_idx = pprof_profile__string(p, name);
	struct pb_buf *b = &p->function_msgs;
	bool is_new;
	uint64_t id = intern(p, &p->functions, &name_idx, sizeof(name_idx), &is_new);
	pb_nested n;

	if (!is_new)
		return id;
	n = pb__begin(b, F_FUNCTION);
	pb__varint(b, 1, id);
	pb__varint(b, 2, name_idx);
	pb__varint(b, 3, name_idx); /* system_name: symbols are not demangled */
	pb__end(b, n);
	check(p, b);
	return p->err ? 0 : id;
}

uint64_t pprof_profile__location(struct pprof_profile *p, uint64_t mapping_id, uint64_t address,
				 const char *function_name)
{
	uint64_t key[3] = { mapping_id, address,
			    function_name ? pprof_profile__string(p, function_name) : 0 };
	struct pb_buf *b = &p->location_msgs;
	uint64_t id, fn = 0;
	bool is_new;
	pb_nested n, l;

	id = intern(p, &p->locations, key, sizeof(key), &is_new);
	if (!is_new)
		return id;
	if (key[2])
		fn = function(p, function_name);
	n = pb__begin(b, F_LOCATION);
	pb__varint(b, 1, id);
	if (mapping_id)
		pb__varint(b, 2, mapping_id);
	pb__varint(b, 3, address);
	if (fn) {
		l = pb__begin(b, 4);
		pb__varint(b, 1, fn);
		pb__end(b, l);
	}
	pb__end(b, n);
	check(p, b);
	return p->err ? 0 : id;
}

static int grow_samples(struct pprof_profile *p)
{
	size_t cap = p->cap_samples ? p->cap_samples * 2 : 256;
	struct sample_key *k;
	int64_t *v;

	k = realloc(p->sample_keys, cap * sizeof(*k));
	if (!k)
		return -ENOMEM;
	p->sample_keys = k;
	v = realloc(p->values, cap * (p->nr_types ? p->nr_types : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->values = v;
	p->cap_samples = cap;
	return 0;
}

int pprof_profile__add_sample(struct pprof_profile *p, const uint64_t *locations, size_t nr,
			      const struct pprof_label *labels, size_t nr_labels,
			      const int64_t *values)
{
	struct pb_buf *k = &p->scratch;
	pb_nested n;
	uint64_t id;
	bool is_new;
	int64_t *v;

	if (!p->err && !p->nr_types)
		fail(p, -EINVAL);
	if (p->err)
		return p->err;
	pb_buf__reset(k);
	if (nr) {
		n = pb__begin(k, 1); /* location_id, packed */
		for (size_t i = 0; i < nr; i++)
			pb__varint_raw(k, locations[i]);
		pb__end(k, n);
	}
	for (size_t i = 0; i < nr_labels; i++) {
		uint64_t key = pprof_profile__string(p, labels[i].key);
		uint64_t str = labels[i].str ? pprof_profile__string(p, labels[i].str) : 0;

		n = pb__begin(k, 3);
		pb__varint(k, 1, key);
		if (labels[i].str)
			pb__varint(k, 2, str);
		else
			pb__varint(k, 3, (uint64_t)labels[i].num);
		pb__end(k, n);
	}
	check(p, k);
	id = p->err ? 0 : intern(p, &p->samples, k->data, k->len, &is_new);
	if (!id)
		return p->err;
	if (is_new) {
		if (p->nr_samples == p->cap_samples && grow_samples(p) < 0) {
			fail(p, -ENOMEM);
			return p->err;
		}
		p->sample_keys[p->nr_samples] = (struct sample_key){ p->keys.len, k->len };
		pb__raw(&p->keys, k->data, k->len);
		check(p, &p->keys);
		if (p->err)
			return p->err;
		memset(p->values + p->nr_samples * p->nr_types, 0,
		       p->nr_types * sizeof(*p->values));
		p->nr_samples++;
	}
	v = p->values + (id - 1) * p->nr_types;
	for (size_t i = 0; i < p->nr_types; i++)
		v[i] += values[i];
	return 0;
}

void pprof_profile__set_time(struct pprof_profile *p, int64_t time_nanos, int64_t duration_nanos)
{
	p->time_nanos = time_nanos;
	p->duration_nanos = duration_nanos;
}

void pprof_profile__set_period(struct pprof_profile *p, const char *type, const char *unit,
			       int64_t period)
{
	p->period_type = pprof_profile__string(p, type);
	p->period_unit = pprof_profile__string(p, unit);
	p->period = period;
}

void pprof_profile__set_default_sample_type(struct pprof_profile *p, const char *type)
{
	p->default_type = pprof_profile__string(p, type);
}

void pprof_profile__add_comment(struct pprof_profile *p, const char *comment)
{
	uint64_t idx = pprof_profile__string(p, comment);

	if (p->err)
		return;
	pb__varint(&p->comments, F_COMMENT, idx);
	check(p, &p->comments);
}

void pprof_profile__stats(const struct pprof_profile *p, struct pprof_profile_stats *ret)
{
	ret->nr_samples = p->nr_samples;
	ret->nr_locations = p->locations.nr;
	ret->nr_functions = p->functions.nr;
	ret->nr_mappings = p->mappings.nr;
}

int pprof_profile__encode(struct pprof_profile *p, uint8_t **ret_buf, size_t *ret_len)
{
	struct pb_buf out = { 0 };
	pb_nested n, pv;

	if (p->err)
		return p->err;
	pb__raw(&out, p->types.data, p->types.len);
	for (size_t i = 0; i < p->nr_samples; i++) {
		const struct sample_key *k = &p->sample_keys[i];
		const int64_t *v = p->values + i * p->nr_types;

		n = pb__begin(&out, F_SAMPLE);
		pb__raw(&out, p->keys.data + k->offset, k->len);
		/* value: packed, after the key's fields (field order is free) */
		pv = pb__begin(&out, 2);
		for (size_t t = 0; t < p->nr_types; t++)
			pb__varint_raw(&out, (uint64_t)v[t]);
		pb__end(&out, pv);
		pb__end(&out, n);
	}
	pb__raw(&out, p->mapping_msgs.data, p->mapping_msgs.len);
	pb__raw(&out, p->location_msgs.data, p->location_msgs.len);
	pb__raw(&out, p->function_msgs.data, p->function_msgs.len);
	pb__raw(&out, p->strtab.data, p->strtab.len);
	if (p->time_nanos)
		pb__varint(&out, F_TIME_NANOS, (uint64_t)p->time_nanos);
	pb__varint(&out, F_DURATION_NANOS, (uint64_t)p->duration_nanos);
	if (p->period_type || p->period_unit) {
		n = pb__begin(&out, F_PERIOD_TYPE);
		pb__varint(&out, 1, p->period_type);
		pb__varint(&out, 2, p->period_unit);
		pb__end(&out, n);
		pb__varint(&out, F_PERIOD, (uint64_t)p->period);
	}
	pb__raw(&out, p->comments.data, p->comments.len);
	if (p->default_type)
		pb__varint(&out, F_DEFAULT_SAMPLE_TYPE, p->default_type);
	if (out.err) {
		int err = out.err;

		pb_buf__fini(&out);
		return err;
	}
	*ret_buf = out.data;
	*ret_len = out.len;
	return 0;
}

static int write_all(int fd, const uint8_t *buf, size_t len)
{
	while (len) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

int pprof_profile__write(struct pprof_profile *p, int fd, uint64_t *ret_bytes)
{
	uint8_t *buf = NULL, *chunk = NULL;
	uint64_t bytes = 0;
	z_stream z = { 0 };
	size_t len;
	int r, zr;

	r = pprof_profile__encode(p, &buf, &len);
	if (r < 0)
		return r;
	chunk = malloc(WRITE_CHUNK);
	if (!chunk || deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, GZIP_WINDOW_BITS, 8,
				   Z_DEFAULT_STRATEGY) != Z_OK) {
		free(chunk);
		free(buf);
		return -ENOMEM;
	}
	z.next_in = buf;
	/* one deflate call takes at most 4 GiB in */
	if (len > UINT32_MAX)
		r = -E2BIG;
	z.avail_in = (uInt)len;
	do {
		z.next_out = chunk;
		z.avail_out = WRITE_CHUNK;
		zr = r ? Z_STREAM_ERROR : deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR) {
			if (!r)
				r = -EIO;
			break;
		}
		r = write_all(fd, chunk, WRITE_CHUNK - z.avail_out);
		bytes += WRITE_CHUNK - z.avail_out;
	} while (!r && zr != Z_STREAM_END);
	deflateEnd(&z);
	free(chunk);
	free(buf);
	if (!r && ret_bytes)
		*ret_bytes = bytes;
	return r;
}
