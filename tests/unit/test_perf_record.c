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
#include "test_records.h"

#define TP_TYPE                                                                         \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

static void test_parse_tracepoint_sample(void **state)
{
	struct perf_event_header *h;
	struct perf_record_info s;
	struct test_records r;
	uint32_t u32;
	uint64_t u64;

	(void)state;
	test_records__init(&r, TP_TYPE);
	h = test_records__sample(&r, &(struct test_sample){
					     .id = 77,
					     .ip = 0xffffffff81000000ull,
					     .pid = 100,
					     .tid = 101,
					     .time = 123456789,
					     .cpu = 1,
					     .period = 1,
					     .raw = "abcdefghijkl",
					     .raw_size = 12,
				     });

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
	memcpy((uint8_t *)h + h->size - 16, &u32, 4);
	assert_int_equal(perf_record__parse_sample(h, TP_TYPE, &s), -EINVAL);
	/* So is a record cut before its time. */
	h->size = sizeof(*h) + 16;
	assert_int_equal(perf_record__parse_sample(h, TP_TYPE, &s), -EINVAL);
	test_records__fini(&r);
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
	static const uint64_t chain[] = { 0x2001, 0x2002 };
	const size_t nr_bits = sizeof(bits) / sizeof(bits[0]);
	struct test_records r;

	(void)state;
	test_records__init(&r, 0);
	for (unsigned int mask = 0; mask < 1u << nr_bits; mask++) {
		uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_RAW;
		struct perf_record_info full, fast;
		struct perf_sample_layout l;
		struct perf_event_header *h;
		const void *raw = NULL;
		uint32_t raw_size = 0;
		uint16_t size;

		for (size_t b = 0; b < nr_bits; b++)
			if (mask & 1u << b)
				st |= bits[b];
		/* Each field a distinct value, so a field read from the wrong place shows. */
		test_records__reset(&r);
		r.sample_type = st;
		h = test_records__sample(&r, &(struct test_sample){
						     .id = 0x1001,
						     .ip = 0x1002,
						     .pid = 0x1003,
						     .tid = 0x1004,
						     .time = 0x1005,
						     .addr = 0x1006,
						     .stream_id = 0x1007,
						     .cpu = 0x1008,
						     .period = 0x1009,
						     .callchain = chain,
						     .callchain_nr = 2,
						     .raw = "abcdefghijkl",
						     .raw_size = 12,
					     });
		size = h->size;

		perf_sample_layout__init(&l, st);
		assert_int_equal(perf_record__parse_sample(h, st, &full), 0);
		assert_int_equal(full.tid, st & PERF_SAMPLE_TID ? 0x1004 : 0);
		assert_int_equal(full.time, st & PERF_SAMPLE_TIME ? 0x1005 : 0);
		assert_int_equal(full.cpu, st & PERF_SAMPLE_CPU ? 0x1008 : 0);
		memset(&fast, 0xa5, sizeof(fast));
		assert_int_equal(perf_sample_layout__head(&l, h, &fast), 0);
		assert_int_equal(fast.pid, full.pid);
		assert_int_equal(fast.tid, full.tid);
		assert_int_equal(fast.time, full.time);
		assert_int_equal(fast.cpu, full.cpu);
		assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &raw_size), 0);
		assert_ptr_equal(raw, full.raw);
		assert_int_equal(raw_size, full.raw_size);
		assert_memory_equal(raw, "abcdefghijkl", 12);

		/* Cut inside the fixed fields or the raw data: refused, not read. */
		h->size = (uint16_t)(l.fixed_end - 8);
		assert_int_equal(perf_sample_layout__head(&l, h, &fast), -EINVAL);
		h->size = (uint16_t)(size - 8);
		assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &raw_size), -EINVAL);
	}
	test_records__fini(&r);
}

static void test_layout_refuses_unsupported(void **state)
{
	static const uint64_t chain[] = { 1, 2, 3 };
	struct perf_sample_layout l;
	struct perf_event_header *h;
	struct test_records r;
	const void *raw;
	uint32_t size;

	(void)state;
	test_records__init(&r, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW);
	h = test_records__sample(&r, &(struct test_sample){
					     .id = 5,
					     .callchain = chain,
					     .callchain_nr = 3,
					     .raw = "abcd",
					     .raw_size = 4,
				     });
	perf_sample_layout__init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME);
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -ENODATA);
	perf_sample_layout__init(&l, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_READ | PERF_SAMPLE_RAW);
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -EOPNOTSUPP);
	/* A callchain longer than the record. */
	perf_sample_layout__init(&l,
				 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW);
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), 0);
	((uint64_t *)h)[2] = 1000;
	assert_int_equal(perf_sample_layout__raw(&l, h, &raw, &size), -EINVAL);
	test_records__fini(&r);
}

static void test_callchain_bounds(void **state)
{
	static const uint64_t chain[] = { 0xffffffff81000010ull, 0x401000, 0x402000 };
	const uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CALLCHAIN;
	struct perf_event_header *h;
	struct perf_record_info s;
	struct test_records r;

	(void)state;
	test_records__init(&r, st);
	h = test_records__sample(
		&r, &(struct test_sample){ .id = 5, .callchain = chain, .callchain_nr = 3 });
	((uint64_t *)h)[2] = 1000; /* callchain nr: far more than the record holds */
	assert_int_equal(perf_record__parse_sample(h, st, &s), -EINVAL);
	((uint64_t *)h)[2] = 3;
	assert_int_equal(perf_record__parse_sample(h, st, &s), 0);
	assert_int_equal(s.callchain_nr, 3);
	assert_ptr_equal(s.callchain, (uint64_t *)h + 3);
	assert_memory_equal(s.callchain, chain, sizeof(chain));
	test_records__fini(&r);
}

static void test_trailer_round_trip(void **state)
{
	struct perf_record_info in = { .pid = 5, .tid = 6, .time = 999, .id = 42, .cpu = 1 };
	size_t tsize = perf_record__id_trailer_size(TP_TYPE);
	struct perf_event_header *h;
	struct perf_record_info out;
	struct test_records r;
	uint8_t trailer[64];
	uint64_t v;

	(void)state;
	/* TID, TIME, CPU, IDENTIFIER: four words; IP, PERIOD, RAW are not in it. */
	assert_int_equal(tsize, 32);
	test_records__init(&r, TP_TYPE);
	h = test_records__comm(&r, &(struct test_comm){ .pid = 5,
							.tid = 6,
							.comm = "fifteen-letters",
							.time = 999,
							.id = 42,
							.cpu = 1 });
	assert_int_equal(h->size, sizeof(*h) + 24 + tsize);
	/* The trailer the kernel writes, which perf_record reads back. */
	assert_int_equal(perf_record__write_id_trailer(trailer, TP_TYPE, &in), tsize);
	assert_memory_equal(trailer, (uint8_t *)h + h->size - tsize, tsize);
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
	test_records__fini(&r);
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
