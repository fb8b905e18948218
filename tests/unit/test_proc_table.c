// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for proc_table: side-band records built by hand (as the
 * kernel lays them out, with a sample_id_all trailer) go in; names at given
 * times and the records replayed for a span come out, read back through
 * libperf's record structs and perf_record's trailer parser.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <cmocka.h>
#include <perf/event.h>
#include "perf_record.h"
#include "proc_table.h"
#include "proc_table_test.h"
#include "test_records.h"

static void test_lifecycle_comm_at(void **state)
{
	struct proc_table *t = lifecycle();
	const struct proc_table_stats *s = proc_table__stats(t);

	(void)state;
	assert_string_equal(proc_table__comm_at(t, 200, 5), "bash");
	assert_string_equal(proc_table__comm_at(t, 200, 10), "bash");
	assert_string_equal(proc_table__comm_at(t, 200, 19), "bash");
	assert_string_equal(proc_table__comm_at(t, 200, 20), "worker");
	assert_string_equal(proc_table__comm_at(t, 200, 29), "worker");
	assert_string_equal(proc_table__comm_at(t, 200, 30), "ls");
	assert_string_equal(proc_table__comm_at(t, 200, 1000), "ls");
	assert_string_equal(proc_table__comm_at(t, 100, 0), "bash");
	assert_null(proc_table__comm_at(t, 300, 10));
	assert_null(proc_table__comm_at(t, 0, 10));
	assert_null(proc_table__comm_at(t, -1, 10));
	assert_int_equal(s->nr_tasks, 2);
	assert_int_equal(s->nr_dropped, 0);
	assert_int_equal(s->nr_records, 7);
	assert_int_equal(s->nr_ignored, 1); /* the non-exec mapping */
	assert_true(s->bytes > 0);
	proc_table__delete(t);
}

/*
 * Forked before the span, a task's state at the start begins with its FORK
 * (perf's synthesized kind): the parent is on record. A task whose FORK was
 * never seen and whose parent /proc did not give (bash here) has none.
 */
static void test_emit_initial_fork(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 200, 200 }, { 100, 100 }, { 100, 101 } };
	struct collector c = { .keep_initial_forks = true };
	size_t forks = 0;

	(void)state;
	do_fork(t, 100, 100, 101, 100, 5); /* a thread of bash */
	assert_int_equal(emit(t, tasks, 3, 25, 35, &c, NULL), 0);
	assert_int_equal(c.nr_initial_forks, 2);
	for (size_t i = 0; i < c.nr; i++) {
		const struct perf_record_fork *f = (const void *)c.rec[i];

		if (f->header.type != PERF_RECORD_FORK)
			continue;
		assert_int_equal(f->header.misc, PERF_RECORD_MISC_FORK_EXEC);
		if (f->tid == 200)
			expect_task(&c, i, PERF_RECORD_FORK, 200, 100, 200, 100, 24);
		else
			expect_task(&c, i, PERF_RECORD_FORK, 100, 100, 101, 100, 24);
		/* Before the task's COMM, which must win over the name a FORK passes on. */
		assert_true(i + 1 < c.nr);
		assert_int_equal(c.rec[i + 1]->type, PERF_RECORD_COMM);
		assert_int_equal(((const struct perf_record_comm *)c.rec[i + 1])->tid, f->tid);
		forks++;
	}
	assert_int_equal(forks, 2);
	collector_free(&c);

	/* Inside the span the real FORK goes out at its time, and no other. */
	c.keep_initial_forks = true;
	assert_int_equal(emit(t, tasks, 1, 5, 100, &c, NULL), 0);
	assert_int_equal(c.nr_initial_forks, 0);
	expect_task(&c, 0, PERF_RECORD_FORK, 200, 100, 200, 100, 10);
	collector_free(&c);
	proc_table__delete(t);
}

