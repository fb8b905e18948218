// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for perfdata_compress: chunk boundaries, the 64 KiB record
 * limit with data zstd cannot shrink, records too large for a chunk, the
 * end of the stream, the HEADER_COMPRESSED words, and errors. The output
 * is decompressed with libzstd the way perf does it (tools/perf/util/tool.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <zstd.h>
#include <perf/event.h>

#include "perfdata_compress.h"
#include "test_records.h"

/* What the callback received. */
struct sink {
	unsigned char *data;
	size_t len;
	int fail; /* return this from the next write */
};

static int sink_write(void *ctx, const void *data, size_t len)
{
	struct sink *s = ctx;

	if (s->fail)
		return s->fail;
	s->data = realloc(s->data, s->len + len);
	assert_non_null(s->data);
	memcpy(s->data + s->len, data, len);
	s->len += len;
	return 0;
}

/*
 * Adds a @size-byte record to @c and to @in (the records as added, to
 * compare with): bytes zstd cannot shrink (@noise), or a pattern.
 */
static void add_record(struct perfdata_compress *c, struct test_records *in, uint16_t size,
		       bool noise)
{
	const struct perf_event_header *h = test_records__pattern(in, size, in->nr, noise);

	assert_int_equal(perfdata_compress__add(c, h, size), 0);
}

struct parsed {
	size_t nr_compressed;
	size_t nr_raw;
	size_t max_record; /* largest COMPRESSED record, header included */
	size_t last_type;
};

/*
 * Walks @s record by record like perf's reader: COMPRESSED payloads go
 * through one zstd stream into a buffer of PERFDATA_COMPRESS_CHUNK bytes
 * each and must hold whole records; other records are taken as they are.
 * The result must equal @in.
 */
static struct parsed parse_output(const struct sink *s, const struct test_records *in)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	unsigned char *buf = malloc(PERFDATA_COMPRESS_CHUNK);
	struct parsed p = { 0 };
	size_t off = 0, done = 0;

	assert_non_null(ds);
	assert_non_null(buf);
	while (off < s->len) {
		struct perf_event_header h;

		assert_true(off + sizeof(h) <= s->len);
		memcpy(&h, s->data + off, sizeof(h));
		assert_true(h.size >= sizeof(h) && off + h.size <= s->len);
		p.last_type = h.type;
		if (h.type == PERF_RECORD_COMPRESSED) {
			ZSTD_inBuffer zin = { s->data + off + sizeof(h), h.size - sizeof(h), 0 };
			ZSTD_outBuffer zout = { buf, PERFDATA_COMPRESS_CHUNK, 0 };
			size_t pos = 0;

			while (zin.pos < zin.size)
				assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &zout, &zin)));
			assert_true(zout.pos > 0);
			while (pos < zout.pos) {
				struct perf_event_header r;

				memcpy(&r, buf + pos, sizeof(r));
				assert_true(r.size >= sizeof(r) && pos + r.size <= zout.pos);
				pos += r.size;
			}
			assert_true(done + zout.pos <= in->len);
			assert_memory_equal(buf, in->data + done, zout.pos);
			done += zout.pos;
			p.nr_compressed++;
			if (h.size > p.max_record)
				p.max_record = h.size;
		} else {
			assert_true(done + h.size <= in->len);
			assert_memory_equal(s->data + off, in->data + done, h.size);
			done += h.size;
			p.nr_raw++;
		}
		off += h.size;
	}
	assert_int_equal(done, in->len);
	ZSTD_freeDStream(ds);
	free(buf);
	return p;
}

static void test_chunks_of_whole_records(void **state)
{
	struct sink s = { 0 };
	struct test_records in = { 0 };
	struct perfdata_compress *c = perfdata_compress__new(3, sink_write, &s);
	struct perfdata_compress_stats st;
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];
	struct parsed p;
	int i;

	(void)state;
	assert_non_null(c);
	/* 1000 bytes do not divide the chunk: every chunk ends early. */
	for (i = 0; i < 400; i++)
		add_record(c, &in, 1000, 0);
	/* 64 records (64000 bytes) per chunk: 6 full ones so far, 16 waiting. */
	perfdata_compress__stats(c, &st);
	assert_int_equal(st.nr_records, 6);
	assert_int_equal(st.bytes_in, 6 * 64 * 1000);
	assert_int_equal(perfdata_compress__finish(c, feat), 0);
	p = parse_output(&s, &in);
	assert_int_equal(p.nr_compressed, 7);
	assert_int_equal(p.nr_raw, 0);
	perfdata_compress__stats(c, &st);
	assert_int_equal(st.bytes_in, 400 * 1000);
	assert_int_equal(st.bytes_out, s.len);
	assert_int_equal(st.nr_records, 7);
	assert_int_equal(feat[0], 0);
	assert_int_equal(feat[1], 1);
	assert_int_equal(feat[2], 3);
	assert_int_equal(feat[3], (st.bytes_in + st.bytes_out / 2) / st.bytes_out);
	assert_true(feat[3] > 10);
	assert_int_equal(feat[4], PERFDATA_COMPRESS_CHUNK);
	perfdata_compress__delete(c);
	free(s.data);
	test_records__fini(&in);
}

