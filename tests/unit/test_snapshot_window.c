// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for what a sealed snapshot keeps and hands out: the records a
 * window, a ring's start or a size (with what naming the tasks adds) leave
 * out, and the runs snapshot_index__for_each_run hands out as the rings
 * hold them, with the dropped records and torn tails left out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "snapshot.h"
#include "snapshot_index.h"
#include "snapshot_cursor.h"
#include "test_records.h"
#include "snapshot_test.h"

/* What snapshot_index__for_each_run handed out: the runs, in order. */
struct runs {
	const uint8_t *data[64];
	size_t len[64];
	size_t nr, stop_at;
};

static int take_run(void *ctx, const void *data, size_t len, int cpu)
{
	struct runs *r = ctx;

	(void)cpu;
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
	struct test_records recs[PAR_CHUNKS], mem, fwd, side;
	struct snapshot *s = new_snapshot();
	struct runs r = { 0 };
	size_t cut;

	(void)state;
	test_records__init(&mem, TYPE);
	test_records__init(&fwd, TYPE);
	test_records__init(&side, TYPE);
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), -EBADFD);
	/* Backward, in memory: newest first, then a record the kernel was overwriting. */
	test_records__sample(&mem,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 50 });
	test_records__sample(&mem,
			     &(struct test_sample){ .id = 20, .pid = 101, .tid = 101, .time = 30 });
	cut = mem.len;
	test_records__sample(&mem,
			     &(struct test_sample){ .id = 10, .pid = 100, .tid = 100, .time = 10 })
		->size = 48; /* runs past the end */
	assert_int_equal(snapshot__add_chunk_memory(s, 0, true, mem.data, mem.len, true), 0);
	/* Forward, spilled: an unknown id (99) in the middle splits it. */
	test_records__sample(
		&fwd,
		&(struct test_sample){ .id = 11, .pid = 102, .tid = 102, .time = 20, .cpu = 1 });
	test_records__sample(
		&fwd,
		&(struct test_sample){ .id = 21, .pid = 100, .tid = 100, .time = 30, .cpu = 1 });
	test_records__sample(
		&fwd,
		&(struct test_sample){ .id = 99, .pid = 103, .tid = 103, .time = 35, .cpu = 1 });
	test_records__sample(
		&fwd,
		&(struct test_sample){ .id = 21, .pid = 102, .tid = 102, .time = 60, .cpu = 1 });
	test_records__sample(
		&fwd,
		&(struct test_sample){ .id = 99, .pid = 103, .tid = 103, .time = 65, .cpu = 1 });
	assert_int_equal(snapshot__begin_chunk(s, 1, false), 0);
	assert_int_equal(snapshot__append(s, fwd.data, fwd.len), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	/* An empty chunk gives no run. */
	assert_int_equal(snapshot__begin_chunk(s, 2, false), 0);
	assert_int_equal(snapshot__end_chunk(s), 0);
	assert_int_equal(snapshot__seal(s), 0);
	test_records__comm(
		&side,
		&(struct test_comm){ .pid = 104, .tid = 104, .comm = "late", .time = 5, .id = 10 });
	assert_int_equal(snapshot__add_records(s, side.data, side.len), 0);

	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_int_equal(r.nr, 4);
	assert_ptr_equal(r.data[0], mem.data);
	assert_int_equal(r.len[0], cut);
	assert_int_equal(r.len[1], 80);
	assert_memory_equal(r.data[1], fwd.data, 80);
	assert_int_equal(r.len[2], 40);
	assert_memory_equal(r.data[2], fwd.data + 120, 40);
	assert_memory_equal(r.data[3], side.data, r.len[3]); /* merged records come last */
	assert_runs_are_cursor(s, &r);
	/* A nonzero return stops the walk and is returned. */
	r = (struct runs){ .stop_at = 2 };
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), -ECANCELED);
	assert_int_equal(r.nr, 2);
	snapshot__delete(s);
	test_records__fini(&mem);
	test_records__fini(&fwd);
	test_records__fini(&side);

	/* Many chunks of every kind: the same records as the cursor. */
	s = parallel_snapshot(0, recs);
	r = (struct runs){ 0 };
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_runs_are_cursor(s, &r);
	snapshot__delete(s);
	for (size_t k = 0; k < PAR_CHUNKS; k++)
		test_records__fini(&recs[k]);
}

