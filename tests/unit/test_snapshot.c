// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the snapshot model: chunks in, records out in time order,
 * with tasks, per-chunk coverage and records merged in after sealing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "perf_record.h"
#include "snapshot.h"
#include "snapshot_index.h"
#include "snapshot_cursor.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* A SAMPLE of 40 bytes: header, id, pid/tid, time, cpu. */
static size_t put_sample(uint8_t *p, uint64_t id, uint32_t tid, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .size = 40 };
	uint64_t w[4] = { id, (uint64_t)tid << 32 | tid, time, cpu };

	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, w, sizeof(w));
	return 40;
}

/* A LOST record with its trailer. */
static size_t put_lost(uint8_t *p, uint64_t id, uint64_t lost, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_LOST, .size = 24 + 32 };
	struct perf_record_info t = { .pid = 0, .tid = 0, .time = time, .id = id, .cpu = cpu };

	memcpy(p, &h, sizeof(h));
	memcpy(p + 8, &id, 8);
	memcpy(p + 16, &lost, 8);
	perf_record__write_id_trailer(p + 24, TYPE, &t);
	return h.size;
}

/* COMM: pid, tid, the name padded to 8, the trailer. */
static size_t put_comm(uint8_t *p, uint64_t id, uint32_t tid, const char *comm, uint64_t time)
{
	struct perf_record_info t = { .pid = tid, .tid = tid, .time = time, .id = id };
	struct perf_event_header h = { .type = PERF_RECORD_COMM };
	size_t len = (strlen(comm) + 1 + 7) & ~(size_t)7;

	memset(p, 0, 16 + len);
	memcpy(p + 8, &tid, 4);
	memcpy(p + 12, &tid, 4);
	memcpy(p + 16, comm, strlen(comm));
	h.size = (uint16_t)(16 + len + perf_record__write_id_trailer(p + 16 + len, TYPE, &t));
	memcpy(p, &h, sizeof(h));
	return h.size;
}

/* FORK: pid, ppid, tid, ptid, time, the trailer. */
static size_t put_fork(uint8_t *p, uint64_t id, uint32_t tid, uint32_t parent, uint64_t time)
{
	struct perf_record_info t = { .pid = tid, .tid = tid, .time = time, .id = id };
	struct perf_event_header h = { .type = PERF_RECORD_FORK };
	uint32_t ids[4] = { tid, parent, tid, parent };

	memcpy(p + 8, ids, sizeof(ids));
	memcpy(p + 24, &time, 8);
	h.size = (uint16_t)(32 + perf_record__write_id_trailer(p + 32, TYPE, &t));
	memcpy(p, &h, sizeof(h));
	return h.size;
}

static struct snapshot *new_snapshot(void)
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
static const struct perf_event_header *nth(const struct snapshot *s, int cpu, size_t i,
					   uint64_t *ret_time)
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

static uint64_t time_of(const struct snapshot *s, size_t i)
{
	uint64_t t;

	nth(s, SNAPSHOT_ALL_CPUS, i, &t);
	return t;
}

