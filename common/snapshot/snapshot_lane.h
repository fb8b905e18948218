/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_lane: the runs a sealed snapshot keeps, one lane per chunk and
 * CPU, in time order; snapshot_cursor merges them. For common/snapshot only.
 */
#ifndef PERFSNAPD_SNAPSHOT_LANE_H
#define PERFSNAPD_SNAPSHOT_LANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Event indexes from this one on are looked up by the record's id. */
#define LANE_EVENT_UNKNOWN 0xffff

/* One record: its time, its offset in its chunk, its event's index. */
struct lane_entry {
	uint64_t time;
	uint64_t off : 48;
	uint64_t ev : 16;
};

/*
 * A place in a backward lane's chunk where every older record of the lane
 * has a time no later than every newer one: the lane can be read oldest
 * first a segment (the records between two marks) at a time.
 */
struct lane_mark {
	uint64_t off; /* where the segment that ends here ends, in the chunk */
	size_t nr;    /* the lane's records before @off (newer ones) */
	uint64_t min; /* while indexing: the least time of those records */
};

/* Records per segment, unless out-of-order times merge segments. */
#define LANE_SEGMENT_RECORDS 1024

/*
 * The records of one chunk for one CPU. A forward chunk's lane lists every
 * record (e, in time order after __seal). A backward ring's lane lists
 * only marks: its cursor walks one segment at a time into a small buffer
 * of its own, so a snapshot holds no per-record index of its rings.
 */
struct lane {
	size_t chunk;
	int cpu;
	struct lane_entry *e;
	size_t nr, cap;
	struct lane_mark *marks; /* a backward lane's (read by segments), the last at its end */
	size_t nr_marks, cap_marks;
	size_t max_segment; /* records in its largest segment */
};

/* Appends in ring order. Returns 0 or -ENOMEM. */
int snapshot_lane__push(struct lane *l, uint64_t time, uint64_t off, size_t ev);
/* Puts a lane in time order, equal times in ring order. */
void snapshot_lane__sort(struct lane *l, bool backward);
/* Counts a backward lane's record at @off, newest first. Returns 0 or -ENOMEM. */
int snapshot_lane__mark(struct lane *l, uint64_t time, uint64_t off);
/* Ends a backward lane's marks at @end, its chunk's end. Returns 0 or -ENOMEM. */
int snapshot_lane__mark_end(struct lane *l, uint64_t end);

#endif