/* One backward and one forward chunk of samples at 10, 20, ... for the window tests. */
static struct snapshot *window_snapshot(struct test_records *bwd, struct test_records *fwd)
{
	struct snapshot *s = new_snapshot();

	test_records__init(bwd, TYPE);
	test_records__init(fwd, TYPE);
	/* CPU 0 backward: 90, 70, 50, 30, 10 (newest first), tasks 100 + t/10. */
	for (uint64_t t = 90; t >= 10 && t <= 90; t -= 20)
		test_records__sample(bwd, &(struct test_sample){ .id = 10,
								 .pid = (uint32_t)(100 + t / 10),
								 .tid = (uint32_t)(100 + t / 10),
								 .time = t });
	/* CPU 1 forward: 20, 40, 60, 80, and a COMM at 25. */
	for (uint64_t t = 20; t <= 80; t += 20) {
		test_records__sample(fwd, &(struct test_sample){ .id = 20,
								 .pid = (uint32_t)(100 + t / 10),
								 .tid = (uint32_t)(100 + t / 10),
								 .time = t,
								 .cpu = 1 });
		if (t == 20)
			test_records__comm(fwd, &(struct test_comm){ .pid = 102,
								     .tid = 102,
								     .comm = "early",
								     .time = 25,
								     .id = 20,
								     .cpu = 1 });
	}
	assert_int_equal(snapshot__add_chunk_memory(s, 0, true, bwd->data, bwd->len, true), 0);
	assert_int_equal(snapshot__add_chunk_memory(s, 1, false, fwd->data, fwd->len, false), 0);
	return s;
}

/* Every reader sees the window only; the rings' extent stays known. */
static void test_window(void **state)
{
	struct test_records bwd, fwd, side;
	struct snapshot *s = window_snapshot(&bwd, &fwd);
	struct runs r = { 0 };
	uint64_t t;

	(void)state;
	assert_int_equal(snapshot__set_window(s, 40, 10, 0), -EINVAL);
	assert_int_equal(snapshot__set_window(s, 30, 70, 0), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__set_window(s, 30, 70, 0), -EBADFD);
	/* 30, 40, 50, 60, 70: the COMM at 25 is outside too. */
	assert_int_equal(snapshot__nr_records(s), 5);
	assert_int_equal(time_of(s, 0), 30);
	assert_int_equal(time_of(s, 4), 70);
	nth(s, 1, 1, &t);
	assert_int_equal(t, 60);
	assert_int_equal(snapshot__stats(s)->first_time, 30);
	assert_int_equal(snapshot__stats(s)->last_time, 70);
	assert_int_equal(snapshot__stats(s)->nr_records, 5);
	assert_int_equal(snapshot__stats(s)->nr_cropped, 5);
	assert_int_equal(snapshot__stats(s)->nr_dropped, 0);
	assert_int_equal(snapshot__stats(s)->window_from, 30);
	assert_false(snapshot__stats(s)->max_bytes_cut);
	assert_int_equal(snapshot__nr_comms(s), 0);
	/* Tasks of the window only: 103..107. */
	assert_int_equal(snapshot__nr_tasks(s), 5);
	assert_int_equal(snapshot__task(s, 0)->tid, 103);
	assert_int_equal(snapshot__task(s, 4)->tid, 107);
	assert_int_equal(snapshot__chunk(s, 0)->nr_records, 3);
	assert_int_equal(snapshot__chunk(s, 0)->first_time, 30);
	assert_int_equal(snapshot__chunk(s, 0)->held_records, 5);
	assert_int_equal(snapshot__chunk(s, 0)->held_first_time, 10);
	assert_int_equal(snapshot__chunk(s, 0)->held_last_time, 90);
	assert_int_equal(snapshot__chunk(s, 1)->first_time, 40);
	assert_int_equal(snapshot__chunk(s, 1)->held_first_time, 20);
	/* Records merged after the seal are kept whatever their time. */
	test_records__init(&side, TYPE);
	test_records__comm(&side,
			   &(struct test_comm){
				   .pid = 103, .tid = 103, .comm = "named", .time = 29, .id = 10 });
	assert_int_equal(snapshot__add_records(s, side.data, side.len), 0);
	assert_int_equal(snapshot__nr_records(s), 6);
	assert_string_equal(snapshot__comm(s, 103), "named");
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_runs_are_cursor(s, &r);
	snapshot__delete(s);
	test_records__fini(&bwd);
	test_records__fini(&fwd);
	test_records__fini(&side);
}