static void test_order_tasks_chunks(void **state)
{
	struct snapshot *s = new_snapshot();
	uint8_t buf[1024];
	size_t n = 0;

	(void)state;
	/* CPU 0, backward ring copy: newest first (times 50, 30, 10), a LOST at 40. */
	n += put_sample(buf + n, 10, 100, 50, 0);
	n += put_lost(buf + n, 10, 7, 40, 0);
	n += put_sample(buf + n, 20, 101, 30, 0);
	n += put_sample(buf + n, 10, 100, 10, 0);
	memset(buf + n, 0, 8); /* unwritten rest of the ring */
	assert_int_equal(snapshot__begin_chunk(s, 0, true), 0);
	assert_int_equal(snapshot__append(s, buf, n + 8), 0);
	assert_int_equal(snapshot__set_chunk_overwritten(s), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* CPU 1, forward: oldest first (20, 30 tie with CPU 0, 60); one unknown id. */
	n = 0;
	n += put_sample(buf + n, 11, 102, 20, 1);
	n += put_sample(buf + n, 21, 100, 30, 1);
	n += put_sample(buf + n, 99, 103, 35, 1);
	n += put_sample(buf + n, 21, 102, 60, 1);
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);

	assert_int_equal(snapshot__nr_records(s), 7);
	{
		static const uint64_t want[] = { 10, 20, 30, 30, 40, 50, 60 };

		for (size_t i = 0; i < 7; i++)
			assert_int_equal(time_of(s, i), want[i]);
	}
	/* Equal times keep ring order: CPU 0's chunk came first. */
	assert_int_equal(((const uint64_t *)nth(s, SNAPSHOT_ALL_CPUS, 2, NULL))[1], 20);
	assert_int_equal(snapshot__stats(s)->nr_dropped, 1);
	assert_int_equal(snapshot__stats(s)->lost_events, 7);
	assert_int_equal(snapshot__stats(s)->first_time, 10);
	assert_int_equal(snapshot__stats(s)->last_time, 60);
	assert_int_equal(snapshot__event(s, 0)->nr_records, 4);
	assert_int_equal(snapshot__event(s, 1)->nr_records, 3);

	/* Tasks: 100, 101, 102 (103's record was dropped). */
	assert_int_equal(snapshot__nr_tasks(s), 3);
	assert_int_equal(snapshot__task(s, 0)->tid, 100);
	assert_int_equal(snapshot__task(s, 2)->tid, 102);

	assert_int_equal(snapshot__nr_chunks(s), 2);
	assert_true(snapshot__chunk(s, 0)->overwritten);
	assert_int_equal(snapshot__chunk(s, 0)->nr_records, 4);
	assert_int_equal(snapshot__chunk(s, 0)->first_time, 10);
	assert_int_equal(snapshot__chunk(s, 0)->last_time, 50);
	assert_int_equal(snapshot__chunk(s, 0)->lost_events, 7);
	assert_false(snapshot__chunk(s, 1)->overwritten);
	assert_int_equal(snapshot__chunk(s, 1)->nr_records, 3);
	snapshot__delete(s);
}

static void test_add_records_after_seal(void **state)
{
	struct snapshot *s = new_snapshot();
	uint8_t buf[256];
	size_t n = 0;

	(void)state;
	n += put_sample(buf + n, 10, 100, 100, 0);
	n += put_sample(buf + n, 10, 100, 300, 0);
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__add_records(s, buf, n), -EBADFD);
	assert_int_equal(snapshot__seal(s), 0);

	n = 0;
	n += put_sample(buf + n, 20, 555, 200, 0);
	n += put_sample(buf + n, 20, 555, 99, 0);
	assert_int_equal(snapshot__add_records(s, buf, n), 0);
	assert_int_equal(snapshot__nr_records(s), 4);
	assert_int_equal(time_of(s, 0), 99);
	assert_int_equal(time_of(s, 1), 100);
	assert_int_equal(time_of(s, 2), 200);
	assert_int_equal(time_of(s, 3), 300);
	/* Merged records name tasks, they do not add them, nor stretch the span. */
	assert_int_equal(snapshot__nr_tasks(s), 1);
	assert_int_equal(snapshot__stats(s)->first_time, 100);
	/* A torn record is refused. */
	assert_int_equal(snapshot__add_records(s, buf, 16), -EINVAL);
	snapshot__delete(s);
}

