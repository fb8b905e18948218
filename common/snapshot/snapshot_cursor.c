// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_cursor: the k-way merge of a sealed snapshot's lanes in time
 * order. A merge over k lanes costs O(log k) per record, where sorting an
 * index of every record would cost O(log n); a ring's lane is read a
 * segment at a time, so no index of every record is kept either. See
 * snapshot_cursor.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "perf_record.h"
#include "snapshot-internal.h"
#include "snapshot_cursor.h"

/*
 * The k-way merge: a binary heap of lanes keyed by their next entry. The
 * key is kept in the heap itself: the comparisons of a sift then read
 * no lane, which is most of what a merge of few lanes costs per record.
 */
struct cursor_lane {
	uint64_t time;	/* of the lane's next entry */
	uint64_t order; /* its place in its ring: rising offsets, or falling ones */
	size_t chunk;
	const struct lane *lane;
	const uint8_t *base;
	bool backward;
	const struct lane_entry *e; /* the lane's entries, or its segment's */
	size_t n, pos;
	struct lane_entry *segment; /* a segmented lane's buffer */
	size_t next_segment;	    /* segments left to load, oldest first */
};

/* Loads the key of the lane's entry at pos. */
static void lane_key(struct cursor_lane *cl)
{
	const struct lane_entry *e = &cl->e[cl->pos];

	cl->time = e->time;
	cl->order = cl->backward ? UINT64_MAX - e->off : e->off;
}

/* Moves on to the lane's next entry, loading its next segment if need be. */
static bool lane_advance(const struct snapshot *s, struct cursor_lane *cl)
{
	if (++cl->pos < cl->n)
		return true;
	while (cl->segment && cl->next_segment) {
		cl->n = snapshot_index__load_segment(s, cl->lane, --cl->next_segment, cl->segment);
		cl->pos = 0;
		if (cl->n)
			return true;
	}
	return false;
}

/*
 * A lane's records are far apart in memory and, in a backward ring, at
 * falling addresses: the hardware does not see them coming, and a reader
 * would wait for each one's first bytes (over half of the trace.dat
 * writer's own time in a profile). So the cursor asks for the record this
 * many entries ahead of the one it returns, both cache lines of a sample.
 * A segment's records were just read to load it: they need no prefetch.
 */
#define PREFETCH_AHEAD 8

static void prefetch_ahead(const struct cursor_lane *cl)
{
	if (!cl->segment && cl->pos + PREFETCH_AHEAD < cl->n) {
		const uint8_t *p = cl->base + cl->e[cl->pos + PREFETCH_AHEAD].off;

		__builtin_prefetch(p);
		__builtin_prefetch(p + 64);
	}
}

struct snapshot_cursor {
	const struct snapshot *s;
	const struct perf_event_header *last; /* returned by __next, its event and CPU */
	size_t last_ev;
	int last_cpu;
	size_t nr;
	struct lane_entry *segments; /* the segmented lanes' buffers, one block */
	struct cursor_lane heap[];
};

/* Time, then ring order: chunk order, then place in the chunk. */
static bool lane_before(const struct cursor_lane *a, const struct cursor_lane *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->chunk != b->chunk)
		return a->chunk < b->chunk;
	return a->order < b->order;
}

