/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_merge: the runs a sealed snapshot keeps (one lane per chunk and
 * CPU, in time order) and the k-way merge its cursors make of them. For
 * snapshot.c only.
 */
#ifndef PERFSNAPD_SNAPSHOT_MERGE_H
#define PERFSNAPD_SNAPSHOT_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

/* Event indexes from this one on are looked up by the record's id. */
#define LANE_EVENT_UNKNOWN 0xffff

/* One record: its time, its offset in its chunk, its event's index. */
struct lane_entry {
	uint64_t time;
	uint64_t off : 48;
	uint64_t ev : 16;
};

/* The records of one chunk for one CPU, in time order after __seal. */
struct lane {
	size_t chunk;
	int cpu;
	struct lane_entry *e;
	size_t nr, cap;
};

/* Appends in ring order. Returns 0 or -ENOMEM. */
int lane__push(struct lane *l, uint64_t time, uint64_t off, size_t ev);
/* A backward ring's lane, newest first, turned to oldest first. */
void lane__reverse(struct lane *l);
/* Puts a lane in time order, equal times in ring order. */
void lane__sort(struct lane *l, bool backward);

/* A cursor over at most @max_lanes lanes: __add them, then __start. */
struct snapshot_cursor *snapshot_cursor__alloc(const struct snapshot *s, size_t max_lanes);
void snapshot_cursor__add(struct snapshot_cursor *c, const struct lane *l, const uint8_t *base,
			  bool backward);
void snapshot_cursor__start(struct snapshot_cursor *c);

#endif