/* Names from COMM and FORK records in time order, also those merged in later. */
static void test_comms(void **state)
{
	struct snapshot *s = new_snapshot();
	uint8_t buf[1024];
	size_t n = 0;

	(void)state;
	/* Backward copy, newest first: at the same time, ring order decides. */
	n += put_comm(buf + n, 10, 5, "late", 30);
	n += put_comm(buf + n, 10, 5, "early", 30);
	n += put_sample(buf + n, 10, 5, 25, 0);
	memset(buf + n, 0, 8);
	assert_int_equal(snapshot__begin_chunk(s, 0, true), 0);
	assert_int_equal(snapshot__append(s, buf, n + 8), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	n = 0;
	n += put_comm(buf + n, 20, 7, "seven", 10);
	n += put_fork(buf + n, 20, 9, 5, 20); /* its parent has no name yet */
	n += put_fork(buf + n, 20, 6, 5, 40);
	n += put_comm(buf + n, 20, 5, "after-fork", 45);
	n += put_comm(buf + n, 20, 0, "swapper", 46); /* not a task's */
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);

	assert_int_equal(snapshot__nr_comms(s), 3);
	assert_string_equal(snapshot__comm(s, 5), "after-fork");
	assert_string_equal(snapshot__comm(s, 6), "late");
	assert_string_equal(snapshot__comm(s, 7), "seven");
	assert_null(snapshot__comm(s, 9));
	assert_null(snapshot__comm(s, 0));
	assert_int_equal(snapshot__comm_entry(s, 0)->tid, 5);
	assert_int_equal(snapshot__comm_entry(s, 2)->tid, 7);
	assert_null(snapshot__comm_entry(s, 3));

	/* Merged records take their place in time: 8 is named, 6 renamed, 7 not. */
	n = 0;
	n += put_comm(buf + n, 11, 6, "renamed", 50);
	n += put_comm(buf + n, 11, 8, "a-very-long-name-cut-at-15", 5);
	n += put_comm(buf + n, 11, 7, "older", 1);
	assert_int_equal(snapshot__add_records(s, buf, n), 0);
	assert_int_equal(snapshot__nr_comms(s), 4);
	assert_string_equal(snapshot__comm(s, 6), "renamed");
	assert_string_equal(snapshot__comm(s, 7), "seven");
	assert_string_equal(snapshot__comm(s, 8), "a-very-long-nam");
	snapshot__delete(s);
}

/*
 * A chunk of mixed CPUs (as a perf.data or the side-band ring holds) is
 * filed per CPU; a record written before an earlier-stamped one (an
 * interrupt between time stamp and reservation) is put back in order.
 */
