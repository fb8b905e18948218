// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot: collects ring chunks in a spill file, then files their records
 * by chunk and CPU into lanes, each in time order; a cursor merges lanes
 * with a small heap. See snapshot.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backward_ring.h"
#include "perf_record.h"
#include "cleanup.h"
#include "snapshot.h"
#include "snapshot_comm.h"
#include "snapshot_name.h"
#include "tracing_meta.h"
#include "snapshot_merge.h"

#define SPILL_BUFFER_SIZE (1u << 20)

/* The sample fields up to PERF_SAMPLE_CPU, all that indexing reads. */
#define SAMPLE_HEAD                                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

struct chunk {
	struct snapshot_chunk_info info;
	uint64_t offset, len;
	const uint8_t *mem; /* in memory (the caller's), or NULL: in the spill at offset */
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
	uint32_t *lane_of; /* while indexing a chunk: its lane per CPU + 1, 1-based */
	size_t nr_lane_of;
	size_t nr_entries;
	struct snapshot_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct name_entry *names; /* COMM and FORK records, for comms */
	size_t nr_names, cap_names;
	struct snapshot_comm *comms; /* by tid */
	size_t nr_comms;
	struct snapshot_stats stats;
	struct tracing_meta *tracing; /* a reference, or NULL */
	bool sealed;
};

/**
 * snapshot__new - an empty snapshot
 *
 * Returns the snapshot or NULL when out of memory.
 */
struct snapshot *snapshot__new(void)
{
	struct snapshot *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->spill_fd = -1;
	return s;
}

/**
 * snapshot__delete - free a snapshot and close its spill file
 * @s: the snapshot, or NULL
 */
void snapshot__delete(struct snapshot *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr_events; i++) {
		free(s->events[i].name);
		free(s->events[i].ids);
	}
	free(s->events);
	free(s->ids);
	free(s->wbuf);
	free(s->chunks);
	if (s->map)
		munmap((void *)s->map, s->map_len);
	if (s->spill_fd >= 0)
		close(s->spill_fd);
	for (size_t i = 0; i < s->nr_lanes; i++)
		free(s->lanes[i].e);
	free(s->lanes);
	free(s->lane_of);
	free(s->tasks);
	free(s->names);
	free(s->comms);
	tracing_meta__put(s->tracing);
	free(s);
}

/**
 * snapshot__open_spill - create the spill file
 * @s: the snapshot
 * @dir: directory to hold it (unlinked at once, so nothing is left behind)
 *
 * Returns 0 or -errno.
 */
int snapshot__open_spill(struct snapshot *s, const char *dir)
{
	char path[4096];
	int fd;

	if (s->spill_fd >= 0)
		return -EBUSY;
	if (!s->wbuf)
		s->wbuf = malloc(SPILL_BUFFER_SIZE);
	if (!s->wbuf)
		return -ENOMEM;
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR)) {
		/* Filesystems without O_TMPFILE: a named file, unlinked at once. */
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
				     SNAPSHOT_NAME_SPILL_TEMPLATE) >= sizeof(path))
			return -ENAMETOOLONG;
		fd = mkostemp(path, O_CLOEXEC);
		if (fd >= 0)
			unlink(path);
	}
	if (fd < 0)
		return -errno;
	s->spill_fd = fd;
	return 0;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/**
 * snapshot__add_event - declare an event whose records the chunks hold
 * @s: the snapshot, not yet sealed (a reader that learns event names only
 *     after the records, as in perf's pipe mode, adds its events last)
 * @attr: its attr
 * @name: its display name
 * @ids: the sample ids of its fds
 * @nr_ids: number of @ids
 *
 * Returns 0 or -errno.
 */
