/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_index-internal: how the index keys a record, shared by
 * snapshot_index.c (the walk into lanes, the runs) and snapshot_index_cut.c
 * (the size cut, which walks the records again and must key them alike).
 * No other file includes it.
 */
#ifndef PERFSNAPD_SNAPSHOT_INDEX_INTERNAL_H
#define PERFSNAPD_SNAPSHOT_INDEX_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "perf_record.h"
#include "snapshot-internal.h"

/* The last id looked up: a ring's records come in runs of one event. */
struct event_cache {
	uint64_t id;
	const struct snapshot_event *ev;
};

/* What the index files a record by. */
struct record_key {
	const struct snapshot_event *ev;
	struct perf_record_info rec;
	int cpu;
};

/*
 * A record's event, leading fields and CPU: 0, -1 for a record the index
 * drops, -2 outside the window, -3 before its ring's start.
 */
int snapshot_index__record_key(const struct snapshot *s, const struct chunk *c,
			       const struct perf_event_header *h, struct event_cache *cache,
			       struct record_key *k);
/* The task a sample names, pid 0 where unknown. */
void snapshot_index__sample_task(const struct snapshot_event *ev, const struct perf_event_header *h,
				 const struct perf_record_info *rec, pid_t *ret_pid,
				 pid_t *ret_tid);

#endif
