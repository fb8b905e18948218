// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for perf_record: sample parsing and sample_id_all trailers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "perf_record.h"
#include "perf_sample_layout.h"

#define TP_TYPE                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

static void test_parse_tracepoint_sample(void **state)
{
	uint64_t buf[16] = { 0 };
	struct perf_event_header *h = (void *)buf;
	uint8_t *p = (uint8_t *)(h + 1);
	struct perf_record_info s;
	uint32_t u32;
	uint64_t u64;

	(void)state;
	u64 = 77;
	memcpy(p, &u64, 8);
	p += 8; /* identifier */
	u64 = 0xffffffff81000000ull;
	memcpy(p, &u64, 8);
	p += 8; /* ip */
	u32 = 100;
	memcpy(p, &u32, 4);
	u32 = 101;
	memcpy(p + 4, &u32, 4);
	p += 8;
	u64 = 123456789;
	memcpy(p, &u64, 8);
	p += 8; /* time */
	u32 = 1;
	memcpy(p, &u32, 4);
	p += 8; /* cpu, res */
	u64 = 1;
	memcpy(p, &u64, 8);
	p += 8; /* period */
	u32 = 12;
	memcpy(p, &u32, 4);
	memcpy(p + 4, "abcdefghijkl", 12);
	p += 16;
	h->type = PERF_RECORD_SAMPLE;
	h->size = (uint16_t)(p - (uint8_t *)buf);

	assert_int_equal(perf_record__parse_sample(h, TP_TYPE, &s), 0);
	assert_int_equal(s.id, 77);
	assert_int_equal(s.pid, 100);
	assert_int_equal(s.tid, 101);
	assert_int_equal(s.time, 123456789);
	assert_int_equal(s.cpu, 1);
	assert_int_equal(s.period, 1);
	assert_int_equal(s.raw_size, 12);
	assert_memory_equal(s.raw, "abcdefghijkl", 12);

	u64 = 0;
	assert_int_equal(perf_record__id(h, &u64), 0);
	assert_int_equal(u64, 77);
	assert_int_equal(perf_record__time(h, TP_TYPE, &u64), 0);
	assert_int_equal(u64, 123456789);

	/* A raw size pointing past the record is refused, not read. */
	u32 = 400;
	memcpy((uint8_t *)buf + h->size - 16, &u32, 4);
	assert_int_equal(perf_record__parse_sample(h, TP_TYPE, &s), -EINVAL);
	/* So is a record cut before its time. */
	h->size = sizeof(*h) + 16;
	assert_int_equal(perf_record__parse_sample(h, TP_TYPE, &s), -EINVAL);
}

/*
 * The precomputed layout reads what the full parser reads, for every mix
 * of the fixed fields, with and without a callchain before the raw data.
 */
static void test_layout_matches_parse(void **state)
{
	static const uint64_t bits[] = { PERF_SAMPLE_IP,       PERF_SAMPLE_TID,
					 PERF_SAMPLE_TIME,     PERF_SAMPLE_ADDR,
					 PERF_SAMPLE_ID,       PERF_SAMPLE_STREAM_ID,
					 PERF_SAMPLE_CPU,      PERF_SAMPLE_PERIOD,
					 PERF_SAMPLE_CALLCHAIN };
	const size_t nr_bits = sizeof(bits) / sizeof(bits[0]);

	(void)state;
	for (unsigned int mask = 0; mask < 1u << nr_bits; mask++) {
		uint64_t buf[32], st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_RAW;
		struct perf_event_header *h = (void *)buf;
		struct perf_record_info full, fast;
		struct perf_sample_layout l;
		const void *raw = NULL;
		uint32_t raw_size = 0, u32 = 12;
		size_t words = 1;

		for (size_t b = 0; b < nr_bits; b++)
			if (mask & 1u << b)
				st |= bits[b];
		/* Each word a distinct value, so a field read from the wrong place shows. */
		for (size_t i = 0; i < 32; i++)
			buf[i] = 0x1000 + i * 0x10001;
		words += __builtin_popcountll(st &
					      ~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW));
		if (st & PERF_SAMPLE_CALLCHAIN) {
			buf[words] = 2;
			words += 3;
		}
		memcpy(&buf[words], &u32, 4);
		memcpy((uint8_t *)&buf[words] + 4, "abcdefghijkl", 12);
		words += 2;
		h->type = PERF_RECORD_SAMPLE;
		h->misc = 0;
		h->size = (uint16_t)(words * 8);

		perf_sample_layout__init(&l, st);
		assert_int_equal(perf_record__parse_sample(h, st, &full), 0);
		memset(&fast, 0xa5, sizeof(fast));
		assert_int_equal(perf_sample_layout__head(&l, h, &fast), 0);
		assert_int_equal(fast.pid, full.pid);
		assert_int_equal(fast.tid, full.tid);
		assert_int_equal(fast.time, full.time);
		assert_int_equal(fast.cpu, full.cpu);
		assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &raw_size), 0);
		assert_ptr_equal(raw, full.raw);
		assert_int_equal(raw_size, full.raw_size);

		/* Cut inside the fixed fields or the raw data: refused, not read. */
		h->size = (uint16_t)(l.fixed_end - 8);
		assert_int_equal(perf_sample_layout__head(&l, h, &fast), -EINVAL);
		h->size = (uint16_t)(words * 8 - 8);
		assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &raw_size), -EINVAL);
	}
}

