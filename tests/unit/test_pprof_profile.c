// SPDX-License-Identifier: GPL-2.0-only
/*
 * pprof_profile: the encoding read back field by field with a reader of
 * its own (profile.proto's numbers), and the gzipped file inflated back to
 * the same bytes; snapshot_pprof: a snapshot's samples as a profile.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "pprof_profile.h"
#include "snapshot.h"
#include "snapshot_pprof.h"
#include "test_records.h"

#define MAX_ITEMS 64

/* One field of a message: a varint or a length-delimited body. */
struct field {
	uint32_t num;
	uint32_t wire;
	uint64_t v;
	const uint8_t *data;
	size_t len;
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		assert_true(shift < 63);
	}
	fail_msg("varint runs past the message");
	return 0;
}

/* The next field of [*p, end); false at the end. */
static bool next(const uint8_t **p, const uint8_t *end, struct field *f)
{
	uint64_t key;

	if (*p >= end)
		return false;
	key = varint(p, end);
	f->num = (uint32_t)(key >> 3);
	f->wire = (uint32_t)(key & 7);
	if (f->wire == 0) {
		f->v = varint(p, end);
	} else if (f->wire == 2) {
		f->len = (size_t)varint(p, end);
		assert_true(f->len <= (size_t)(end - *p));
		f->data = *p;
		*p += f->len;
	} else {
		fail_msg("wire type %u: the encoder writes only varints and bytes", f->wire);
	}
	return true;
}

/* The varint field @num of a message, or @def. */
static uint64_t get(const uint8_t *data, size_t len, uint32_t num, uint64_t def)
{
	const uint8_t *p = data;
	struct field f;

	while (next(&p, data + len, &f))
		if (f.num == num && f.wire == 0)
			def = f.v;
	return def;
}

/* The bytes field @num of a message (NULL, 0 if none). */
static const uint8_t *get_bytes(const uint8_t *data, size_t len, uint32_t num, size_t *ret_len)
{
	const uint8_t *p = data, *r = NULL;
	struct field f;

	*ret_len = 0;
	while (next(&p, data + len, &f))
		if (f.num == num && f.wire == 2) {
			r = f.data;
			*ret_len = f.len;
		}
	return r;
}

/* The decoded parts of a Profile the test looks at. */
struct decoded {
	char strings[MAX_ITEMS][64];
	size_t nr_strings;
	struct field types[MAX_ITEMS], samples[MAX_ITEMS], mappings[MAX_ITEMS],
		locations[MAX_ITEMS], functions[MAX_ITEMS];
	size_t nr_types, nr_samples, nr_mappings, nr_locations, nr_functions;
	uint64_t time_nanos, duration_nanos, period, default_type, nr_comments, comment;
	struct field period_type;
};

static void decode(const uint8_t *buf, size_t len, struct decoded *d)
{
	const uint8_t *p = buf;
	struct field f;

	memset(d, 0, sizeof(*d));
	while (next(&p, buf + len, &f)) {
		switch (f.num) {
		case 1:
			d->types[d->nr_types++] = f;
			break;
		case 2:
			d->samples[d->nr_samples++] = f;
			break;
		case 3:
			d->mappings[d->nr_mappings++] = f;
			break;
		case 4:
			d->locations[d->nr_locations++] = f;
			break;
		case 5:
			d->functions[d->nr_functions++] = f;
			break;
		case 6:
			assert_true(f.len < sizeof(d->strings[0]));
			memcpy(d->strings[d->nr_strings], f.data, f.len);
			d->strings[d->nr_strings++][f.len] = '\0';
			break;
		case 9:
			d->time_nanos = f.v;
			break;
		case 10:
			d->duration_nanos = f.v;
			break;
		case 11:
			d->period_type = f;
			break;
		case 12:
			d->period = f.v;
			break;
		case 13:
			d->nr_comments++;
			d->comment = f.v;
			break;
		case 14:
			d->default_type = f.v;
			break;
		default:
			fail_msg("unexpected Profile field %u", f.num);
		}
		assert_true(d->nr_strings < MAX_ITEMS && d->nr_samples < MAX_ITEMS &&
			    d->nr_locations < MAX_ITEMS);
	}
}

static const char *str(const struct decoded *d, uint64_t idx)
{
	assert_true(idx < d->nr_strings);
	return d->strings[idx];
}

