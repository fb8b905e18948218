// SPDX-License-Identifier: GPL-2.0-only
/*
 * sideband: drains the forward rings (side-band records into the process
 * table, /no-overwrite/ samples into the history) when the kernel wakes
 * the loop, and gives each snapshot the records that name its tasks.
 * The table is shared with the dump worker thread, hence the mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "buildid_reader.h"
#include "byte_buffer.h"
#include "capture.h"
#include "cleanup.h"
#include "config.h"
#include "log.h"
#include "monotonic.h"
#include "perf_record.h"
#include "procinfo.h"
#include "proc_table.h"
#include "sideband.h"
#include "snapshot.h"
#include "symbol_cache.h"

/* Records of /no-overwrite/ events, oldest first, within history_size bytes. */
struct history {
	uint8_t *buf;
	size_t cap, start, end;
	uint64_t records, dropped;
};

struct sideband {
	struct capture *cap;
	const struct capture_event *event; /* the dummy side-band event */
	struct proc_table *table;
	pthread_mutex_t lock; /* table */
	struct history hist;
	struct symbol_cache *objects;  /* symbols = pack: what mmaps map, held open */
	struct buildid_reader *reader; /* the table's build-id reads, off the loop */
	struct event **ring_evs;
	int nr_ring_evs;
	struct event *tick; /* drains at least every SIDEBAND_TICK_MS */
	struct event *more; /* the rest of a drain cut by its slice */
	uint64_t slice_end; /* CLOCK_MONOTONIC */
	unsigned int slice_records;
	uint64_t fixed[UINT16_MAX / 8 + 1]; /* a record whose flag lied, corrected */
	uint64_t nr_flag_fixed;
	uint64_t drained, lost_events, bad_records;
};

static bool is_sideband_record(const struct sideband *sb, const struct perf_event_header *h)
{
	uint64_t id;

	if (h->type == PERF_RECORD_SAMPLE || perf_record__id(h, &id) < 0)
		return false;
	for (size_t i = 0; i < sb->event->nr_ids; i++)
		if (sb->event->ids[i] == id)
			return true;
	return false;
}

static void history_add(struct history *h, const struct perf_event_header *rec)
{
	if (rec->size > h->cap) {
		h->dropped++;
		return;
	}
	if (h->end + rec->size > h->cap) {
		/* Drop the oldest until it fits, then close the gap at the front. */
		while (h->start < h->end && h->end - h->start + rec->size > h->cap) {
			const struct perf_event_header *old = (const void *)(h->buf + h->start);

			h->start += old->size;
			h->records--;
			h->dropped++;
		}
		memmove(h->buf, h->buf + h->start, h->end - h->start);
		h->end -= h->start;
		h->start = 0;
	}
	memcpy(h->buf + h->end, rec, rec->size);
	h->end += rec->size;
	h->records++;
}

/*
 * The side-band event does not ask for build-ids, so an MMAP2 flagged as
 * carrying one has the inode layout: kernel 6.18 flags other events' MMAP2
 * so while any event on the host has attr.build_id (perf record
 * --buildid-mmap, say). Taken as it is, its device and inode would become
 * a bogus id in every snapshot; a copy without the flag is what it says.
 */
static const struct perf_event_header *trusted_layout(struct sideband *sb,
						      const struct perf_event_header *h)
{
	struct perf_event_header *copy = (struct perf_event_header *)sb->fixed;

	if (h->type != PERF_RECORD_MMAP2 || !(h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return h;
	memcpy(copy, h, h->size);
	copy->misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
	if (!sb->nr_flag_fixed++)
		log_warning("side-band: MMAP2 records flagged with a build-id they do not carry "
			    "(the kernel does so while another event asks for build-ids); "
			    "taken as inode records, their build-ids read from the files");
	return copy;
}

static void take_answer(void *arg, struct pt_mapping *m, int err, const struct elf_buildid *id)
{
	proc_table__build_id_done(arg, m, err, id);
}

/* Under the lock: the build-ids read since the last look go into the table. */
static void take_answers(struct sideband *sb)
{
	buildid_reader__answers(sb->reader, take_answer, sb->table);
}

static void take_record(struct sideband *sb, const struct perf_event_header *h)
{
	int r;

	sb->drained++;
	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*h) + 16) {
		uint64_t lost;

		memcpy(&lost, (const uint8_t *)(h + 1) + 8, sizeof(lost));
		/* Names and maps of some tasks are now unknown: say so once per burst. */
		if (!sb->lost_events)
			log_warning("side-band ring overflowed: %llu records lost; some tasks may "
				    "stay unnamed (the loop was too slow to drain it)",
				    (unsigned long long)lost);
		sb->lost_events += lost;
	}
	if (is_sideband_record(sb, h)) {
		h = trusted_layout(sb, h);
		pthread_mutex_lock(&sb->lock);
		r = proc_table__process_record(sb->table, h, sb->event->attr->sample_type);
		pthread_mutex_unlock(&sb->lock);
		if (r < 0)
			sb->bad_records++;
		return;
	}
	/* /no-overwrite/ samples, and the LOST records that say what they miss. */
	if (sb->hist.cap)
		history_add(&sb->hist, h);
}

