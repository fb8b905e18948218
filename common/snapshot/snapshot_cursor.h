/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_cursor: a sealed snapshot's records in time order, all CPUs'
 * or one CPU's, merged from its lanes as they are read.
 */
#ifndef PERFSNAPD_SNAPSHOT_CURSOR_H
#define PERFSNAPD_SNAPSHOT_CURSOR_H

#include <stdint.h>

#include "snapshot.h"

struct snapshot_cursor;

/* snapshot_cursor__new: every CPU's records. */
#define SNAPSHOT_ALL_CPUS (-2)

/*
 * After __seal. A cursor returns records in time order, ties in ring order
 * (chunk order, then order in the ring); @cpu selects one CPU's records or
 * SNAPSHOT_ALL_CPUS. Invalid after __add_records. NULL on ENOMEM.
 */
struct snapshot_cursor *snapshot_cursor__new(const struct snapshot *s, int cpu);
const struct perf_event_header *snapshot_cursor__next(struct snapshot_cursor *c,
						      uint64_t *ret_time);
/* The event of the record __next returned last (no id lookup), or NULL. */
const struct snapshot_event *snapshot_cursor__event(const struct snapshot_cursor *c);
/* The CPU that record is filed under (its ring's for a compact record), or -1. */
int snapshot_cursor__cpu(const struct snapshot_cursor *c);
void snapshot_cursor__delete(struct snapshot_cursor *c);
#endif
