// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: the dumper. It takes requests, schedules them and starts a job
 * per snapshot (dump_job.c), whose stages end on the loop thread, where
 * it collects the forward rings and reports. See dump.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "capture.h"
#include "capture_backend.h"
#include "compress_policy.h"
#include "cpu_idle.h"
#include "config.h"
#include "control_range.h"
#include "dump-internal.h"
#include "dump.h"
#include "capture_copy.h"
#include "log.h"
#include "monotonic.h"
#include "recording_clock.h"
#include "ring_copy.h"
#include "sideband.h"
#include "snapshot.h"
#include "snapshot_files.h"
#include "snapshot_name.h"

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

static int make_stem(struct dump *d, struct dump_job *job, unsigned long seq)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return snapshot_name__make_stem(job->fig.stem, sizeof(job->fig.stem), d->hostname, &ts,
					seq);
}

static void schedule(struct dump *d);
static void retire_later(struct dump *d);
static void on_retire(evutil_socket_t fd, short what, void *arg);

/*
 * Said once per process, not per dumper: a reload that reopens the rings
 * makes a new dumper, and the permission it lacks has not changed.
 */
static bool rt_warned;

/* Loop thread: report a finished (or failed) dump, then start what waits. */
static void finish(struct dump *d, struct dump_job *job)
{
	bool more;

	d->job = NULL;
	job->fig.dump_ns = monotonic_ns() - job->fig.trigger_at_ns;
	if (job->fig.rt_error && !rt_warned) {
		rt_warned = true;
		log_warning("the ring copy cannot run at real-time priority (SCHED_FIFO: %s): it "
			    "runs at normal priority, so a busy CPU can stretch each ring's pause; "
			    "allow it with CAP_SYS_NICE or LimitRTPRIO=1",
			    strerror(-job->fig.rt_error));
	}
	if (job->fig.error == 0)
		compress_policy__learn(d->compress, &job->fig, dump_job__usable_cpus(),
				       monotonic_ns());
	if (job->fig.error == 0 && job->fig.range.note[0])
		log_notice("dump %s (%s): %s", job->fig.stem, job->fig.reason, job->fig.range.note);
	d->done(d->done_ctx, &job->fig);
	more = dump_schedule__end(d->sched, &job->fig);
	dump_job__free(job);
	if (more)
		schedule(d);
	else if (d->retiring)
		retire_later(d);
}

/* A dump that could not even start: its waiters hear why. */
static void start_failed(struct dump *d, int err)
{
	struct dump_figures f = { .error = err };

	snprintf(f.reason, sizeof(f.reason), "%s", d->pending_reason);
	f.origin = d->pending_origin;
	log__errno(err, "dump (%s)", d->pending_reason);
	d->done(d->done_ctx, &f);
	if (dump_schedule__end(d->sched, &f))
		schedule(d);
	else if (d->retiring)
		retire_later(d);
}

static void start(struct dump *d)
{
	uint64_t now = monotonic_ns();
	unsigned long seq = dump_schedule__begin(d->sched, now);
	struct dump_job *job = dump_job__new(d);
	int r;

	if (!job) {
		start_failed(d, -ENOMEM);
		return;
	}
	job->fig.trigger_at_ns = now;
	snprintf(job->fig.reason, sizeof(job->fig.reason), "%s", d->pending_reason);
	job->fig.origin = d->pending_origin;
	job->fig.has_trigger = d->pending_has_trigger;
	job->fig.trigger = d->pending_trigger;
	d->job = job;
	r = control_range__is_set(&d->pending_range) ?
		    dump_range__check(d, job, &d->pending_range) :
		    0;
	if (r < 0) {
		log_warning("dump (%s): %s", job->fig.reason, job->fig.range.note);
		job->fig.error = r;
		finish(d, job);
		return;
	}
	r = make_stem(d, job, seq);
	log_debug("dump %s (%s)", job->fig.stem, job->fig.reason);
	if (r == 0)
		r = capture__declare(d->cap, job->snap);
	if (r == 0)
		r = dump_job__start_copy(job);
	if (r < 0) {
		job->fig.error = r;
		finish(d, job);
	}
}

/*
 * Loop thread: how long after its trigger's record (a match, a pair's end)
 * the last ring was paused, in CLOCK_MONOTONIC where the trigger's time is
 * known in it, else in the recording clock; the offset is read now rather
 * than at the trigger, where it would delay the pause.
 */