static void test_lanes_per_cpu(void **state)
{
	struct snapshot *s = new_snapshot();
	uint8_t buf[1024];
	size_t n = 0;
	uint64_t t;

	(void)state;
	n += put_sample(buf + n, 10, 100, 10, 0);
	n += put_sample(buf + n, 10, 101, 15, 3);
	n += put_sample(buf + n, 10, 100, 30, 0);
	n += put_sample(buf + n, 10, 100, 20, 0); /* inversion on CPU 0 */
	n += put_sample(buf + n, 10, 101, 5, 3);  /* and on CPU 3 */
	n += put_lost(buf + n, 10, 2, 40, 3);
	assert_int_equal(snapshot__begin_chunk(s, -1, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* A backward ring of CPU 3 whose newest record is older than its next. */
	n = 0;
	n += put_sample(buf + n, 20, 102, 25, 3);
	n += put_sample(buf + n, 20, 102, 26, 3);
	n += put_sample(buf + n, 20, 102, 12, 3);
	assert_int_equal(snapshot__begin_chunk(s, 3, true), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);

	assert_int_equal(snapshot__nr_records(s), 9);
	assert_int_equal(snapshot__max_cpu(s), 3);
	{
		static const uint64_t all[] = { 5, 10, 12, 15, 20, 25, 26, 30, 40 };
		static const uint64_t cpu3[] = { 5, 12, 15, 25, 26, 40 };

		for (size_t i = 0; i < 9; i++)
			assert_int_equal(time_of(s, i), all[i]);
		for (size_t i = 0; i < 6; i++) {
			nth(s, 3, i, &t);
			assert_int_equal(t, cpu3[i]);
		}
	}
	{
		struct snapshot_cursor *c = snapshot_cursor__new(s, 1);

		assert_null(snapshot_cursor__next(c, &t));
		snapshot_cursor__delete(c);
		c = snapshot_cursor__new(s, 0);
		for (size_t i = 0; i < 3; i++)
			assert_non_null(snapshot_cursor__next(c, &t));
		assert_int_equal(t, 30);
		assert_null(snapshot_cursor__next(c, &t));
		snapshot_cursor__delete(c);
		/* Each record's event comes with it: "a" for ids 10/11, "b" for 20/21. */
		c = snapshot_cursor__new(s, 3);
		assert_null(snapshot_cursor__event(c));
		assert_non_null(snapshot_cursor__next(c, &t));
		assert_string_equal(snapshot_cursor__event(c)->name, "a");
		assert_non_null(snapshot_cursor__next(c, &t));
		assert_int_equal(t, 12);
		assert_string_equal(snapshot_cursor__event(c)->name, "b");
		snapshot_cursor__delete(c);
	}
	assert_int_equal(snapshot__stats(s)->first_time, 5);
	assert_int_equal(snapshot__stats(s)->last_time, 40);
	snapshot__delete(s);
}

/* A run far from time order (a malformed input) still comes out sorted. */
static void test_unordered_run(void **state)
{
	struct snapshot *s = new_snapshot();
	static uint8_t buf[40 * 2000];
	size_t n = 0;

	(void)state;
	for (uint64_t i = 0; i < 2000; i++)
		n += put_sample(buf + n, 10, 100, (i * 7919) % 2000, 0);
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	{
		struct snapshot_cursor *c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
		uint64_t t, want = 0;

		while (snapshot_cursor__next(c, &t))
			assert_int_equal(t, want++);
		assert_int_equal(want, 2000);
		snapshot_cursor__delete(c);
	}
	snapshot__delete(s);
}

/*
 * A backward ring of thousands of records is read a segment at a time:
 * times out of ring order, within a segment, across the marks and across
 * many segments, still come out as a stable sort of the ring's records
 * (oldest first), per CPU and merged; dropped records and a second CPU's
 * records in the same ring do not disturb the count.
 */
#define SEG_RECORDS 6000

static uint64_t seg_time(size_t i)
{
	uint64_t t = 10 * (uint64_t)i;

	if (i % 97 == 5)
		t += 25; /* later than its next two: a small local inversion */
	if (i % 1024 == 1023 || i % 1024 == 0)
		t = 10 * (uint64_t)(i - i % 1024) + 3; /* the same time across a mark */
	if (i == 1500)
		t = 10 * 4000; /* an old record later than 2,500 newer ones */
	if (i == 5000)
		t = 10 * 2100; /* a new record earlier than 2,900 older ones */
	if (i == 5500)
		t = 10 * 5500 + 5;
	return t;
}

struct seg_rec {
	uint64_t time;
	uint32_t tid, cpu;
};

static int cmp_seg_rec(const void *a, const void *b)
{
	const struct seg_rec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid; /* tid: ring order, oldest first */
}

static void check_segments(struct snapshot *s, const struct seg_rec *want, size_t nr, int cpu)
{
	struct snapshot_cursor *c = snapshot_cursor__new(s, cpu);
	const struct perf_event_header *h;
	size_t k = 0;
	uint64_t t;

	assert_non_null(c);
	for (size_t i = 0; i < nr; i++) {
		if (cpu != SNAPSHOT_ALL_CPUS && want[i].cpu != (uint32_t)cpu)
			continue;
		h = snapshot_cursor__next(c, &t);
		assert_non_null(h);
		assert_int_equal(t, want[i].time);
		assert_int_equal(((const uint32_t *)h)[5], want[i].tid); /* after header, id, pid */
		k++;
	}
	assert_null(snapshot_cursor__next(c, &t));
	assert_true(k > 0);
	snapshot_cursor__delete(c);
}

static void test_backward_segments(void **state)
{
	static uint64_t ring[SEG_RECORDS * 5 + 8];
	static struct seg_rec want[SEG_RECORDS];
	size_t n = 0, nr = 0;

	(void)state;
	/* Newest first in the ring: record i (oldest first) is written last to first. */
	for (size_t j = SEG_RECORDS; j-- > 0;) {
		uint32_t cpu = j % 7 == 3 ? 1 : 0;

		if (j % 500 == 250) {
			n += put_sample((uint8_t *)ring + n, 99, (uint32_t)j, seg_time(j), cpu);
			continue; /* an unknown id: dropped */
		}
		n += put_sample((uint8_t *)ring + n, 10, (uint32_t)j, seg_time(j), cpu);
	}
	for (size_t i = 0; i < SEG_RECORDS; i++)
		if (i % 500 != 250)
			want[nr++] = (struct seg_rec){ seg_time(i), (uint32_t)i,
						       i % 7 == 3 ? 1 : 0 };
	qsort(want, nr, sizeof(*want), cmp_seg_rec);

	for (int spilled = 0; spilled < 2; spilled++) {
		struct snapshot *s = new_snapshot();

		if (spilled) {
			assert_int_equal(snapshot__begin_chunk(s, 0, true), 0);
			assert_int_equal(snapshot__append(s, ring, n), 0);
			assert_int_equal(snapshot__end_chunk(s), 0);
		} else {
			assert_int_equal(snapshot__add_chunk_memory(s, 0, true, ring, n, true), 0);
		}
		assert_int_equal(snapshot__seal(s), 0);
		assert_int_equal(snapshot__nr_records(s), nr);
		assert_int_equal(snapshot__stats(s)->nr_dropped, SEG_RECORDS - nr);
		assert_int_equal(snapshot__max_cpu(s), 1);
		check_segments(s, want, nr, SNAPSHOT_ALL_CPUS);
		check_segments(s, want, nr, 0);
		check_segments(s, want, nr, 1);
		snapshot__delete(s);
	}
}

/*
 * Chunks that stay in the caller's memory merge with spilled ones exactly
 * as if spilled, also after __add_records maps the spill anew.
 */
static void test_memory_chunks(void **state)
{
	struct snapshot *s = new_snapshot();
	uint64_t mem_a[16], mem_b[8], spilled[16];
	uint8_t side[256];
	size_t n = 0, m = 0, k = 0, sn;

	(void)state;
	/* CPU 0 in memory, backward: newest first (40, 20). */
	n += put_sample((uint8_t *)mem_a + n, 10, 100, 40, 0);
	n += put_sample((uint8_t *)mem_a + n, 10, 100, 20, 0);
	/* CPU 1 spilled, forward (10, 30). */
	k += put_sample((uint8_t *)spilled + k, 11, 101, 10, 1);
	k += put_sample((uint8_t *)spilled + k, 11, 101, 30, 1);
	/* CPU 2 in memory, forward (25). */
	m += put_sample((uint8_t *)mem_b + m, 20, 102, 25, 2);
	assert_int_equal(snapshot__add_chunk_memory(s, 0, true, mem_a, n, true), 0);
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	/* No memory chunk inside an open chunk. */
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, mem_b, m, false), -EBADFD);
	assert_int_equal(snapshot__append(s, spilled, k), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* Misaligned memory or a length not a multiple of 8 is refused. */
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, (uint8_t *)mem_b + 4, 8, false),
			 -EINVAL);
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, mem_b, m + 4, false), -EINVAL);
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, mem_b, m, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__add_chunk_memory(s, 3, false, mem_b, m, false), -EBADFD);

	{
		static const uint64_t want[] = { 10, 20, 25, 30, 40 };

		assert_int_equal(snapshot__nr_records(s), 5);
		for (size_t i = 0; i < 5; i++)
			assert_int_equal(time_of(s, i), want[i]);
	}
	assert_true(snapshot__chunk(s, 0)->overwritten);
	assert_int_equal(snapshot__chunk(s, 0)->last_time, 40);
	assert_int_equal(snapshot__chunk(s, 2)->cpu, 2);
	assert_int_equal(snapshot__nr_tasks(s), 3);
	/* A record merged in after sealing remaps the spill; memory chunks are unmoved. */
	sn = put_comm(side, 10, 100, "memtask", 35);
	assert_int_equal(snapshot__add_records(s, side, sn), 0);
	{
		static const uint64_t want[] = { 10, 20, 25, 30, 35, 40 };

		for (size_t i = 0; i < 6; i++)
			assert_int_equal(time_of(s, i), want[i]);
	}
	assert_string_equal(snapshot__comm(s, 100), "memtask");
	assert_ptr_equal(nth(s, 0, 0, NULL), (const void *)((uint8_t *)mem_a + 40));
	snapshot__delete(s);
}

