// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for proc_table at its limits: emitter errors, malformed and
 * random records, seeding from this process's /proc, caps under forking
 * and exiting tasks, and churn.
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

static void test_emitter_error(void **state)
{
	struct proc_table *t = lifecycle();
	struct snapshot_task tasks[] = { { 200, 200 } };
	struct collector c = { .fail_at = 3, .fail_err = -ENOSPC };
	size_t unknown = 42;

	(void)state;
	assert_int_equal(emit(t, tasks, 1, 0, 100, &c, &unknown), -ENOSPC);
	assert_int_equal(c.nr, 2);
	assert_int_equal(unknown, 42);
	collector_free(&c);
	assert_int_equal(proc_table__emit_span(t, tasks, 1, 0, 1, NULL, collect, &c, NULL),
			 -EINVAL);
	proc_table__delete(t);
}

static void test_malformed(void **state)
{
	struct proc_table *t = proc_table__new(4);
	const struct proc_table_stats *s;
	struct perf_event_header *h;
	uint16_t size;

	(void)state;
	assert_non_null(t);
	s = proc_table__stats(t);
	assert_int_equal(proc_table__process_record(t, NULL, ST), -EINVAL);
	h = comm_rec(70, 70, "ok", false, 1);
	assert_int_equal(proc_table__process_record(t, h, ST & ~PERF_SAMPLE_TIME), -EINVAL);
	size = h->size;
	h->size = 4;
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	h->size = size - 4;
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* Header and trailer only: no room for pid/tid. */
	h->size = 8 + perf_record__id_trailer_size(ST);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* A name without its NUL. */
	h = comm_rec(70, 70, "exactly8", false, 1);
	memset((uint8_t *)h + 16, 'x', 16);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* Fixed part cut short. */
	h = task_rec(PERF_RECORD_FORK, 71, 70, 71, 70, 2);
	h->size = 24 + perf_record__id_trailer_size(ST);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	h = mmap2_rec(70, 0x1000, 0x1000, PROT_EXEC, "/x", 3);
	h->size = 64 + perf_record__id_trailer_size(ST);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	assert_int_equal(s->nr_tasks, 0);

	/* Well-formed but of no use: ignored. */
	h->type = PERF_RECORD_SAMPLE;
	h->size = 64;
	assert_int_equal(proc_table__process_record(t, h, ST), 0);
	h->type = 1234;
	assert_int_equal(proc_table__process_record(t, h, ST), 0);
	assert_int_equal(proc_table__process_record(t, comm_rec(0, 0, "swapper", false, 1), ST), 0);
	assert_int_equal(proc_table__process_record(t, comm_rec(-1, -1, "x", false, 1), ST), 0);
	assert_int_equal(s->nr_ignored, 4);
	assert_int_equal(s->nr_records, 0);
	assert_int_equal(s->nr_tasks, 0);
	/* An EXIT of a tid never seen is kept: its FORK may be in a ring drained later. */
	assert_int_equal(
		proc_table__process_record(t, task_rec(PERF_RECORD_EXIT, 9, 1, 9, 1, 1), ST), 0);
	assert_int_equal(s->nr_ignored, 4);
	assert_int_equal(s->nr_records, 1);
	assert_int_equal(s->nr_tasks, 1);
	proc_table__delete(t);
}