/* Random bytes: a full chunk still fits one record below 64 KiB. */
static void test_incompressible(void **state)
{
	struct sink s = { 0 };
	struct test_records in = { 0 };
	struct perfdata_compress *c = perfdata_compress__new(1, sink_write, &s);
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];
	struct parsed p;
	int i;

	(void)state;
	assert_non_null(c);
	/* 8 x 8064 = 64512: exactly one chunk, emitted by the next record. */
	for (i = 0; i < 8 * 5; i++)
		add_record(c, &in, 8064, 1);
	assert_int_equal(perfdata_compress__finish(c, feat), 0);
	p = parse_output(&s, &in);
	assert_int_equal(p.nr_compressed, 5);
	assert_true(p.max_record > PERFDATA_COMPRESS_CHUNK);
	assert_true(p.max_record <= UINT16_MAX);
	assert_int_equal(feat[3], 1);
	perfdata_compress__delete(c);
	free(s.data);
	test_records__fini(&in);
}

/*
 * Records larger than a chunk go out as they are, after the chunk before
 * them. A raw record last leaves nothing to compress at the end: no empty
 * COMPRESSED record (perf fails on one), and the stream still decodes.
 */
static void test_large_records_raw(void **state)
{
	struct sink s = { 0 };
	struct test_records in = { 0 };
	struct perfdata_compress *c = perfdata_compress__new(3, sink_write, &s);
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];
	struct perfdata_compress_stats st;
	struct parsed p;

	(void)state;
	assert_non_null(c);
	add_record(c, &in, 64, 0);
	add_record(c, &in, 65528, 1);
	add_record(c, &in, 128, 0);
	add_record(c, &in, PERFDATA_COMPRESS_CHUNK, 0); /* fits: compressed */
	add_record(c, &in, PERFDATA_COMPRESS_CHUNK + 8, 0);
	assert_int_equal(perfdata_compress__finish(c, feat), 0);
	p = parse_output(&s, &in);
	assert_int_equal(p.nr_raw, 2);
	assert_int_equal(p.nr_compressed, 3);
	assert_int_equal(p.last_type, PERF_RECORD_SAMPLE);
	perfdata_compress__stats(c, &st);
	assert_int_equal(st.nr_raw, 2);
	assert_int_equal(st.bytes_in, 64 + 128 + PERFDATA_COMPRESS_CHUNK);
	perfdata_compress__delete(c);
	free(s.data);
	test_records__fini(&in);
}

/*
 * Records added in runs come out as the same bytes as added one by one:
 * the same chunks, the same raw records, whatever the runs' boundaries.
 */
static void test_runs_as_records(void **state)
{
	static const uint16_t sizes[] = {
		64, 1000, 65528, 128, 8, PERFDATA_COMPRESS_CHUNK, 2000, PERFDATA_COMPRESS_CHUNK + 8,
		40
	};
	struct sink one = { 0 }, runs = { 0 };
	struct test_records in = { 0 };
	struct perfdata_compress *a = perfdata_compress__new(1, sink_write, &one);
	struct perfdata_compress *b = perfdata_compress__new(1, sink_write, &runs);
	uint32_t feat_a[PERFDATA_COMPRESS_FEAT_WORDS], feat_b[PERFDATA_COMPRESS_FEAT_WORDS];
	size_t cut[3] = { 0 }, nr = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (int round = 0; round < 40; round++)
		for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			if (round == 13 && i == 4 && nr < 3)
				cut[nr++] = in.len;
			if (round == 21 && i == 0 && nr < 3)
				cut[nr++] = in.len;
			add_record(a, &in,
				   (uint16_t)(sizes[i] + 8 * (round % 5) * (sizes[i] < 60000)),
				   round % 3 == 0);
		}
	cut[nr++] = in.len;
	assert_int_equal(nr, 3);
	assert_int_equal(perfdata_compress__add_records(b, in.data, cut[0]), 0);
	assert_int_equal(perfdata_compress__add_records(b, in.data + cut[0], cut[1] - cut[0]), 0);
	assert_int_equal(perfdata_compress__add_records(b, in.data + cut[1], cut[2] - cut[1]), 0);
	assert_int_equal(perfdata_compress__add_records(b, in.data, 0), 0);
	assert_int_equal(perfdata_compress__finish(a, feat_a), 0);
	assert_int_equal(perfdata_compress__finish(b, feat_b), 0);
	assert_int_equal(runs.len, one.len);
	assert_memory_equal(runs.data, one.data, one.len);
	assert_memory_equal(feat_a, feat_b, sizeof(feat_a));
	parse_output(&runs, &in);
	perfdata_compress__delete(a);
	perfdata_compress__delete(b);
	free(one.data);
	free(runs.data);
	test_records__fini(&in);
}

