/* SPDX-License-Identifier: GPL-2.0-only */
/* proc_table_test: helpers of test_proc_table*.c (see proc_table_test.c). */
#ifndef PERFSNAPD_PROC_TABLE_TEST_H
#define PERFSNAPD_PROC_TABLE_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "proc_table.h"

#define ST	 (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define STAMP_ID 777

/*
 * Copies of emitted records; fails with fail_err at record fail_at (1-based).
 * The FORKs that state a task's parent at the start (PERF_RECORD_MISC_FORK_EXEC)
 * are only counted, unless keep_initial_forks: most tests are about the rest.
 */
struct collector {
	struct perf_event_header **rec;
	size_t nr, cap;
	size_t fail_at;
	int fail_err;
	bool keep_initial_forks;
	size_t nr_initial_forks;
};

/*
 * Side-band records of the daemon's dummy event (in test_records), each
 * valid up to the next call; a test may corrupt it.
 */
struct perf_event_header *comm_rec(uint32_t pid, uint32_t tid, const char *comm, bool exec,
				   uint64_t time);
struct perf_event_header *mmap2_rec(uint32_t pid, uint64_t start, uint64_t len, uint32_t prot,
				    const char *name, uint64_t time);
struct perf_event_header *task_rec(uint16_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
				   uint32_t ptid, uint64_t time);
void feed(struct proc_table *t, const struct perf_event_header *h);
void do_fork(struct proc_table *t, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
	     uint64_t time);
void do_exit(struct proc_table *t, uint32_t pid, uint32_t tid, uint64_t time);
int collect(void *ctx, const struct perf_event_header *rec);
void collector_free(struct collector *c);
uint64_t check_rec(const struct perf_event_header *h, uint32_t pid, uint32_t tid);
void expect_comm(const struct collector *c, size_t i, uint32_t pid, uint32_t tid, const char *comm,
		 bool exec, uint64_t time);
void expect_mmap2(const struct collector *c, size_t i, uint32_t pid, uint64_t start,
		  const char *name, uint64_t time);
void expect_task(const struct collector *c, size_t i, uint16_t type, uint32_t pid, uint32_t ppid,
		 uint32_t tid, uint32_t ptid, uint64_t time);
int emit(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr, uint64_t start,
	 uint64_t end, struct collector *c, size_t *ret_unknown);
struct proc_table *lifecycle(void);

#endif