/* Random bytes in the five types, of every size: refused or taken, never a crash. */
static void test_fuzz(void **state)
{
	static const uint16_t types[] = { PERF_RECORD_COMM, PERF_RECORD_MMAP, PERF_RECORD_MMAP2,
					  PERF_RECORD_FORK, PERF_RECORD_EXIT };
	struct proc_table *t = proc_table__new(16);
	struct snapshot_task tasks[8];
	struct collector c = { 0 };
	struct test_records rec;
	unsigned int seed = 1;

	(void)state;
	assert_non_null(t);
	test_records__init(&rec, ST);
	proc_table__set_history_limits(t, 4, 4);
	for (int i = 0; i < 200000; i++) {
		size_t size = 8 + 8 * (rand_r(&seed) % 24);
		struct perf_event_header *h;
		uint8_t b[8 * 24];
		uint32_t type;
		int r;

		/* Random bytes, the header's too: only its misc (bytes 4, 5) is kept. */
		for (size_t j = 0; j < size; j++)
			b[j] = (uint8_t)rand_r(&seed);
		/* Small pids so that tasks meet each other. */
		for (size_t j = 8; j + 4 <= size && j < 24; j += 4)
			b[j + 1] = b[j + 2] = b[j + 3] = 0;
		type = types[rand_r(&seed) % 5];
		test_records__reset(&rec);
		test_records__begin(&rec, type, (uint16_t)(b[4] | b[5] << 8));
		test_records__put(&rec, b + 8, size - 8);
		h = test_records__end(&rec);
		if (rand_r(&seed) % 16 == 0)
			h->size -= 4;
		r = proc_table__process_record(t, h, ST);
		assert_true(r == 0 || r == -EINVAL);
	}
	test_records__fini(&rec);
	assert_true(proc_table__stats(t)->nr_tasks <= 16);
	for (int i = 0; i < 8; i++)
		tasks[i] = (struct snapshot_task){ i * 7 % 256, i * 13 % 256 };
	assert_int_equal(emit(t, tasks, 8, 0, UINT64_MAX - 1, &c, NULL), 0);
	for (size_t i = 0; i < c.nr; i++)
		assert_int_equal(c.rec[i]->size % 8, 0);
	collector_free(&c);
	proc_table__delete(t);
}

static const char *self_exe(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	assert_true(n > 0);
	buf[n] = '\0';
	return buf;
}

static void test_seed_self(void **state)
{
	struct proc_table *t = proc_table__new(1 << 16);
	struct snapshot_task tasks[] = { { getpid(), getpid() } };
	uint64_t here = (uint64_t)(uintptr_t)&test_seed_self;
	struct collector c = { 0 };
	char exe[PATH_MAX];
	bool found = false;
	int n;

	(void)state;
	assert_non_null(t);
	assert_int_equal(prctl(PR_SET_NAME, "pt-seed-test", 0, 0, 0), 0);
	/* Drained before seeding: a mapping of ours, and no name. */
	feed(t, mmap2_rec(getpid(), 0x1000, 0x1000, PROT_EXEC, "//anon", 50));
	/* A FORK seen for a task that no longer exists. */
	do_fork(t, 0x7ffffff0, 1, 0x7ffffff0, 1, 60);
	n = proc_table__seed_from_proc(t, 0);
	assert_true(n >= 2);
	assert_int_equal(proc_table__stats(t)->nr_tasks, (size_t)n + 2);
	assert_string_equal(proc_table__comm_at(t, getpid(), 0), "pt-seed-test");
	assert_string_equal(proc_table__comm_at(t, getpid(), UINT64_MAX), "pt-seed-test");
	/* What is alive already is not added again. */
	assert_true(proc_table__seed_from_proc(t, 5) < n);
	assert_string_equal(proc_table__comm_at(t, getpid(), 0), "pt-seed-test");

	assert_int_equal(emit(t, tasks, 1, 100, 200, &c, NULL), 0);
	assert_true(c.nr >= 2);
	expect_comm(&c, 0, getpid(), getpid(), "pt-seed-test", false, 99);
	self_exe(exe, sizeof(exe));
	for (size_t i = 1; i < c.nr; i++) {
		const struct perf_record_mmap2 *m = (const void *)c.rec[i];

		assert_int_equal(m->header.type, PERF_RECORD_MMAP2);
		assert_true(m->prot & PROT_EXEC);
		assert_int_equal(check_rec(&m->header, getpid(), getpid()), 99);
		if (!strcmp(m->filename, exe) && here >= m->start && here - m->start < m->len)
			found = true;
	}
	assert_true(found);
	collector_free(&c);

	/* /proc gave the parents: ours, and kthreadd (2) for a kernel thread. */
	c.keep_initial_forks = true;
	assert_int_equal(emit(t, tasks, 1, 100, 200, &c, NULL), 0);
	expect_task(&c, 0, PERF_RECORD_FORK, getpid(), getppid(), getpid(), getppid(), 99);
	expect_comm(&c, 1, getpid(), getpid(), "pt-seed-test", false, 99);
	collector_free(&c);
	for (pid_t k = 3; k < 200; k++) {
		struct snapshot_task kt = { k, k };
		struct procinfo_stat st;

		if (procinfo__read_stat(k, k, &st) < 0 || st.ppid != 2)
			continue;
		c.keep_initial_forks = true;
		assert_int_equal(emit(t, &kt, 1, 100, 200, &c, NULL), 0);
		expect_task(&c, 0, PERF_RECORD_FORK, k, 2, k, 2, 99);
		collector_free(&c);
		break;
	}
	proc_table__delete(t);
}