/* A ring's start leaves out its older records only, and says how many. */
static void test_chunk_start(void **state)
{
	struct test_records bwd, fwd;
	struct snapshot *s = window_snapshot(&bwd, &fwd);
	struct runs r = { 0 };

	(void)state;
	assert_int_equal(snapshot__set_chunk_start(s, 2, 50), -EINVAL);
	assert_int_equal(snapshot__set_chunk_start(s, 0, 50), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__set_chunk_start(s, 0, 50), -EBADFD);
	/* CPU 0: 50, 70, 90 of 10..90; CPU 1 whole: 20..80 and its COMM at 25. */
	assert_int_equal(snapshot__nr_records(s), 8);
	assert_int_equal(time_of(s, 0), 20);
	assert_int_equal(snapshot__chunk(s, 0)->nr_records, 3);
	assert_int_equal(snapshot__chunk(s, 0)->first_time, 50);
	assert_int_equal(snapshot__chunk(s, 0)->start_time, 50);
	assert_int_equal(snapshot__chunk(s, 0)->before_start, 2);
	assert_int_equal(snapshot__chunk(s, 1)->before_start, 0);
	assert_int_equal(snapshot__chunk(s, 1)->first_time, 20);
	/* Not a window's crop. */
	assert_int_equal(snapshot__stats(s)->nr_cropped, 0);
	assert_int_equal(snapshot__stats(s)->nr_dropped, 0);
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	assert_runs_are_cursor(s, &r);
	snapshot__delete(s);
	test_records__fini(&bwd);
	test_records__fini(&fwd);
}

/* A size keeps the newest records whose bytes fit it, and no record of the cut's time. */
static void test_window_max_bytes(void **state)
{
	struct test_records bwd, fwd;
	struct snapshot *s = window_snapshot(&bwd, &fwd);
	struct runs r = { 0 };
	uint64_t rec = ((const struct perf_event_header *)bwd.data)->size, bytes = 0;

	(void)state;
	/* Room for three and a half samples of the window [0, 85]: 80, 70, 60. */
	assert_int_equal(snapshot__set_window(s, 0, 85, rec * 7 / 2), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__nr_records(s), 3);
	assert_int_equal(time_of(s, 0), 60);
	assert_int_equal(snapshot__stats(s)->window_from, 51);
	assert_true(snapshot__stats(s)->max_bytes_cut);
	assert_int_equal(snapshot_index__for_each_run(s, take_run, &r), 0);
	for (size_t i = 0; i < r.nr; i++)
		bytes += r.len[i];
	assert_true(bytes <= rec * 7 / 2);
	assert_int_equal(bytes, snapshot__stats(s)->bytes);
	snapshot__delete(s);
	test_records__fini(&bwd);
	test_records__fini(&fwd);
	/* A size that holds all: the window decides. */
	s = window_snapshot(&bwd, &fwd);
	assert_int_equal(snapshot__set_window(s, 0, UINT64_MAX, 1 << 20), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__nr_records(s), 10);
	assert_false(snapshot__stats(s)->max_bytes_cut);
	snapshot__delete(s);
	test_records__fini(&bwd);
	test_records__fini(&fwd);
}