/* The whole life inside the span: FORK, inherited state, changes, EXIT. */
static void test_emit_whole_life(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 200, 200 } };
	struct collector c = { 0 };
	size_t unknown = 99;

	(void)state;
	assert_int_equal(emit(t, tasks, 1, 5, 100, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 7);
	expect_task(&c, 0, PERF_RECORD_FORK, 200, 100, 200, 100, 10);
	expect_comm(&c, 1, 200, 200, "bash", false, 10);
	expect_mmap2(&c, 2, 200, 0x400000, "/bin/bash", 10);
	expect_comm(&c, 3, 200, 200, "worker", false, 20);
	expect_comm(&c, 4, 200, 200, "ls", true, 30);
	expect_mmap2(&c, 5, 200, 0x500000, "/bin/ls", 31);
	expect_task(&c, 6, PERF_RECORD_EXIT, 200, 1, 200, 1, 40);
	collector_free(&c);
	proc_table__delete(t);
}

/* A span inside the life: the state at the start, then what changed in it. */
static void test_emit_state_at_start(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 200, 200 }, { 100, 100 }, { 0, 0 },
					 { -1, -1 },   { 555, 555 }, { 200, 200 } };
	struct collector c = { 0 };
	uint64_t last = 0;
	size_t unknown = 99;

	(void)state;
	assert_int_equal(emit(t, tasks, 6, 25, 35, &c, &unknown), 0);
	/* 555 only: pid/tid 0 and -1 are skipped, the duplicate merged. */
	assert_int_equal(unknown, 1);
	assert_int_equal(c.nr, 6);
	for (size_t i = 0; i < c.nr; i++) {
		struct perf_record_info s;

		assert_int_equal(perf_record__parse_id_trailer(c.rec[i], ST, &s), 0);
		assert_true(s.time >= last);
		last = s.time;
	}
	/* State at 25, stamped 24, for both tasks; bash's map at 2 goes first. */
	for (size_t i = 0; i < 4; i++) {
		const struct perf_record_comm *r = (const void *)c.rec[i];

		if (r->header.type == PERF_RECORD_COMM && r->tid == 100)
			expect_comm(&c, i, 100, 100, "bash", false, 24);
		else if (r->header.type == PERF_RECORD_COMM)
			expect_comm(&c, i, 200, 200, "worker", false, 24);
		else if (r->pid == 100)
			expect_mmap2(&c, i, 100, 0x400000, "/bin/bash", 24);
		else
			expect_mmap2(&c, i, 200, 0x400000, "/bin/bash", 24);
	}
	expect_comm(&c, 4, 200, 200, "ls", true, 30);
	expect_mmap2(&c, 5, 200, 0x500000, "/bin/ls", 31);
	collector_free(&c);

	/* After the exec, /bin/bash is no longer part of 200's state. */
	assert_int_equal(emit(t, tasks, 1, 35, 45, &c, NULL), 0);
	assert_int_equal(c.nr, 3);
	expect_comm(&c, 0, 200, 200, "ls", false, 34);
	expect_mmap2(&c, 1, 200, 0x500000, "/bin/ls", 34);
	expect_task(&c, 2, PERF_RECORD_EXIT, 200, 1, 200, 1, 40);
	collector_free(&c);

	/* Start 0 stamps the state at 0. */
	assert_int_equal(emit(t, tasks + 1, 1, 0, 0, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 1);
	expect_comm(&c, 0, 100, 100, "bash", false, 0);
	collector_free(&c);
	assert_int_equal(emit(t, tasks, 1, 10, 5, &c, &unknown), -EINVAL);
	proc_table__delete(t);
}

