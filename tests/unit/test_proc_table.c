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

/* What the daemon's dummy side-band event uses. */
#define ST	  (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define STAMP_ID  777
#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

static union {
	uint64_t align;
	uint8_t b[65536];
} rbuf;

/* Appends the trailer at @off of rbuf and sets the size. */
static const struct perf_event_header *finish(size_t off, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_record_info s = { .pid = pid, .tid = tid, .time = time, .id = 1, .cpu = 1 };
	struct perf_event_header *h = (void *)rbuf.b;

	off += perf_record__write_id_trailer(rbuf.b + off, ST, &s);
	h->size = (uint16_t)off;
	return h;
}

static size_t put_name(size_t off, const char *name)
{
	size_t n = strlen(name) + 1;

	memset(rbuf.b + off, 0, ALIGN8(n));
	memcpy(rbuf.b + off, name, n);
	return off + ALIGN8(n);
}

static const struct perf_event_header *comm_rec(uint32_t pid, uint32_t tid, const char *comm,
						bool exec, uint64_t time)
{
	struct perf_record_comm *c = (void *)rbuf.b;

	c->header.type = PERF_RECORD_COMM;
	c->header.misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0;
	c->pid = pid;
	c->tid = tid;
	return finish(put_name(offsetof(struct perf_record_comm, comm), comm), pid, tid, time);
}

static const struct perf_event_header *mmap2_rec(uint32_t pid, uint64_t start, uint64_t len,
						 uint32_t prot, const char *name, uint64_t time)
{
	struct perf_record_mmap2 *m = (void *)rbuf.b;

	memset(m, 0, sizeof(*m));
	m->header.type = PERF_RECORD_MMAP2;
	m->header.misc = PERF_RECORD_MISC_USER;
	m->pid = pid;
	m->tid = pid;
	m->start = start;
	m->len = len;
	m->pgoff = 0x1000;
	m->maj = 8;
	m->min = 1;
	m->ino = start / 4096;
	m->prot = prot;
	m->flags = MAP_PRIVATE;
	return finish(put_name(offsetof(struct perf_record_mmap2, filename), name), pid, pid, time);
}

static const struct perf_event_header *task_rec(uint16_t type, uint32_t pid, uint32_t ppid,
						uint32_t tid, uint32_t ptid, uint64_t time)
{
	struct perf_record_fork *f = (void *)rbuf.b;

	f->header.type = type;
	f->header.misc = 0;
	f->pid = pid;
	f->ppid = ppid;
	f->tid = tid;
	f->ptid = ptid;
	f->time = time;
	return finish(sizeof(*f), pid, tid, time);
}

static void feed(struct proc_table *t, const struct perf_event_header *h)
{
	assert_int_equal(proc_table__process_record(t, h, ST), 0);
}

static void do_fork(struct proc_table *t, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
		    uint64_t time)
{
	feed(t, task_rec(PERF_RECORD_FORK, pid, ppid, tid, ptid, time));
}

static void do_exit(struct proc_table *t, uint32_t pid, uint32_t tid, uint64_t time)
{
	feed(t, task_rec(PERF_RECORD_EXIT, pid, 1, tid, 1, time));
}

/* Copies of emitted records; fails with fail_err at record fail_at (1-based). */
struct collector {
	struct perf_event_header **rec;
	size_t nr, cap;
	size_t fail_at;
	int fail_err;
};

static int collect(void *ctx, const struct perf_event_header *rec)
{
	struct collector *c = ctx;

	if (c->fail_at && c->nr + 1 == c->fail_at)
		return c->fail_err;
	if (c->nr == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->rec = realloc(c->rec, c->cap * sizeof(*c->rec));
		assert_non_null(c->rec);
	}
	c->rec[c->nr] = malloc(rec->size);
	assert_non_null(c->rec[c->nr]);
	memcpy(c->rec[c->nr++], rec, rec->size);
	return 0;
}

static void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->rec[i]);
	free(c->rec);
	memset(c, 0, sizeof(*c));
}

