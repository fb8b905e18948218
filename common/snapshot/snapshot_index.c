// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_index: files a snapshot's records by chunk and CPU into lanes,
 * each in time order, and gathers the tasks and the COMM/FORK records on
 * the way; the chunks of a seal in parallel. The size cut is in
 * snapshot_index_cut.c, the tasks and names after the walk in
 * snapshot_index_names.c. See snapshot-internal.h.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "backward_ring.h"
#include "perf_record.h"
#include "snapshot_index-internal.h"
#include "snapshot_index.h"

/*
 * One chunk's index, built apart from the snapshot so that several threads
 * can index chunks at once (each writes only its part and its own chunk's
 * info), then joined into the snapshot in chunk order: the result is the
 * one a single thread builds.
 */
struct index_part {
	size_t chunk;
	bool count;
	struct lane *lanes;
	size_t nr_lanes, cap_lanes;
	uint32_t *lane_of; /* its lane per CPU + 1, 1-based */
	size_t nr_lane_of;
	size_t nr_entries;
	struct snapshot_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct name_entry *names;
	size_t nr_names, cap_names;
	struct snapshot_stats stats;
	uint64_t nr_cropped;  /* outside the window, or before its ring's start */
	uint64_t *ev_records; /* per event */
	struct event_cache cache;
};

static void part_fini(struct index_part *p)
{
	for (size_t i = 0; i < p->nr_lanes; i++) {
		free(p->lanes[i].e);
		free(p->lanes[i].marks);
	}
	free(p->lanes);
	free(p->lane_of);
	free(p->tasks);
	free(p->names);
	free(p->ev_records);
	*p = (struct index_part){ 0 };
}

/* The part's lane for @cpu, created on first use. */
static struct lane *lane_for(struct index_part *p, int cpu)
{
	size_t slot = (size_t)(cpu + 1);
	struct lane *l;

	if (slot < p->nr_lane_of && p->lane_of[slot])
		return &p->lanes[p->lane_of[slot] - 1];
	if (slot >= p->nr_lane_of) {
		size_t n = slot + 64;
		uint32_t *m = realloc(p->lane_of, n * sizeof(*m));

		if (!m)
			return NULL;
		memset(m + p->nr_lane_of, 0, (n - p->nr_lane_of) * sizeof(*m));
		p->lane_of = m;
		p->nr_lane_of = n;
	}
	if (array__grow((void **)&p->lanes, &p->cap_lanes, p->nr_lanes, sizeof(*p->lanes), 4) < 0)
		return NULL;
	l = &p->lanes[p->nr_lanes++];
	*l = (struct lane){ .chunk = p->chunk, .cpu = cpu };
	p->lane_of[slot] = (uint32_t)p->nr_lanes;
	return l;
}

static int name_push(struct index_part *p, bool backward, uint64_t time, uint64_t off)
{
	if (array__grow((void **)&p->names, &p->cap_names, p->nr_names, sizeof(*p->names), 256) < 0)
		return -ENOMEM;
	p->names[p->nr_names++] = (struct name_entry){
		.time = time,
		.chunk = p->chunk,
		.order = backward ? UINT64_MAX - off : off,
		.off = off,
	};
	return 0;
}

