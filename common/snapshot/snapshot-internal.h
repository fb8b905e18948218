/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot-internal: the snapshot's own structure, shared by the files of
 * common/snapshot that build it (snapshot.c: chunks, the spill file, the
 * public calls), index it (snapshot_index*.c: lanes, the size cut, tasks,
 * names) and walk it (snapshot_cursor.c). No other file includes it.
 */
#ifndef PERFSNAPD_SNAPSHOT_INTERNAL_H
#define PERFSNAPD_SNAPSHOT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"
#include "snapshot_comm.h"
#include "snapshot_lane.h"

struct chunk {
	struct snapshot_chunk_info info;
	uint64_t offset, len;
	const uint8_t *mem;  /* in memory (the caller's), or NULL: in the spill at offset */
	uint64_t walked;     /* from the index: the whole records at its start, in bytes */
	uint64_t nr_dropped; /* from the index: records among them it left out */
};

/* A COMM or FORK record, for the name table: its time, then ring order. */
struct name_entry {
	uint64_t time;
	size_t chunk;
	uint64_t order; /* place in its chunk's ring order */
	uint64_t off;
};

struct id_entry {
	uint64_t id;
	size_t event;
};

struct snapshot {
	struct snapshot_event *events;
	size_t nr_events;
	struct id_entry *ids;
	size_t nr_ids;

	int spill_fd;
	uint64_t spill_size;
	uint8_t *wbuf;
	size_t wbuf_len;

	struct chunk *chunks;
	size_t nr_chunks;
	size_t nr_added; /* chunks of __add_records, after the others */
	bool in_chunk;

	const uint8_t *map;
	size_t map_len;
	struct lane *lanes;
	size_t nr_lanes, cap_lanes;
	size_t nr_entries;
	struct snapshot_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct name_entry *names; /* COMM and FORK records, for comms */
	size_t nr_names, cap_names;
	struct snapshot_comm *comms; /* by tid */
	size_t nr_comms;
	struct snapshot_cmdline *cmdlines; /* in the order set */
	size_t nr_cmdlines, cap_cmdlines;
	struct snapshot_stats stats;
	struct tracing_meta *tracing; /* a reference, or NULL */
	unsigned int index_threads;   /* snapshot__set_index_threads() */
	bool windowed;		      /* snapshot__set_window() */
	uint64_t window_from, window_to, window_max_bytes;
	snapshot_naming_fn naming_cost; /* snapshot__set_naming_cost() */
	void *naming_ctx;
	bool sealed;
};

static inline const uint8_t *snapshot__chunk_base(const struct snapshot *s, const struct chunk *c)
{
	return c->mem ? c->mem : s->map + c->offset;
}

/* Walks chunk @ci into lanes, one per CPU, each in time order; @count: into the stats too. */
int snapshot_index__chunk(struct snapshot *s, size_t ci, bool count);
/* The same for the first @nr chunks, counted, several at once. */
int snapshot_index__chunks(struct snapshot *s, size_t nr);
/*
 * The first time to keep so that the rings' records in the window from
 * then on add up to s->window_max_bytes at most. Returns 0 or -ENOMEM.
 */
int snapshot_index__size_cut(const struct snapshot *s, size_t nr, uint64_t *ret_from);
/* Sorts the tasks the index found and keeps each once. */
void snapshot_index__tasks(struct snapshot *s);
/* The name table, from the COMM and FORK records in time order. */
int snapshot_index__comms(struct snapshot *s);
/*
 * Segment @seg of a backward lane (0 the newest) into @out (room for
 * l->max_segment entries) in time order, equal times oldest first; in
 * snapshot_index.c, which knows how records are keyed. Returns the count.
 */
size_t snapshot_index__load_segment(const struct snapshot *s, const struct lane *l, size_t seg,
				    struct lane_entry *out);

#endif