/* prctl(PR_SET_NAME) twice: two COMMs without exec; no maps are ended. */
static void test_prctl_rename(void **state)
{
	struct proc_table *t = proc_table__new(8);
	struct snapshot_task tasks[] = { { 300, 300 } };
	struct collector c = { 0 };

	(void)state;
	assert_non_null(t);
	feed(t, mmap2_rec(300, 0x1000, 0x1000, PROT_EXEC, "/usr/bin/app", 5));
	feed(t, comm_rec(300, 300, "old-name", false, 10));
	feed(t, comm_rec(300, 300, "new-name", false, 20));
	feed(t, comm_rec(300, 300, "new-name", false, 25)); /* no change */
	assert_string_equal(proc_table__comm_at(t, 300, 0), "old-name");
	assert_string_equal(proc_table__comm_at(t, 300, 15), "old-name");
	assert_string_equal(proc_table__comm_at(t, 300, 20), "new-name");
	assert_string_equal(proc_table__comm_at(t, 300, 30), "new-name");

	assert_int_equal(emit(t, tasks, 1, 15, 30, &c, NULL), 0);
	assert_int_equal(c.nr, 3);
	expect_comm(&c, 0, 300, 300, "old-name", false, 14);
	expect_mmap2(&c, 1, 300, 0x1000, "/usr/bin/app", 14);
	expect_comm(&c, 2, 300, 300, "new-name", false, 20);
	collector_free(&c);

	/* Before anything known: the first name is the state at the start. */
	assert_int_equal(emit(t, tasks, 1, 1, 12, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 300, 300, "old-name", false, 0);
	expect_mmap2(&c, 1, 300, 0x1000, "/usr/bin/app", 5);
	collector_free(&c);
	proc_table__delete(t);
}

/* A thread brings its process's maps; exec by the leader ends them. */
static void test_thread(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 100, 101 } };
	struct collector c = { 0 };

	(void)state;
	do_fork(t, 100, 100, 101, 100, 50);
	feed(t, comm_rec(100, 101, "bash-worker", false, 51));
	assert_string_equal(proc_table__comm_at(t, 101, 50), "bash");
	assert_string_equal(proc_table__comm_at(t, 101, 51), "bash-worker");
	assert_int_equal(emit(t, tasks, 1, 60, 70, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 100, 101, "bash-worker", false, 59);
	expect_mmap2(&c, 1, 100, 0x400000, "/bin/bash", 59);
	collector_free(&c);

	/* Listed by tid alone (a released task's tracepoint): the same records. */
	tasks[0].pid = 0;
	assert_int_equal(emit(t, tasks, 1, 60, 70, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 100, 101, "bash-worker", false, 59);
	expect_mmap2(&c, 1, 100, 0x400000, "/bin/bash", 59);
	collector_free(&c);
	proc_table__delete(t);
}

/*
 * Exited before the span, yet listed: a task wakes its parent and switches
 * out for the last time after its EXIT, so the span holds its last events.
 * It is named as it was at the end; a later incarnation born in the span
 * takes its place.
 */
static void test_emit_exit_tail(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 200, 200 } }, thread[] = { { 100, 101 } };
	struct collector c = { 0 };
	size_t unknown = 99;

	(void)state;
	assert_int_equal(emit(t, tasks, 1, 41, 50, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 200, 200, "ls", false, 40);
	expect_mmap2(&c, 1, 200, 0x500000, "/bin/ls", 40);
	collector_free(&c);

	/* Reused after the span: the span still ends the old one's life. */
	do_fork(t, 200, 100, 200, 100, 60);
	feed(t, comm_rec(200, 200, "cc1", true, 65));
	assert_int_equal(emit(t, tasks, 1, 41, 50, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 200, 200, "ls", false, 40);
	collector_free(&c);

	/* Reused in the span: only the new one. */
	assert_int_equal(emit(t, tasks, 1, 55, 70, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 4);
	expect_task(&c, 0, PERF_RECORD_FORK, 200, 100, 200, 100, 60);
	expect_comm(&c, 1, 200, 200, "bash", false, 60);
	expect_comm(&c, 3, 200, 200, "cc1", true, 65);
	collector_free(&c);

	/* A thread's tail brings its process's mappings. */
	do_fork(t, 100, 100, 101, 100, 70);
	feed(t, comm_rec(100, 101, "bash-io", false, 71));
	do_exit(t, 100, 101, 75);
	assert_int_equal(emit(t, thread, 1, 80, 90, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 100, 101, "bash-io", false, 79);
	expect_mmap2(&c, 1, 100, 0x400000, "/bin/bash", 79);
	collector_free(&c);

	/* Never seen: unknown, whatever the span. */
	thread[0].tid = 102;
	assert_int_equal(emit(t, thread, 1, 80, 90, &c, &unknown), 0);
	assert_int_equal(unknown, 1);
	assert_int_equal(c.nr, 0);

	/* Seen only by a mapping: its map goes out, but it has no name. */
	feed(t, mmap2_rec(600, 0x700000, 0x1000, PROT_READ | PROT_EXEC, "/bin/sleep", 82));
	tasks[0] = (struct snapshot_task){ 600, 600 };
	assert_int_equal(emit(t, tasks, 1, 80, 90, &c, &unknown), 0);
	assert_int_equal(unknown, 1);
	assert_int_equal(c.nr, 1);
	expect_mmap2(&c, 0, 600, 0x700000, "/bin/sleep", 82);
	collector_free(&c);
	proc_table__delete(t);
}

/* Records from per-CPU rings out of order, and a tid used twice. */
static void test_out_of_order_and_reuse(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 400, 400 } };
	struct collector c = { 0 };

	(void)state;
	/* The child's exec COMM is drained before its FORK. */
	feed(t, comm_rec(400, 400, "make", true, 60));
	do_fork(t, 400, 100, 400, 100, 55);
	assert_int_equal(proc_table__stats(t)->nr_tasks, 3);
	assert_string_equal(proc_table__comm_at(t, 400, 57), "bash");
	assert_string_equal(proc_table__comm_at(t, 400, 60), "make");
	do_exit(t, 400, 400, 70);
	/* tid 400 again, another process. */
	do_fork(t, 400, 100, 400, 100, 80);
	feed(t, comm_rec(400, 400, "cc1", true, 85));
	assert_int_equal(proc_table__stats(t)->nr_tasks, 4);
	assert_string_equal(proc_table__comm_at(t, 400, 65), "make");
	assert_string_equal(proc_table__comm_at(t, 400, 81), "bash");
	assert_string_equal(proc_table__comm_at(t, 400, 90), "cc1");
	/* A parent that had exited passes nothing on. */
	do_fork(t, 500, 200, 500, 200, 90);
	assert_null(proc_table__comm_at(t, 500, 90));

	assert_int_equal(emit(t, tasks, 1, 50, 100, &c, NULL), 0);
	assert_int_equal(c.nr, 9);
	expect_task(&c, 0, PERF_RECORD_FORK, 400, 100, 400, 100, 55);
	expect_comm(&c, 1, 400, 400, "bash", false, 55);
	expect_mmap2(&c, 2, 400, 0x400000, "/bin/bash", 55);
	expect_comm(&c, 3, 400, 400, "make", true, 60);
	expect_task(&c, 4, PERF_RECORD_EXIT, 400, 1, 400, 1, 70);
	expect_task(&c, 5, PERF_RECORD_FORK, 400, 100, 400, 100, 80);
	expect_comm(&c, 6, 400, 400, "bash", false, 80);
	expect_mmap2(&c, 7, 400, 0x400000, "/bin/bash", 80);
	expect_comm(&c, 8, 400, 400, "cc1", true, 85);
	collector_free(&c);

	/* Between the two: only the first, in its state at the start. */
	assert_int_equal(emit(t, tasks, 1, 65, 75, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 400, 400, "make", false, 64);
	expect_task(&c, 1, PERF_RECORD_EXIT, 400, 1, 400, 1, 70);
	collector_free(&c);
	proc_table__delete(t);
}

/*
 * A subshell's subshell: each FORK is taken before its parent's (the rings
 * of other CPUs are drained later), so nothing is inherited at intake. The
 * name still comes from the parent at the fork, through the whole chain.
 */
static void test_fork_before_parent(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 702, 702 } }, orphan[] = { { 800, 800 } };
	struct collector c = { 0 };
	size_t unknown = 99;

	(void)state;
	do_fork(t, 702, 701, 702, 701, 57);
	do_fork(t, 701, 700, 701, 700, 56);
	do_fork(t, 700, 100, 700, 100, 55);
	assert_string_equal(proc_table__comm_at(t, 702, 57), "bash");
	assert_string_equal(proc_table__comm_at(t, 701, 90), "bash");

	/* Forked in the span: FORK, then the inherited name at the fork. */
	assert_int_equal(emit(t, tasks, 1, 50, 100, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 2);
	expect_task(&c, 0, PERF_RECORD_FORK, 702, 701, 702, 701, 57);
	expect_comm(&c, 1, 702, 702, "bash", false, 57);
	collector_free(&c);

	/* It execs later: inherited before, its own after. */
	feed(t, comm_rec(702, 702, "grep", true, 60));
	assert_string_equal(proc_table__comm_at(t, 702, 58), "bash");
	assert_string_equal(proc_table__comm_at(t, 702, 60), "grep");
	assert_int_equal(emit(t, tasks, 1, 58, 100, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 2);
	expect_comm(&c, 0, 702, 702, "bash", false, 57);
	expect_comm(&c, 1, 702, 702, "grep", true, 60);
	collector_free(&c);

	/* Forked by a task never seen: no name to inherit. */
	do_fork(t, 800, 799, 800, 799, 60);
	assert_null(proc_table__comm_at(t, 800, 61));
	assert_int_equal(emit(t, orphan, 1, 50, 100, &c, &unknown), 0);
	assert_int_equal(unknown, 1);
	assert_int_equal(c.nr, 1);
	collector_free(&c);
	proc_table__delete(t);
}

/* Full: the earliest exited goes first, by exit time; then the earliest born. */
static void test_cap_drop_order(void **state)
{
	struct proc_table *t = proc_table__new(3);
	const struct proc_table_stats *s;

	(void)state;
	assert_non_null(t);
	s = proc_table__stats(t);
	for (uint32_t i = 1; i <= 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "task%u", i);
		do_fork(t, 1000 + i, 1, 1000 + i, 1, 10 * i);
		feed(t, comm_rec(1000 + i, 1000 + i, name, true, 10 * i + 1));
	}
	assert_int_equal(s->nr_tasks, 3);
	do_exit(t, 1002, 1002, 40);
	do_fork(t, 1004, 1, 1004, 1, 50);
	assert_int_equal(s->nr_dropped, 1);
	assert_null(proc_table__comm_at(t, 1002, 40));
	assert_string_equal(proc_table__comm_at(t, 1001, 40), "task1");

	/* No exited one: the oldest alive (1001, born at 10). */
	do_fork(t, 1005, 1, 1005, 1, 60);
	assert_int_equal(s->nr_dropped, 2);
	assert_null(proc_table__comm_at(t, 1001, 40));
	assert_string_equal(proc_table__comm_at(t, 1003, 40), "task3");

	/* Exits drained out of order: 1005 at 65 is older than 1003 at 70. */
	do_exit(t, 1003, 1003, 70);
	do_exit(t, 1005, 1005, 65);
	feed(t, comm_rec(1006, 1006, "task6", false, 80));
	assert_int_equal(s->nr_dropped, 3);
	assert_int_equal(s->nr_tasks, 3);
	assert_null(proc_table__comm_at(t, 1005, 65));
	assert_string_equal(proc_table__comm_at(t, 1003, 70), "task3");
	assert_string_equal(proc_table__comm_at(t, 1006, 80), "task6");
	proc_table__delete(t);
}

/* Per-task caps: the oldest comm changes and the ended (else oldest) maps go. */
static void test_history_caps(void **state)
{
	struct proc_table *t = proc_table__new(8);
	struct snapshot_task tasks[] = { { 50, 50 } };
	const struct proc_table_stats *s;
	struct collector c = { 0 };

	(void)state;
	assert_non_null(t);
	s = proc_table__stats(t);
	assert_int_equal(proc_table__set_history_limits(t, 0, 1), -EINVAL);
	assert_int_equal(proc_table__set_history_limits(t, 3, 2), 0);
	for (int i = 0; i < 5; i++) {
		char name[16];

		snprintf(name, sizeof(name), "n%d", i);
		feed(t, comm_rec(50, 50, name, false, 10 + i));
	}
	assert_int_equal(s->nr_history_dropped, 2);
	assert_string_equal(proc_table__comm_at(t, 50, 0), "n2");
	assert_string_equal(proc_table__comm_at(t, 50, 14), "n4");
	/* Older than all kept: dropped at once. */
	feed(t, comm_rec(50, 50, "ancient", false, 1));
	assert_int_equal(s->nr_history_dropped, 3);

	feed(t, mmap2_rec(50, 0x10000, 0x1000, PROT_EXEC, "/lib/a.so", 20));
	feed(t, mmap2_rec(50, 0x20000, 0x1000, PROT_EXEC, "/lib/b.so", 21));
	feed(t, mmap2_rec(50, 0x30000, 0x1000, PROT_EXEC, "/lib/c.so", 22));
	assert_int_equal(s->nr_history_dropped, 4);
	/* The same mapping again adds nothing. */
	feed(t, mmap2_rec(50, 0x30000, 0x1000, PROT_EXEC, "/lib/c.so", 23));
	assert_int_equal(s->nr_history_dropped, 4);
	/* One that covers b.so whole ends it: b goes before the live c. */
	feed(t, mmap2_rec(50, 0x20000, 0x2000, PROT_EXEC, "/lib/d.so", 24));
	assert_int_equal(s->nr_history_dropped, 5);

	assert_int_equal(emit(t, tasks, 1, 30, 40, &c, NULL), 0);
	assert_int_equal(c.nr, 3);
	expect_comm(&c, 0, 50, 50, "n4", false, 29);
	expect_mmap2(&c, 1, 50, 0x30000, "/lib/c.so", 29);
	expect_mmap2(&c, 2, 50, 0x20000, "/lib/d.so", 29);
	collector_free(&c);
	proc_table__delete(t);
}

static void test_mmap_kinds(void **state)
{
	static const uint8_t build_id[20] = { 0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
					      0xab, 0xab, 0xab, 0xab, 0xab, 0xab, 0xab,
					      0xab, 0xab, 0xab, 0xab, 0xab, 0xab };
	struct proc_table *t = proc_table__new(8);
	struct snapshot_task tasks[] = { { 60, 60 } };
	struct test_mmap m = { .misc = PERF_RECORD_MISC_USER,
			       .pid = 60,
			       .tid = 60,
			       .start = 0x7000,
			       .len = 0x1000,
			       .filename = "/old/style",
			       .id = 1,
			       .cpu = 1 };
	struct collector c = { 0 };
	const struct perf_record_mmap2 *r;
	struct test_records rec;

	(void)state;
	assert_non_null(t);
	proc_table__set_read_build_ids(t, true); /* else an id that came is dropped */
	test_records__init(&rec, ST);
	/* Old-style MMAP: executable unless MISC_MMAP_DATA. */
	m.time = 5;
	feed(t, test_records__mmap(&rec, &m));
	m.misc |= PERF_RECORD_MISC_MMAP_DATA;
	m.time = 6;
	feed(t, test_records__mmap(&rec, &m));
	/* MMAP2 with a build id instead of the inode: kept as it came. */
	feed(t, test_records__mmap2(&rec, &(struct test_mmap){
						  .misc = PERF_RECORD_MISC_USER |
							  PERF_RECORD_MISC_MMAP_BUILD_ID,
						  .pid = 60,
						  .tid = 60,
						  .start = 0x9000,
						  .len = 0x1000,
						  .build_id_size = 20,
						  .build_id = build_id,
						  .prot = PROT_READ | PROT_EXEC,
						  .flags = MAP_PRIVATE,
						  .filename = "/bid",
						  .time = 7,
						  .id = 1,
						  .cpu = 1,
					  }));
	test_records__fini(&rec);
	assert_int_equal(proc_table__stats(t)->nr_ignored, 1);

	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	r = (const void *)c.rec[0];
	assert_int_equal(r->header.type, PERF_RECORD_MMAP2);
	assert_string_equal(r->filename, "/old/style");
	assert_int_equal(r->prot, PROT_READ | PROT_EXEC);
	assert_int_equal(r->start, 0x7000);
	assert_int_equal(check_rec(&r->header, 60, 60), 5);
	r = (const void *)c.rec[1];
	assert_int_equal(r->header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(r->build_id_size, 20);
	assert_int_equal(r->build_id[19], 0xab);
	assert_string_equal(r->filename, "/bid");
	collector_free(&c);
	proc_table__delete(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lifecycle_comm_at),
		cmocka_unit_test(test_emit_whole_life),
		cmocka_unit_test(test_emit_state_at_start),
		cmocka_unit_test(test_emit_initial_fork),
		cmocka_unit_test(test_emit_exit_tail),
		cmocka_unit_test(test_prctl_rename),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_out_of_order_and_reuse),
		cmocka_unit_test(test_fork_before_parent),
		cmocka_unit_test(test_cap_drop_order),
		cmocka_unit_test(test_history_caps),
		cmocka_unit_test(test_mmap_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