static int task_push(struct index_part *p, pid_t pid, pid_t tid)
{
	/* Consecutive samples are mostly the same task: skip the obvious repeat. */
	if (p->nr_tasks && p->tasks[p->nr_tasks - 1].tid == tid &&
	    p->tasks[p->nr_tasks - 1].pid == pid)
		return 0;
	if (array__grow((void **)&p->tasks, &p->cap_tasks, p->nr_tasks, sizeof(*p->tasks), 256) < 0)
		return -ENOMEM;
	p->tasks[p->nr_tasks++] = (struct snapshot_task){ .pid = pid, .tid = tid };
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

static const struct snapshot_event *event_of(const struct snapshot *s, struct event_cache *cache,
					     uint64_t id)
{
	if (!cache->ev || cache->id != id) {
		cache->ev = snapshot__event_by_id(s, id);
		cache->id = id;
	}
	return cache->ev;
}

/* Outside the window: a record of the rings (not of __add_records) the window leaves out. */
static bool outside_window(const struct snapshot *s, const struct chunk *c, uint64_t time)
{
	return s->windowed && (size_t)(c - s->chunks) < s->nr_chunks &&
	       (time < s->window_from || time > s->window_to);
}

/* Before its ring's start (snapshot__set_chunk_start()). */
static bool before_start(const struct chunk *c, uint64_t time)
{
	return time < c->info.start_time;
}

/*
 * A record's event, leading fields and CPU. Returns 0, -1 for a record
 * the index drops (no known id, no time, malformed), -2 for one outside
 * the window or -3 for one before its ring's start (k->rec.time is set
 * for both). The segments of a backward lane
 * are read again with it, so it must decide the same each time.
 */
int snapshot_index__record_key(const struct snapshot *s, const struct chunk *c,
			       const struct perf_event_header *h, struct event_cache *cache,
			       struct record_key *k)
{
	uint64_t id;
	int r;

	if (perf_record__id(h, &id) < 0 || !(k->ev = event_of(s, cache, id)) ||
	    !(k->ev->attr.sample_type & PERF_SAMPLE_TIME))
		return -1;
	/* Only the fields before any callchain or raw data are needed here. */
	r = h->type == PERF_RECORD_SAMPLE ?
		    perf_sample_layout__head(&k->ev->layout, h, &k->rec) :
		    perf_record__parse_id_trailer(h, k->ev->attr.sample_type, &k->rec);
	if (r < 0)
		return -1;
	k->cpu = record_cpu(&k->rec, k->ev->attr.sample_type, c);
	if (before_start(c, k->rec.time))
		return -3;
	return outside_window(s, c, k->rec.time) ? -2 : 0;
}

/* A tracepoint's common_pid, or -1 without a tracepoint payload. */
static pid_t common_pid(const struct snapshot_event *ev, const struct perf_event_header *h)
{
	const void *raw;
	uint32_t size;
	int32_t pid;

	/* common_type (2), common_flags (1), common_preempt_count (1), common_pid */
	if (perf_sample_layout__raw(&ev->layout, h, &raw, &size) < 0 || size < 8)
		return -1;
	memcpy(&pid, (const uint8_t *)raw + 4, sizeof(pid));
	return pid >= 0 ? (pid_t)pid : -1;
}

/*
 * The task a sample names, pid 0 where unknown. The kernel writes -1 as a
 * sample's pid and tid once the task is released (its final switch, the
 * wake-up of its parent), but a tracepoint's common_pid still says who it
 * was, and trace-cmd names the event by that pid. A compact tracepoint
 * record has no PERF_SAMPLE_TID at all: common_pid is its task.
 */
void snapshot_index__sample_task(const struct snapshot_event *ev, const struct perf_event_header *h,
				 const struct perf_record_info *rec, pid_t *ret_pid, pid_t *ret_tid)
{
	pid_t tid;

	*ret_pid = (pid_t)rec->pid;
	*ret_tid = (pid_t)rec->tid;
	if (ev->attr.sample_type & PERF_SAMPLE_TID) {
		if (*ret_tid == -1 && (tid = common_pid(ev, h)) > 0) {
			*ret_pid = 0;
			*ret_tid = tid;
		}
	} else {
		*ret_pid = 0;
		*ret_tid = common_pid(ev, h);
	}
}

/* Files one record of chunk @c into its lane; with p->count, stats and tasks too. */
static int index_record(const struct snapshot *s, struct index_part *p, struct chunk *c,
			const struct perf_event_header *h, uint64_t off)
{
	struct snapshot_chunk_info *info = &c->info;
	struct record_key k;
	struct lane *l;
	uint64_t time;
	size_t ev;
	int r;

	r = snapshot_index__record_key(s, c, h, &p->cache, &k);
	if (r == -1) {
		p->stats.nr_dropped++;
		return 0;
	}
	time = k.rec.time;
	if (r == -3) {
		p->nr_cropped++;
		info->before_start += p->count;
		return 0;
	}
	if (p->count) {
		if (!info->held_records++ || time < info->held_first_time)
			info->held_first_time = time;
		if (time > info->held_last_time)
			info->held_last_time = time;
	}
	if (r == -2) {
		p->nr_cropped++;
		p->stats.nr_cropped++;
		p->stats.cropped_bytes += h->size;
		return 0;
	}
	ev = (size_t)(k.ev - s->events);
	if (!(l = lane_for(p, k.cpu)))
		return -ENOMEM;
	r = info->backward ? snapshot_lane__mark(l, time, off) :
			     snapshot_lane__push(l, time, off, ev);
	if (r < 0)
		return r;
	p->nr_entries++;
	p->ev_records[ev]++;
	if ((h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK) &&
	    (r = name_push(p, info->backward, time, off)) < 0)
		return r;
	if (!p->count)
		return 0;
	p->stats.bytes += h->size;
	info->bytes += h->size;
	if (!info->nr_records++ || time < info->first_time)
		info->first_time = time;
	if (time > info->last_time)
		info->last_time = time;
	if (!p->stats.nr_records++ || time < p->stats.first_time)
		p->stats.first_time = time;
	if (time > p->stats.last_time)
		p->stats.last_time = time;
	if (h->type == PERF_RECORD_SAMPLE) {
		pid_t pid, tid;

		p->stats.nr_samples++;
		snapshot_index__sample_task(k.ev, h, &k.rec, &pid, &tid);
		if ((r = task_push(p, pid, tid)) < 0)
			return r;
	} else if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		uint64_t lost;

		memcpy(&lost, (const uint8_t *)(h + 1) + 8, sizeof(lost));
		p->stats.nr_lost_records++;
		p->stats.lost_events += lost;
		info->lost_events += lost;
	}
	return 0;
}

