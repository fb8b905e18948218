// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table_test: what the proc_table unit tests share: side-band records
 * of the daemon's dummy event (from test_records) fed to a table, and the
 * records a table emits collected and checked.
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

/*
 * The side-band records fed to the tables, one at a time, as the
 * daemon's dummy event (ST, id 1, CPU 1) has them.
 */
static struct test_records records = { .sample_type = ST };

struct perf_event_header *comm_rec(uint32_t pid, uint32_t tid, const char *comm, bool exec,
				   uint64_t time)
{
	test_records__reset(&records);
	return test_records__comm(&records, &(struct test_comm){
						    .misc = exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
						    .pid = pid,
						    .tid = tid,
						    .comm = comm,
						    .time = time,
						    .id = 1,
						    .cpu = 1,
					    });
}

/* A mapping with what expect_mmap2() checks: pgoff 0x1000, ino start / 4096. */
struct perf_event_header *mmap2_rec(uint32_t pid, uint64_t start, uint64_t len, uint32_t prot,
				    const char *name, uint64_t time)
{
	test_records__reset(&records);
	return test_records__mmap2(&records, &(struct test_mmap){
						     .misc = PERF_RECORD_MISC_USER,
						     .pid = pid,
						     .tid = pid,
						     .start = start,
						     .len = len,
						     .pgoff = 0x1000,
						     .maj = 8,
						     .min = 1,
						     .ino = start / 4096,
						     .prot = prot,
						     .flags = MAP_PRIVATE,
						     .filename = name,
						     .time = time,
						     .id = 1,
						     .cpu = 1,
					     });
}

struct perf_event_header *task_rec(uint16_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
				   uint32_t ptid, uint64_t time)
{
	test_records__reset(&records);
	return test_records__task(&records, &(struct test_task){
						    .type = type,
						    .pid = pid,
						    .ppid = ppid,
						    .tid = tid,
						    .ptid = ptid,
						    .time = time,
						    .id = 1,
						    .cpu = 1,
					    });
}

void feed(struct proc_table *t, const struct perf_event_header *h)
{
	assert_int_equal(proc_table__process_record(t, h, ST), 0);
}

void do_fork(struct proc_table *t, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time)
{
	feed(t, task_rec(PERF_RECORD_FORK, pid, ppid, tid, ptid, time));
}

void do_exit(struct proc_table *t, uint32_t pid, uint32_t tid, uint64_t time)
{
	feed(t, task_rec(PERF_RECORD_EXIT, pid, 1, tid, 1, time));
}

int collect(void *ctx, const struct perf_event_header *rec)
{
	struct collector *c = ctx;

	if (c->fail_at && c->nr + 1 == c->fail_at)
		return c->fail_err;
	if (rec->type == PERF_RECORD_FORK && rec->misc & PERF_RECORD_MISC_FORK_EXEC) {
		c->nr_initial_forks++;
		if (!c->keep_initial_forks)
			return 0;
	}
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

void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->rec[i]);
	free(c->rec);
	memset(c, 0, sizeof(*c));
}

/* Checks what every replayed record must be; returns its trailer time. */
uint64_t check_rec(const struct perf_event_header *h, uint32_t pid, uint32_t tid)
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

void expect_comm(const struct collector *c, size_t i, uint32_t pid, uint32_t tid, const char *comm,
		 bool exec, uint64_t time)
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

void expect_mmap2(const struct collector *c, size_t i, uint32_t pid, uint64_t start,
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

void expect_task(const struct collector *c, size_t i, uint16_t type, uint32_t pid, uint32_t ppid,
		 uint32_t tid, uint32_t ptid, uint64_t time)
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

int emit(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr, uint64_t start,
	 uint64_t end, struct collector *c, size_t *ret_unknown)
{
	struct procinfo_stamp st = { .sample_type = ST, .id = STAMP_ID, .time = 12345 };

	return proc_table__emit_span(t, tasks, nr, start, end, &st, collect, c, ret_unknown);
}

/*
 * bash (100) runs from before recording with /bin/bash mapped; forks 200
 * at 10, which renames itself at 20, execs ls at 30 (mapping /bin/ls at
 * 31) and exits at 40.
 */
struct proc_table *lifecycle(void)
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