/* A run that is not whole records is refused. */
static void test_runs_malformed(void **state)
{
	struct perf_event_header *h;
	struct test_records rec;
	struct sink s = { 0 };
	struct perfdata_compress *c;

	(void)state;
	test_records__init(&rec, 0);
	test_records__pattern(&rec, 32, 1, false);
	test_records__pattern(&rec, 32, 2, false);
	h = (struct perf_event_header *)rec.data;
	assert_int_equal(perfdata_compress__add_records(NULL, h, 32), -EINVAL);
	c = perfdata_compress__new(1, sink_write, &s);
	assert_non_null(c);
	assert_int_equal(perfdata_compress__add_records(c, NULL, 8), -EINVAL);
	assert_int_equal(perfdata_compress__add_records(c, h, 24), -EINVAL); /* past the end */
	assert_int_equal(perfdata_compress__add_records(c, h, 36), -EINVAL); /* a torn header */
	h->size = 12;
	assert_int_equal(perfdata_compress__add_records(c, h, 32), -EINVAL); /* not 8-aligned */
	h->size = 0;
	assert_int_equal(perfdata_compress__add_records(c, h, 32), -EINVAL); /* would not move */
	perfdata_compress__delete(c);
	free(s.data);
	test_records__fini(&rec);
}

static void test_empty_stream(void **state)
{
	struct sink s = { 0 };
	struct perfdata_compress *c = perfdata_compress__new(3, sink_write, &s);
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];

	(void)state;
	assert_non_null(c);
	assert_int_equal(perfdata_compress__finish(c, feat), 0);
	assert_int_equal(s.len, 0);
	assert_int_equal(feat[2], 3);
	assert_int_equal(feat[3], 0);
	assert_int_equal(feat[4], PERFDATA_COMPRESS_CHUNK);
	perfdata_compress__delete(c);
}

static void test_errors(void **state)
{
	uint32_t feat[PERFDATA_COMPRESS_FEAT_WORDS];
	struct perf_event_header *h;
	struct test_records rec;
	struct sink s = { 0 };
	struct perfdata_compress *c;

	(void)state;
	test_records__init(&rec, 0);
	h = test_records__pattern(&rec, 32, 1, false);
	assert_null(perfdata_compress__new(0, sink_write, &s));
	assert_null(perfdata_compress__new(PERFDATA_COMPRESS_LEVEL_MAX + 1, sink_write, &s));
	assert_null(perfdata_compress__new(3, NULL, &s));
	assert_int_equal(perfdata_compress__add(NULL, h, h->size), -EINVAL);
	assert_int_equal(perfdata_compress__finish(NULL, feat), -EINVAL);
	perfdata_compress__delete(NULL);

	c = perfdata_compress__new(PERFDATA_COMPRESS_LEVEL_MAX, sink_write, &s);
	assert_non_null(c);
	assert_int_equal(perfdata_compress__add(c, h, 0), -EINVAL);
	assert_int_equal(perfdata_compress__add(c, h, h->size), 0);
	/* The callback's error comes back, once there is something to write. */
	s.fail = -ENOSPC;
	assert_int_equal(perfdata_compress__finish(c, feat), -ENOSPC);
	perfdata_compress__delete(c);
	free(s.data);
	test_records__fini(&rec);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chunks_of_whole_records),
		cmocka_unit_test(test_incompressible),
		cmocka_unit_test(test_large_records_raw),
		cmocka_unit_test(test_runs_as_records),
		cmocka_unit_test(test_runs_malformed),
		cmocka_unit_test(test_empty_stream),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
