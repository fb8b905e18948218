// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table under every order the per-CPU rings can hand a short life
 * over in: a child forked by bash, which execs sleep, maps it and exits,
 * its records spread over two CPUs in every way and drained in every
 * interleaving that keeps each ring's own order; alone, and with its tid
 * used before (pid_max wraps on a busy host). Each order must give one
 * incarnation with the right names, and every span a name before the EXIT.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>
#include <perf/event.h>
#include "perf_record.h"
#include "proc_table.h"
#include "proc_table_test.h"

#define CHILD 300

enum step { FORK, EXEC, MAP, EXIT, NR_STEPS };

static const uint64_t step_time[NR_STEPS] = { 100, 110, 111, 120 };

/*
 * What was there before: nothing, or an earlier life of tid CHILD, taken
 * whole before the new one's records: the kernel hands a freed pid out
 * again only after the rest of pid_max, seconds later, and every pass
 * drains each ring to its head.
 */
enum before { BEFORE_NONE, BEFORE_FORKED, BEFORE_SEEDED, BEFORE_THREAD, NR_BEFORE };

static const char *const before_name[NR_BEFORE] = { "none", "an earlier process",
						    "an earlier process seen only by name",
						    "an earlier thread of bash" };

static void feed_before(struct proc_table *t, enum before b)
{
	if (b == BEFORE_FORKED) {
		do_fork(t, CHILD, 100, CHILD, 100, 50);
		feed(t, comm_rec(CHILD, CHILD, "old", true, 52));
		do_exit(t, CHILD, CHILD, 60);
	} else if (b == BEFORE_SEEDED) {
		feed(t, comm_rec(CHILD, CHILD, "old", false, 0));
		do_exit(t, CHILD, CHILD, 60);
	} else if (b == BEFORE_THREAD) {
		do_fork(t, 100, 100, CHILD, 100, 50);
		do_exit(t, 100, CHILD, 60);
	}
}

static void feed_step(struct proc_table *t, enum step s)
{
	if (s == FORK)
		do_fork(t, CHILD, 100, CHILD, 100, step_time[s]);
	else if (s == EXEC)
		feed(t, comm_rec(CHILD, CHILD, "sleep", true, step_time[s]));
	else if (s == MAP)
		feed(t, mmap2_rec(CHILD, 0x700000, 0x1000, PROT_READ | PROT_EXEC, "/bin/sleep",
				  step_time[s]));
	else
		do_exit(t, CHILD, CHILD, step_time[s]);
}

/* The name the emitted records give CHILD at @time, "" if none yet. */
static const char *name_in(const struct collector *c, uint64_t time)
{
	const char *name = "";

	for (size_t i = 0; i < c->nr; i++) {
		const struct perf_record_comm *r = (const void *)c->rec[i];
		struct perf_record_info info;

		if (r->header.type != PERF_RECORD_COMM || r->tid != CHILD)
			continue;
		assert_int_equal(perf_record__parse_id_trailer(&r->header, ST, &info), 0);
		if (info.time <= time)
			name = r->comm;
	}
	return name;
}

/* Every span: CHILD named as it was, at its start and at its EXIT. */
static void check_spans(const struct proc_table *t, const char *what)
{
	static const struct {
		uint64_t from, to;
	} spans[] = { { 90, 130 }, { 105, 130 }, { 112, 130 }, { 112, 118 }, { 121, 130 } };
	struct snapshot_task task = { CHILD, CHILD };

	for (size_t i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
		uint64_t from = spans[i].from, to = spans[i].to;
		uint64_t first = from > step_time[FORK] ? from : step_time[FORK];
		const char *want = first < step_time[EXEC] ? "bash" : "sleep";
		struct collector c = { 0 };
		size_t unknown = 99;

		assert_int_equal(emit(t, &task, 1, from, to, &c, &unknown), 0);
		if (unknown || strcmp(name_in(&c, first), want) ||
		    (to >= step_time[EXIT] && strcmp(name_in(&c, step_time[EXIT]), "sleep")))
			fail_msg("%s: span %" PRIu64 "-%" PRIu64 ": %zu unknown, named \"%s\" "
				 "at the start (want %s), \"%s\" at the exit",
				 what, from, to, unknown, name_in(&c, first), want,
				 name_in(&c, step_time[EXIT]));
		collector_free(&c);
	}
}

static void check_order(enum before b, const enum step *order, const char *what)
{
	struct proc_table *t = lifecycle();
	size_t base;

	feed_before(t, b);
	base = proc_table__stats(t)->nr_tasks;
	for (int i = 0; i < NR_STEPS; i++)
		feed_step(t, order[i]);
	if (proc_table__stats(t)->nr_tasks != base + 1)
		fail_msg("%s: %zu incarnations made of one life", what,
			 proc_table__stats(t)->nr_tasks - base);
	if (strcmp(proc_table__comm_at(t, CHILD, 105) ?: "", "bash") ||
	    strcmp(proc_table__comm_at(t, CHILD, 115) ?: "", "sleep") ||
	    strcmp(proc_table__comm_at(t, CHILD, 120) ?: "", "sleep"))
		fail_msg("%s: named %s, %s, %s at 105, 115, 120", what,
			 proc_table__comm_at(t, CHILD, 105), proc_table__comm_at(t, CHILD, 115),
			 proc_table__comm_at(t, CHILD, 120));
	check_spans(t, what);
	proc_table__delete(t);
}

/*
 * Every merge of two rings' records, each ring in time order. @cpu_of
 * says the CPU of each step (the exec and its mapping share one).
 */
static void merges(enum before b, const int *cpu_of, enum step *out, int n, int taken0, int taken1,
		   size_t *count)
{
	enum step ring[2][NR_STEPS];
	int len[2] = { 0, 0 };
	char what[256];
	int pos;

	for (int s = 0; s < NR_STEPS; s++)
		ring[cpu_of[s]][len[cpu_of[s]]++] = (enum step)s;
	if (n == NR_STEPS) {
		pos = snprintf(what, sizeof(what), "before: %s; drained:", before_name[b]);
		for (int i = 0; i < NR_STEPS && pos > 0 && (size_t)pos < sizeof(what); i++)
			pos += snprintf(what + pos, sizeof(what) - (size_t)pos, " %s@cpu%d",
					(const char *[]){ "FORK", "EXEC", "MMAP2", "EXIT" }[out[i]],
					cpu_of[out[i]]);
		check_order(b, out, what);
		(*count)++;
		return;
	}
	if (taken0 < len[0]) {
		out[n] = ring[0][taken0];
		merges(b, cpu_of, out, n + 1, taken0 + 1, taken1, count);
	}
	if (taken1 < len[1]) {
		out[n] = ring[1][taken1];
		merges(b, cpu_of, out, n + 1, taken0, taken1 + 1, count);
	}
}

static void test_every_order(void **state)
{
	enum step out[NR_STEPS];
	size_t count = 0;

	(void)state;
	for (int b = 0; b < NR_BEFORE; b++)
		for (int fork_cpu = 0; fork_cpu < 2; fork_cpu++)
			for (int exec_cpu = 0; exec_cpu < 2; exec_cpu++)
				for (int exit_cpu = 0; exit_cpu < 2; exit_cpu++) {
					int cpu_of[NR_STEPS] = { fork_cpu, exec_cpu, exec_cpu,
								 exit_cpu };

					merges((enum before)b, cpu_of, out, 0, 0, 0, &count);
				}
	assert_true(count > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
