// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: a job per snapshot and the two threads that run it; the loop
 * thread only starts them and collects their results. See dump.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "backward_ring.h"
#include "capture.h"
#include "config.h"
#include "dump.h"
#include "log.h"
#include "sideband.h"
#include "snapshot.h"
#include "snapshot_name.h"
#include "tracing_meta.h"

enum job_stage {
	JOB_COPYING, /* copy thread: the overwrite rings */
	JOB_WRITING, /* write thread: seal, name tasks, files */
};

/*
 * Everything one dump needs, owned by it: a reload may free the
 * configuration it was started with at any time.
 */
struct dump_job {
	enum job_stage stage;
	pthread_t thread;
	int notify_fd; /* the dumper's pipe: one byte when a stage is done */

	char *directory;
	unsigned int formats;
	bool compress;
	int nr_cpus;
	int argc;
	char **argv;
	char hostname[128];

	/* Borrowed: open while the job runs (see dump__new). */
	struct capture *cap;
	struct sideband *sb;
	void *copy_buf;

	struct snapshot *snap;
	uint64_t trigger_ns;
	int error; /* of the copy stage */
	struct dump_report report;
};

struct dump {
	struct capture *cap;
	struct sideband *sb;
	const struct perfsnapd_config *cfg;
	int argc;
	const char *const *argv;
	dump_done_fn done;
	void *done_ctx;
	char hostname[128];

	void *copy_buf;
	size_t copy_buf_size;