static void trigger_to_pause(struct dump *d, struct dump_job *job)
{
	struct snapshot_trigger *t = &job->fig.trigger;
	int64_t offset, paused;

	if (!job->fig.has_trigger || !t->time || !job->fig.last_pause_at_ns)
		return;
	/*
	 * Without the offset where it can: where the TSC is unstable, perf's
	 * clock is each CPU's own, kept only within a tick of the others, so an
	 * offset read on one CPU can be milliseconds off another's records.
	 */
	if (t->time_mono) {
		if (job->fig.last_pause_at_ns > t->time_mono)
			t->paused_after_ns = job->fig.last_pause_at_ns - t->time_mono;
		return;
	}
	if (!d->clock || recording_clock__offset(d->clock, &offset) < 0)
		return;
	paused = (int64_t)job->fig.last_pause_at_ns + offset;
	if (paused > (int64_t)t->time)
		t->paused_after_ns = (uint64_t)(paused - (int64_t)t->time);
}

/*
 * Loop thread, after the side-band's drain: the trigger's task name as of
 * its record. The trigger took it from the table as drained then, which
 * lacks a rename (an exec, a prctl) since the drain before.
 */
static void trigger_comm(struct dump *d, struct dump_job *job)
{
	struct snapshot_trigger *t = &job->fig.trigger;
	char name[sizeof(t->comm)];

	if (!d->sb || !job->fig.has_trigger || t->tid < 0 || !t->time)
		return;
	sideband__comm(d->sb, t->tid, t->time, name, sizeof(name));
	if (name[0])
		memcpy(t->comm, name, sizeof(name));
}

/* Each ring's records from before its last event was enabled are left out. */
static void ring_starts(struct dump_job *job)
{
	size_t nr = snapshot__nr_chunks(job->snap);

	for (size_t i = 0; i < job->fig.nr_rings && i < nr; i++)
		if (job->fig.rings[i].start_time)
			(void)snapshot__set_chunk_start(job->snap, i, job->fig.rings[i].start_time);
}

/* Loop thread: the copy stage is over; add the forward rings, start writing. */
static void copied(struct dump *d, struct dump_job *job)
{
	const char *what = "the forward rings' records";
	int r = job->error;

	if (r == 0)
		r = collect_forward(d, job->snap);
	job->fig.collected_at_ns = monotonic_ns();
	trigger_to_pause(d, job);
	if (r == 0) {
		trigger_comm(d, job);
		ring_starts(job);
	}
	if (r == 0) {
		what = "the write thread";
		r = dump_job__start_write(job);
	}
	if (r < 0) {
		job->fig.error = r;
		/* The copy stage names its own step. */
		if (!job->fig.files.failed[0])
			snprintf(job->fig.files.failed, sizeof(job->fig.files.failed), "%s", what);
		finish(d, job);
	}
}