static int take(void *ctx, const struct perf_event_header *h)
{
	take_record(ctx, h);
	return 0;
}

static void drain(struct sideband *sb)
{
	pthread_mutex_lock(&sb->lock);
	take_answers(sb);
	pthread_mutex_unlock(&sb->lock);
	capture__drain_forward(sb->cap, take, sb);
	buildid_reader__kick(sb->reader);
}

/*
 * A drain on the loop's own wake-ups gives the loop back after
 * SLICE_NS, its clock read every SLICE_CHECK records: a burst of
 * side-band records (a fork and exec storm, each new mapping's build-id
 * read) otherwise held the loop for milliseconds, and a trigger's dump
 * waited for all of it (docs/decisions.md). The rest follows at once
 * after the loop has looked at its other events; a dump drains whole.
 */
#define SLICE_NS    300000
#define SLICE_CHECK 16

static int take_sliced(void *ctx, const struct perf_event_header *h)
{
	struct sideband *sb = ctx;

	take_record(sb, h);
	return ++sb->slice_records % SLICE_CHECK == 0 && monotonic_ns() >= sb->slice_end;
}

static void drain_slice(struct sideband *sb)
{
	static const struct timeval now = { 0, 0 };

	sb->slice_records = 0;
	sb->slice_end = monotonic_ns() + SLICE_NS;
	pthread_mutex_lock(&sb->lock);
	take_answers(sb);
	pthread_mutex_unlock(&sb->lock);
	/* A timer, not event_active(): the loop polls its descriptors before it runs. */
	if (capture__drain_forward(sb->cap, take_sliced, sb) > 0 && sb->more)
		evtimer_add(sb->more, &now);
	buildid_reader__kick(sb->reader);
}

static void unwatch(struct sideband *sb)
{
	if (sb->tick)
		event_free(sb->tick);
	sb->tick = NULL;
	if (sb->more)
		event_free(sb->more);
	sb->more = NULL;
	for (int i = 0; i < sb->nr_ring_evs; i++)
		event_free(sb->ring_evs[i]);
	free(sb->ring_evs);
	sb->ring_evs = NULL;
	sb->nr_ring_evs = 0;
}

/*
 * Build-ids are read when a mapping is drained, through
 * /proc/PID/map_files while the process still has it: the watermark alone
 * could leave a short-lived program's MMAP2 in the ring until the dump,
 * after it exited and its binary was deleted.
 */
#define SIDEBAND_TICK_MS 100

/* The table's build-ids, from the objects the symbol cache opens and keeps. */
static int object_build_id(void *ctx, const struct proc_table_mapping *m, struct elf_buildid *ret)
{
	return symbol_cache__mmap(ctx, m, ret);
}

static void on_ring_ready(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	drain_slice(arg);
}

/**
 * sideband__new - seed the process table from /proc
 * @cap: an open capture with the side-band event, not yet started
 * @cfg: max_tasks and history_size are read now, not kept
 * @ret: the side-band, not yet watching (sideband__watch())
 *
 * Touches no loop, so that a reload can run it on a thread of its own.
 * Returns 0 or -errno (logged).
 */