	struct event_base *base;
	int notify_pipe[2];
	struct event *notify_ev;
	struct event *defer_ev; /* min_interval timer */
	struct dump_schedule *sched;
	char pending_reason[128];
	bool pending_has_trigger;
	struct snapshot_trigger pending_trigger;
	dump_collect_fn collect_fn;
	void *collect_ctx;
	struct dump_job *job; /* the dump in flight, or NULL */
	struct tracing_meta *tracing; /* handed to every snapshot */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void job_free(struct dump_job *job)
{
	if (!job)
		return;
	snapshot__delete(job->snap);
	free(job->directory);
	for (int i = 0; job->argv && i < job->argc; i++)
		free(job->argv[i]);
	free(job->argv);
	free(job);
}

static struct dump_job *job_new(const struct dump *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct dump_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->notify_fd = d->notify_pipe[1];
	job->directory = strdup(cfg->directory);
	job->formats = cfg->formats;
	job->compress = cfg->compression == CONFIG_COMPRESSION_ZSTD;
	job->nr_cpus = capture__max_cpu(d->cap) + 1;
	job->argv = calloc((size_t)d->argc + 1, sizeof(*job->argv));
	memcpy(job->hostname, d->hostname, sizeof(job->hostname));
	job->cap = d->cap;
	job->sb = d->sb;
	job->copy_buf = d->copy_buf;
	job->snap = snapshot__new();
	if (!job->directory || !job->argv || !job->snap) {
		job_free(job);
		return NULL;
	}
	for (; job->argc < d->argc; job->argc++)
		if (!(job->argv[job->argc] = strdup(d->argv[job->argc]))) {
			job_free(job);
			return NULL;
		}
	/* The capture's tracepoint formats: the snapshot holds a reference. */
	snapshot__set_tracing(job->snap, d->tracing);
	return job;
}

static uint64_t ring_head(const struct ring_view *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Pause, copy, resume one backward ring. A record the kernel was writing
 * when the pause landed is published after the copy as a further drop of
 * data_head; the bytes it took were the oldest ones in the copy, so they
 * are cut off rather than trusted.
 */
static int copy_backward_ring(struct dump_job *job, const struct ring_view *ring, size_t *ret_len,
			      bool *ret_wrapped)
{
	uint64_t head, head_after, t0 = now_ns(), blind;
	size_t len;
	int r;

	r = capture__pause_ring(ring, true);
	if (r < 0)
		return r;
	head = ring_head(ring);
	len = backward_ring__copy(job->copy_buf, ring->data, ring->data_size, head);
	head_after = ring_head(ring);
	r = capture__pause_ring(ring, false);
	blind = now_ns() - t0;
	if (head_after != head) {
		uint64_t clobbered = head - head_after;

		len = clobbered >= ring->data_size ?
			      0 :
			      (len > ring->data_size - clobbered ? ring->data_size - clobbered :
								   len);
	}
	/* data_head counts down from 0: -head is what was ever written. */
	*ret_wrapped = (uint64_t)0 - head > ring->data_size;
	job->report.blind_total_ns += blind;
	if (blind > job->report.blind_max_ns)
		job->report.blind_max_ns = blind;
	job->report.copy_bytes += len;
	*ret_len = len;
	return r;
}

static int copy_rings(struct dump_job *job)
{
	struct snapshot *s = job->snap;
	int r;

	r = snapshot__open_spill(s, job->directory);
	if (r < 0)
		return r;
	for (int i = 0; i < capture__nr_rings(job->cap, true); i++) {
		const struct ring_view *ring = capture__ring(job->cap, true, i);
		bool wrapped;
		size_t len;

		r = copy_backward_ring(job, ring, &len, &wrapped);
		if (r == 0)
			r = snapshot__begin_chunk(s, ring->cpu, true);
		if (r == 0)
			r = snapshot__append(s, job->copy_buf, len);
		if (r == 0 && wrapped)
			r = snapshot__set_chunk_overwritten(s);
		if (r == 0)
			r = snapshot__end_chunk(s);
		if (r < 0)
			return r;
	}
	return 0;
}

static void job_notify(struct dump_job *job)
{
	char byte = 0;

	while (write(job->notify_fd, &byte, 1) < 0 && errno == EINTR)
		;
}

static void *copy_main(void *arg)
{
	struct dump_job *job = arg;

	job->error = copy_rings(job);
	if (job->error < 0)
		snprintf(job->report.files.failed, sizeof(job->report.files.failed),
			 "the copy of the rings (an unnamed spill file in '%s')", job->directory);
	job_notify(job);
	return NULL;
}

static void write_files(struct dump_job *job)
{
	uint64_t added = 0, unknown = 0;
	struct snapshot_files_params p = {
		.directory = job->directory,
		.stem = job->report.stem,
		.formats = job->formats,
		.perfdata = { .argc = job->argc,
			      .argv = (const char *const *)job->argv,
			      .clock_res_ns = 1,
			      .synthesize_from_proc = job->sb == NULL },
		.compress = job->compress,
		.nr_cpus = job->nr_cpus,
		.json = { .stem = job->report.stem,
			  .reason = job->report.reason,
			  .hostname = job->hostname,
			  .trigger = job->report.has_trigger ? &job->report.trigger : NULL },
	};
	int r;

	r = snapshot__seal(job->snap);
	if (r == 0 && job->sb)
		r = sideband__name_tasks(job->sb, job->snap, &added, &unknown);
	if (r == 0) {
		p.json.blind_max_ns = job->report.blind_max_ns;
		p.json.blind_total_ns = job->report.blind_total_ns;
		p.json.nr_synthesized = added;
		p.json.nr_tasks_unnamed = unknown;
		r = snapshot_files__write(job->snap, &p, &job->report.files);
	}
	job->report.error = r;
	job->report.nr_records = snapshot__stats(job->snap)->nr_records;
	job->report.lost_events = snapshot__stats(job->snap)->lost_events;
	job->report.index_bytes = snapshot__nr_records(job->snap) * 16;
}

static void *write_main(void *arg)
{
	struct dump_job *job = arg;

	write_files(job);
	job_notify(job);
	return NULL;
}

static int append_record(void *ctx, const struct perf_event_header *rec)
{
	return snapshot__append(ctx, rec, rec->size);
}

/*
 * Loop thread, after the rings are copied: the forward rings are the
 * loop's (the side-band drains them), so what they hold is added here.
 */
static int collect_forward(struct dump *d, struct snapshot *s)
{
	int r = 0;

	if (d->sb) {
		r = sideband__collect(d->sb, s);
	} else if (capture__main_evlist(d->cap)) {
		/* CPU is in every record's trailer; one chunk for all rings is enough. */
		r = snapshot__begin_chunk(s, -1, false);
		if (r == 0)
			r = capture__drain_forward(d->cap, append_record, s);
		if (r == 0)
			r = snapshot__end_chunk(s);
	}
	if (r == 0 && d->collect_fn)
		r = d->collect_fn(d->collect_ctx, s);
	return r;
}

static int make_stem(struct dump_job *job, unsigned long seq)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return snapshot_name__make_stem(job->report.stem, sizeof(job->report.stem), job->hostname,
					&ts, seq);
}

static void schedule(struct dump *d);

/* Loop thread: report a finished (or failed) dump, then start what waits. */
static void finish(struct dump *d, struct dump_job *job)
{
	bool more;

	d->job = NULL;
	job->report.dump_ns = now_ns() - job->trigger_ns;
	d->done(d->done_ctx, &job->report);
	more = dump_schedule__end(d->sched, &job->report);
	job_free(job);
	if (more)
		schedule(d);
}

static int add_events(struct dump *d, struct snapshot *s)
{
	for (size_t i = 0; i < capture__nr_events(d->cap); i++) {
		const struct capture_event *ev = capture__event(d->cap, i);
		int r = snapshot__add_event(s, ev->attr, ev->name, ev->ids, ev->nr_ids);

		if (r < 0)
			return r;
	}
	return 0;
}

static void start(struct dump *d)
{
	uint64_t now = now_ns();
	unsigned long seq = dump_schedule__begin(d->sched, now);
	struct dump_job *job = job_new(d);
	int r = -ENOMEM;

	if (!job) {
		struct dump_report rep = { .error = -ENOMEM };

		snprintf(rep.reason, sizeof(rep.reason), "%s", d->pending_reason);
		log_errno(-ENOMEM, "dump (%s)", d->pending_reason);
		d->done(d->done_ctx, &rep);
		if (dump_schedule__end(d->sched, &rep))
			schedule(d);
		return;
	}
	job->trigger_ns = now;
	snprintf(job->report.reason, sizeof(job->report.reason), "%s", d->pending_reason);
	job->report.has_trigger = d->pending_has_trigger;
	job->report.trigger = d->pending_trigger;
	d->job = job;
	r = make_stem(job, seq);
	log_debug("dump %s (%s)", job->report.stem, job->report.reason);
	if (r == 0)
		r = add_events(d, job->snap);
	if (r == 0) {
		job->stage = JOB_COPYING;
		r = -pthread_create(&job->thread, NULL, copy_main, job);
	}
	if (r < 0) {
		job->report.error = r;
		finish(d, job);
	}
}

/* Loop thread: the copy stage is over; add the forward rings, start writing. */
static void copied(struct dump *d, struct dump_job *job)
{
	int r = job->error;

	if (r == 0)
		r = collect_forward(d, job->snap);
	if (r == 0) {
		job->stage = JOB_WRITING;
		r = -pthread_create(&job->thread, NULL, write_main, job);
	}
	if (r < 0) {
		job->report.error = r;
		if (!job->report.files.failed[0])
			snprintf(job->report.files.failed, sizeof(job->report.files.failed),
				 "the copy of the rings (an unnamed spill file in '%s')",
				 job->directory);
		finish(d, job);
	}
}

/* Starts the pending dump now, or when min_interval since the last allows. */
static void schedule(struct dump *d)
{
	uint64_t wait = 0;

	switch (dump_schedule__poll(d->sched, now_ns(), &wait)) {
	case DUMP_SCHEDULE_START:
		start(d);
		break;
	case DUMP_SCHEDULE_DEFER:
		if (!evtimer_pending(d->defer_ev, NULL)) {
			struct timeval tv = { .tv_sec = (time_t)(wait / 1000000000ull),
					      .tv_usec = (suseconds_t)(wait % 1000000000ull /
								       1000) };

			log_info("dump (%s) deferred %llu ms by min_interval", d->pending_reason,
				 (unsigned long long)(wait / 1000000));
			evtimer_add(d->defer_ev, &tv);
		}
		break;
	default:
		break;
	}
}

static void on_defer_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	schedule(arg);
}

