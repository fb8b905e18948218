/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_comm: the names a snapshot's COMM and FORK records give its
 * tasks, replayed in time order: a COMM names a task, a FORK gives the
 * child its parent's name at that moment, the last one wins. Internal to
 * snapshot.c, which keeps the records' time order; no I/O.
 */
#ifndef PERFSNAPD_SNAPSHOT_COMM_H
#define PERFSNAPD_SNAPSHOT_COMM_H

#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "snapshot.h"

/*
 * From @nr COMM and FORK records in time order, the named tasks sorted by
 * tid (malloc'ed, in *@ret). Returns 0 or -ENOMEM.
 */
int snapshot_comm__build(const struct perf_event_header *const *recs, size_t nr,
			 struct snapshot_comm **ret, size_t *ret_nr);
/* The entry of @tid in a table from __build, or NULL. */
const struct snapshot_comm *snapshot_comm__find(const struct snapshot_comm *comms, size_t nr,
						pid_t tid);

#endif
