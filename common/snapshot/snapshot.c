// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot: collects ring chunks in a spill file, then indexes their
 * records by time. See snapshot.h.
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
#include "snapshot.h"

#define SPILL_BUFFER_SIZE (1u << 20)

struct chunk {
	struct snapshot_chunk_info info;
	uint64_t offset, len;
};

struct index_entry {
	uint64_t time;
	uint64_t offset;
	uint64_t seq; /* ring order: keeps equal times stable */
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
	bool in_chunk;

	const uint8_t *map;
	size_t map_len;
	struct index_entry *index;
	size_t nr_index, cap_index;
	struct snapshot_task *tasks;
	size_t nr_tasks, cap_tasks;
	struct index_entry *names; /* COMM and FORK records, for comms */
	size_t nr_names, cap_names;
	struct snapshot_comm *comms; /* by tid */
	size_t nr_comms;
	struct snapshot_stats stats;
	uint64_t next_seq;
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
	free(s->index);
	free(s->tasks);
	free(s->names);
	free(s->comms);
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
		if ((size_t)snprintf(path, sizeof(path), "%s/.perfsnapd-spill.XXXXXX", dir) >=
		    sizeof(path))
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

static int entry_push(struct index_entry **arr, size_t *nr, size_t *cap_arr, uint64_t time,
		      uint64_t offset, uint64_t seq)
{
	if (*nr == *cap_arr) {
		size_t cap = *cap_arr ? *cap_arr * 2 : 4096;
		struct index_entry *n = realloc(*arr, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		*arr = n;
		*cap_arr = cap;
	}
	(*arr)[(*nr)++] = (struct index_entry){ .time = time, .offset = offset, .seq = seq };
	return 0;
}

static int index_push(struct snapshot *s, uint64_t time, uint64_t offset)
{
	int r = entry_push(&s->index, &s->nr_index, &s->cap_index, time, offset, 0);
	const struct perf_event_header *h = (const void *)(s->map + offset);

	/* Until number_names(), a name's seq is its position in the index. */
	if (r == 0 && (h->type == PERF_RECORD_COMM || h->type == PERF_RECORD_FORK))
		r = entry_push(&s->names, &s->nr_names, &s->cap_names, time, offset,
			       s->nr_index - 1);
	return r;
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

static int index_record(struct snapshot *s, const struct perf_event_header *h,
			struct snapshot_chunk_info *info)
{
	const struct snapshot_event *ev;
	struct perf_record_info sample;
	uint64_t id, time;
	int r;

	if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(s, id)) ||
	    perf_record__time(h, ev->attr.sample_type, &time) < 0) {
		s->stats.nr_dropped++;
		return 0;
	}
	r = index_push(s, time, (uint64_t)((const uint8_t *)h - s->map));
	if (r < 0)
		return r;
	((struct snapshot_event *)ev)->nr_records++;
	if (!info)
		return 0;
	s->stats.bytes += h->size;
	if (!info->nr_records++ || time < info->first_time)
		info->first_time = time;
	if (time > info->last_time)
		info->last_time = time;
	if (h->type == PERF_RECORD_SAMPLE) {
		s->stats.nr_samples++;
		if (perf_record__parse_sample(h, ev->attr.sample_type, &sample) == 0 &&
		    (r = task_push(s, (pid_t)sample.pid, (pid_t)sample.tid)) < 0)
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

/*
 * The names pushed since @names_first get the seq their index entries will
 * get from number_run(): ring order, so a backward run counts from its end.
 */
static void number_names(struct snapshot *s, size_t names_first, size_t first, bool backward)
{
	for (size_t i = names_first; i < s->nr_names; i++) {
		uint64_t pos = s->names[i].seq;

		s->names[i].seq = s->next_seq + (backward ? s->nr_index - 1 - pos : pos - first);
	}
}

static void number_run(struct snapshot *s, size_t first)
{
	for (size_t i = first; i < s->nr_index; i++)
		s->index[i].seq = s->next_seq++;
}

static int index_chunk(struct snapshot *s, struct chunk *c)
{
	const uint8_t *base;
	const struct perf_event_header *h;
	size_t first = s->nr_index, names_first = s->nr_names, pos = 0;
	int r;

	if (!c->len)
		return 0; /* the spill may be unmapped: NULL + 0 is undefined */
	base = s->map + c->offset;
	if (c->info.backward) {
		while ((h = backward_ring__next(base, c->len, &pos)))
			if ((r = index_record(s, h, &c->info)) < 0)
				return r;
		/* Newest first in the ring: turn the run around to oldest first. */
		for (size_t i = first, j = s->nr_index; i + 1 < j; i++, j--) {
			struct index_entry t = s->index[i];

			s->index[i] = s->index[j - 1];
			s->index[j - 1] = t;
		}
		number_names(s, names_first, first, true);
		number_run(s, first);
		return 0;
	}
	while (c->len - pos >= sizeof(*h)) {
		h = (const void *)(base + pos);
		if (h->size < sizeof(*h) || h->size % 8 || h->size > c->len - pos)
			break;
		if ((r = index_record(s, h, &c->info)) < 0)
			return r;
		pos += h->size;
	}
	number_names(s, names_first, first, false);
	number_run(s, first);
	return 0;
}

static int cmp_index(const void *a, const void *b)
{
	const struct index_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_task(const void *a, const void *b)
{
	const struct snapshot_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_comm(const void *a, const void *b)
{
	const struct snapshot_comm *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static struct snapshot_comm *find_comm(struct snapshot_comm *comms, size_t nr, pid_t tid)
{
	struct snapshot_comm key = { .tid = tid };

	return nr ? bsearch(&key, comms, nr, sizeof(*comms), cmp_comm) : NULL;
}

/* COMM: pid, tid, comm; FORK: pid, ppid, tid, ptid. The task a record names. */
static pid_t named_tid(const struct perf_event_header *h, pid_t *ret_parent)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	int32_t ids[4] = { 0 };

	if (h->type == PERF_RECORD_COMM && h->size > sizeof(*h) + 8)
		memcpy(ids, p, 8);
	else if (h->type == PERF_RECORD_FORK && h->size >= sizeof(*h) + 16)
		memcpy(ids, p, 16);
	else
		return 0;
	*ret_parent = h->type == PERF_RECORD_FORK ? ids[3] : 0;
	return h->type == PERF_RECORD_FORK ? ids[2] : ids[1];
}

/* Replays the COMM and FORK records in time order into the name table. */
static int build_comms(struct snapshot *s)
{
	struct snapshot_comm *comms;
	size_t n = 0, out = 0;
	pid_t parent = 0;

	free(s->comms);
	s->comms = NULL;
	s->nr_comms = 0;
	if (!s->nr_names)
		return 0;
	qsort(s->names, s->nr_names, sizeof(*s->names), cmp_index);
	comms = calloc(s->nr_names, sizeof(*comms));
	if (!comms)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_names; i++) {
		pid_t tid = named_tid((const void *)(s->map + s->names[i].offset), &parent);

		if (tid > 0)
			comms[n++].tid = tid;
	}
	if (n)
		qsort(comms, n, sizeof(*comms), cmp_comm);
	for (size_t i = 0; i < n; i++)
		if (!out || comms[out - 1].tid != comms[i].tid)
			comms[out++] = comms[i];
	for (size_t i = 0; i < s->nr_names; i++) {
		const struct perf_event_header *h = (const void *)(s->map + s->names[i].offset);
		struct snapshot_comm *c = find_comm(comms, out, named_tid(h, &parent)), *pc;
		const char *name = (const char *)(h + 1) + 8;

		if (!c)
			continue;
		if (h->type == PERF_RECORD_COMM)
			snprintf(c->comm, sizeof(c->comm), "%.*s",
				 (int)strnlen(name, h->size - sizeof(*h) - 8), name);
		else if ((pc = find_comm(comms, out, parent)) && pc->comm[0])
			memcpy(c->comm, pc->comm, sizeof(c->comm));
	}
	n = 0;
	for (size_t i = 0; i < out; i++)
		if (comms[i].comm[0])
			comms[n++] = comms[i];
	s->comms = comms;
	s->nr_comms = n;
	return 0;
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
 * snapshot__seal - index the records of all chunks in time order
 * @s: the snapshot, with no chunk open
 *
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
		if ((r = index_chunk(s, &s->chunks[i])) < 0)
			return r;
	if (s->nr_index) /* qsort(NULL, 0) is undefined */
		qsort(s->index, s->nr_index, sizeof(*s->index), cmp_index);
	s->stats.nr_records = s->nr_index;
	if (s->nr_index) {
		s->stats.first_time = s->index[0].time;
		s->stats.last_time = s->index[s->nr_index - 1].time;
	}
	if (s->nr_tasks)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_task);
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (!n || cmp_task(&s->tasks[n - 1], &s->tasks[i]))
			s->tasks[n++] = s->tasks[i];
	s->nr_tasks = n;
	s->sealed = true;
	return build_comms(s);
}

/*
 * The index up to @first is sorted; sort the few entries after it and merge
 * them in from the back, rather than sorting everything again.
 */
static int merge_new_run(struct snapshot *s, size_t first)
{
	size_t m = s->nr_index - first, i = first, j = m, k = s->nr_index;
	struct index_entry *run;

	if (!m)
		return 0;
	qsort(s->index + first, m, sizeof(*s->index), cmp_index);
	run = malloc(m * sizeof(*run));
	if (!run)
		return -ENOMEM;
	memcpy(run, s->index + first, m * sizeof(*run));
	while (j > 0) {
		if (i > 0 && cmp_index(&s->index[i - 1], &run[j - 1]) > 0)
			s->index[--k] = s->index[--i];
		else
			s->index[--k] = run[--j];
	}
	free(run);
	return 0;
}

/**
 * snapshot__add_records - merge more records into a sealed snapshot
 * @s: the sealed snapshot
 * @records: whole records, back to back, each with a known id and a time
 * @len: their total length (a multiple of 8)
 *
 * Record pointers obtained before are invalid afterwards (the spill file is
 * mapped anew). Returns 0 or -errno.
 */
int snapshot__add_records(struct snapshot *s, const void *records, size_t len)
{
	uint64_t offset = s->spill_size;
	const uint8_t *p = records;
	size_t first = s->nr_index, names_first = s->nr_names, done = 0, pos = 0;
	int r;

	if (!s->sealed || s->spill_fd < 0 || len % 8)
		return s->sealed && s->spill_fd >= 0 ? -EINVAL : -EBADFD;
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
	while (len - pos >= sizeof(struct perf_event_header)) {
		const struct perf_event_header *h = (const void *)(s->map + offset + pos);

		if (h->size < sizeof(*h) || h->size % 8 || h->size > len - pos)
			return -EINVAL;
		r = index_record(s, h, NULL);
		if (r < 0)
			return r;
		pos += h->size;
	}
	number_names(s, names_first, first, false);
	number_run(s, first);
	r = merge_new_run(s, first);
	return r ? r : build_comms(s);
}

size_t snapshot__nr_records(const struct snapshot *s)
{
	return s->nr_index;
}

const struct perf_event_header *snapshot__record(const struct snapshot *s, size_t idx)
{
	return idx < s->nr_index ? (const void *)(s->map + s->index[idx].offset) : NULL;
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
	const struct snapshot_comm *c = find_comm(s->comms, s->nr_comms, tid);

	return c ? c->comm : NULL;
}
