// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_index: files a snapshot's records by chunk and CPU into lanes,
 * each in time order, and gathers the tasks and the COMM/FORK records on
 * the way. See snapshot-internal.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backward_ring.h"
#include "cleanup.h"
#include "perf_record.h"
#include "snapshot-internal.h"

/* The lane of @chunk for @cpu, created on first use. */
static struct lane *lane_for(struct snapshot *s, size_t chunk, int cpu)
{
	size_t slot = (size_t)(cpu + 1);
	struct lane *l;

	if (slot < s->nr_lane_of && s->lane_of[slot])
		return &s->lanes[s->lane_of[slot] - 1];
	if (slot >= s->nr_lane_of) {
		size_t n = slot + 64;
		uint32_t *m = realloc(s->lane_of, n * sizeof(*m));

		if (!m)
			return NULL;
		memset(m + s->nr_lane_of, 0, (n - s->nr_lane_of) * sizeof(*m));
		s->lane_of = m;
		s->nr_lane_of = n;
	}
	if (s->nr_lanes == s->cap_lanes) {
		size_t cap = s->cap_lanes ? s->cap_lanes * 2 : 16;
		struct lane *n = realloc(s->lanes, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->lanes = n;
		s->cap_lanes = cap;
	}
	l = &s->lanes[s->nr_lanes++];
	*l = (struct lane){ .chunk = chunk, .cpu = cpu };
	s->lane_of[slot] = (uint32_t)s->nr_lanes;
	return l;
}

static int name_push(struct snapshot *s, size_t chunk, uint64_t time, uint64_t off)
{
	if (s->nr_names == s->cap_names) {
		size_t cap = s->cap_names ? s->cap_names * 2 : 256;
		struct name_entry *n = realloc(s->names, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->names = n;
		s->cap_names = cap;
	}
	s->names[s->nr_names++] = (struct name_entry){
		.time = time,
		.chunk = chunk,
		.order = s->chunks[chunk].info.backward ? UINT64_MAX - off : off,
		.off = off,
	};
	return 0;
}

static int task_push(struct snapshot *s, pid_t pid, pid_t tid)
{
	/* Consecutive samples are mostly the same task: skip the obvious repeat. */
	if (s->nr_tasks && s->tasks[s->nr_tasks - 1].tid == tid &&
	    s->tasks[s->nr_tasks - 1].pid == pid)
		return 0;
	if (s->nr_tasks == s->cap_tasks) {
		size_t cap = s->cap_tasks ? s->cap_tasks * 2 : 256;
		struct snapshot_task *n = realloc(s->tasks, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		s->tasks = n;
		s->cap_tasks = cap;
	}
	s->tasks[s->nr_tasks++] = (struct snapshot_task){ .pid = pid, .tid = tid };
	return 0;
}

/* A record's CPU: its own field, else its ring's, else 0 (as ftrace would). */
static int record_cpu(const struct perf_record_info *info, uint64_t sample_type,
		      const struct chunk *c)
{
	if (sample_type & PERF_SAMPLE_CPU)
		return info->cpu < SNAPSHOT_MAX_CPUS ? (int)info->cpu : -1;
	return c->info.cpu >= 0 ? c->info.cpu : 0;
}

/* Files one record of chunk @ci into its lane; @count: stats and tasks too. */
static int index_record(struct snapshot *s, size_t ci, const struct perf_event_header *h,
			uint64_t off, bool count)
{
	struct chunk *c = &s->chunks[ci];
	struct snapshot_chunk_info *info = &c->info;
	const struct snapshot_event *ev;
	struct perf_record_info rec;
	struct lane *l;
	uint64_t id, time;
	int r;

	if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(s, id)) ||
	    !(ev->attr.sample_type & PERF_SAMPLE_TIME)) {
		s->stats.nr_dropped++;
		return 0;
	}
	/* Only the fields before any callchain or raw data are needed here. */
	r = h->type == PERF_RECORD_SAMPLE ?
		    perf_sample_layout__head(&ev->layout, h, &rec) :
		    perf_record__parse_id_trailer(h, ev->attr.sample_type, &rec);
	if (r < 0) {
		s->stats.nr_dropped++;
		return 0;
	}
	time = rec.time;
	l = lane_for(s, ci, record_cpu(&rec, ev->attr.sample_type, c));
	if (!l || lane__push(l, time, off, (size_t)(ev - s->events)) < 0)
		return -ENOMEM;
	s->nr_entries++;
	((struct snapshot_event *)ev)->nr_records++;
	if ((h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK) &&
	    (r = name_push(s, ci, time, off)) < 0)
		return r;
	if (!count)
		return 0;
	s->stats.bytes += h->size;
	if (!info->nr_records++ || time < info->first_time)
		info->first_time = time;
	if (time > info->last_time)
		info->last_time = time;
	if (!s->stats.nr_records++ || time < s->stats.first_time)
		s->stats.first_time = time;
	if (time > s->stats.last_time)
		s->stats.last_time = time;
	if (h->type == PERF_RECORD_SAMPLE) {
		s->stats.nr_samples++;
		if ((r = task_push(s, (pid_t)rec.pid, (pid_t)rec.tid)) < 0)
			return r;
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		uint64_t lost;

		memcpy(&lost, (const uint8_t *)(h + 1) + 8, sizeof(lost));
		s->stats.nr_lost_records++;
		s->stats.lost_events += lost;
		info->lost_events += lost;
	}
	return 0;
}

/* Walks chunk @ci into lanes, one per CPU, each in ring order then sorted. */
int snapshot_index__chunk(struct snapshot *s, size_t ci, bool count)
{
	struct chunk *c = &s->chunks[ci];
	const struct perf_event_header *h;
	size_t first = s->nr_lanes, pos = 0;
	const uint8_t *base;
	int r;

	if (!c->len)
		return 0; /* the spill may be unmapped: NULL + 0 is undefined */
	base = snapshot__chunk_base(s, c);
	if (s->lane_of)
		memset(s->lane_of, 0, s->nr_lane_of * sizeof(*s->lane_of));
	if (c->info.backward) {
		while ((h = backward_ring__next(base, c->len, &pos)))
			if ((r = index_record(s, ci, h, (uint64_t)((const uint8_t *)h - base),
					      count)) < 0)
				return r;
		/* Newest first in the ring: turn each lane around to oldest first. */
		for (size_t i = first; i < s->nr_lanes; i++)
			lane__reverse(&s->lanes[i]);
	} else {
		while (c->len - pos >= sizeof(*h)) {
			h = (const void *)(base + pos);
			if (h->size < sizeof(*h) || h->size % 8 || h->size > c->len - pos)
				break;
			if ((r = index_record(s, ci, h, pos, count)) < 0)
				return r;
			pos += h->size;
		}
	}
	for (size_t i = first; i < s->nr_lanes; i++)
		lane__sort(&s->lanes[i], c->info.backward);
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct snapshot_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The tasks of the samples, sorted by pid and tid, each once. */
void snapshot_index__tasks(struct snapshot *s)
{
	size_t n = 0;

	if (s->nr_tasks)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_task);
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (!n || cmp_task(&s->tasks[n - 1], &s->tasks[i]))
			s->tasks[n++] = s->tasks[i];
	s->nr_tasks = n;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct perf_event_header *name_record(const struct snapshot *s,
						   const struct name_entry *n)
{
	return (const void *)(snapshot__chunk_base(s, &s->chunks[n->chunk]) + n->off);
}

/* The name table, from the COMM and FORK records in time order. */
int snapshot_index__comms(struct snapshot *s)
{
	_cleanup_free_ const struct perf_event_header **recs = NULL;

	free(s->comms);
	s->comms = NULL;
	s->nr_comms = 0;
	if (!s->nr_names)
		return 0;
	qsort(s->names, s->nr_names, sizeof(*s->names), cmp_name);
	recs = malloc(s->nr_names * sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_names; i++)
		recs[i] = name_record(s, &s->names[i]);
	return snapshot_comm__build(recs, s->nr_names, &s->comms, &s->nr_comms);
}