/*
 * Six chunks (backward and forward, in memory and spilled, CPUs shared
 * between chunks, records whose CPU is not their chunk's, names, losses
 * and unknown ids), the same for every call; sealed with @threads.
 */
#define PAR_CHUNKS  6
#define PAR_RECORDS 400

static struct snapshot *parallel_snapshot(unsigned int threads, uint8_t bufs[][PAR_RECORDS * 64])
{
	struct snapshot *s = new_snapshot();

	for (size_t k = 0; k < PAR_CHUNKS; k++) {
		uint8_t rec[64];
		size_t len = 0, n;
		bool backward = k % 2 == 0;

		/* Written oldest first; a backward chunk holds them newest first. */
		for (size_t i = 0; i < PAR_RECORDS; i++) {
			size_t j = backward ? PAR_RECORDS - 1 - i : i;
			uint64_t t = 1000 + k + PAR_CHUNKS * j - (j % 10 == 3 ? 7 : 0);
			uint32_t tid = (uint32_t)(100 + k * 10 + j % 7);

			if (j % 50 == 7)
				n = put_comm(rec, 10, tid, j % 100 == 7 ? "even" : "odd", t);
			else if (j % 77 == 5)
				n = put_fork(rec, 20, tid + 1000, tid, t);
			else if (j % 99 == 9)
				n = put_lost(rec, 11, j, t, (uint32_t)(k % 3));
			else
				n = put_sample(rec, j % 120 == 1 ? 99 : (j % 2 ? 21 : 10), tid, t,
					       (uint32_t)(j % 13 == 0 ? 5 : k % 3));
			memcpy(bufs[k] + len, rec, n);
			len += n;
		}
		if (k < 3) {
			assert_int_equal(snapshot__add_chunk_memory(s, (int)(k % 3), backward,
								    bufs[k], len, k == 0),
					 0);
		} else {
			assert_int_equal(snapshot__begin_chunk(s, (int)(k % 3), backward), 0);
			assert_int_equal(snapshot__append(s, bufs[k], len), 0);
			assert_int_equal(snapshot__end_chunk(s), 0);
		}
	}
	snapshot__set_index_threads(s, threads);
	assert_int_equal(snapshot__seal(s), 0);
	return s;
}