/* Loop thread: one stage of the job in flight has ended (or is ending). */
static void on_stage_done(evutil_socket_t fd, short what, void *arg)
{
	struct dump *d = arg;
	struct dump_job *job = d->job;
	char buf[16];

	(void)what;
	while (read(fd, buf, sizeof(buf)) < 0 && errno == EINTR)
		;
	if (!job)
		return;
	/* The thread has written its byte: this join only waits for its return. */
	pthread_join(job->thread, NULL);
	if (job->stage == JOB_COPYING)
		copied(d, job);
	else
		finish(d, job);
}

/**
 * dump__trigger - ask for a snapshot
 * @d: the dumper
 * @reason: recorded in logs and the sidecar ("signal", "ctl:<text>")
 * @waiter: called with the report of the dump that covers this trigger
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__trigger(struct dump *d, const char *reason, dump_done_fn waiter, void *waiter_ctx)
{
	return dump__trigger_by(d, reason, NULL, waiter, waiter_ctx);
}

/**
 * dump__trigger_by - ask for a snapshot on behalf of a [trigger NAME]
 * @d: the dumper
 * @reason: as for dump__trigger(), "trigger NAME"
 * @trigger: what fired, copied; NULL for none. A trigger coalesced into a
 *	pending dump leaves that dump's description as it was.
 * @waiter: as for dump__trigger()
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__trigger_by(struct dump *d, const char *reason, const struct snapshot_trigger *trigger,
		     dump_done_fn waiter, void *waiter_ctx)
{
	bool pending = dump_schedule__pending(d->sched);
	uint64_t wait = 0;
	int r;

	r = dump_schedule__request(d->sched, now_ns(), waiter, waiter_ctx, &wait);
	if (r == -EAGAIN) {
		log_warning("dump (%s) refused: max_per_hour = %u reached", reason,
			    d->cfg->max_per_hour);
		return r;
	}
	if (r < 0)
		return log_errno(r, "dump (%s)", reason);
	if (!pending) {
		snprintf(d->pending_reason, sizeof(d->pending_reason), "%s", reason);
		d->pending_has_trigger = trigger != NULL;
		if (trigger)
			d->pending_trigger = *trigger;
	}
	switch (r) {
	case DUMP_SCHEDULE_COALESCED:
		log_info("dump (%s) coalesced with the pending one (%s)", reason,
			 d->pending_reason);
		break;
	case DUMP_SCHEDULE_FOLLOW:
		log_info("dump (%s) requested during a dump: it will follow", reason);
		break;
	default:
		schedule(d);
		break;
	}
	return 0;
}

/**
 * dump__set_collect - add records of one's own to every snapshot
 * @d: the dumper
 * @fn: called at the end of each copy phase, or NULL for none
 * @ctx: its argument
 */