/* The message of @id among @v (field 1 is each one's id). */
static const struct field *by_id(const struct field *v, size_t nr, uint64_t id)
{
	for (size_t i = 0; i < nr; i++)
		if (get(v[i].data, v[i].len, 1, 0) == id)
			return &v[i];
	fail_msg("no message of id %llu", (unsigned long long)id);
	return NULL;
}

/* The packed varints of field @num of @m, into @out; returns how many. */
static size_t packed(const struct field *m, uint32_t num, uint64_t *out, size_t max)
{
	size_t len, nr = 0;
	const uint8_t *p = get_bytes(m->data, m->len, num, &len), *end = p + len;

	while (p && p < end && nr < max)
		out[nr++] = varint(&p, end);
	return nr;
}

/* The name of the function at location @id ("" if unnamed). */
static const char *location_name(const struct decoded *d, uint64_t id)
{
	const struct field *loc = by_id(d->locations, d->nr_locations, id), *fn;
	size_t len;
	const uint8_t *line = get_bytes(loc->data, loc->len, 4, &len);

	if (!line)
		return "";
	fn = by_id(d->functions, d->nr_functions, get(line, len, 1, 0));
	return str(d, get(fn->data, fn->len, 2, 0));
}

/* The string label @key of sample @s, or NULL; its number in *ret_num. */
static const char *label(const struct decoded *d, const struct field *s, const char *key,
			 int64_t *ret_num)
{
	const uint8_t *p = s->data;
	struct field f;

	while (next(&p, s->data + s->len, &f)) {
		if (f.num != 3)
			continue;
		if (strcmp(str(d, get(f.data, f.len, 1, 0)), key))
			continue;
		*ret_num = (int64_t)get(f.data, f.len, 3, 0);
		return str(d, get(f.data, f.len, 2, 0));
	}
	fail_msg("no label %s", key);
	return NULL;
}

/* A profile as snapshot_pprof makes one: two types, a kernel and a user frame. */
static struct pprof_profile *sample_profile(uint64_t *ret_locs)
{
	struct pprof_profile *p = pprof_profile__new();
	struct pprof_mapping user = { .start = 0x400000,
				      .limit = 0x401000,
				      .offset = 0x1000,
				      .filename = "/usr/bin/spin",
				      .build_id = "0123456789abcdef0123456789abcdef01234567" };
	struct pprof_mapping kernel = { .start = 0xffffffff81000000,
					.limit = 0xffffffff82000000,
					.filename = "[kernel.kallsyms]" };
	uint64_t um, km;

	assert_non_null(p);
	assert_int_equal(pprof_profile__add_sample_type(p, "cpu-clock", "count"), 0);
	assert_int_equal(pprof_profile__add_sample_type(p, "cpu-clock_period", "nanoseconds"), 1);
	um = pprof_profile__mapping(p, &user);
	km = pprof_profile__mapping(p, &kernel);
	assert_true(um && km && um != km);
	assert_int_equal(pprof_profile__mapping(p, &user), um);
	ret_locs[0] = pprof_profile__location(p, km, 0xffffffff81234567, "vfs_read");
	ret_locs[1] = pprof_profile__location(p, um, 0x400123, "main");
	ret_locs[2] = pprof_profile__location(p, um, 0x400456, NULL);
	assert_true(ret_locs[0] && ret_locs[1] && ret_locs[2]);
	assert_int_equal(pprof_profile__location(p, um, 0x400123, "main"), ret_locs[1]);
	return p;
}

