// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_lane: the runs a sealed snapshot keeps, one lane per chunk and
 * CPU, sorted, and the marks that let a ring's lane be read a segment at a
 * time. See snapshot_lane.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "array_grow.h"
#include "perf_record.h"
#include "snapshot_lane.h"

/*
 * Each lane's entries are in ring order, mostly in time order too: a
 * record's time is read before its space is reserved, so an interrupt in
 * between can write a later-stamped record first. Insertion sort puts
 * those few back in linear time; a lane that is far from ordered (a
 * malformed input) is sorted instead once the moves pass a bound.
 */
static int cmp_entry_fwd(const void *a, const void *b)
{
	const struct lane_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

static int cmp_entry_bwd(const void *a, const void *b)
{
	const struct lane_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->off > y->off ? -1 : x->off < y->off;
}

/**
 * snapshot_lane__sort - put a lane in time order, equal times in ring order
 * @l: the lane, in ring order
 * @backward: its chunk is a backward ring (ring order is falling offsets)
 */
void snapshot_lane__sort(struct lane *l, bool backward)
{
	size_t budget = 8 * l->nr + 64;

	for (size_t i = 1; i < l->nr; i++) {
		struct lane_entry e = l->e[i];
		size_t j = i;

		while (j > 0 && l->e[j - 1].time > e.time && budget) {
			l->e[j] = l->e[j - 1];
			j--;
			budget--;
		}
		l->e[j] = e;
		if (!budget) {
			qsort(l->e, l->nr, sizeof(*l->e), backward ? cmp_entry_bwd : cmp_entry_fwd);
			return;
		}
	}
}

/**
 * snapshot_lane__push - append an entry in ring order
 * @l: the lane
 * @time: the record's time
 * @off: its offset in its chunk (below 2^48)
 * @ev: its event's index in the snapshot
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_lane__push(struct lane *l, uint64_t time, uint64_t off, size_t ev)
{
	if (l->nr == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		struct lane_entry *n = realloc(l->e, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		l->e = n;
		l->cap = cap;
	}
	l->e[l->nr++] = (struct lane_entry){
		.time = time,
		.off = off,
		.ev = ev < LANE_EVENT_UNKNOWN ? ev : LANE_EVENT_UNKNOWN,
	};
	return 0;
}

/**
 * snapshot_lane__mark - count a backward lane's record, newest first
 * @l: the lane
 * @time: the record's time
 * @off: its offset in its chunk
 *
 * Every LANE_SEGMENT_RECORDS records a mark is put before the record; a
 * mark stays only while no older record is later than the newer records'
 * least time, so a segment can be sorted alone. The marks' least times
 * fall from first to last, so an older record with a later time can only
 * undo the last ones.
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_lane__mark(struct lane *l, uint64_t time, uint64_t off)
{
	uint64_t min = l->nr ? l->marks[l->nr_marks].min : UINT64_MAX;

	/* marks[nr_marks] is scratch: the least time so far, without a mark. */
	if (array__grow((void **)&l->marks, &l->cap_marks, l->nr_marks + 1, sizeof(*l->marks), 16) <
	    0)
		return -ENOMEM;
	if (l->nr && l->nr % LANE_SEGMENT_RECORDS == 0)
		l->marks[l->nr_marks++] = (struct lane_mark){ .off = off, .nr = l->nr, .min = min };
	while (l->nr_marks && l->marks[l->nr_marks - 1].min < time)
		l->nr_marks--;
	l->marks[l->nr_marks].min = time < min ? time : min;
	l->nr++;
	return 0;
}

/**
 * snapshot_lane__mark_end - end a backward lane's marks
 * @l: the lane, its records counted with snapshot_lane__mark()
 * @end: where its chunk's records end
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_lane__mark_end(struct lane *l, uint64_t end)
{
	size_t prev = 0;

	if (array__grow((void **)&l->marks, &l->cap_marks, l->nr_marks + 1, sizeof(*l->marks), 16) <
	    0)
		return -ENOMEM;
	l->marks[l->nr_marks++] = (struct lane_mark){ .off = end, .nr = l->nr };
	l->max_segment = 0;
	for (size_t i = 0; i < l->nr_marks; i++) {
		if (l->marks[i].nr - prev > l->max_segment)
			l->max_segment = l->marks[i].nr - prev;
		prev = l->marks[i].nr;
	}
	return 0;
}