int snapshot__add_event(struct snapshot *s, const struct perf_event_attr *attr, const char *name,
			const uint64_t *ids, size_t nr_ids)
{
	struct snapshot_event *events, *ev;
	struct id_entry *id_table;

	if (s->sealed)
		return -EBUSY;
	events = realloc(s->events, (s->nr_events + 1) * sizeof(*events));
	if (!events)
		return -ENOMEM;
	s->events = events;
	id_table = realloc(s->ids, (s->nr_ids + nr_ids + 1) * sizeof(*id_table));
	if (!id_table)
		return -ENOMEM;
	s->ids = id_table;

	ev = &s->events[s->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->name = strdup(name);
	ev->ids = malloc((nr_ids ? nr_ids : 1) * sizeof(*ev->ids));
	if (!ev->name || !ev->ids) {
		free(ev->name);
		free(ev->ids);
		return -ENOMEM;
	}
	memcpy(ev->ids, ids, nr_ids * sizeof(*ids));
	ev->nr_ids = nr_ids;
	for (size_t i = 0; i < nr_ids; i++) {
		s->ids[s->nr_ids].id = ids[i];
		s->ids[s->nr_ids].event = s->nr_events;
		s->nr_ids++;
	}
	s->nr_events++;
	qsort(s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	return 0;
}

static int spill_flush(struct snapshot *s)
{
	size_t done = 0;

	while (done < s->wbuf_len) {
		ssize_t n = write(s->spill_fd, s->wbuf + done, s->wbuf_len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	s->wbuf_len = 0;
	return 0;
}

/**
 * snapshot__begin_chunk - start the records of one ring
 * @s: the snapshot, with its spill file open
 * @cpu: the ring's CPU
 * @backward: the data will be a linearised write_backward ring copy
 *
 * Returns 0 or -errno.
 */
int snapshot__begin_chunk(struct snapshot *s, int cpu, bool backward)
{
	struct chunk *chunks;

	if (s->spill_fd < 0 || s->in_chunk || s->sealed)
		return -EBADFD;
	chunks = realloc(s->chunks, (s->nr_chunks + 1) * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	s->chunks = chunks;
	chunks[s->nr_chunks] = (struct chunk){ .info.cpu = cpu,
					       .info.backward = backward,
					       .offset = s->spill_size };
	s->nr_chunks++;
	s->in_chunk = true;
	return 0;
}

/**
 * snapshot__add_chunk_memory - add one ring's records that stay in memory
 * @s: the snapshot, not sealed, with no chunk open (no spill file needed)
 * @cpu: the ring's CPU
 * @backward: @data is a linearised write_backward ring copy (see
 *	snapshot__begin_chunk())
 * @data: the records, 8-byte aligned; borrowed: it must stay unchanged
 *	until snapshot__delete()
 * @len: their length
 * @overwritten: the ring had wrapped
 *
 * The bytes are never copied or written. Returns 0 or -errno.
 */
int snapshot__add_chunk_memory(struct snapshot *s, int cpu, bool backward, const void *data,
			       size_t len, bool overwritten)
{
	struct chunk *chunks;

	if (s->in_chunk || s->sealed)
		return -EBADFD;
	if ((uintptr_t)data % 8 || len % 8)
		return -EINVAL;
	chunks = realloc(s->chunks, (s->nr_chunks + 1) * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	s->chunks = chunks;
	chunks[s->nr_chunks++] = (struct chunk){ .info.cpu = cpu,
						 .info.backward = backward,
						 .info.overwritten = overwritten,
						 .len = len,
						 .mem = data };
	return 0;
}

/**
 * snapshot__append - add bytes to the current chunk
 * @s: the snapshot
 * @data: record bytes (a multiple of 8 in total per chunk)
 * @len: their length
 *
 * Returns 0 or -errno (a full disk shows here as -ENOSPC).
 */
int snapshot__append(struct snapshot *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	int r;

	if (!s->in_chunk)
		return -EBADFD;
	while (len) {
		size_t n = SPILL_BUFFER_SIZE - s->wbuf_len;

		if (n > len)
			n = len;
		memcpy(s->wbuf + s->wbuf_len, p, n);
		s->wbuf_len += n;
		p += n;
		len -= n;
		s->spill_size += n;
		s->chunks[s->nr_chunks - 1].len += n;
		if (s->wbuf_len == SPILL_BUFFER_SIZE) {
			r = spill_flush(s);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/**
 * snapshot__end_chunk - close the current chunk
 * @s: the snapshot
 *
 * Returns 0 or -errno.
 */
int snapshot__end_chunk(struct snapshot *s)
{
	static const uint8_t zeros[8];
	size_t pad = (8 - s->spill_size % 8) % 8;
	int r = 0;

	if (!s->in_chunk)
		return -EBADFD;
	/* Keep the next chunk's records 8-byte aligned in the mapping. */
	if (pad) {
		r = snapshot__append(s, zeros, pad);
		s->chunks[s->nr_chunks - 1].len -= pad;
	}
	s->in_chunk = false;
	return r;
}

/**
 * snapshot__set_chunk_overwritten - note that the current chunk's ring wrapped
 * @s: the snapshot, inside a chunk
 *
 * Returns 0 or -EBADFD outside a chunk.
 */
int snapshot__set_chunk_overwritten(struct snapshot *s)
{
	if (!s->in_chunk)
		return -EBADFD;
	s->chunks[s->nr_chunks - 1].info.overwritten = true;
	return 0;
}

/**
 * snapshot__event_by_id - the event a sample id belongs to
 * @s: the snapshot
 * @id: a record's id
 *
 * Returns the event or NULL.
 */
const struct snapshot_event *snapshot__event_by_id(const struct snapshot *s, uint64_t id)
{
	struct id_entry key = { .id = id }, *e;

	e = bsearch(&key, s->ids, s->nr_ids, sizeof(*s->ids), cmp_id);
	return e ? &s->events[e->event] : NULL;
}

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
		    perf_record__parse_sample(h, ev->attr.sample_type & SAMPLE_HEAD, &rec) :
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

static const uint8_t *chunk_base(const struct snapshot *s, const struct chunk *c)
{
	return c->mem ? c->mem : s->map + c->offset;
}

/* Walks chunk @ci into lanes, one per CPU, each in ring order then sorted. */
static int index_chunk(struct snapshot *s, size_t ci, bool count)
{
	struct chunk *c = &s->chunks[ci];
	const struct perf_event_header *h;
	size_t first = s->nr_lanes, pos = 0;
	const uint8_t *base;
	int r;

	if (!c->len)
		return 0; /* the spill may be unmapped: NULL + 0 is undefined */
	base = chunk_base(s, c);
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
	return (const void *)(chunk_base(s, &s->chunks[n->chunk]) + n->off);
}

/* The name table, from the COMM and FORK records in time order. */
static int build_comms(struct snapshot *s)
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

static int map_spill(struct snapshot *s)
{
	void *map;

	if (s->map)
		munmap((void *)s->map, s->map_len);
	s->map = NULL;
	s->map_len = 0;
	if (!s->spill_size)
		return 0;
	map = mmap(NULL, s->spill_size, PROT_READ, MAP_PRIVATE, s->spill_fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	s->map = map;
	s->map_len = s->spill_size;
	return 0;
}

/**
 * snapshot__seal - index the records of all chunks
 * @s: the snapshot, with no chunk open
 *
 * Each chunk's records are filed by CPU into lanes in time order; readers
 * merge the lanes (snapshot_cursor), so nothing sorts every record.
 * Returns 0 or -errno.
 */
int snapshot__seal(struct snapshot *s)
{
	size_t n = 0;
	int r;

	if (s->in_chunk || s->sealed)
		return -EBADFD;
	if (s->spill_fd >= 0 && (r = spill_flush(s)) < 0)
		return r;
	if ((r = map_spill(s)) < 0)
		return r;
	for (size_t i = 0; i < s->nr_chunks; i++)
		if ((r = index_chunk(s, i, true)) < 0)
			return r;
	if (s->nr_tasks)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_task);
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (!n || cmp_task(&s->tasks[n - 1], &s->tasks[i]))
			s->tasks[n++] = s->tasks[i];
	s->nr_tasks = n;
	s->sealed = true;
	return build_comms(s);
}

/**
 * snapshot__add_records - merge more records into a sealed snapshot
 * @s: the sealed snapshot
 * @records: whole records, back to back, each with a known id and a time
 * @len: their total length (a multiple of 8)
 *
 * They become one more chunk (cpu -1, not reported by __chunk) whose lanes
 * join the merge after the rings': equal times keep them after. Record
 * pointers obtained before are invalid afterwards (the spill file is
 * mapped anew). Returns 0 or -errno.
 */
int snapshot__add_records(struct snapshot *s, const void *records, size_t len)
{
	uint64_t offset = s->spill_size;
	const uint8_t *p = records;
	struct chunk *chunks;
	size_t done = 0, pos = 0;
	int r;

	if (!s->sealed || s->spill_fd < 0 || len % 8)
		return s->sealed && s->spill_fd >= 0 ? -EINVAL : -EBADFD;
	for (pos = 0; len - pos >= sizeof(struct perf_event_header);) {
		const struct perf_event_header *h = (const void *)(p + pos);

		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
			return -EINVAL;
		pos += h->size;
	}
	chunks = realloc(s->chunks, (s->nr_chunks + s->nr_added + 1) * sizeof(*chunks));
	if (!chunks)
		return -ENOMEM;
	s->chunks = chunks;
	while (done < len) {
		ssize_t n = pwrite(s->spill_fd, p + done, len - done, (off_t)(offset + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	s->spill_size += len;
	r = map_spill(s);
	if (r < 0)
		return r;
	chunks[s->nr_chunks + s->nr_added] = (struct chunk){ .info.cpu = -1,
							     .offset = offset,
							     .len = len };
	s->nr_added++;
	r = index_chunk(s, s->nr_chunks + s->nr_added - 1, false);
	return r ? r : build_comms(s);
}

/**
 * snapshot__nr_records - how many records the snapshot's cursors return
 * @s: the sealed snapshot
 *
 * Returns the count, merged records included.
 */
size_t snapshot__nr_records(const struct snapshot *s)
{
	return s->nr_entries;
}

/**
 * snapshot__max_cpu - the highest CPU a record was filed under
 * @s: the sealed snapshot
 *
 * Returns it, or -1 for a snapshot without records.
 */
int snapshot__max_cpu(const struct snapshot *s)
{
	int max = -1;

	for (size_t i = 0; i < s->nr_lanes; i++)
		if (s->lanes[i].nr && s->lanes[i].cpu > max)
			max = s->lanes[i].cpu;
	return max;
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
	struct snapshot_cursor *c = snapshot_cursor__alloc(s, s->nr_lanes);

	if (!c)
		return NULL;
	for (size_t i = 0; i < s->nr_lanes; i++) {
		const struct lane *l = &s->lanes[i];
		const struct chunk *ch = &s->chunks[l->chunk];

		if (l->nr && (cpu == SNAPSHOT_ALL_CPUS || l->cpu == cpu))
			snapshot_cursor__add(c, l, chunk_base(s, ch), ch->info.backward);
	}
	snapshot_cursor__start(c);
	return c;
}

const struct snapshot_stats *snapshot__stats(const struct snapshot *s)
{
	return &s->stats;
}

size_t snapshot__nr_events(const struct snapshot *s)
{
	return s->nr_events;
}

const struct snapshot_event *snapshot__event(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_events ? &s->events[idx] : NULL;
}

size_t snapshot__nr_chunks(const struct snapshot *s)
{
	return s->nr_chunks;
}

const struct snapshot_chunk_info *snapshot__chunk(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_chunks ? &s->chunks[idx].info : NULL;
}

size_t snapshot__nr_tasks(const struct snapshot *s)
{
	return s->nr_tasks;
}

const struct snapshot_task *snapshot__task(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_tasks ? &s->tasks[idx] : NULL;
}

size_t snapshot__nr_comms(const struct snapshot *s)
{
	return s->nr_comms;
}

const struct snapshot_comm *snapshot__comm_entry(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_comms ? &s->comms[idx] : NULL;
}

/**
 * snapshot__comm - a task's name at the end of a sealed snapshot
 * @s: the snapshot
 * @tid: the task
 *
 * Returns its name (valid while @s is), or NULL if no record names it.
 */
const char *snapshot__comm(const struct snapshot *s, pid_t tid)
{
	const struct snapshot_comm *c = snapshot_comm__find(s->comms, s->nr_comms, tid);

	return c ? c->comm : NULL;
}

/**
 * snapshot__set_tracing - attach the capture's tracepoint metadata
 * @s: the snapshot
 * @m: the metadata (a reference is taken), or NULL for none
 */
void snapshot__set_tracing(struct snapshot *s, struct tracing_meta *m)
{
	struct tracing_meta *old = s->tracing;

	s->tracing = tracing_meta__get(m);
	tracing_meta__put(old);
}

const struct tracing_meta *snapshot__tracing(const struct snapshot *s)
{
	return s->tracing;
}