static void sift_down(struct snapshot_cursor *c, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct cursor_lane t;

		if (l < c->nr && lane_before(&c->heap[l], &c->heap[m]))
			m = l;
		if (l + 1 < c->nr && lane_before(&c->heap[l + 1], &c->heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = c->heap[i];
		c->heap[i] = c->heap[m];
		c->heap[m] = t;
		i = m;
	}
}

/*
 * cursor_alloc - an empty cursor
 * @s: the snapshot whose lanes it merges
 * @max_lanes: room for this many lanes
 *
 * Returns the cursor or NULL when out of memory.
 */
static struct snapshot_cursor *cursor_alloc(const struct snapshot *s, size_t max_lanes)
{
	struct snapshot_cursor *c = malloc(sizeof(*c) + (max_lanes + 1) * sizeof(c->heap[0]));

	if (c)
		*c = (struct snapshot_cursor){ .s = s };
	return c;
}

/*
 * cursor_add - make a lane part of the merge
 * @c: the cursor, not yet started
 * @l: a lane with at least one entry
 * @base: where its chunk's bytes are
 * @backward: its chunk is a backward ring (ring order is falling offsets)
 */
static void cursor_add(struct snapshot_cursor *c, const struct lane *l, const uint8_t *base,
		       bool backward)
{
	c->heap[c->nr++] = (struct cursor_lane){
		.chunk = l->chunk,
		.lane = l,
		.base = base,
		.backward = backward,
		.e = l->e,
		.n = l->nr,
	};
}

/*
 * cursor_start - load each lane's first entry and order the heap
 * @c: the cursor, with its lanes added
 *
 * Returns 0 or -ENOMEM.
 */
static int cursor_start(struct snapshot_cursor *c)
{
	size_t room = 0, n = 0;

	for (size_t i = 0; i < c->nr; i++)
		if (c->heap[i].lane->nr_marks)
			room += c->heap[i].lane->max_segment;
	if (room && !(c->segments = malloc(room * sizeof(*c->segments))))
		return -ENOMEM;
	room = 0;
	for (size_t i = 0; i < c->nr; i++) {
		struct cursor_lane *cl = &c->heap[i];

		if (cl->lane->nr_marks) {
			cl->segment = c->segments + room;
			room += cl->lane->max_segment;
			cl->next_segment = cl->lane->nr_marks;
			cl->n = cl->pos = 0;
			cl->e = cl->segment;
			if (!lane_advance(c->s, cl))
				continue;
		}
		lane_key(cl);
		c->heap[n++] = *cl;
	}
	c->nr = n;
	for (size_t i = c->nr / 2; i-- > 0;)
		sift_down(c, i);
	return 0;
}

/**
 * snapshot_cursor__next - the next record
 * @c: the cursor
 * @ret_time: set to its time (may be NULL)
 *
 * Returns the record, or NULL after the last one.
 */
const struct perf_event_header *snapshot_cursor__next(struct snapshot_cursor *c, uint64_t *ret_time)
{
	struct cursor_lane *top;
	const struct lane_entry *e;

	if (!c->nr)
		return c->last = NULL;
	top = &c->heap[0];
	e = &top->e[top->pos];
	c->last = (const void *)(top->base + e->off);
	c->last_ev = e->ev;
	c->last_cpu = top->lane->cpu;
	if (ret_time)
		*ret_time = e->time;
	if (!lane_advance(c->s, top)) {
		c->heap[0] = c->heap[--c->nr];
	} else {
		lane_key(top);
		prefetch_ahead(top);
	}
	/* One lane (one CPU's ring) needs no heap. */
	if (c->nr > 1)
		sift_down(c, 0);
	return c->last;
}

/**
 * snapshot_cursor__event - the event of the record __next returned last
 * @c: the cursor
 *
 * Found when the record was indexed, so no id lookup is needed here.
 * Returns the event, or NULL before the first or after the last record.
 */
const struct snapshot_event *snapshot_cursor__event(const struct snapshot_cursor *c)
{
	uint64_t id;

	if (!c->last)
		return NULL;
	if (c->last_ev != LANE_EVENT_UNKNOWN)
		return snapshot__event(c->s, c->last_ev);
	return perf_record__id(c->last, &id) < 0 ? NULL : snapshot__event_by_id(c->s, id);
}

/**
 * snapshot_cursor__cpu - the CPU of the record __next returned last
 * @c: the cursor
 *
 * The CPU the record is filed under: its PERF_SAMPLE_CPU, else its ring's.
 * Returns it, or -1 before the first or after the last record.
 */
int snapshot_cursor__cpu(const struct snapshot_cursor *c)
{
	return c->last ? c->last_cpu : -1;
}

/**
 * snapshot_cursor__delete - free a cursor
 * @c: the cursor, or NULL
 */
void snapshot_cursor__delete(struct snapshot_cursor *c)
{
	if (c)
		free(c->segments);
	free(c);
}

/**
 * snapshot_cursor__new - walk a sealed snapshot's records in time order
 * @s: the sealed snapshot
 * @cpu: only the records filed under this CPU, or SNAPSHOT_ALL_CPUS
 *
 * Equal times keep ring order (chunk order, then order within the ring).
 * The cursor is invalid after snapshot__add_records(). Returns the cursor
 * or NULL when out of memory.
 */
struct snapshot_cursor *snapshot_cursor__new(const struct snapshot *s, int cpu)
{
	struct snapshot_cursor *c = cursor_alloc(s, s->nr_lanes);

	if (!c)
		return NULL;
	for (size_t i = 0; i < s->nr_lanes; i++) {
		const struct lane *l = &s->lanes[i];
		const struct chunk *ch = &s->chunks[l->chunk];

		if (l->nr && (cpu == SNAPSHOT_ALL_CPUS || l->cpu == cpu))
			cursor_add(c, l, snapshot__chunk_base(s, ch), ch->info.backward);
	}
	if (cursor_start(c) < 0) {
		snapshot_cursor__delete(c);
		return NULL;
	}
	return c;
}