struct naming_calls {
	uint64_t per_task, from, to;
	size_t nr, calls;
	bool sorted;
};

static uint64_t naming_cost(void *ctx, const struct snapshot_task *tasks, size_t nr, uint64_t from,
			    uint64_t to)
{
	struct naming_calls *c = ctx;

	c->calls++;
	c->nr = nr;
	c->from = from;
	c->to = to;
	c->sorted = true;
	for (size_t i = 1; i < nr; i++)
		c->sorted &= tasks[i - 1].tid < tasks[i].tid;
	return c->per_task * nr;
}

/* window_snapshot() sealed with a size and a naming cost, both in halves of a record. */
struct named_cut {
	struct test_records bwd, fwd;
	struct naming_calls c;
	struct snapshot *s;
};

static void seal_named_cut(struct named_cut *n, uint64_t per_task_halves, uint64_t max_halves)
{
	uint64_t rec;

	n->s = window_snapshot(&n->bwd, &n->fwd);
	rec = ((const struct perf_event_header *)n->bwd.data)->size;
	n->c = (struct naming_calls){ .per_task = rec * per_task_halves / 2 };
	assert_int_equal(snapshot__set_window(n->s, 0, 85, rec * max_halves / 2), 0);
	snapshot__set_naming_cost(n->s, naming_cost, &n->c);
	assert_int_equal(snapshot__seal(n->s), 0);
}

static void free_named_cut(struct named_cut *n)
{
	snapshot__delete(n->s);
	test_records__fini(&n->bwd);
	test_records__fini(&n->fwd);
}

/* A size counts what naming the kept records' tasks adds: fewer records are kept. */
static void test_window_max_bytes_naming(void **state)
{
	struct named_cut n;

	(void)state;
	/*
	 * 80, 70, 60 fit 3.5 records, but with their three tasks named they
	 * take 4.5; without the naming's 1.5, 80 and 70 fit, and with theirs, 3.
	 */
	seal_named_cut(&n, 1, 7);
	assert_int_equal(snapshot__nr_records(n.s), 2);
	assert_int_equal(time_of(n.s, 0), 70);
	assert_int_equal(snapshot__stats(n.s)->window_from, 61);
	assert_int_equal(n.c.calls, 2);
	assert_int_equal(n.c.nr, 2);
	assert_int_equal(n.c.from, 70);
	assert_int_equal(n.c.to, 80);
	assert_true(n.c.sorted);
	free_named_cut(&n);
	/*
	 * Naming that outweighs the size for the first guess: 80, 70, 60, 50
	 * fit 4 records, but named they take 12; their naming alone (8) leaves
	 * no room at all. Halving finds that 80 alone, named, takes 3.
	 */
	seal_named_cut(&n, 4, 8);
	assert_int_equal(snapshot__nr_records(n.s), 1);
	assert_int_equal(time_of(n.s, 0), 80);
	free_named_cut(&n);
	/* Where the first guess fits, halving takes back what it cut too much: 80 and 70 take 3 of 3. */
	seal_named_cut(&n, 1, 6);
	assert_int_equal(snapshot__nr_records(n.s), 2);
	assert_int_equal(time_of(n.s, 0), 70);
	free_named_cut(&n);
	/* A window with no size never asks. */
	seal_named_cut(&n, 1, 0);
	assert_int_equal(n.c.calls, 0);
	free_named_cut(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_chunk_start),
		cmocka_unit_test(test_window_max_bytes),
		cmocka_unit_test(test_window_max_bytes_naming),
		cmocka_unit_test(test_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