static void assert_same_cursor(const struct snapshot *a, const struct snapshot *b, int cpu)
{
	struct snapshot_cursor *ca = snapshot_cursor__new(a, cpu),
			       *cb = snapshot_cursor__new(b, cpu);
	const struct perf_event_header *ha, *hb;
	uint64_t ta, tb;
	size_t n = 0;

	assert_non_null(ca);
	assert_non_null(cb);
	do {
		ha = snapshot_cursor__next(ca, &ta);
		hb = snapshot_cursor__next(cb, &tb);
		assert_int_equal(ha == NULL, hb == NULL);
		if (!ha)
			break;
		assert_int_equal(ta, tb);
		assert_int_equal(ha->size, hb->size);
		assert_memory_equal(ha, hb, ha->size);
		assert_int_equal(snapshot_cursor__event(ca) - snapshot__event(a, 0),
				 snapshot_cursor__event(cb) - snapshot__event(b, 0));
		n++;
	} while (1);
	if (cpu == SNAPSHOT_ALL_CPUS)
		assert_int_equal(n, snapshot__nr_records(a));
	snapshot_cursor__delete(ca);
	snapshot_cursor__delete(cb);
}

/* Equal times come in chunk order: a sample's tid says its chunk here. */
static void assert_ties_in_chunk_order(const struct snapshot *s)
{
	struct snapshot_cursor *c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	const struct perf_event_header *h;
	uint64_t t, prev_t = 0, prev_chunk = 0;
	size_t ties = 0;

	assert_non_null(c);
	while ((h = snapshot_cursor__next(c, &t))) {
		uint32_t tid;

		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		memcpy(&tid, (const uint8_t *)h + 20, sizeof(tid));
		if (t == prev_t) {
			assert_true((tid - 100) / 10 >= prev_chunk);
			ties++;
		}
		prev_t = t;
		prev_chunk = (tid - 100) / 10;
	}
	assert_true(ties > 0);
	snapshot_cursor__delete(c);
}

