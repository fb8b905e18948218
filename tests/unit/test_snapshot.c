// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the snapshot model: chunks in, records out in time order,
 * with tasks, names, per-chunk coverage, backward lanes read by segment, an
 * index built by several threads, and records merged in after sealing.
 * What a seal leaves out and the runs it hands out: test_snapshot_window.c.
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
#include "snapshot_cursor.h"
#include "test_records.h"
#include "snapshot_test.h"

static void test_order_tasks_chunks(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records r;

	(void)state;
	test_records__init(&r, TYPE);
	/* CPU 0, backward ring copy: newest first (times 50, 30, 10), a LOST at 40. */
	test_records__sample(&r,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 50 });
	test_records__lost(&r, &(struct test_lost){ .id = 10, .lost = 7, .time = 40 });
	test_records__sample(&r,
			     &(struct test_sample){ .id = 20, .pid = 101, .tid = 101, .time = 30 });
	test_records__sample(&r,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 10 });
	test_records__put_u64(&r, 0); /* unwritten rest of the ring */
	assert_int_equal(snapshot__begin_chunk(s, 0, true), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__set_chunk_overwritten(s), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* CPU 1, forward: oldest first (20, 30 tie with CPU 0, 60); one unknown id. */
	test_records__reset(&r);
	test_records__sample(&r, &(struct test_sample){
					 .id = 11, .pid = 102, .tid = 102, .time = 20, .cpu = 1 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 21, .pid = 100, .tid = 100, .time = 30, .cpu = 1 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 99, .pid = 103, .tid = 103, .time = 35, .cpu = 1 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 21, .pid = 102, .tid = 102, .time = 60, .cpu = 1 });
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	test_records__fini(&r);

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

/*
 * A tracepoint sample of a released task (the kernel writes pid and tid
 * -1) lists the task by its common_pid, its process unknown; a sample of
 * another event with -1 and no payload lists nothing.
 */
static void test_released_task(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .sample_type = TYPE | PERF_SAMPLE_RAW };
	uint8_t raw[12] = { 0 };
	int32_t common_pid = 830;
	uint64_t ids[] = { 10 };
	struct snapshot *s = snapshot__new();
	struct test_records r;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "sched:sched_switch", ids, 1), 0);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	memcpy(raw + 4, &common_pid, sizeof(common_pid));
	test_records__init(&r, TYPE | PERF_SAMPLE_RAW);
	test_records__sample(&r, &(struct test_sample){ .id = 10,
							.pid = 825,
							.tid = 825,
							.time = 5,
							.raw = raw,
							.raw_size = sizeof(raw) });
	test_records__sample(&r, &(struct test_sample){ .id = 10,
							.pid = UINT32_MAX,
							.tid = UINT32_MAX,
							.time = 10,
							.raw = raw,
							.raw_size = sizeof(raw) });
	test_records__sample(&r, &(struct test_sample){ .id = 10,
							.pid = UINT32_MAX,
							.tid = UINT32_MAX,
							.time = 20,
							.raw = raw,
							.raw_size = 2 });
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	test_records__fini(&r);

	assert_int_equal(snapshot__nr_records(s), 3);
	assert_int_equal(snapshot__nr_tasks(s), 3);
	assert_int_equal(snapshot__task(s, 0)->pid, -1);
	assert_int_equal(snapshot__task(s, 1)->pid, 0);
	assert_int_equal(snapshot__task(s, 1)->tid, 830);
	assert_int_equal(snapshot__task(s, 2)->tid, 825);
	snapshot__delete(s);
}

/*
 * A compact tracepoint record (id, time, raw) filed under its ring's CPU:
 * the task from common_pid, its process from a COMM merged in later, and
 * perf.data's wider layout with the same fields.
 */