/* Checks what every replayed record must be; returns its trailer time. */
static uint64_t check_rec(const struct perf_event_header *h, uint32_t pid, uint32_t tid)
{
	struct perf_record_info s;
	uint64_t id;

	assert_int_equal(h->size % 8, 0);
	assert_int_equal(perf_record__parse_id_trailer(h, ST, &s), 0);
	assert_int_equal(s.pid, pid);
	assert_int_equal(s.tid, tid);
	assert_int_equal(s.id, STAMP_ID);
	assert_int_equal(s.cpu, 0);
	assert_int_equal(perf_record__id(h, &id), 0);
	assert_int_equal(id, STAMP_ID);
	return s.time;
}

static void expect_comm(const struct collector *c, size_t i, uint32_t pid, uint32_t tid,
			const char *comm, bool exec, uint64_t time)
{
	const struct perf_record_comm *r = (const void *)c->rec[i];

	assert_true(i < c->nr);
	assert_int_equal(r->header.type, PERF_RECORD_COMM);
	assert_int_equal(r->header.misc, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	assert_int_equal(r->pid, pid);
	assert_int_equal(r->tid, tid);
	assert_string_equal(r->comm, comm);
	assert_int_equal(check_rec(&r->header, pid, tid), time);
}

static void expect_mmap2(const struct collector *c, size_t i, uint32_t pid, uint64_t start,
			 const char *name, uint64_t time)
{
	const struct perf_record_mmap2 *r = (const void *)c->rec[i];

	assert_true(i < c->nr);
	assert_int_equal(r->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(r->header.misc, PERF_RECORD_MISC_USER);
	assert_int_equal(r->pid, pid);
	assert_int_equal(r->tid, pid);
	assert_int_equal(r->start, start);
	assert_int_equal(r->pgoff, 0x1000);
	assert_int_equal(r->ino, start / 4096);
	assert_true(r->prot & PROT_EXEC);
	assert_string_equal(r->filename, name);
	assert_int_equal(check_rec(&r->header, pid, pid), time);
}

static void expect_task(const struct collector *c, size_t i, uint16_t type, uint32_t pid,
			uint32_t ppid, uint32_t tid, uint32_t ptid, uint64_t time)
{
	const struct perf_record_fork *r = (const void *)c->rec[i];

	assert_true(i < c->nr);
	assert_int_equal(r->header.type, type);
	assert_int_equal(r->header.size, sizeof(*r) + perf_record__id_trailer_size(ST));
	assert_int_equal(r->pid, pid);
	assert_int_equal(r->ppid, ppid);
	assert_int_equal(r->tid, tid);
	assert_int_equal(r->ptid, ptid);
	assert_int_equal(r->time, time);
	assert_int_equal(check_rec(&r->header, pid, tid), time);
}

static int emit(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr,
		uint64_t start, uint64_t end, struct collector *c, size_t *ret_unknown)
{
	struct procinfo_stamp st = { .sample_type = ST, .id = STAMP_ID, .time = 12345 };

	return proc_table__emit_span(t, tasks, nr, start, end, &st, collect, c, ret_unknown);
}

/*
 * bash (100) runs from before recording with /bin/bash mapped; forks 200
 * at 10, which renames itself at 20, execs ls at 30 (mapping /bin/ls at
 * 31) and exits at 40.
 */
static struct proc_table *lifecycle(void)
{
	struct proc_table *t = proc_table__new(64);

	assert_non_null(t);
	feed(t, comm_rec(100, 100, "bash", false, 1));
	feed(t, mmap2_rec(100, 0x400000, 0x10000, PROT_READ | PROT_EXEC, "/bin/bash", 2));
	feed(t, mmap2_rec(100, 0x600000, 0x1000, PROT_READ | PROT_WRITE, "/bin/bash", 3));
	do_fork(t, 200, 100, 200, 100, 10);
	feed(t, comm_rec(200, 200, "worker", false, 20));
	feed(t, comm_rec(200, 200, "ls", true, 30));
	feed(t, mmap2_rec(200, 0x500000, 0x8000, PROT_READ | PROT_EXEC, "/bin/ls", 31));
	do_exit(t, 200, 200, 40);
	return t;
}

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
	struct proc_table *t = proc_table__new(8);
	struct snapshot_task tasks[] = { { 60, 60 } };
	struct perf_record_mmap *m = (void *)rbuf.b;
	struct perf_record_mmap2 *m2 = (void *)rbuf.b;
	struct collector c = { 0 };
	const struct perf_record_mmap2 *r;
	size_t off;

	(void)state;
	assert_non_null(t);
	/* Old-style MMAP: executable unless MISC_MMAP_DATA. */
	memset(m, 0, sizeof(*m));
	m->header.type = PERF_RECORD_MMAP;
	m->header.misc = PERF_RECORD_MISC_USER;
	m->pid = m->tid = 60;
	m->start = 0x7000;
	m->len = 0x1000;
	off = put_name(offsetof(struct perf_record_mmap, filename), "/old/style");
	feed(t, finish(off, 60, 60, 5));
	m->header.misc |= PERF_RECORD_MISC_MMAP_DATA;
	feed(t, finish(off, 60, 60, 6));
	/* MMAP2 with a build id instead of the inode: kept as it came. */
	memset(m2, 0, sizeof(*m2));
	m2->header.type = PERF_RECORD_MMAP2;
	m2->header.misc = PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID;
	m2->pid = m2->tid = 60;
	m2->start = 0x9000;
	m2->len = 0x1000;
	m2->build_id_size = 20;
	memset(m2->build_id, 0xab, 20);
	m2->prot = PROT_READ | PROT_EXEC;
	m2->flags = MAP_PRIVATE;
	feed(t, finish(put_name(offsetof(struct perf_record_mmap2, filename), "/bid"), 60, 60, 7));
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
	struct perf_event_header *h = (void *)rbuf.b;
	const struct perf_event_header *good;
	const struct proc_table_stats *s;
	uint16_t size;

	(void)state;
	assert_non_null(t);
	s = proc_table__stats(t);
	assert_int_equal(proc_table__process_record(t, NULL, ST), -EINVAL);
	good = comm_rec(70, 70, "ok", false, 1);
	assert_int_equal(proc_table__process_record(t, good, ST & ~PERF_SAMPLE_TIME), -EINVAL);
	size = good->size;
	h->size = 4;
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	h->size = size - 4;
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* Header and trailer only: no room for pid/tid. */
	h->size = 8 + perf_record__id_trailer_size(ST);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* A name without its NUL. */
	good = comm_rec(70, 70, "exactly8", false, 1);
	memset(rbuf.b + 16, 'x', 16);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	/* Fixed part cut short. */
	task_rec(PERF_RECORD_FORK, 71, 70, 71, 70, 2);
	h->size = 24 + perf_record__id_trailer_size(ST);
	assert_int_equal(proc_table__process_record(t, h, ST), -EINVAL);
	mmap2_rec(70, 0x1000, 0x1000, PROT_EXEC, "/x", 3);
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
	struct perf_event_header *h = (void *)rbuf.b;
	struct collector c = { 0 };
	unsigned int seed = 1;

	(void)state;
	assert_non_null(t);
	proc_table__set_history_limits(t, 4, 4);
	for (int i = 0; i < 200000; i++) {
		size_t size = 8 + 8 * (rand_r(&seed) % 24);
		int r;

		for (size_t j = 0; j < size; j++)
			rbuf.b[j] = (uint8_t)rand_r(&seed);
		/* Small pids so that tasks meet each other. */
		for (size_t j = 8; j + 4 <= size && j < 24; j += 4)
			rbuf.b[j + 1] = rbuf.b[j + 2] = rbuf.b[j + 3] = 0;
		h->type = types[rand_r(&seed) % 5];
		h->size = (uint16_t)(size - (rand_r(&seed) % 16 == 0 ? 4 : 0));
		r = proc_table__process_record(t, h, ST);
		assert_true(r == 0 || r == -EINVAL);
	}
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
		cmocka_unit_test(test_lifecycle_comm_at),
		cmocka_unit_test(test_emit_whole_life),
		cmocka_unit_test(test_emit_state_at_start),
		cmocka_unit_test(test_emit_exit_tail),
		cmocka_unit_test(test_prctl_rename),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_out_of_order_and_reuse),
		cmocka_unit_test(test_fork_before_parent),
		cmocka_unit_test(test_cap_drop_order),
		cmocka_unit_test(test_cap_forking_exits),
		cmocka_unit_test(test_history_caps),
		cmocka_unit_test(test_mmap_kinds),
		cmocka_unit_test(test_emitter_error),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_seed_self),
		cmocka_unit_test(test_churn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
