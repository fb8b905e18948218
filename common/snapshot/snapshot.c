// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot: collects ring chunks, in memory or in a spill file, and seals
 * them (snapshot_index.c files their records into lanes); the calls that
 * read a sealed snapshot. See snapshot.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backward_ring.h"
#include "perf_record.h"
#include "cleanup.h"
#include "file_publish.h"
#include "snapshot.h"
#include "snapshot_comm.h"
#include "snapshot_name.h"
#include "tracing_meta.h"
#include "snapshot-internal.h"

#define SPILL_BUFFER_SIZE (1u << 20)

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
	for (size_t i = 0; i < s->nr_lanes; i++) {
		free(s->lanes[i].e);
		free(s->lanes[i].marks);
	}
	free(s->lanes);
	free(s->tasks);
	free(s->names);
	free(s->comms);
	for (size_t i = 0; i < s->nr_cmdlines; i++)
		free(s->cmdlines[i].args);
	free(s->cmdlines);
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
	int fd;

	if (s->spill_fd >= 0)
		return -EBUSY;
	if (!s->wbuf)
		s->wbuf = malloc(SPILL_BUFFER_SIZE);
	if (!s->wbuf)
		return -ENOMEM;
	fd = file_publish__scratch(dir, SNAPSHOT_NAME_SPILL_TEMPLATE);
	if (fd < 0)
		return fd;
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
	perf_sample_layout__init(&ev->layout, attr->sample_type);
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
 * snapshot__set_chunk_start - where a ring's records begin to count
 * @s: the snapshot, not yet sealed
 * @idx: the chunk, in the order they were added
 * @time: the first time kept, recording clock ns
 *
 * For a ring whose events were enabled one after the other: before the
 * last of them it holds some events and not others (a system call's
 * entries without their exits), which no reader can tell from the events'
 * absence. Returns 0, -EBADFD once sealed or -EINVAL.
 */
int snapshot__set_chunk_start(struct snapshot *s, size_t idx, uint64_t time)
{
	if (s->sealed)
		return -EBADFD;
	if (idx >= s->nr_chunks)
		return -EINVAL;
	s->chunks[idx].info.start_time = time;
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
 * snapshot__set_index_threads - how many threads __seal indexes chunks with
 * @s: the snapshot
 * @n: 0 (the default): one per CPU the sealing thread may run on, at most
 *     one per chunk and per MiB of records; else at most @n, the sealing
 *     thread included (1: it alone)
 *
 * Each chunk is indexed by one thread; the result does not depend on @n.
 */
void snapshot__set_index_threads(struct snapshot *s, unsigned int n)
{
	s->index_threads = n;
}

/**
 * snapshot__set_window - keep only a window of the rings' records
 * @s: the snapshot, not yet sealed
 * @from: the first time kept, recording clock ns
 * @to: the last time kept
 * @max_bytes: bytes of the newest records kept at most, 0 for no limit
 *
 * Returns 0, -EINVAL or -EBADFD.
 */
int snapshot__set_window(struct snapshot *s, uint64_t from, uint64_t to, uint64_t max_bytes)
{
	if (s->sealed)
		return -EBADFD;
	if (from > to)
		return -EINVAL;
	s->windowed = true;
	s->window_from = from;
	s->window_to = to;
	s->window_max_bytes = max_bytes;
	return 0;
}

/**
 * snapshot__set_naming_cost - count what naming the tasks adds in a size cut
 * @s: the snapshot, not yet sealed
 * @fn: the bytes naming a set of tasks adds, or NULL: nothing counted
 * @ctx: passed to @fn
 *
 * @fn is called from __seal, on its thread, only for a window with a size.
 */
void snapshot__set_naming_cost(struct snapshot *s, snapshot_naming_fn fn, void *ctx)
{
	s->naming_cost = fn;
	s->naming_ctx = ctx;
}

/**
 * snapshot__seal - index the records of all chunks
 * @s: the snapshot, with no chunk open
 *
 * Each chunk's records are filed by CPU into lanes in time order; readers
 * merge the lanes (snapshot_cursor), so nothing sorts every record. The
 * chunks are indexed in parallel (snapshot__set_index_threads()).
 * Returns 0 or -errno.
 */
int snapshot__seal(struct snapshot *s)
{
	uint64_t from;
	int r;

	if (s->in_chunk || s->sealed)
		return -EBADFD;
	if (s->spill_fd >= 0 && (r = spill_flush(s)) < 0)
		return r;
	if ((r = map_spill(s)) < 0)
		return r;
	if (s->windowed && s->window_max_bytes) {
		if ((r = snapshot_index__size_cut(s, s->nr_chunks, &from)) < 0)
			return r;
		if (from > s->window_from) {
			s->window_from = from;
			s->stats.max_bytes_cut = true;
		}
	}
	s->stats.window_from = s->window_from;
	if ((r = snapshot_index__chunks(s, s->nr_chunks)) < 0)
		return r;
	snapshot_index__tasks(s);
	s->sealed = true;
	return snapshot_index__comms(s);
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
	while (perf_record__next(p, len, &pos))
		;
	if (pos < len)
		return -EINVAL;
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
	r = snapshot_index__chunk(s, s->nr_chunks + s->nr_added - 1, false);
	return r ? r : snapshot_index__comms(s);
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
 * snapshot__set_cmdline - keep a process's command line with the snapshot
 * @s: the snapshot
 * @pid: the process
 * @args: its arguments, each NUL-terminated (as /proc/<pid>/cmdline)
 * @len: bytes at @args, the last one a NUL
 *
 * Returns 0, -EINVAL for an empty or unterminated @args, or -ENOMEM.
 */
int snapshot__set_cmdline(struct snapshot *s, pid_t pid, const char *args, size_t len)
{
	struct snapshot_cmdline *c;

	if (!s || pid <= 0 || !args || !len || args[len - 1])
		return -EINVAL;
	if (s->nr_cmdlines == s->cap_cmdlines) {
		size_t cap = s->cap_cmdlines ? s->cap_cmdlines * 2 : 64;

		c = reallocarray(s->cmdlines, cap, sizeof(*c));
		if (!c)
			return -ENOMEM;
		s->cmdlines = c;
		s->cap_cmdlines = cap;
	}
	c = &s->cmdlines[s->nr_cmdlines];
	c->args = malloc(len);
	if (!c->args)
		return -ENOMEM;
	memcpy(c->args, args, len);
	c->pid = pid;
	c->len = len;
	s->nr_cmdlines++;
	return 0;
}

size_t snapshot__nr_cmdlines(const struct snapshot *s)
{
	return s->nr_cmdlines;
}

const struct snapshot_cmdline *snapshot__cmdline(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_cmdlines ? &s->cmdlines[idx] : NULL;
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