int sideband__new(struct capture *cap, const struct perfsnapd_config *cfg, struct sideband **ret)
{
	struct sideband *sb = calloc(1, sizeof(*sb));
	int r;

	if (!sb)
		return log__errno(-ENOMEM, "side-band");
	pthread_mutex_init(&sb->lock, NULL);
	sb->cap = cap;
	sb->event = capture__sideband_event(cap);
	if (!capture__main_evlist(cap) || !sb->event) {
		sideband__delete(sb);
		return log__errno(-EINVAL, "side-band event missing from the capture");
	}
	sb->table = proc_table__new(cfg->max_tasks);
	sb->hist.cap = cfg->history_size;
	sb->hist.buf = cfg->history_size ? malloc(cfg->history_size) : NULL;
	if (!sb->table || (cfg->history_size && !sb->hist.buf)) {
		sideband__delete(sb);
		return log__errno(-ENOMEM, "side-band");
	}
	proc_table__set_read_build_ids(sb->table, cfg->symbols != CONFIG_SYMBOLS_NONE);
	if (cfg->symbols == CONFIG_SYMBOLS_PACK) {
		/* Its objects, as the table maps them, /proc's first: each opened once. */
		sb->objects = symbol_cache__new(SYMBOL_CACHE_MAX_OPEN);
		if (sb->objects)
			proc_table__set_build_id_reader(sb->table, object_build_id, sb->objects);
		else
			log__errno(-ENOMEM, "symbol pack: cannot hold the objects mapped; a dump "
					    "packs those still at their paths");
	}
	if (cfg->symbols != CONFIG_SYMBOLS_NONE) {
		r = buildid_reader__new(sb->objects, &sb->reader);
		if (r == 0)
			proc_table__set_build_id_queue(sb->table, buildid_reader__queue,
						       sb->reader);
		else
			log__errno(r, "side-band: no build-id reader thread; build-ids are read "
				      "on the loop");
	}
	/*
	 * The side-band is on and nothing samples yet (capture__start() comes
	 * next): a task sampled later is in /proc now or has its FORK in the ring.
	 */
	r = proc_table__seed_from_proc(sb->table, 0);
	if (r < 0) {
		sideband__delete(sb);
		return log__errno(r, "cannot read /proc to seed the process table");
	}
	log_debug("side-band: %d tasks from /proc", r);
	buildid_reader__kick(sb->reader);
	*ret = sb;
	return 0;
}

/**
 * sideband__watch - drain the forward rings whenever the kernel wakes @base
 * @sb: a side-band from sideband__new()
 * @base: the loop the watermark wake-ups arrive on (its thread calls this)
 *
 * Returns 0 or -errno (logged); on error @sb watches nothing.
 */
int sideband__watch(struct sideband *sb, struct event_base *base)
{
	int nr = capture__nr_rings(sb->cap, false);

	sb->ring_evs = calloc((size_t)nr, sizeof(*sb->ring_evs));
	if (nr && !sb->ring_evs)
		return log__errno(-ENOMEM, "side-band ring events");
	for (int i = 0; i < nr; i++) {
		sb->ring_evs[i] = event_new(base, capture__ring(sb->cap, false, i)->fd,
					    EV_READ | EV_PERSIST, on_ring_ready, sb);
		if (!sb->ring_evs[i] || event_add(sb->ring_evs[i], NULL) < 0) {
			if (sb->ring_evs[i])
				sb->nr_ring_evs++;
			unwatch(sb);
			return log__errno(-ENOMEM, "side-band ring events");
		}
		sb->nr_ring_evs++;
	}
	sb->tick = event_new(base, -1, EV_PERSIST, on_ring_ready, sb);
	sb->more = evtimer_new(base, on_ring_ready, sb);
	if (!sb->tick || !sb->more ||
	    event_add(sb->tick, &(struct timeval){ .tv_sec = SIDEBAND_TICK_MS / 1000,
						   .tv_usec = SIDEBAND_TICK_MS % 1000 * 1000 }) <
		    0) {
		unwatch(sb);
		return log__errno(-ENOMEM, "side-band drain timer");
	}
	/* What the rings gathered before the loop watched them. */
	drain(sb);
	return 0;
}

/**
 * sideband__unwatch - drain, then stop watching the forward rings
 * @sb: the side-band, watching or not
 *
 * Their records up to now are taken before a ring of them can close.
 */