/* Starts the pending dump now, or when min_interval since the last allows. */
static void schedule(struct dump *d)
{
	uint64_t wait = 0;

	switch (dump_schedule__poll(d->sched, monotonic_ns(), &wait)) {
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
 * @reason: recorded in logs and the sidecar: the operator's words ("signal",
 *	"perfsnapctl" where none were given)
 * @origin: who asked, copied; NULL for none
 * @waiter: called with the figures of the dump that covers this trigger
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__trigger(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		  dump_done_fn waiter, void *waiter_ctx)
{
	return dump__trigger_by(d, reason, origin, NULL, waiter, waiter_ctx);
}

/**
 * dump__trigger_by - ask for a snapshot on behalf of a [trigger NAME]
 * @d: the dumper
 * @reason: as for dump__trigger(), "trigger NAME"
 * @origin: as for dump__trigger()
 * @trigger: what fired, copied; NULL for none. A trigger coalesced into a
 *	pending dump leaves that dump's description as it was.
 * @waiter: as for dump__trigger()
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__trigger_by(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		     const struct snapshot_trigger *trigger, dump_done_fn waiter, void *waiter_ctx)
{
	struct control_range w = { 0 };

	if (trigger && trigger->before_ms)
		w.since = (struct control_time){
			.set = true,
			.relative = true,
			.ns = -(int64_t)((trigger->before_ms + trigger->after_ms) * 1000000),
		};
	return dump__request(d, reason, origin, trigger, trigger && trigger->before_ms ? &w : NULL,
			     waiter, waiter_ctx);
}

/**
 * dump__request - ask for a snapshot of a window
 * @d: the dumper
 * @reason: as for dump__trigger()
 * @origin: as for dump__trigger()
 * @trigger: as for dump__trigger_by(), or NULL
 * @window: what to keep, or NULL for everything; copied
 * @waiter: as for dump__trigger()
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__request(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		  const struct snapshot_trigger *trigger, const struct control_range *window,
		  dump_done_fn waiter, void *waiter_ctx)
{
	bool pending = dump_schedule__pending(d->sched);
	uint64_t wait = 0;
	int r;

	r = dump_schedule__request(d->sched, monotonic_ns(), waiter, waiter_ctx, &wait);
	if (r == -EAGAIN) {
		char note[96];
		uint64_t quiet;

		if (log_limit__pass(&d->refused_log, monotonic_ns(), &quiet))
			log_warning("dump (%s) refused: max_per_hour = %u reached%s", reason,
				    d->cfg->max_per_hour,
				    log_limit__note(quiet, note, sizeof(note)));
		return r;
	}
	if (r < 0)
		return log__errno(r, "dump (%s)", reason);
	if (!pending) {
		snprintf(d->pending_reason, sizeof(d->pending_reason), "%s", reason);
		d->pending_origin = origin ? *origin : (struct snapshot_origin){ .uid = -1 };
		d->pending_has_trigger = trigger != NULL;
		if (trigger)
			d->pending_trigger = *trigger;
		d->pending_range = window ? *window : (struct control_range){ 0 };
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
 * @cfg: the new configuration (a reference is taken)
 *
 * Never waits: a dump in flight holds the configuration it started with.
 */
void dump__set_config(struct dump *d, const struct perfsnapd_config *cfg)
{
	struct dump_schedule_limits limits = limits_of(cfg);
	const struct perfsnapd_config *old = d->cfg;

	d->cfg = config__get(cfg);
	config__put(old);
	dump_schedule__set_limits(d->sched, &limits);
}

/**
 * dump__opened_at - the recording clock when the dumper came
 * @d: the dumper
 *
 * Read after its capture's events were enabled; 0 where the clock could
 * not be read.
 */
uint64_t dump__opened_at(const struct dump *d)
{
	return d->opened_ns;
}

/**
 * dump__new - prepare dumps of a capture
 * @cap: the open capture
 * @sb: its side-band, or NULL
 * @cfg: the configuration (a reference is taken)
 * @compress: what compression = auto has measured, kept by reference and
 *            updated after each dump; it outlives the dumper, which a
 *            reload that reopens the rings replaces, as the disk and the
 *            page cache do not change with the events
 * @base: the event loop that is told when a stage of a dump ends
 * @argc: the daemon's argument count, for the CMDLINE feature
 * @argv: the daemon's arguments, for as long as the dumper
 * @done: called in the loop after each dump, successful or not
 * @done_ctx: its argument
 * @ret: the dumper
 *
 * Returns 0 or -errno (logged).
 */
int dump__new(struct capture *cap, struct sideband *sb, const struct perfsnapd_config *cfg,
	      struct compress_policy *compress, struct event_base *base, int argc,
	      const char *const *argv, dump_done_fn done, void *done_ctx, struct dump **ret)
{
	struct dump_schedule_limits limits = limits_of(cfg);
	struct dump *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return log__errno(-ENOMEM, "dump");
	d->cap = cap;
	d->sb = sb;
	d->cfg = config__get(cfg);
	d->compress = compress;
	/* The first dump's look needs one before it (at start, or a reload's). */
	if (!compress->looked)
		dump_job__look_at_cpus(compress);
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
		log__errno(r, "dump");
	if (r == 0 && cfg->copy_memory_resident) {
		uint64_t budget = config__copy_memory(cfg, capture__rings_bytes(cap));

		r = capture_copy__map_resident(cap, budget, &d->resident, &d->resident_size);
		if (r < 0)
			log__errno(r,
				   "cannot allocate the resident copy memory (copy_memory = %llu)",
				   (unsigned long long)budget);
	}
	if (r == 0 && capture__nr_events(cap)) {
		const struct perf_event_attr *a = capture__event(cap, 0)->attr;
		int cr = recording_clock__new(a->use_clockid, a->clockid, &d->clock);

		/* Only a windowed dump needs it: that one fails, saying why. */
		if (cr == 0)
			cr = recording_clock__now(d->clock, &d->opened_ns);
		if (cr < 0)
			log_debug("dump: no recording clock for windows: %s", strerror(-cr));
	}
	if (r == 0 &&
	    (r = ring_copy_pool__new(cfg->copy_memory_resident ? 0 : capture_copy__stage_bytes(cap),
				     &d->copiers)) < 0)
		log__errno(r, "cannot start the copy threads");
	if (r == 0)
		dump_job__rehearse();
	if (r == 0 && pipe2(d->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		r = log__errno(-errno, "pipe");
	if (r == 0) {
		d->notify_ev = event_new(base, d->notify_pipe[0], EV_READ | EV_PERSIST,
					 on_stage_done, d);
		d->defer_ev = evtimer_new(base, on_defer_timer, d);
		d->retire_ev = evtimer_new(base, on_retire, d);
		if (!d->notify_ev || !d->defer_ev || !d->retire_ev ||
		    event_add(d->notify_ev, NULL) < 0)
			r = log__errno(-ENOMEM, "event_new");
	}
	if (r < 0) {
		dump__delete(d);
		return r;
	}
	*ret = d;
	return 0;
}

unsigned int dump__starts_last_hour(const struct dump *d)
{
	return dump_schedule__starts_last_hour(d->sched, monotonic_ns());
}

/* At exit or reopen: the job in flight completes here, then reports. */
static void finish_in_place(struct dump *d)
{
	struct dump_job *job = d->job;

	pthread_join(job->thread, NULL);
	if (job->stage == JOB_COPYING) {
		if (job->error == 0)
			job->error = collect_forward(d, job->snap);
		if (job->error == 0) {
			trigger_comm(d, job);
			dump_job__write_files(job);
		} else
			job->fig.error = job->error;
	}
	finish(d, job);
}

/* Frees what is left of a dumper: no job, no waiter. */
static void dump_free(struct dump *d)
{
	dump_schedule__delete(d->sched);
	ring_copy_pool__delete(d->copiers);
	if (d->notify_ev)
		event_free(d->notify_ev);
	if (d->defer_ev)
		event_free(d->defer_ev);
	if (d->retire_ev)
		event_free(d->retire_ev);
	if (d->notify_pipe[0] >= 0)
		close(d->notify_pipe[0]);
	if (d->notify_pipe[1] >= 0)
		close(d->notify_pipe[1]);
	if (d->resident)
		munmap(d->resident, d->resident_size);
	recording_clock__delete(d->clock);
	config__put(d->cfg);
	free(d);
}

/**
 * dump__delete - finish a dump in flight, answer every waiter, free
 * @d: the dumper, or NULL
 *
 * A retiring dumper is deleted too (at exit): its retired callback runs.
 */
void dump__delete(struct dump *d)
{
	struct dump_figures cancelled = { .error = -ECANCELED };
	dump_retired_fn fn;
	void *ctx;

	if (!d)
		return;
	if (d->sched) {
		/* Triggers that never got their dump are answered, not forgotten. */
		dump_schedule__cancel(d->sched, &cancelled);
		d->retiring = false; /* finish() must not schedule the retirement */
		if (d->job)
			finish_in_place(d);
	}
	fn = d->retired_fn;
	ctx = d->retired_ctx;
	dump_free(d);
	if (fn)
		fn(ctx);
}

/* Loop: the retiring dumper has nothing left to do. */
static void on_retire(evutil_socket_t fd, short what, void *arg)
{
	struct dump *d = arg;

	(void)fd;
	(void)what;
	dump__delete(d);
}

/*
 * Not from inside the dumper's own callbacks: the loop frees it when they
 * have returned.
 */
static void retire_later(struct dump *d)
{
	const struct timeval now = { 0, 0 };

	d->retiring = false;
	evtimer_add(d->retire_ev, &now);
}

/**
 * dump__retire - let a dumper finish on its own, then free it
 * @d: the dumper; the caller forgets it
 * @fn: called on the loop once @d is gone (its capture and side-band may go)
 * @ctx: its argument
 *
 * The dump in flight and the one pending (queued or deferred by
 * min_interval) are taken on the rings they were asked of; nothing waits.
 */
void dump__retire(struct dump *d, dump_retired_fn fn, void *ctx)
{
	d->retired_fn = fn;
	d->retired_ctx = ctx;
	d->retiring = true;
	if (!d->job && !dump_schedule__pending(d->sched))
		retire_later(d);
}

uint64_t dump__copy_buffer_size(const struct dump *d)
{
	return d->resident_size;
}

uint64_t dump__copy_budget(const struct dump *d)
{
	return config__copy_memory(d->cfg, capture__rings_bytes(d->cap));
}

bool dump__busy(const struct dump *d)
{
	return d->job != NULL;
}
