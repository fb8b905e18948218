// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: scheduling of snapshots (coalescing, min_interval, max_per_hour),
 * the RUNNING -> DATA_PENDING -> EMPTY -> RUNNING cycle of each overwrite
 * ring (pause, copy, resume) on the loop thread, and the file-building
 * worker thread. See dump.h.
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

#define HOUR_NS (3600ull * 1000000000ull)

struct waiter {
	dump_done_fn fn;
	void *ctx;
	unsigned long seq; /* the dump that answers it */
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
	pthread_t worker;
	bool running, pending;
	char pending_reason[128];
	bool pending_has_trigger;
	struct snapshot_trigger pending_trigger;
	dump_collect_fn collect_fn;
	void *collect_ctx;
	unsigned long seq; /* of the last dump started */
	uint64_t last_start_ns;
	uint64_t *starts; /* start times, for max_per_hour */
	size_t nr_starts, cap_starts;
	struct waiter *waiters;
	size_t nr_waiters;

	/* Handed from the loop to the worker and back. */
	struct snapshot *snap;
	uint64_t trigger_ns;
	struct dump_report report;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
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
static int copy_backward_ring(struct dump *d, const struct ring_view *ring, size_t *ret_len,
			      bool *ret_wrapped)
{
	uint64_t head, head_after, t0 = now_ns(), blind;
	size_t len;
	int r;

	r = capture__pause_ring(ring, true);
	if (r < 0)
		return r;
	head = ring_head(ring);
	len = backward_ring__copy(d->copy_buf, ring->data, ring->data_size, head);
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
	d->report.blind_total_ns += blind;
	if (blind > d->report.blind_max_ns)
		d->report.blind_max_ns = blind;
	d->report.copy_bytes += len;
	*ret_len = len;
	return r;
}

static int append_record(void *ctx, const struct perf_event_header *rec)
{
	return snapshot__append(ctx, rec, rec->size);
}

/* /no-overwrite/ events without side-band: what their rings hold now. */
static int copy_forward_rings(struct dump *d, struct snapshot *s)
{
	int r;

	if (!capture__main_evlist(d->cap))
		return 0;
	/* CPU is in every record's trailer; one chunk for all rings is enough. */
	r = snapshot__begin_chunk(s, -1, false);
	if (r == 0)
		r = capture__drain_forward(d->cap, append_record, s);
	if (r == 0)
		r = snapshot__end_chunk(s);
	return r;
}

static int collect(struct dump *d, struct snapshot *s)
{
	int r;

	for (size_t i = 0; i < capture__nr_events(d->cap); i++) {
		const struct capture_event *ev = capture__event(d->cap, i);

		r = snapshot__add_event(s, ev->attr, ev->name, ev->ids, ev->nr_ids);
		if (r < 0)
			return r;
	}
	r = snapshot__open_spill(s, d->cfg->directory);
	if (r < 0)
		return r;
	for (int i = 0; i < capture__nr_rings(d->cap, true); i++) {
		const struct ring_view *ring = capture__ring(d->cap, true, i);
		bool wrapped;
		size_t len;

		r = copy_backward_ring(d, ring, &len, &wrapped);
		if (r == 0)
			r = snapshot__begin_chunk(s, ring->cpu, true);
		if (r == 0)
			r = snapshot__append(s, d->copy_buf, len);
		if (r == 0 && wrapped)
			r = snapshot__set_chunk_overwritten(s);
		if (r == 0)
			r = snapshot__end_chunk(s);
		if (r < 0)
			return r;
	}
	r = d->sb ? sideband__collect(d->sb, s) : copy_forward_rings(d, s);
	if (r == 0 && d->collect_fn)
		r = d->collect_fn(d->collect_ctx, s);
	return r;
}

static void *worker_main(void *arg)
{
	struct dump *d = arg;
	const struct perfsnapd_config *cfg = d->cfg;
	uint64_t added = 0, unknown = 0;
	struct snapshot_files_params p = {
		.directory = cfg->directory,
		.stem = d->report.stem,
		.formats = cfg->formats,
		.perfdata = { .argc = d->argc,
			      .argv = d->argv,
			      .clock_res_ns = 1,
			      .synthesize_from_proc = d->sb == NULL },
		.trace_clock = config__trace_clock_name(cfg),
		.compress = cfg->compression == CONFIG_COMPRESSION_ZSTD,
		.nr_cpus = capture__max_cpu(d->cap) + 1,
		.json = { .stem = d->report.stem,
			  .reason = d->report.reason,
			  .hostname = d->hostname,
			  .trigger = d->report.has_trigger ? &d->report.trigger : NULL },
	};
	char byte = 0;
	int r;

	r = snapshot__seal(d->snap);
	if (r == 0 && d->sb)
		r = sideband__name_tasks(d->sb, d->snap, &added, &unknown);
	if (r == 0) {
		p.json.blind_max_ns = d->report.blind_max_ns;
		p.json.blind_total_ns = d->report.blind_total_ns;
		p.json.nr_synthesized = added;
		p.json.nr_tasks_unnamed = unknown;
		r = snapshot_files__write(d->snap, &p, &d->report.files);
	}
	d->report.error = r;
	d->report.nr_records = snapshot__stats(d->snap)->nr_records;
	d->report.lost_events = snapshot__stats(d->snap)->lost_events;
	d->report.index_bytes = snapshot__nr_records(d->snap) * 16;
	d->report.dump_ns = now_ns() - d->trigger_ns;
	while (write(d->notify_pipe[1], &byte, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static int make_stem(struct dump *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return snapshot_name__make_stem(d->report.stem, sizeof(d->report.stem), d->hostname, &ts,
					d->seq);
}

static void schedule(struct dump *d);

/* Loop thread: report a finished (or failed) dump, then start what waits. */
static void finish(struct dump *d)
{
	size_t n = 0;

	d->done(d->done_ctx, &d->report);
	for (size_t i = 0; i < d->nr_waiters; i++) {
		struct waiter w = d->waiters[i];

		if (w.seq == d->seq)
			w.fn(w.ctx, &d->report);
		else
			d->waiters[n++] = w;
	}
	d->nr_waiters = n;
	if (d->pending)
		schedule(d);
}

static void note_start(struct dump *d, uint64_t now)
{
	size_t n = 0;

	d->last_start_ns = now;
	for (size_t i = 0; i < d->nr_starts; i++)
		if (now - d->starts[i] < HOUR_NS)
			d->starts[n++] = d->starts[i];
	d->nr_starts = n;
	if (d->nr_starts < d->cap_starts)
		d->starts[d->nr_starts++] = now;
}

static void start(struct dump *d)
{
	int r;

	d->pending = false;
	d->seq++;
	memset(&d->report, 0, sizeof(d->report));
	snprintf(d->report.reason, sizeof(d->report.reason), "%s", d->pending_reason);
	d->report.has_trigger = d->pending_has_trigger;
	d->report.trigger = d->pending_trigger;
	d->trigger_ns = now_ns();
	note_start(d, d->trigger_ns);
	r = make_stem(d);
	log_debug("dump %s (%s)", d->report.stem, d->report.reason);
	d->snap = r < 0 ? NULL : snapshot__new();
	r = r < 0 ? r : d->snap ? collect(d, d->snap) : -ENOMEM;
	if (r == 0) {
		r = -pthread_create(&d->worker, NULL, worker_main, d);
		if (r == 0) {
			d->running = true;
			return;
		}
	}
	snapshot__delete(d->snap);
	d->snap = NULL;
	d->report.error = r;
	snprintf(d->report.files.failed, sizeof(d->report.files.failed),
		 "the copy of the rings (an unnamed spill file in '%s')", d->cfg->directory);
	d->report.dump_ns = now_ns() - d->trigger_ns;
	finish(d);
}

/* Starts the pending dump now, or when min_interval since the last allows. */
static void schedule(struct dump *d)
{
	uint64_t min = d->cfg->min_interval_ms * 1000000ull, now = now_ns();

	if (d->running || !d->pending)
		return;
	if (d->seq && min && now - d->last_start_ns < min) {
		uint64_t wait = min - (now - d->last_start_ns);
		struct timeval tv = { .tv_sec = (time_t)(wait / 1000000000ull),
				      .tv_usec = (suseconds_t)(wait % 1000000000ull / 1000) };

		if (!evtimer_pending(d->defer_ev, NULL)) {
			log_info("dump (%s) deferred %llu ms by min_interval", d->pending_reason,
				 (unsigned long long)(wait / 1000000));
			evtimer_add(d->defer_ev, &tv);
		}
		return;
	}
	start(d);
}

static void on_defer_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	schedule(arg);
}

/* Loop thread: the worker has finished (or is about to: join waits). */
static void reap(struct dump *d)
{
	pthread_join(d->worker, NULL);
	d->running = false;
	snapshot__delete(d->snap);
	d->snap = NULL;
	finish(d);
}

static void on_worker_done(evutil_socket_t fd, short what, void *arg)
{
	struct dump *d = arg;
	char buf[16];

	(void)what;
	while (read(fd, buf, sizeof(buf)) < 0 && errno == EINTR)
		;
	/* dump__set_config() may have reaped it already. */
	if (d->running)
		reap(d);
}

static size_t starts_last_hour(const struct dump *d, uint64_t now)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nr_starts; i++)
		n += now - d->starts[i] < HOUR_NS;
	return n;
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
	unsigned int max = d->cfg->max_per_hour;

	if (!d->pending && max && starts_last_hour(d, now_ns()) >= max) {
		log_warning("dump (%s) refused: max_per_hour = %u reached", reason, max);
		return -EAGAIN;
	}
	if (waiter) {
		struct waiter *w = realloc(d->waiters, (d->nr_waiters + 1) * sizeof(*w));

		if (!w)
			return log_errno(-ENOMEM, "dump (%s)", reason);
		d->waiters = w;
		w[d->nr_waiters++] = (struct waiter){ waiter, waiter_ctx, d->seq + 1 };
	}
	if (d->pending) {
		log_info("dump (%s) coalesced with the pending one (%s)", reason,
			 d->pending_reason);
		return 0;
	}
	d->pending = true;
	snprintf(d->pending_reason, sizeof(d->pending_reason), "%s", reason);
	d->pending_has_trigger = trigger != NULL;
	if (trigger)
		d->pending_trigger = *trigger;
	if (d->running)
		log_info("dump (%s) requested during a dump: it will follow", reason);
	else
		schedule(d);
	return 0;
}

/**
 * dump__set_config - use a reloaded configuration with the same capture
 * @d: the dumper
 * @cfg: the new configuration
 *
 * A dump in flight finishes first, with the configuration it started with,
 * so the caller may free the old one after this returns.
 */
void dump__set_config(struct dump *d, const struct perfsnapd_config *cfg)
{
	uint64_t *starts;

	if (d->running) {
		pthread_join(d->worker, NULL);
		d->cfg = cfg;
		reap(d);
	}
	d->cfg = cfg;
	if (cfg->max_per_hour > d->cap_starts) {
		starts = realloc(d->starts, cfg->max_per_hour * sizeof(*starts));
		if (starts) {
			d->starts = starts;
			d->cap_starts = cfg->max_per_hour;
		}
	}
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
 * @cfg: the configuration (kept by reference; see dump__set_config())
 * @base: the event loop that is told when a worker finishes
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
	struct dump *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return log_errno(-ENOMEM, "dump");
	d->cap = cap;
	d->sb = sb;
	d->argc = argc;
	d->argv = argv;
	d->done = done;
	d->done_ctx = done_ctx;
	d->base = base;
	d->notify_pipe[0] = d->notify_pipe[1] = -1;
	dump__set_config(d, cfg);
	if (gethostname(d->hostname, sizeof(d->hostname) - 1) < 0 || !d->hostname[0])
		snprintf(d->hostname, sizeof(d->hostname), "localhost");
	r = alloc_copy_buffer(d);
	if (r == 0 && pipe2(d->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		r = log_errno(-errno, "pipe");
	if (r == 0) {
		d->notify_ev = event_new(base, d->notify_pipe[0], EV_READ | EV_PERSIST,
					 on_worker_done, d);
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

/**
 * dump__delete - wait for a dump in flight and free the dumper
 * @d: the dumper, or NULL
 */
void dump__delete(struct dump *d)
{
	if (!d)
		return;
	d->pending = false;
	if (d->running)
		reap(d);
	/* Triggers that never got their dump are answered, not forgotten. */
	memset(&d->report, 0, sizeof(d->report));
	d->report.error = -ECANCELED;
	for (size_t i = 0; i < d->nr_waiters; i++)
		d->waiters[i].fn(d->waiters[i].ctx, &d->report);
	d->nr_waiters = 0;
	snapshot__delete(d->snap);
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
	free(d->starts);
	free(d->waiters);
	free(d);
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

uint64_t dump__copy_buffer_size(const struct dump *d)
{
	return d->copy_buf_size;
}

int dump__busy(const struct dump *d)
{
	return d->running;
}