static void test_encode(void **state)
{
	struct pprof_label labels[] = {
		{ .key = "pid", .num = 42 },
		{ .key = "comm", .str = "spin" },
		{ .key = "cpu", .num = 3 },
	};
	int64_t v1[] = { 1, 1000000 }, v2[] = { 1, 1000500 };
	uint64_t locs[3], ids[8];
	struct pprof_profile *p;
	struct decoded d;
	const struct field *m;
	uint8_t *buf;
	size_t len, n;
	int64_t num;

	(void)state;
	p = sample_profile(locs);
	/* the same stack and labels twice: one sample, summed */
	assert_int_equal(pprof_profile__add_sample(p, locs, 3, labels, 3, v1), 0);
	assert_int_equal(pprof_profile__add_sample(p, locs, 3, labels, 3, v2), 0);
	labels[2].num = 4; /* another CPU: another sample */
	assert_int_equal(pprof_profile__add_sample(p, locs + 1, 2, labels, 3, v1), 0);
	assert_int_equal(pprof_profile__add_sample_type(p, "late", "count"), -EINVAL);
	pprof_profile__delete(p);

	p = sample_profile(locs);
	labels[2].num = 3;
	assert_int_equal(pprof_profile__add_sample(p, locs, 3, labels, 3, v1), 0);
	assert_int_equal(pprof_profile__add_sample(p, locs, 3, labels, 3, v2), 0);
	labels[2].num = 4;
	assert_int_equal(pprof_profile__add_sample(p, locs + 1, 2, labels, 3, v1), 0);
	pprof_profile__set_time(p, 1700000000123456789, 2500000000);
	pprof_profile__set_period(p, "cpu-clock", "nanoseconds", 1001001);
	pprof_profile__set_default_sample_type(p, "cpu-clock");
	pprof_profile__add_comment(p, "perfsnapd");
	assert_int_equal(pprof_profile__encode(p, &buf, &len), 0);
	decode(buf, len, &d);

	assert_true(d.nr_strings > 0);
	assert_string_equal(d.strings[0], "");
	assert_int_equal(d.nr_types, 2);
	assert_string_equal(str(&d, get(d.types[0].data, d.types[0].len, 1, 0)), "cpu-clock");
	assert_string_equal(str(&d, get(d.types[0].data, d.types[0].len, 2, 0)), "count");
	assert_string_equal(str(&d, get(d.types[1].data, d.types[1].len, 1, 0)),
			    "cpu-clock_period");
	assert_string_equal(str(&d, get(d.types[1].data, d.types[1].len, 2, 0)), "nanoseconds");

	assert_int_equal(d.nr_samples, 2);
	n = packed(&d.samples[0], 1, ids, 8);
	assert_int_equal(n, 3);
	assert_string_equal(location_name(&d, ids[0]), "vfs_read"); /* leaf first */
	assert_string_equal(location_name(&d, ids[1]), "main");
	assert_string_equal(location_name(&d, ids[2]), "");
	n = packed(&d.samples[0], 2, ids, 8);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 2000500);
	assert_string_equal(label(&d, &d.samples[0], "comm", &num), "spin");
	label(&d, &d.samples[0], "pid", &num);
	assert_int_equal(num, 42);
	label(&d, &d.samples[0], "cpu", &num);
	assert_int_equal(num, 3);
	label(&d, &d.samples[1], "cpu", &num);
	assert_int_equal(num, 4);
	assert_int_equal(packed(&d.samples[1], 1, ids, 8), 2);
	assert_int_equal(packed(&d.samples[1], 2, ids, 8), 2);
	assert_int_equal(ids[0], 1);

	assert_int_equal(d.nr_mappings, 2);
	assert_int_equal(d.nr_locations, 3);
	assert_int_equal(d.nr_functions, 2);
	m = by_id(d.mappings, d.nr_mappings,
		  get(by_id(d.locations, d.nr_locations, locs[1])->data,
		      by_id(d.locations, d.nr_locations, locs[1])->len, 2, 0));
	assert_int_equal(get(m->data, m->len, 2, 0), 0x400000);
	assert_int_equal(get(m->data, m->len, 3, 0), 0x401000);
	assert_int_equal(get(m->data, m->len, 4, 0), 0x1000);
	assert_string_equal(str(&d, get(m->data, m->len, 5, 0)), "/usr/bin/spin");
	assert_string_equal(str(&d, get(m->data, m->len, 6, 0)),
			    "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(get(m->data, m->len, 7, 0), 1); /* has_functions */
	m = by_id(d.mappings, d.nr_mappings,
		  get(by_id(d.locations, d.nr_locations, locs[0])->data,
		      by_id(d.locations, d.nr_locations, locs[0])->len, 2, 0));
	assert_string_equal(str(&d, get(m->data, m->len, 5, 0)), "[kernel.kallsyms]");
	assert_int_equal(get(m->data, m->len, 6, 0), 0); /* no build-id */
	assert_int_equal(get(by_id(d.locations, d.nr_locations, locs[0])->data,
			     by_id(d.locations, d.nr_locations, locs[0])->len, 3, 0),
			 0xffffffff81234567);

	assert_int_equal(d.time_nanos, 1700000000123456789);
	assert_int_equal(d.duration_nanos, 2500000000);
	assert_int_equal(d.period, 1001001);
	assert_string_equal(str(&d, get(d.period_type.data, d.period_type.len, 1, 0)), "cpu-clock");
	assert_string_equal(str(&d, get(d.period_type.data, d.period_type.len, 2, 0)),
			    "nanoseconds");
	assert_string_equal(str(&d, d.default_type), "cpu-clock");
	assert_int_equal(d.nr_comments, 1);
	assert_string_equal(str(&d, d.comment), "perfsnapd");
	free(buf);
	pprof_profile__delete(p);
}