/* Chunks indexed by several threads give the index one thread gives. */
static void test_parallel_seal(void **state)
{
	static uint8_t bufs[3][PAR_CHUNKS][PAR_RECORDS * 64];
	struct snapshot *one = parallel_snapshot(1, bufs[0]);
	const struct snapshot_stats *st = snapshot__stats(one);

	(void)state;
	/* Every kind of record was filed, and the unknown ids dropped. */
	assert_true(st->nr_records > PAR_CHUNKS * (PAR_RECORDS - 10));
	assert_true(st->nr_dropped > 0 && st->nr_lost_records > 0);
	assert_true(snapshot__nr_comms(one) > 0);
	for (unsigned int threads = 0; threads <= 4; threads += 4) {
		struct snapshot *many = parallel_snapshot(threads, bufs[threads ? 2 : 1]);
		const struct snapshot_stats *sm = snapshot__stats(many);

		assert_memory_equal(st, sm, sizeof(*st));
		assert_int_equal(snapshot__nr_records(one), snapshot__nr_records(many));
		assert_int_equal(snapshot__max_cpu(one), snapshot__max_cpu(many));
		for (size_t i = 0; i < snapshot__nr_events(one); i++)
			assert_int_equal(snapshot__event(one, i)->nr_records,
					 snapshot__event(many, i)->nr_records);
		for (size_t i = 0; i < PAR_CHUNKS; i++)
			assert_memory_equal(snapshot__chunk(one, i), snapshot__chunk(many, i),
					    sizeof(struct snapshot_chunk_info));
		assert_int_equal(snapshot__nr_tasks(one), snapshot__nr_tasks(many));
		for (size_t i = 0; i < snapshot__nr_tasks(one); i++)
			assert_memory_equal(snapshot__task(one, i), snapshot__task(many, i),
					    sizeof(struct snapshot_task));
		assert_int_equal(snapshot__nr_comms(one), snapshot__nr_comms(many));
		for (size_t i = 0; i < snapshot__nr_comms(one); i++)
			assert_memory_equal(snapshot__comm_entry(one, i),
					    snapshot__comm_entry(many, i),
					    sizeof(struct snapshot_comm));
		for (int cpu = -1; cpu <= snapshot__max_cpu(one); cpu++)
			assert_same_cursor(one, many, cpu);
		assert_same_cursor(one, many, SNAPSHOT_ALL_CPUS);
		assert_ties_in_chunk_order(many);
		snapshot__delete(many);
	}
	snapshot__delete(one);
}

/* What snapshot_index__for_each_run handed out: the runs, in order. */
struct runs {
	const uint8_t *data[64];
	size_t len[64];
	size_t nr, stop_at;
};

static int take_run(void *ctx, const void *data, size_t len)
{
	struct runs *r = ctx;

	assert_true(r->nr < 64);
	assert_true(len > 0);
	assert_int_equal((uintptr_t)data % 8, 0);
	r->data[r->nr] = data;
	r->len[r->nr++] = len;
	return r->nr == r->stop_at ? -ECANCELED : 0;
}

static int cmp_ptr(const void *a, const void *b)
{
	const uint8_t *x = *(const uint8_t *const *)a, *y = *(const uint8_t *const *)b;

	return x < y ? -1 : x > y;
}

/* The runs hold each record of the all-CPU cursor once, whole, and no other. */
static void assert_runs_are_cursor(const struct snapshot *s, const struct runs *r)
{
	size_t nr = snapshot__nr_records(s), n = 0, k = 0;
	const uint8_t **from_runs = calloc(nr + 1, sizeof(*from_runs));
	const uint8_t **from_cursor = calloc(nr + 1, sizeof(*from_cursor));
	struct snapshot_cursor *c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	const struct perf_event_header *h;

	assert_non_null(from_runs);
	assert_non_null(from_cursor);
	assert_non_null(c);
	for (size_t i = 0; i < r->nr; i++)
		for (size_t pos = 0; pos < r->len[i]; pos += h->size) {
			h = (const void *)(r->data[i] + pos);
			assert_true(h->size >= sizeof(*h) && h->size <= r->len[i] - pos);
			assert_true(n < nr);
			from_runs[n++] = (const uint8_t *)h;
		}
	while ((h = snapshot_cursor__next(c, NULL)))
		from_cursor[k++] = (const uint8_t *)h;
	snapshot_cursor__delete(c);
	assert_int_equal(n, nr);
	assert_int_equal(k, nr);
	qsort(from_runs, n, sizeof(*from_runs), cmp_ptr);
	qsort(from_cursor, k, sizeof(*from_cursor), cmp_ptr);
	assert_memory_equal(from_runs, from_cursor, n * sizeof(*from_runs));
	free(from_runs);
	free(from_cursor);
}