/*
 * Each process, like one built with AddressSanitizer, forks a short-lived
 * child at its end (LeakSanitizer's tracer: a process, not a thread) that
 * exits before it does. The child's EXIT is on the ring of the CPU it ran
 * on, which may be drained before the one holding its FORK. Far past the
 * cap, the newest processes must still be named: a child whose EXIT came
 * first is exited all the same, and does not sit in the table as alive.
 */
static void run_forking_exits(uint32_t cpu0_order)
{
	enum { MAX = 50, PROCS = 400 };
	struct proc_table *t = proc_table__new(MAX);
	struct snapshot_task tasks[2];
	const struct proc_table_stats *s;
	struct collector c = { 0 };
	uint64_t time = 1000, last_exit = 0;
	size_t unknown = 99;
	char name[16];

	assert_non_null(t);
	s = proc_table__stats(t);
	feed(t, comm_rec(100, 100, "bash", false, 1));
	for (uint32_t i = 1; i <= PROCS; i++) {
		uint32_t pid = 1000 + 2 * i, child = pid + 1;
		uint64_t t0 = time;

		time += 10;
		snprintf(name, sizeof(name), "pst_%u", i);
		/* CPU 0's ring, drained first: the records of whatever ran there. */
		if (cpu0_order & 1)
			do_exit(t, child, child, t0 + 5);
		if (cpu0_order & 2)
			do_exit(t, pid, pid, t0 + 6);
		/* CPU 1's ring. */
		do_fork(t, pid, 100, pid, 100, t0 + 1);
		feed(t, comm_rec(pid, pid, "marker", true, t0 + 2));
		feed(t, comm_rec(pid, pid, name, false, t0 + 3));
		do_fork(t, child, pid, child, pid, t0 + 4);
		if (!(cpu0_order & 1))
			do_exit(t, child, child, t0 + 5);
		if (!(cpu0_order & 2))
			do_exit(t, pid, pid, t0 + 6);
		last_exit = t0 + 6;
		assert_true(s->nr_tasks <= MAX);
	}
	/* The newest processes and their children keep their names. */
	for (uint32_t i = PROCS - MAX / 2 + 2; i <= PROCS; i++) {
		uint32_t pid = 1000 + 2 * i;
		uint64_t t0 = 1000 + 10 * (uint64_t)(i - 1);
		const char *comm;

		snprintf(name, sizeof(name), "pst_%u", i);
		comm = proc_table__comm_at(t, pid, t0 + 6);
		assert_non_null(comm);
		assert_string_equal(comm, name);
		comm = proc_table__comm_at(t, pid + 1, t0 + 5);
		assert_non_null(comm);
		assert_string_equal(comm, name);
	}
	/* A span over the last one's end: its whole life, named. */
	tasks[0] = (struct snapshot_task){ 1000 + 2 * PROCS, 1000 + 2 * PROCS };
	tasks[1] = (struct snapshot_task){ 1001 + 2 * PROCS, 1001 + 2 * PROCS };
	assert_int_equal(emit(t, tasks, 2, last_exit - 6, last_exit, &c, &unknown), 0);
	assert_int_equal(unknown, 0);
	assert_int_equal(c.nr, 8);
	expect_task(&c, 0, PERF_RECORD_FORK, 1000 + 2 * PROCS, 100, 1000 + 2 * PROCS, 100,
		    last_exit - 5);
	expect_comm(&c, 1, 1000 + 2 * PROCS, 1000 + 2 * PROCS, "bash", false, last_exit - 5);
	expect_comm(&c, 2, 1000 + 2 * PROCS, 1000 + 2 * PROCS, "marker", true, last_exit - 4);
	snprintf(name, sizeof(name), "pst_%u", PROCS);
	expect_comm(&c, 3, 1000 + 2 * PROCS, 1000 + 2 * PROCS, name, false, last_exit - 3);
	expect_task(&c, 4, PERF_RECORD_FORK, 1001 + 2 * PROCS, 1000 + 2 * PROCS, 1001 + 2 * PROCS,
		    1000 + 2 * PROCS, last_exit - 2);
	expect_comm(&c, 5, 1001 + 2 * PROCS, 1001 + 2 * PROCS, name, false, last_exit - 2);
	expect_task(&c, 6, PERF_RECORD_EXIT, 1001 + 2 * PROCS, 1, 1001 + 2 * PROCS, 1,
		    last_exit - 1);
	expect_task(&c, 7, PERF_RECORD_EXIT, 1000 + 2 * PROCS, 1, 1000 + 2 * PROCS, 1, last_exit);
	collector_free(&c);
	/* The shell is alive: it stays. */
	assert_string_equal(proc_table__comm_at(t, 100, time), "bash");
	proc_table__delete(t);
}