void sideband__unwatch(struct sideband *sb)
{
	if (!sb)
		return;
	drain(sb);
	unwatch(sb);
}

/**
 * sideband__delete - stop watching and free the table and history
 * @sb: the side-band, or NULL
 */
void sideband__delete(struct sideband *sb)
{
	if (!sb)
		return;
	unwatch(sb);
	pthread_mutex_lock(&sb->lock);
	buildid_reader__delete(sb->reader, take_answer, sb->table);
	pthread_mutex_unlock(&sb->lock);
	proc_table__delete(sb->table);
	symbol_cache__delete(sb->objects);
	free(sb->hist.buf);
	pthread_mutex_destroy(&sb->lock);
	free(sb);
}

/**
 * sideband__collect - bring the side-band up to date for a dump
 * @sb: the side-band
 * @s: the snapshot being collected (loop thread)
 *
 * Returns 0 or -errno.
 */
int sideband__collect(struct sideband *sb, struct snapshot *s)
{
	struct history *h = &sb->hist;
	int r;

	drain(sb);
	if (h->end == h->start)
		return 0;
	r = snapshot__begin_chunk(s, -1, false);
	if (r == 0)
		r = snapshot__append(s, h->buf + h->start, h->end - h->start);
	if (r == 0)
		r = snapshot__end_chunk(s);
	return r;
}

static int buffer_record(void *ctx, const struct perf_event_header *rec)
{
	return byte_buffer__put(ctx, rec, rec->size);
}

/* Under the lock: the snapshot's tasks the table cannot name at its end. */
static int unknown_tasks(struct sideband *sb, const struct snapshot *s, struct snapshot_task **ret,
			 size_t *ret_nr)
{
	uint64_t end = snapshot__stats(s)->last_time;
	struct snapshot_task *v = NULL;
	size_t nr = 0;

	for (size_t i = 0; i < snapshot__nr_tasks(s); i++) {
		const struct snapshot_task *t = snapshot__task(s, i);

		/* pid 0: a compact record's task; /proc has its process if it runs. */
		if (t->tid <= 0 || proc_table__comm_at(sb->table, t->tid, end))
			continue;
		if (!v && !(v = calloc(snapshot__nr_tasks(s), sizeof(*v))))
			return -ENOMEM;
		v[nr++] = *t;
	}
	*ret = v;
	*ret_nr = nr;
	return 0;
}

/*
 * Tasks the table does not know (dropped by its cap, or lost to a ring
 * overflow) are named from /proc if they still exist, as tail synthesis
 * would; outside the lock, so the drain never waits for /proc.
 */
static int name_from_proc(const struct snapshot *s, const struct snapshot_task *tasks, size_t nr,
			  struct procinfo_stamp *stamp, struct byte_buffer *b, size_t *unknown)
{
	const struct snapshot_stats *st = snapshot__stats(s);
	int r;

	stamp->time = st->first_time ? st->first_time - 1 : 0;
	for (size_t i = 0; i < nr; i++) {
		r = procinfo__synthesize_task(tasks[i].pid, tasks[i].tid, stamp, buffer_record, b);
		if (r == 0 && *unknown)
			(*unknown)--;
		else if (r == -ENOMEM)
			return r;
	}
	return 0;
}

/*
 * How long a dump waits for the build-ids still being read: they take
 * well under a millisecond each from a file that answers.
 */
#define NAMING_WAIT_MS 500

/* perf keeps no command line; a ProcessTree's is cut here, as Perfetto's UI shows one line. */
#define CMDLINE_MAX 4096

struct proc_name {
	pid_t pid;
	char comm[16]; /* the table's name at the snapshot's end */
};

static int proc_name_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proc_name *)a)->pid, y = ((const struct proc_name *)b)->pid;

	return x < y ? -1 : x > y;
}