/* Records as the rings hold them: whole runs, the dropped ones and cut tails left out. */
static void test_runs(void **state)
{
	uint8_t(*bufs)[PAR_RECORDS * 64] = calloc(PAR_CHUNKS, sizeof(*bufs));
	struct snapshot *s = new_snapshot();
	struct runs r = { 0 };
	uint64_t mem[32];
	uint8_t buf[512], side[64];
	size_t n = 0, cut;

	(void)state;
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), -EBADFD);
	/* Backward, in memory: newest first, then a record the kernel was overwriting. */
	n += put_sample((uint8_t *)mem + n, 10, 100, 50, 0);
	n += put_sample((uint8_t *)mem + n, 20, 101, 30, 0);
	cut = n;
	n += put_sample((uint8_t *)mem + n, 10, 100, 10, 0);
	((struct perf_event_header *)((uint8_t *)mem + cut))->size = 48; /* runs past the end */
	assert_int_equal(snapshot__add_chunk_memory(s, 0, true, mem, n, true), 0);
	/* Forward, spilled: an unknown id (99) in the middle splits it. */
	n = 0;
	n += put_sample(buf + n, 11, 102, 20, 1);
	n += put_sample(buf + n, 21, 100, 30, 1);
	n += put_sample(buf + n, 99, 103, 35, 1);
	n += put_sample(buf + n, 21, 102, 60, 1);
	n += put_sample(buf + n, 99, 103, 65, 1);
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, buf, n), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* An empty chunk gives no run. */
	assert_int_equal(snapshot__begin_chunk(s, 2, false), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__add_records(s, side, put_comm(side, 10, 104, "late", 5)), 0);

	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_int_equal(r.nr, 4);
	assert_ptr_equal(r.data[0], (const uint8_t *)mem);
	assert_int_equal(r.len[0], cut);
	assert_int_equal(r.len[1], 80);
	assert_memory_equal(r.data[1], buf, 80);
	assert_int_equal(r.len[2], 40);
	assert_memory_equal(r.data[2], buf + 120, 40);
	assert_memory_equal(r.data[3], side, r.len[3]); /* merged records come last */
	assert_runs_are_cursor(s, &r);
	/* A nonzero return stops the walk and is returned. */
	r = (struct runs){ .stop_at = 2 };
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), -ECANCELED);
	assert_int_equal(r.nr, 2);
	snapshot__delete(s);

	/* Many chunks of every kind: the same records as the cursor. */
	assert_non_null(bufs);
	s = parallel_snapshot(0, bufs);
	r = (struct runs){ 0 };
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_runs_are_cursor(s, &r);
	snapshot__delete(s);
	free(bufs);
}

static void test_state_errors(void **state)
{
	struct snapshot *s = snapshot__new();
	struct perf_event_attr a = { .sample_type = TYPE };
	uint64_t id = 1;

	(void)state;
	assert_int_equal(snapshot__begin_chunk(s, 0, false), -EBADFD);
	assert_int_equal(snapshot__append(s, &id, 8), -EBADFD);
	assert_int_equal(snapshot__open_spill(s, "/nonexistent/dir"), -ENOENT);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__seal(s), -EBADFD);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__add_event(s, &a, "late", &id, 1), -EBUSY);
	assert_int_equal(snapshot__nr_records(s), 0);
	snapshot__delete(s);
	snapshot__delete(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_tasks_chunks),
		cmocka_unit_test(test_add_records_after_seal),
		cmocka_unit_test(test_comms),
		cmocka_unit_test(test_lanes_per_cpu),
		cmocka_unit_test(test_unordered_run),
		cmocka_unit_test(test_backward_segments),
		cmocka_unit_test(test_memory_chunks),
		cmocka_unit_test(test_state_errors),
		cmocka_unit_test(test_parallel_seal),
		cmocka_unit_test(test_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