static void test_compact_record(void **state)
{
	const uint64_t compact = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	struct perf_event_attr a = { .type = PERF_TYPE_TRACEPOINT,
				     .sample_type = compact,
				     .sample_period = 1 };
	struct perf_event_attr side = { .type = PERF_TYPE_SOFTWARE, .sample_type = TYPE };
	uint8_t raw[20] = { 0 }, wide[256];
	int32_t common_pid = 831;
	uint64_t ids[] = { 10 }, side_ids[] = { 20 };
	struct snapshot *s = snapshot__new();
	const struct snapshot_event *ev;
	struct snapshot_cursor *c;
	struct perf_record_info info;
	const struct perf_event_header *h;
	struct test_records r, sb;
	int n;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "raw_syscalls:sys_enter", ids, 1), 0);
	assert_int_equal(snapshot__add_event(s, &side, "dummy", side_ids, 1), 0);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	memcpy(raw + 4, &common_pid, sizeof(common_pid));
	raw[8] = 0x5a;
	test_records__init(&r, compact);
	test_records__sample(
		&r,
		&(struct test_sample){ .id = 10, .time = 50, .raw = raw, .raw_size = sizeof(raw) });
	/* 8 header, 8 id, 8 time, 4 + 20 raw: 48, where the full layout takes 80. */
	assert_int_equal(r.len, 48);
	assert_int_equal(snapshot__add_chunk_memory(s, 1, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__nr_tasks(s), 1);
	assert_int_equal(snapshot__task(s, 0)->pid, 0);
	assert_int_equal(snapshot__task(s, 0)->tid, 831);

	/* The side-band names thread 831 of process 830. */
	test_records__init(&sb, TYPE);
	test_records__comm(
		&sb, &(struct test_comm){
			     .pid = 830, .tid = 831, .comm = "worker", .time = 49, .id = 20 });
	assert_int_equal(snapshot__add_records(s, sb.data, sb.len), 0);
	test_records__fini(&sb);
	assert_int_equal(snapshot__task(s, 0)->pid, 830);
	assert_int_equal(snapshot__tgid(s, 831), 830);
	assert_int_equal(snapshot__tgid(s, 0), 0);
	assert_int_equal(snapshot__tgid(s, 999), -1);

	c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	assert_non_null(c);
	while ((h = snapshot_cursor__next(c, NULL)) && h->type != PERF_RECORD_SAMPLE)
		;
	assert_non_null(h);
	assert_int_equal(snapshot_cursor__cpu(c), 1);
	ev = snapshot_cursor__event(c);
	assert_int_equal(snapshot__sample(s, ev, h, snapshot_cursor__cpu(c), &info), 0);
	assert_int_equal(info.cpu, 1);
	assert_int_equal(info.tid, 831);
	assert_int_equal(info.pid, 830);
	assert_int_equal(info.period, 1);
	assert_int_equal(info.time, 50);

	/* perf.data's layout: the same fields where perf reads them. */
	assert_int_equal(snapshot_sample__file_type(ev),
			 compact | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD);
	n = snapshot__widen(s, ev, h, 1, wide);
	assert_int_equal(n, 72);
	assert_int_equal(((struct perf_event_header *)wide)->size, 72);
	memset(&info, 0, sizeof(info));
	assert_int_equal(perf_record__parse_sample((struct perf_event_header *)wide,
						   snapshot_sample__file_type(ev), &info),
			 0);
	assert_int_equal(info.id, 10);
	assert_int_equal(info.pid, 830);
	assert_int_equal(info.tid, 831);
	assert_int_equal(info.time, 50);
	assert_int_equal(info.cpu, 1);
	assert_int_equal(info.period, 1);
	assert_int_equal(info.raw_size, sizeof(raw));
	assert_memory_equal(info.raw, raw, sizeof(raw));
	/* A full layout is written as it is. */
	assert_int_equal(snapshot__widen(s, snapshot__event(s, 1), h, 1, wide), 0);
	snapshot_cursor__delete(c);
	snapshot__delete(s);
	test_records__fini(&r);
}

static void test_add_records_after_seal(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records r;

	(void)state;
	test_records__init(&r, TYPE);
	test_records__sample(
		&r, &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 100 });
	test_records__sample(
		&r, &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 300 });
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__add_records(s, r.data, r.len), -EBADFD);
	assert_int_equal(snapshot__seal(s), 0);

	test_records__reset(&r);
	test_records__sample(
		&r, &(struct test_sample){ .id = 20, .pid = 555, .tid = 555, .time = 200 });
	test_records__sample(&r,
			     &(struct test_sample){ .id = 20, .pid = 555, .tid = 555, .time = 99 });
	assert_int_equal(snapshot__add_records(s, r.data, r.len), 0);
	assert_int_equal(snapshot__nr_records(s), 4);
	assert_int_equal(time_of(s, 0), 99);
	assert_int_equal(time_of(s, 1), 100);
	assert_int_equal(time_of(s, 2), 200);
	assert_int_equal(time_of(s, 3), 300);
	/* Merged records name tasks, they do not add them, nor stretch the span. */
	assert_int_equal(snapshot__nr_tasks(s), 1);
	assert_int_equal(snapshot__stats(s)->first_time, 100);
	/* A torn record is refused. */
	assert_int_equal(snapshot__add_records(s, r.data, 16), -EINVAL);
	snapshot__delete(s);
	test_records__fini(&r);
}