/* Under the lock: the snapshot's processes, each once, with their names at its end. */
static int process_names(struct sideband *sb, const struct snapshot *s, struct proc_name **ret,
			 size_t *ret_nr)
{
	uint64_t end = snapshot__stats(s)->last_time;
	struct proc_name *v;
	size_t nr = 0, out = 0;

	*ret = NULL;
	*ret_nr = 0;
	if (!snapshot__nr_tasks(s))
		return 0;
	v = calloc(snapshot__nr_tasks(s), sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < snapshot__nr_tasks(s); i++) {
		const struct snapshot_task *t = snapshot__task(s, i);
		const char *name = t->pid > 0 ? proc_table__comm_at(sb->table, t->pid, end) : NULL;

		if (!name)
			continue;
		v[nr].pid = t->pid;
		snprintf(v[nr++].comm, sizeof(v->comm), "%s", name);
	}
	if (nr)
		qsort(v, nr, sizeof(*v), proc_name_cmp);
	for (size_t i = 0; i < nr; i++)
		if (!out || v[i].pid != v[out - 1].pid)
			v[out++] = v[i];
	*ret = v;
	*ret_nr = out;
	return 0;
}

/*
 * Outside the lock: each process's command line from /proc, now, if it
 * still has the name the snapshot ends with (else it exec'd since, or the
 * pid is another process's: better none than a wrong one). A kernel
 * thread has none. Returns 0 or -ENOMEM.
 */
static int add_cmdlines(struct snapshot *s, const struct proc_name *procs, size_t nr)
{
	_cleanup_free_ char *buf = malloc(CMDLINE_MAX);
	char comm[16];
	ssize_t len;
	int r;

	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		if (procinfo__read_comm(procs[i].pid, procs[i].pid, comm, sizeof(comm)) < 0 ||
		    strcmp(comm, procs[i].comm))
			continue;
		len = procinfo__read_cmdline(procs[i].pid, buf, CMDLINE_MAX);
		if (len <= 0)
			continue;
		r = snapshot__set_cmdline(s, procs[i].pid, buf, (size_t)len);
		if (r == -ENOMEM)
			return r;
	}
	return 0;
}

/* The trailer fields of the records the table synthesizes: the side-band event's. */
static struct procinfo_stamp stamp_of(const struct sideband *sb)
{
	return (struct procinfo_stamp){
		.sample_type = sb->event->attr->sample_type,
		.id = sb->event->ids[0],
	};
}

/**
 * sideband__name_tasks - add to a sealed snapshot what names its tasks
 * @sb: the side-band
 * @s: the sealed snapshot (worker thread)
 * @cmdlines: whether to read its processes' command lines
 * @ret_added: number of records merged in
 * @ret_unknown: tasks of the snapshot the table does not know
 *
 * With @cmdlines, also keeps with @s the command lines of its processes
 * that still run (snapshot__set_cmdline()), for the Perfetto writer: on a
 * busy machine reading them can take longer than the rest of this.
 *
 * Returns 0 or -errno.
 */
int sideband__name_tasks(struct sideband *sb, struct snapshot *s, bool cmdlines,
			 uint64_t *ret_added, uint64_t *ret_unknown)
{
	const struct snapshot_stats *st = snapshot__stats(s);
	struct procinfo_stamp stamp = stamp_of(sb);
	struct byte_buffer b = { 0 };
	_cleanup_free_ struct snapshot_task *missing = NULL;
	_cleanup_free_ struct proc_name *procs = NULL;
	size_t unknown = 0, nr_missing = 0, nr_procs = 0;
	int r;

	/* The build-ids of mappings drained before the dump, unless a read hangs. */
	buildid_reader__wait(sb->reader, NAMING_WAIT_MS);
	pthread_mutex_lock(&sb->lock);
	take_answers(sb);
	r = proc_table__emit_span(sb->table, snapshot__task(s, 0), snapshot__nr_tasks(s),
				  st->first_time, st->last_time, &stamp, buffer_record, &b,
				  &unknown);
	if (r == 0 && unknown)
		r = unknown_tasks(sb, s, &missing, &nr_missing);
	pthread_mutex_unlock(&sb->lock);
	if (r == 0 && nr_missing)
		r = name_from_proc(s, missing, nr_missing, &stamp, &b, &unknown);
	if (r == 0)
		r = snapshot__add_records(s, b.data, b.len);
	/* After the records that name them: compact records' tasks then have their process. */
	if (r == 0 && cmdlines) {
		pthread_mutex_lock(&sb->lock);
		r = process_names(sb, s, &procs, &nr_procs);
		pthread_mutex_unlock(&sb->lock);
	}
	if (r == 0)
		r = add_cmdlines(s, procs, nr_procs);
	*ret_added = 0;
	for (size_t pos = 0; r == 0 && pos < b.len; (*ret_added)++)
		pos += ((const struct perf_event_header *)(b.data + pos))->size;
	*ret_unknown = unknown;
	byte_buffer__fini(&b);
	return r;
}