/**
 * snapshot_index__load_segment - one segment of a backward lane, in time order
 * @s: the sealed snapshot
 * @l: a segmented lane of it
 * @seg: the segment, 0 the newest
 * @out: room for l->max_segment entries
 *
 * Walks the segment's bytes again and keys each record of the lane as the
 * index did (so finds as many as it counted); equal times stay oldest first.
 *
 * Returns the number of entries.
 */
size_t snapshot_index__load_segment(const struct snapshot *s, const struct lane *l, size_t seg,
				    struct lane_entry *out)
{
	const struct chunk *c = &s->chunks[l->chunk];
	const uint8_t *base = snapshot__chunk_base(s, c);
	size_t pos = seg ? l->marks[seg - 1].off : 0, n = 0;
	size_t want = l->marks[seg].nr - (seg ? l->marks[seg - 1].nr : 0);
	struct event_cache cache = { 0 };
	const struct perf_event_header *h;
	struct record_key k;
	struct lane run;

	/* Newest first in the ring: filled from the end, the buffer is oldest first. */
	while (n < want && (h = backward_ring__next(base, l->marks[seg].off, &pos))) {
		size_t ev;

		if (snapshot_index__record_key(s, c, h, &cache, &k) < 0 || k.cpu != l->cpu)
			continue;
		ev = (size_t)(k.ev - s->events);
		out[want - ++n] = (struct lane_entry){
			.time = k.rec.time,
			.off = (uint64_t)((const uint8_t *)h - base),
			.ev = ev < LANE_EVENT_UNKNOWN ? ev : LANE_EVENT_UNKNOWN,
		};
	}
	/* The index counted the same records; should the bytes say otherwise, keep what was found. */
	if (n < want)
		memmove(out, out + want - n, n * sizeof(*out));
	run = (struct lane){ .e = out, .nr = n };
	snapshot_lane__sort(&run, true);
	return n;
}

/* Walks chunk p->chunk into the part's lanes, one per CPU, each in time order. */
static int part_build(const struct snapshot *s, struct index_part *p)
{
	struct chunk *c = &s->chunks[p->chunk];
	const struct perf_event_header *h;
	size_t pos = 0;
	const uint8_t *base;
	int r;

	p->ev_records = calloc(s->nr_events ? s->nr_events : 1, sizeof(*p->ev_records));
	if (!p->ev_records)
		return -ENOMEM;
	if (!c->len)
		return 0; /* the spill may be unmapped: NULL + 0 is undefined */
	base = snapshot__chunk_base(s, c);
	if (c->info.backward) {
		while ((h = backward_ring__next(base, c->len, &pos)))
			if ((r = index_record(s, p, c, h, (uint64_t)((const uint8_t *)h - base))) <
			    0)
				return r;
		for (size_t i = 0; i < p->nr_lanes; i++)
			if ((r = snapshot_lane__mark_end(&p->lanes[i], pos)) < 0)
				return r;
		c->walked = pos;
		c->nr_dropped = p->stats.nr_dropped + p->nr_cropped;
		return 0;
	}
	while ((h = perf_record__next(base, c->len, &pos)))
		if ((r = index_record(s, p, c, h, (uint64_t)((const uint8_t *)h - base))) < 0)
			return r;
	for (size_t i = 0; i < p->nr_lanes; i++)
		snapshot_lane__sort(&p->lanes[i], false);
	c->walked = pos;
	c->nr_dropped = p->stats.nr_dropped + p->nr_cropped;
	return 0;
}

