/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_index: the time index of a sealed snapshot, built by
 * snapshot__seal(). Besides the cursors (snapshot_cursor.h), it hands out
 * the records as the rings hold them, for readers that order by time
 * themselves.
 */
#ifndef PERFSNAPD_SNAPSHOT_INDEX_H
#define PERFSNAPD_SNAPSHOT_INDEX_H

#include <stddef.h>

#include "snapshot.h"

/*
 * After __seal: the same records as a cursor over all CPUs, but as the
 * rings hold them (a backward ring's newest first), in runs of whole
 * records handed to @fn with their ring's CPU (-1 for the records of
 * __add_records); for a reader that orders by time itself, as perf
 * does. Returns 0, -EBADFD before __seal, or @fn's first nonzero return.
 */
int snapshot_index__for_each_run(const struct snapshot *s,
				 int (*fn)(void *ctx, const void *data, size_t len, int cpu),
				 void *ctx);

#endif
