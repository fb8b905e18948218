// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_test: what the snapshot unit tests share: a snapshot of two
 * events with a spill, the n-th record a cursor returns, and six chunks of
 * every kind sealed with a given number of index threads.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "perf_record.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "test_records.h"
#include "snapshot_test.h"

struct snapshot *new_snapshot(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .sample_type = TYPE };
	uint64_t ids_a[] = { 10, 11 }, ids_b[] = { 20, 21 };
	struct snapshot *s = snapshot__new();

	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "a", ids_a, 2), 0);
	assert_int_equal(snapshot__add_event(s, &a, "b", ids_b, 2), 0);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	return s;
}

/* The @i-th record of @cpu's (or all) in the cursor's order, and its time. */
const struct perf_event_header *nth(const struct snapshot *s, int cpu, size_t i, uint64_t *ret_time)
{
	struct snapshot_cursor *c = snapshot_cursor__new(s, cpu);
	const struct perf_event_header *h;
	uint64_t t = 0, prev = 0;

	assert_non_null(c);
	do {
		h = snapshot_cursor__next(c, &t);
		assert_non_null(h);
		assert_true(t >= prev);
		prev = t;
	} while (i--);
	assert_int_equal(perf_record__time(h, TYPE, &prev), 0);
	assert_int_equal(prev, t);
	snapshot_cursor__delete(c);
	if (ret_time)
		*ret_time = t;
	return h;
}

uint64_t time_of(const struct snapshot *s, size_t i)
{
	uint64_t t;

	nth(s, SNAPSHOT_ALL_CPUS, i, &t);
	return t;
}

/*
 * Six chunks (backward and forward, in memory and spilled, CPUs shared
 * between chunks, records whose CPU is not their chunk's, names, losses
 * and unknown ids), the same for every call; sealed with @threads. The
 * chunks are built in @recs, which the caller frees after the snapshot.
 */
struct snapshot *parallel_snapshot(unsigned int threads, struct test_records *recs)
{
	struct snapshot *s = new_snapshot();

	for (size_t k = 0; k < PAR_CHUNKS; k++) {
		struct test_records *r = &recs[k];
		bool backward = k % 2 == 0;

		test_records__init(r, TYPE);

		/* Written oldest first; a backward chunk holds them newest first. */
		for (size_t i = 0; i < PAR_RECORDS; i++) {
			size_t j = backward ? PAR_RECORDS - 1 - i : i;
			uint64_t t = 1000 + k + PAR_CHUNKS * j - (j % 10 == 3 ? 7 : 0);
			uint32_t tid = (uint32_t)(100 + k * 10 + j % 7);

			if (j % 50 == 7)
				test_records__comm(r, &(struct test_comm){
							      .pid = tid,
							      .tid = tid,
							      .comm = j % 100 == 7 ? "even" : "odd",
							      .time = t,
							      .id = 10,
						      });
			else if (j % 77 == 5)
				test_records__task(r, &(struct test_task){ .type = PERF_RECORD_FORK,
									   .pid = tid + 1000,
									   .ppid = tid,
									   .tid = tid + 1000,
									   .ptid = tid,
									   .time = t,
									   .id = 20 });
			else if (j % 99 == 9)
				test_records__lost(r,
						   &(struct test_lost){ .id = 11,
									.lost = j,
									.time = t,
									.cpu = (uint32_t)(k % 3) });
			else
				test_records__sample(
					r, &(struct test_sample){
						   .id = j % 120 == 1 ? 99 : (j % 2 ? 21 : 10),
						   .pid = tid,
						   .tid = tid,
						   .time = t,
						   .cpu = (uint32_t)(j % 13 == 0 ? 5 : k % 3),
					   });
		}
		if (k < 3) {
			assert_int_equal(snapshot__add_chunk_memory(s, (int)(k % 3), backward,
								    r->data, r->len, k == 0),
					 0);
		} else {
			assert_int_equal(snapshot__begin_chunk(s, (int)(k % 3), backward), 0);
			assert_int_equal(snapshot__append(s, r->data, r->len), 0);
			assert_int_equal(snapshot__end_chunk(s), 0);
		}
	}
	snapshot__set_index_threads(s, threads);
	assert_int_equal(snapshot__seal(s), 0);
	return s;
}