/* The runs of chunk @c's records the index kept, where it dropped some. */
static int chunk_runs(const struct snapshot *s, const struct chunk *c,
		      int (*fn)(void *ctx, const void *data, size_t len, int cpu), void *ctx)
{
	const uint8_t *base = snapshot__chunk_base(s, c);
	struct event_cache cache = { 0 };
	const struct perf_event_header *h;
	size_t pos = 0, start = 0, at;
	struct record_key k;
	int r;

	while ((h = perf_record__next(base, c->walked, &pos))) {
		if (snapshot_index__record_key(s, c, h, &cache, &k) == 0)
			continue;
		at = (size_t)((const uint8_t *)h - base);
		if (at > start && (r = fn(ctx, base + start, at - start, c->info.cpu)))
			return r;
		start = pos;
	}
	return pos > start ? fn(ctx, base + start, pos - start, c->info.cpu) : 0;
}

/**
 * snapshot_index__for_each_run - a sealed snapshot's records as the rings hold them
 * @s: the sealed snapshot
 * @fn: called with each run of whole records that lie back to back
 *      (8-byte aligned) and the CPU of its ring (-1 for __add_records'
 *      records); a nonzero return stops the walk
 * @ctx: passed to @fn
 *
 * The records a cursor over all CPUs returns, each once, but in ring order:
 * chunk by chunk, the records of __add_records last, a backward ring's
 * newest first. For a reader that orders records by time itself, as perf
 * does a perf.data: no merge, and most chunks are one run, not read here.
 *
 * Returns 0, -EBADFD before __seal, or @fn's nonzero return.
 */
int snapshot_index__for_each_run(const struct snapshot *s,
				 int (*fn)(void *ctx, const void *data, size_t len, int cpu),
				 void *ctx)
{
	int r;

	if (!s->sealed)
		return -EBADFD;
	for (size_t i = 0; i < s->nr_chunks + s->nr_added; i++) {
		const struct chunk *c = &s->chunks[i];

		if (!c->walked)
			continue; /* also: the spill may be unmapped under an empty chunk */
		r = c->nr_dropped ? chunk_runs(s, c, fn, ctx) :
				    fn(ctx, snapshot__chunk_base(s, c), c->walked, c->info.cpu);
		if (r)
			return r;
	}
	return 0;
}

/* Appends @nr elements of @elem bytes to a growable array of exactly the size needed. */
static int append(void **arr, size_t *nr, size_t *cap, const void *src, size_t n, size_t elem)
{
	void *m;

	if (!n)
		return 0;
	if (*nr + n > *cap) {
		m = realloc(*arr, (*nr + n) * elem);
		if (!m)
			return -ENOMEM;
		*arr = m;
		*cap = *nr + n;
	}
	memcpy((uint8_t *)*arr + *nr * elem, src, n * elem);
	*nr += n;
	return 0;
}

/* Moves part @p into the snapshot; on error the snapshot is as it was. */
static int part_join(struct snapshot *s, struct index_part *p)
{
	size_t lanes = s->nr_lanes, names = s->nr_names;
	struct snapshot_stats *st = &s->stats;
	int r;

	if ((r = append((void **)&s->lanes, &s->nr_lanes, &s->cap_lanes, p->lanes, p->nr_lanes,
			sizeof(*p->lanes))) < 0 ||
	    (r = append((void **)&s->names, &s->nr_names, &s->cap_names, p->names, p->nr_names,
			sizeof(*p->names))) < 0 ||
	    (r = append((void **)&s->tasks, &s->nr_tasks, &s->cap_tasks, p->tasks, p->nr_tasks,
			sizeof(*p->tasks))) < 0) {
		s->nr_lanes = lanes;
		s->nr_names = names;
		return r;
	}
	p->nr_lanes = 0; /* the lanes' entries are the snapshot's now */
	s->nr_entries += p->nr_entries;
	for (size_t i = 0; i < s->nr_events; i++)
		s->events[i].nr_records += p->ev_records[i];
	if (p->stats.nr_records) {
		if (!st->nr_records || p->stats.first_time < st->first_time)
			st->first_time = p->stats.first_time;
		if (p->stats.last_time > st->last_time)
			st->last_time = p->stats.last_time;
	}
	st->nr_records += p->stats.nr_records;
	st->nr_samples += p->stats.nr_samples;
	st->nr_lost_records += p->stats.nr_lost_records;
	st->lost_events += p->stats.lost_events;
	st->nr_dropped += p->stats.nr_dropped;
	st->nr_cropped += p->stats.nr_cropped;
	st->cropped_bytes += p->stats.cropped_bytes;
	st->bytes += p->stats.bytes;
	return 0;
}