static void test_layout_refuses_unsupported(void **state)
{
	struct perf_sample_layout l;
	uint64_t buf[8] = { 0 };
	struct perf_event_header *h = (void *)buf;
	const void *raw;
	uint32_t size;

	(void)state;
	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(buf);
	perf_sample_layout__init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME);
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -ENODATA);
	perf_sample_layout__init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_READ | PERF_SAMPLE_RAW);
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -EOPNOTSUPP);
	/* A callchain longer than the record. */
	perf_sample_layout__init(&l,
				 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW);
	buf[2] = 1000;
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -EINVAL);
}

static void test_callchain_bounds(void **state)
{
	uint64_t buf[8] = { 0 };
	struct perf_event_header *h = (void *)buf;
	struct perf_record_info s;

	(void)state;
	h->type = PERF_RECORD_SAMPLE;
	h->size = sizeof(buf);
	buf[1] = 5;    /* identifier */
	buf[2] = 1000; /* callchain nr: far more than the record holds */
	assert_int_equal(
		perf_record__parse_sample(h, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN, &s),
		-EINVAL);
	buf[2] = 3;
	assert_int_equal(
		perf_record__parse_sample(h, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN, &s),
		0);
	assert_int_equal(s.callchain_nr, 3);
	assert_ptr_equal(s.callchain, &buf[3]);
}

static void test_trailer_round_trip(void **state)
{
	uint64_t buf[16] = { 0 };
	struct perf_event_header *h = (void *)buf;
	struct perf_record_info in = { .pid = 5, .tid = 6, .time = 999, .id = 42, .cpu = 1 };
	struct perf_record_info out;
	size_t tsize = perf_record__id_trailer_size(TP_TYPE);
	uint64_t v;

	(void)state;
	/* TID, TIME, CPU, IDENTIFIER: four words; IP, PERIOD, RAW are not in it. */
	assert_int_equal(tsize, 32);
	h->type = PERF_RECORD_COMM;
	h->size = sizeof(*h) + 24 + tsize;
	assert_int_equal(
		perf_record__write_id_trailer((uint8_t *)buf + sizeof(*h) + 24, TP_TYPE, &in),
		tsize);
	assert_int_equal(perf_record__parse_id_trailer(h, TP_TYPE, &out), 0);
	assert_int_equal(out.pid, 5);
	assert_int_equal(out.tid, 6);
	assert_int_equal(out.time, 999);
	assert_int_equal(out.id, 42);
	assert_int_equal(out.cpu, 1);
	assert_int_equal(perf_record__id(h, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(perf_record__time(h, TP_TYPE, &v), 0);
	assert_int_equal(v, 999);
	assert_int_equal(perf_record__time(h, PERF_SAMPLE_IDENTIFIER, &v), -ENODATA);
	h->size = sizeof(*h) + 8;
	assert_int_equal(perf_record__parse_id_trailer(h, TP_TYPE, &out), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_tracepoint_sample),
		cmocka_unit_test(test_callchain_bounds),
		cmocka_unit_test(test_layout_matches_parse),
		cmocka_unit_test(test_layout_refuses_unsupported),
		cmocka_unit_test(test_trailer_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