void dump__set_collect(struct dump *d, dump_collect_fn fn, void *ctx)
{
	d->collect_fn = fn;
	d->collect_ctx = ctx;
}

static struct dump_schedule_limits limits_of(const struct perfsnapd_config *cfg)
{
	return (struct dump_schedule_limits){ .min_interval_ns = cfg->min_interval_ms * 1000000ull,
					      .max_per_hour = cfg->max_per_hour };
}

/**
 * dump__set_config - use a reloaded configuration with the same capture
 * @d: the dumper
 * @cfg: the new configuration
 *
 * Never waits: a dump in flight owns copies of what it uses, so the caller
 * may free the old configuration at once.
 */
void dump__set_config(struct dump *d, const struct perfsnapd_config *cfg)
{
	struct dump_schedule_limits limits = limits_of(cfg);

	d->cfg = cfg;
	dump_schedule__set_limits(d->sched, &limits);
}

static int alloc_copy_buffer(struct dump *d)
{
	size_t max = 0;

	for (int i = 0; i < capture__nr_rings(d->cap, true); i++)
		if (capture__ring(d->cap, true, i)->data_size > max)
			max = capture__ring(d->cap, true, i)->data_size;
	if (!max)
		return 0;
	/* Faulted in now, so a dump's blind window holds no page faults. */
	d->copy_buf = mmap(NULL, max, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (d->copy_buf == MAP_FAILED) {
		d->copy_buf = NULL;
		return log_errno(-ENOMEM, "cannot allocate the %zu-byte copy buffer", max);
	}
	d->copy_buf_size = max;
	return 0;
}

/**
 * dump__new - prepare dumps of a capture
 * @cap: the open capture
 * @sb: its side-band, or NULL
 * @cfg: the configuration (kept by reference until dump__set_config())
 * @base: the event loop that is told when a stage of a dump ends
 * @argc: the daemon's argument count, for the CMDLINE feature
 * @argv: the daemon's arguments
 * @done: called in the loop after each dump, successful or not
 * @done_ctx: its argument
 * @ret: the dumper
 *
 * Returns 0 or -errno (logged).
 */
int dump__new(struct capture *cap, struct sideband *sb, const struct perfsnapd_config *cfg,
	      struct event_base *base, int argc, const char *const *argv, dump_done_fn done,
	      void *done_ctx, struct dump **ret)
{
	struct dump_schedule_limits limits = limits_of(cfg);
	struct dump *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return log_errno(-ENOMEM, "dump");
	d->cap = cap;
	d->sb = sb;
	d->cfg = cfg;
	d->argc = argc;
	d->argv = argv;
	d->done = done;
	d->done_ctx = done_ctx;
	d->base = base;
	d->notify_pipe[0] = d->notify_pipe[1] = -1;
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0 || !d->hostname[0])
		snprintf(d->hostname, sizeof(d->hostname), "localhost");
	r = dump_schedule__new(&limits, &d->sched);
	if (r < 0)
		log_errno(r, "dump");
	if (r == 0)
		r = alloc_copy_buffer(d);
	if (r == 0 && pipe2(d->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		r = log_errno(-errno, "pipe");
	if (r == 0) {
		d->notify_ev = event_new(base, d->notify_pipe[0], EV_READ | EV_PERSIST,
					 on_stage_done, d);
		d->defer_ev = evtimer_new(base, on_defer_timer, d);
		if (!d->notify_ev || !d->defer_ev || event_add(d->notify_ev, NULL) < 0)
			r = log_errno(-ENOMEM, "event_new");
	}
	if (r < 0) {
		dump__delete(d);
		return r;
	}
	*ret = d;
	return 0;
}

/* At exit or reopen: the job in flight completes here, then reports. */
static void finish_in_place(struct dump *d)
{
	struct dump_job *job = d->job;

	pthread_join(job->thread, NULL);
	if (job->stage == JOB_COPYING) {
		if (job->error == 0)
			job->error = collect_forward(d, job->snap);
		if (job->error == 0)
			write_files(job);
		else
			job->report.error = job->error;
	}
	finish(d, job);
}

/**
 * dump__delete - finish a dump in flight, answer every waiter, free
 * @d: the dumper, or NULL
 */
void dump__delete(struct dump *d)
{
	struct dump_report cancelled = { .error = -ECANCELED };

	if (!d)
		return;
	if (d->sched) {
		/* Triggers that never got their dump are answered, not forgotten. */
		dump_schedule__cancel(d->sched, &cancelled);
		if (d->job)
			finish_in_place(d);
	}
	dump_schedule__delete(d->sched);
	if (d->notify_ev)
		event_free(d->notify_ev);
	if (d->defer_ev)
		event_free(d->defer_ev);
	if (d->notify_pipe[0] >= 0)
		close(d->notify_pipe[0]);
	if (d->notify_pipe[1] >= 0)
		close(d->notify_pipe[1]);
	if (d->copy_buf)
		munmap(d->copy_buf, d->copy_buf_size);
	tracing_meta__put(d->tracing);
	free(d);
}

/**
 * dump__set_tracing - the tracepoint metadata every snapshot carries
 * @d: the dumper
 * @m: the metadata (a reference is taken), or NULL
 *
 * A dump in flight keeps the metadata it started with.
 */
void dump__set_tracing(struct dump *d, struct tracing_meta *m)
{
	struct tracing_meta *old = d->tracing;

	d->tracing = tracing_meta__get(m);
	tracing_meta__put(old);
}

uint64_t dump__copy_buffer_size(const struct dump *d)
{
	return d->copy_buf_size;
}

bool dump__busy(const struct dump *d)
{
	return d->job != NULL;
}