/*
 * What name_from_proc() adds for a task the table does not know: a FORK, a
 * COMM and a few executable MMAP2s, at most.
 */
#define UNKNOWN_TASK_BYTES 1024

static int count_record(void *ctx, const struct perf_event_header *rec)
{
	*(uint64_t *)ctx += rec->size;
	return 0;
}

/**
 * sideband__naming_bytes - what sideband__name_tasks() will add for tasks
 * @ctx: the side-band
 * @tasks: the tasks
 * @nr: how many
 * @from: the snapshot's first record's time
 * @to: its last's
 *
 * A snapshot_naming_fn, for a dump's size cut (worker thread). Each task
 * brings its process's mappings here, where a snapshot's threads share
 * them: an upper bound.
 */
uint64_t sideband__naming_bytes(void *ctx, const struct snapshot_task *tasks, size_t nr,
				uint64_t from, uint64_t to)
{
	struct sideband *sb = ctx;
	struct procinfo_stamp stamp = stamp_of(sb);
	uint64_t bytes = 0;
	size_t unknown = 0;
	int r;

	pthread_mutex_lock(&sb->lock);
	r = proc_table__emit_span(sb->table, tasks, nr, from, to, &stamp, count_record, &bytes,
				  &unknown);
	pthread_mutex_unlock(&sb->lock);
	if (r < 0) /* Then nothing is known: the worst, every task unknown. */
		unknown = nr;
	return bytes + unknown * UNKNOWN_TASK_BYTES;
}

/**
 * sideband__comm - a task's name at a given time
 * @sb: the side-band
 * @tid: the task
 * @time: recording clock ns
 * @buf: the name, "" if the side-band does not know the task
 * @size: size of @buf
 *
 * From the table as drained so far, never draining first: a trigger asks
 * it before its dump starts, and a drain then (its records, the build-ids
 * of new mappings read from files) put the rings' pause milliseconds
 * after the trigger (docs/decisions.md). A task new or renamed since the
 * last drain is unknown or has its older name there; the dump asks again
 * after its own drain, and that name is the sidecar's.
 */
void sideband__comm(struct sideband *sb, pid_t tid, uint64_t time, char *buf, size_t size)
{
	const char *name;

	pthread_mutex_lock(&sb->lock);
	name = proc_table__comm_at(sb->table, tid, time);
	snprintf(buf, size, "%s", name ? name : "");
	pthread_mutex_unlock(&sb->lock);
}

struct symbol_cache *sideband__symbol_cache(struct sideband *sb)
{
	return sb->objects;
}

/**
 * sideband__stats - what the side-band holds
 * @sb: the side-band
 * @ret: filled in
 */
void sideband__stats(struct sideband *sb, struct sideband_stats *ret)
{
	const struct proc_table_stats *t;
	struct buildid_reader_stats rs;

	pthread_mutex_lock(&sb->lock);
	take_answers(sb);
	t = proc_table__stats(sb->table);
	ret->nr_tasks = t->nr_tasks;
	ret->nr_dropped_tasks = t->nr_dropped;
	ret->table_bytes = t->bytes;
	ret->build_ids_kernel = t->nr_build_ids_kernel;
	ret->build_ids_read = t->nr_build_ids_read;
	ret->build_ids_none = t->nr_build_ids_none;
	ret->build_ids_waiting = t->nr_build_ids_waiting;
	pthread_mutex_unlock(&sb->lock);
	buildid_reader__stats(sb->reader, &rs);
	ret->build_id_busy_ns = rs.busy_ns;
	ret->history_records = sb->hist.records;
	ret->history_bytes = sb->hist.end - sb->hist.start;
	ret->history_dropped = sb->hist.dropped;
	ret->records_drained = sb->drained;
	ret->lost_events = sb->lost_events;
}