static void test_cap_forking_exits(void **state)
{
	(void)state;
	for (uint32_t order = 0; order < 4; order++)
		run_forking_exits(order);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * 100k short-lived processes, each: FORK from a shell with 20 mappings,
 * exec (COMM), 7 MMAP2s, a rename, EXIT: 10 records, 1M in all. The table
 * must stay within its cap, and the numbers go to the log.
 */
static void test_churn(void **state)
{
	enum { MAX = 4096, TASKS = 100000 };
	struct proc_table *t = proc_table__new(MAX);
	const struct proc_table_stats *s;
	uint64_t time = 1000, nr = 0;
	size_t peak_bytes = 0;
	double t0, dt;
	char name[32];

	(void)state;
	assert_non_null(t);
	s = proc_table__stats(t);
	feed(t, comm_rec(1, 1, "sh", false, 1));
	for (uint64_t i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "/usr/lib/libshell%u.so", (unsigned int)i);
		feed(t, mmap2_rec(1, 0x7f0000000000 + i * 0x100000, 0x80000, PROT_EXEC, name, 2));
	}
	t0 = now_sec();
	for (uint32_t i = 0; i < TASKS; i++) {
		uint32_t pid = 2 + i % 4000000;

		do_fork(t, pid, 1, pid, 1, time++);
		feed(t, comm_rec(pid, pid, "job", true, time++));
		for (uint64_t j = 0; j < 7; j++) {
			snprintf(name, sizeof(name), "/usr/lib/libjob%u.so", (unsigned int)j);
			feed(t, mmap2_rec(pid, 0x7e0000000000 + j * 0x100000, 0x80000, PROT_EXEC,
					  name, time++));
		}
		feed(t, comm_rec(pid, pid, "job-worker", false, time++));
		do_exit(t, pid, pid, time++);
		nr += 11;
		assert_true(s->nr_tasks <= MAX);
		if (s->bytes > peak_bytes)
			peak_bytes = s->bytes;
	}
	dt = now_sec() - t0;
	print_message("proc_table: %" PRIu64 " records in %.3f s (%.0f ns each); %zu tasks, "
		      "%" PRIu64 " dropped, %zu bytes now, %zu peak\n",
		      nr, dt, dt * 1e9 / (double)nr, s->nr_tasks, s->nr_dropped, s->bytes,
		      peak_bytes);
	assert_int_equal(s->nr_tasks, MAX);
	assert_int_equal(s->nr_dropped, TASKS + 1 - MAX);
	assert_true(peak_bytes < (size_t)MAX * 2048);
	/* The newest ones are still there, the shell too (it is alive). */
	assert_string_equal(proc_table__comm_at(t, TASKS + 1, time), "job-worker");
	assert_string_equal(proc_table__comm_at(t, 1, time), "sh");
	proc_table__delete(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cap_forking_exits), cmocka_unit_test(test_emitter_error),
		cmocka_unit_test(test_malformed),	  cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_seed_self),	  cmocka_unit_test(test_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
