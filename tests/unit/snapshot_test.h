/* SPDX-License-Identifier: GPL-2.0-only */
/* snapshot_test: helpers of test_snapshot*.c (see snapshot_test.c). */
#ifndef PERFSNAPD_SNAPSHOT_TEST_H
#define PERFSNAPD_SNAPSHOT_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "snapshot.h"
#include "test_records.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

/* parallel_snapshot(): its chunks, and the records written to each. */
#define PAR_CHUNKS  6
#define PAR_RECORDS 400

/* Events "a" (ids 10, 11) and "b" (ids 20, 21), sample type TYPE, spill in /tmp. */
struct snapshot *new_snapshot(void);
const struct perf_event_header *nth(const struct snapshot *s, int cpu, size_t i,
				    uint64_t *ret_time);
uint64_t time_of(const struct snapshot *s, size_t i);
struct snapshot *parallel_snapshot(unsigned int threads, struct test_records *recs);

#endif