/* Names from COMM and FORK records in time order, also those merged in later. */
static void test_comms(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records r;

	(void)state;
	test_records__init(&r, TYPE);
	/* Backward copy, newest first: at the same time, ring order decides. */
	test_records__comm(&r, &(struct test_comm){
				       .pid = 5, .tid = 5, .comm = "late", .time = 30, .id = 10 });
	test_records__comm(&r, &(struct test_comm){
				       .pid = 5, .tid = 5, .comm = "early", .time = 30, .id = 10 });
	test_records__sample(&r, &(struct test_sample){ .id = 10, .pid = 5, .tid = 5, .time = 25 });
	test_records__put_u64(&r, 0); /* unwritten rest of the ring */
	assert_int_equal(snapshot__begin_chunk(s, 0, true), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	test_records__reset(&r);
	test_records__comm(&r, &(struct test_comm){
				       .pid = 7, .tid = 7, .comm = "seven", .time = 10, .id = 20 });
	test_records__task(&r, &(struct test_task){ .type = PERF_RECORD_FORK,
						    .pid = 9,
						    .ppid = 5,
						    .tid = 9,
						    .ptid = 5,
						    .time = 20,
						    .id = 20 }); /* its parent has no name yet */
	test_records__task(&r, &(struct test_task){ .type = PERF_RECORD_FORK,
						    .pid = 6,
						    .ppid = 5,
						    .tid = 6,
						    .ptid = 5,
						    .time = 40,
						    .id = 20 });
	test_records__comm(
		&r, &(struct test_comm){
			    .pid = 5, .tid = 5, .comm = "after-fork", .time = 45, .id = 20 });
	test_records__comm(&r, &(struct test_comm){ .pid = 0,
						    .tid = 0,
						    .comm = "swapper",
						    .time = 46,
						    .id = 20 }); /* not a task's */
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
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
	test_records__reset(&r);
	test_records__comm(
		&r,
		&(struct test_comm){ .pid = 6, .tid = 6, .comm = "renamed", .time = 50, .id = 11 });
	test_records__comm(&r, &(struct test_comm){ .pid = 8,
						    .tid = 8,
						    .comm = "a-very-long-name-cut-at-15",
						    .time = 5,
						    .id = 11 });
	test_records__comm(&r, &(struct test_comm){
				       .pid = 7, .tid = 7, .comm = "older", .time = 1, .id = 11 });
	assert_int_equal(snapshot__add_records(s, r.data, r.len), 0);
	assert_int_equal(snapshot__nr_comms(s), 4);
	assert_string_equal(snapshot__comm(s, 6), "renamed");
	assert_string_equal(snapshot__comm(s, 7), "seven");
	assert_string_equal(snapshot__comm(s, 8), "a-very-long-nam");
	snapshot__delete(s);
	test_records__fini(&r);
}

/*
 * A chunk of mixed CPUs (as a perf.data or the side-band ring holds) is
 * filed per CPU; a record written before an earlier-stamped one (an
 * interrupt between time stamp and reservation) is put back in order.
 */
static void test_lanes_per_cpu(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records r;
	uint64_t t;

	(void)state;
	test_records__init(&r, TYPE);
	test_records__sample(&r,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 10 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 10, .pid = 101, .tid = 101, .time = 15, .cpu = 3 });
	test_records__sample(&r,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 30 });
	test_records__sample(&r, &(struct test_sample){ .id = 10,
							.pid = 100,
							.tid = 100,
							.time = 20 }); /* inversion on CPU 0 */
	test_records__sample(
		&r,
		&(struct test_sample){
			.id = 10, .pid = 101, .tid = 101, .time = 5, .cpu = 3 }); /* and on CPU 3 */
	test_records__lost(&r, &(struct test_lost){ .id = 10, .lost = 2, .time = 40, .cpu = 3 });
	assert_int_equal(snapshot__begin_chunk(s, -1, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* A backward ring of CPU 3 whose newest record is older than its next. */
	test_records__reset(&r);
	test_records__sample(&r, &(struct test_sample){
					 .id = 20, .pid = 102, .tid = 102, .time = 25, .cpu = 3 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 20, .pid = 102, .tid = 102, .time = 26, .cpu = 3 });
	test_records__sample(&r, &(struct test_sample){
					 .id = 20, .pid = 102, .tid = 102, .time = 12, .cpu = 3 });
	assert_int_equal(snapshot__begin_chunk(s, 3, true), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
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
	test_records__fini(&r);
}

/* A run far from time order (a malformed input) still comes out sorted. */
static void test_unordered_run(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records r;

	(void)state;
	test_records__init(&r, TYPE);
	for (uint64_t i = 0; i < 2000; i++)
		test_records__sample(
			&r, &(struct test_sample){
				    .id = 10, .pid = 100, .tid = 100, .time = (i * 7919) % 2000 });
	assert_int_equal(snapshot__begin_chunk(s, 0, false), 0);
	assert_int_equal(snapshot__append(s, r.data, r.len), 0);
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
	test_records__fini(&r);
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
	static struct seg_rec want[SEG_RECORDS];
	struct test_records r;
	size_t nr = 0;

	(void)state;
	test_records__init(&r, TYPE);
	/* Newest first in the ring: record i (oldest first) is written last to first. */
	for (size_t j = SEG_RECORDS; j-- > 0;) {
		uint32_t cpu = j % 7 == 3 ? 1 : 0;

		if (j % 500 == 250) {
			test_records__sample(&r, &(struct test_sample){ .id = 99,
									.pid = (uint32_t)j,
									.tid = (uint32_t)j,
									.time = seg_time(j),
									.cpu = cpu });
			continue; /* an unknown id: dropped */
		}
		test_records__sample(&r, &(struct test_sample){ .id = 10,
								.pid = (uint32_t)j,
								.tid = (uint32_t)j,
								.time = seg_time(j),
								.cpu = cpu });
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
			assert_int_equal(snapshot__append(s, r.data, r.len), 0);
			assert_int_equal(snapshot__end_chunk(s), 0);
		} else {
			assert_int_equal(
				snapshot__add_chunk_memory(s, 0, true, r.data, r.len, true), 0);
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
	test_records__fini(&r);
}

/*
 * Chunks that stay in the caller's memory merge with spilled ones exactly
 * as if spilled, also after __add_records maps the spill anew.
 */
static void test_memory_chunks(void **state)
{
	struct snapshot *s = new_snapshot();
	struct test_records a, b, sp, side;

	(void)state;
	test_records__init(&a, TYPE);
	test_records__init(&b, TYPE);
	test_records__init(&sp, TYPE);
	test_records__init(&side, TYPE);
	/* CPU 0 in memory, backward: newest first (40, 20). */
	test_records__sample(&a,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 40 });
	test_records__sample(&a,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 20 });
	/* CPU 1 spilled, forward (10, 30). */
	test_records__sample(&sp, &(struct test_sample){
					  .id = 11, .pid = 101, .tid = 101, .time = 10, .cpu = 1 });
	test_records__sample(&sp, &(struct test_sample){
					  .id = 11, .pid = 101, .tid = 101, .time = 30, .cpu = 1 });
	/* CPU 2 in memory, forward (25). */
	test_records__sample(&b, &(struct test_sample){
					 .id = 20, .pid = 102, .tid = 102, .time = 25, .cpu = 2 });
	assert_int_equal(snapshot__add_chunk_memory(s, 0, true, a.data, a.len, true), 0);
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	/* No memory chunk inside an open chunk. */
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, b.data, b.len, false), -EBADFD);
	assert_int_equal(snapshot__append(s, sp.data, sp.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* Misaligned memory or a length not a multiple of 8 is refused. */
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, b.data + 4, 8, false), -EINVAL);
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, b.data, b.len + 4, false),
			 -EINVAL);
	assert_int_equal(snapshot__add_chunk_memory(s, 2, false, b.data, b.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__add_chunk_memory(s, 3, false, b.data, b.len, false), -EBADFD);

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
	test_records__comm(
		&side, &(struct test_comm){
			       .pid = 100, .tid = 100, .comm = "memtask", .time = 35, .id = 10 });
	assert_int_equal(snapshot__add_records(s, side.data, side.len), 0);
	{
		static const uint64_t want[] = { 10, 20, 25, 30, 35, 40 };

		for (size_t i = 0; i < 6; i++)
			assert_int_equal(time_of(s, i), want[i]);
	}
	assert_string_equal(snapshot__comm(s, 100), "memtask");
	assert_ptr_equal(nth(s, 0, 0, NULL), (const void *)(a.data + 40));
	snapshot__delete(s);
	test_records__fini(&a);
	test_records__fini(&b);
	test_records__fini(&sp);
	test_records__fini(&side);
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
	static struct test_records recs[3][PAR_CHUNKS];
	struct snapshot *one = parallel_snapshot(1, recs[0]);
	const struct snapshot_stats *st = snapshot__stats(one);

	(void)state;
	/* Every kind of record was filed, and the unknown ids dropped. */
	assert_true(st->nr_records > PAR_CHUNKS * (PAR_RECORDS - 10));
	assert_true(st->nr_dropped > 0 && st->nr_lost_records > 0);
	assert_true(snapshot__nr_comms(one) > 0);
	for (unsigned int threads = 0; threads <= 4; threads += 4) {
		struct snapshot *many = parallel_snapshot(threads, recs[threads ? 2 : 1]);
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
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < PAR_CHUNKS; k++)
			test_records__fini(&recs[i][k]);
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
		cmocka_unit_test(test_released_task),
		cmocka_unit_test(test_comms),
		cmocka_unit_test(test_lanes_per_cpu),
		cmocka_unit_test(test_unordered_run),
		cmocka_unit_test(test_backward_segments),
		cmocka_unit_test(test_memory_chunks),
		cmocka_unit_test(test_state_errors),
		cmocka_unit_test(test_parallel_seal),
		cmocka_unit_test(test_compact_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