/* Files chunk @ci into lanes, one per CPU, each in time order; @count: into the stats too. */
int snapshot_index__chunk(struct snapshot *s, size_t ci, bool count)
{
	struct index_part p = { .chunk = ci, .count = count };
	int r = part_build(s, &p);

	if (r == 0)
		r = part_join(s, &p);
	part_fini(&p);
	return r;
}

/*
 * Below this many bytes of records a second thread costs more than it
 * saves (docs/decisions.md).
 */
#define INDEX_THREAD_BYTES (1u << 20)
#define INDEX_MAX_THREADS  64

struct index_run {
	const struct snapshot *s;
	struct index_part *parts;
	size_t nr;
	size_t next; /* the next part to build, taken atomically */
	int error;   /* the first error, set atomically */
};

static void *index_worker(void *arg)
{
	struct index_run *run = arg;
	size_t i;

	while ((i = __atomic_fetch_add(&run->next, 1, __ATOMIC_RELAXED)) < run->nr) {
		int r = part_build(run->s, &run->parts[i]);
		int none = 0;

		if (r < 0)
			__atomic_compare_exchange_n(&run->error, &none, r, false, __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
	}
	return NULL;
}

/* How many threads index @nr chunks of @s: see snapshot__set_index_threads(). */
static size_t index_threads(const struct snapshot *s, size_t nr, const cpu_set_t *allowed)
{
	uint64_t bytes = 0;
	size_t n = s->index_threads;

	if (!n) {
		for (size_t i = 0; i < nr; i++)
			bytes += s->chunks[i].len;
		n = (size_t)CPU_COUNT(allowed);
		if (bytes / INDEX_THREAD_BYTES < n)
			n = (size_t)(bytes / INDEX_THREAD_BYTES);
	}
	if (n > nr)
		n = nr;
	if (n > INDEX_MAX_THREADS)
		n = INDEX_MAX_THREADS;
	return n ? n : 1;
}

/*
 * Starts a worker on the @k-th allowed CPU other than the caller's: on a
 * busy machine a new thread is often put on its creator's CPU, where the
 * two would take turns instead of running at once.
 */
static int start_worker(pthread_t *t, struct index_run *run, const cpu_set_t *allowed, size_t k)
{
	int here = sched_getcpu(), cpu = -1;
	pthread_attr_t attr;
	cpu_set_t one;
	int r;

	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, allowed) && c != here && !k--)
			cpu = c;
	if (pthread_attr_init(&attr))
		return -ENOMEM;
	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	}
	r = pthread_create(t, &attr, index_worker, run);
	pthread_attr_destroy(&attr);
	return -r;
}

/*
 * Indexes the first @nr chunks, in parallel on up to one thread per CPU
 * this thread may run on (the caller's included), each chunk by one
 * thread; then joins them in chunk order.
 */
int snapshot_index__chunks(struct snapshot *s, size_t nr)
{
	struct index_run run = { .s = s, .nr = nr };
	pthread_t threads[INDEX_MAX_THREADS - 1];
	size_t nr_threads = 0, want;
	cpu_set_t allowed;
	int r = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0) {
		CPU_ZERO(&allowed);
		CPU_SET(0, &allowed);
	}
	want = index_threads(s, nr, &allowed);

	run.parts = calloc(nr ? nr : 1, sizeof(*run.parts));
	if (!run.parts)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		run.parts[i] = (struct index_part){ .chunk = i, .count = true };
	/* A thread that cannot start leaves its share to the others. */
	while (nr_threads + 1 < want &&
	       start_worker(&threads[nr_threads], &run, &allowed, nr_threads) == 0)
		nr_threads++;
	index_worker(&run);
	for (size_t i = 0; i < nr_threads; i++)
		pthread_join(threads[i], NULL);
	r = run.error;
	for (size_t i = 0; i < nr && r == 0; i++)
		r = part_join(s, &run.parts[i]);
	for (size_t i = 0; i < nr; i++)
		part_fini(&run.parts[i]);
	free(run.parts);
	return r;
}