/* The file is the encoding, gzipped: inflated back, the same bytes. */
static void test_write_gzip(void **state)
{
	char path[] = "/tmp/test_pprof.XXXXXX";
	int64_t v[] = { 1, 10 };
	uint64_t locs[3], bytes = 0;
	struct pprof_profile *p;
	uint8_t *buf, *back;
	size_t len;
	gzFile gz;
	int fd, n;

	(void)state;
	p = sample_profile(locs);
	for (int i = 0; i < 1000; i++) {
		struct pprof_label l = { .key = "tid", .num = i };

		assert_int_equal(pprof_profile__add_sample(p, locs, 3, &l, 1, v), 0);
	}
	assert_int_equal(pprof_profile__encode(p, &buf, &len), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(pprof_profile__write(p, fd, &bytes), 0);
	assert_int_equal((off_t)bytes, lseek(fd, 0, SEEK_END));
	assert_true(bytes > 20 && bytes < len);
	close(fd);
	back = malloc(len + 1);
	assert_non_null(back);
	gz = gzopen(path, "rb");
	assert_non_null(gz);
	assert_int_equal(gzdirect(gz), 0); /* gzip, not stored as is */
	n = gzread(gz, back, (unsigned int)len + 1);
	gzclose(gz);
	unlink(path);
	assert_int_equal(n, (int)len);
	assert_memory_equal(back, buf, len);
	free(back);
	free(buf);
	pprof_profile__delete(p);
}

/* No sample type: a sample has nowhere to go, and the profile says so. */
static void test_sample_needs_type(void **state)
{
	struct pprof_profile *p = pprof_profile__new();
	uint64_t loc;
	int64_t v = 1;
	uint8_t *buf;
	size_t len;

	(void)state;
	assert_non_null(p);
	loc = pprof_profile__location(p, 0, 0x1234, NULL);
	assert_true(loc != 0);
	assert_int_equal(pprof_profile__add_sample(p, &loc, 1, NULL, 0, &v), -EINVAL);
	assert_int_equal(pprof_profile__encode(p, &buf, &len), -EINVAL);
	pprof_profile__delete(p);
}

#define CLOCK_ID 1
#define TP_ID	 2
#define TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)
#define TP_TYPE                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU)

/* The profile snapshot_pprof writes of @s, inflated into *ret_buf. */
static int write_snapshot(const struct snapshot *s, struct pprof_result *res, uint8_t **ret_buf,
			  size_t *ret_len)
{
	struct pprof_meta meta = { .kallsyms = "", .kallsyms_size = 0 };
	int fd = memfd_create("pprof", 0), r, n;
	size_t cap = 1 << 20;
	gzFile gz;

	assert_true(fd >= 0);
	r = snapshot_pprof__write(s, fd, &meta, res);
	if (r) {
		close(fd);
		return r;
	}
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	gz = gzdopen(fd, "rb");
	assert_non_null(gz);
	*ret_buf = malloc(cap);
	assert_non_null(*ret_buf);
	n = gzread(gz, *ret_buf, (unsigned int)cap);
	gzclose(gz);
	assert_true(n > 0 && (size_t)n < cap);
	*ret_len = (size_t)n;
	return 0;
}

/*
 * A program renamed between two samples of one stack: two samples by
 * comm; its mapping carries the MMAP2's build-id; a tracepoint hit
 * without a callchain is left out, counted.
 */
static void test_snapshot(void **state)
{
	static const uint8_t id[20] = { 0xde, 0xad, 0xbe, 0xef, 1,  2,	3,  4,	5,  6,
					7,    8,    9,	  10,	11, 12, 13, 14, 15, 16 };
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_USER, 0x400100, 0x400200 };
	struct perf_event_attr clk = { .type = PERF_TYPE_SOFTWARE,
				       .config = PERF_COUNT_SW_CPU_CLOCK,
				       .sample_type = TYPE,
				       .freq = 1,
				       .sample_freq = 999,
				       .sample_id_all = 1 };
	struct perf_event_attr tp = { .type = PERF_TYPE_TRACEPOINT,
				      .sample_type = TP_TYPE,
				      .sample_period = 1,
				      .sample_id_all = 1 };
	uint64_t clk_ids[] = { CLOCK_ID }, tp_ids[] = { TP_ID }, locs[8];
	struct snapshot *s = snapshot__new();
	struct pprof_result res;
	struct test_records r;
	const struct field *m;
	struct decoded d;
	const char *comm[2];
	uint8_t *buf = NULL;
	size_t len = 0;
	int64_t num;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &clk, "cpu-clock", clk_ids, 1), 0);
	assert_int_equal(snapshot__add_event(s, &tp, "sched:sched_switch", tp_ids, 1), 0);
	test_records__init(&r, TYPE);
	test_records__comm(
		&r, &(struct test_comm){
			    .pid = 100, .tid = 100, .comm = "app", .time = 10, .id = CLOCK_ID });
	test_records__mmap2(&r, &(struct test_mmap){ .misc = PERF_RECORD_MISC_MMAP_BUILD_ID,
						     .pid = 100,
						     .tid = 100,
						     .start = 0x400000,
						     .len = 0x1000,
						     .pgoff = 0x1000,
						     .build_id_size = sizeof(id),
						     .build_id = id,
						     .prot = 5, /* r-x */
						     .filename = "/nonexistent/app",
						     .time = 11,
						     .id = CLOCK_ID });
	test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_USER,
							.id = CLOCK_ID,
							.ip = 0x400100,
							.pid = 100,
							.tid = 100,
							.time = 20,
							.cpu = 1,
							.period = 1001000,
							.callchain = chain,
							.callchain_nr = 3 });
	test_records__comm(
		&r, &(struct test_comm){
			    .pid = 100, .tid = 100, .comm = "app2", .time = 30, .id = CLOCK_ID });
	test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_USER,
							.id = CLOCK_ID,
							.ip = 0x400100,
							.pid = 100,
							.tid = 100,
							.time = 40,
							.cpu = 1,
							.period = 999000,
							.callchain = chain,
							.callchain_nr = 3 });
	r.sample_type = TP_TYPE;
	test_records__sample(
		&r, &(struct test_sample){
			    .id = TP_ID, .ip = 0x400100, .pid = 100, .tid = 100, .time = 50 });
	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(write_snapshot(s, &res, &buf, &len), 0);
	decode(buf, len, &d);

	assert_int_equal(res.nr_samples, 2);
	assert_int_equal(res.nr_skipped, 1);
	assert_int_equal(res.nr_profile_samples, 2);
	assert_int_equal(d.nr_types, 2); /* the tracepoint has no callchain: no type */
	assert_string_equal(str(&d, get(d.types[1].data, d.types[1].len, 1, 0)),
			    "cpu-clock_period");
	assert_string_equal(str(&d, get(d.types[1].data, d.types[1].len, 2, 0)), "nanoseconds");
	assert_int_equal(d.nr_samples, 2);
	for (int i = 0; i < 2; i++) {
		uint64_t v[2];

		comm[i] = label(&d, &d.samples[i], "comm", &num);
		label(&d, &d.samples[i], "cpu", &num);
		assert_int_equal(num, 1);
		label(&d, &d.samples[i], "tid", &num);
		assert_int_equal(num, 100);
		assert_int_equal(packed(&d.samples[i], 2, v, 2), 2);
		assert_int_equal(v[0], 1);
		assert_int_equal(v[1], i ? 999000 : 1001000);
		assert_int_equal(packed(&d.samples[i], 1, locs, 8), 2);
		assert_int_equal(get(by_id(d.locations, d.nr_locations, locs[0])->data,
				     by_id(d.locations, d.nr_locations, locs[0])->len, 3, 0),
				 0x400100); /* leaf first */
	}
	assert_string_equal(comm[0], "app");
	assert_string_equal(comm[1], "app2");
	assert_int_equal(d.nr_mappings, 1);
	m = &d.mappings[0];
	assert_string_equal(str(&d, get(m->data, m->len, 5, 0)), "/nonexistent/app");
	assert_string_equal(str(&d, get(m->data, m->len, 6, 0)),
			    "deadbeef0102030405060708090a0b0c0d0e0f10");
	assert_int_equal(get(m->data, m->len, 4, 0), 0x1000);
	assert_int_equal(d.duration_nanos, 20);
	assert_int_equal(d.time_nanos, 0); /* perf's clock: no wall-clock reference */
	assert_string_equal(str(&d, d.default_type), "cpu-clock");
	assert_int_equal(d.period, 1000000); /* the mean of a frequency's periods */
	free(buf);
	test_records__fini(&r);
	snapshot__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_write_gzip),
		cmocka_unit_test(test_sample_needs_type),
		cmocka_unit_test(test_snapshot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
