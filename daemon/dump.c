// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: a job per snapshot and the two threads that run it; the loop
 * thread only starts them and collects their results. See dump.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
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
#include "compress_policy.h"
#include "config.h"
#include "dump.h"
#include "log.h"
#include "monotonic.h"
#include "ring_copy.h"
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
	struct dump *dumper; /* for its resident copy memory only */
	int notify_fd;	     /* the dumper's pipe: one byte when a stage is done */

	char *directory;
	unsigned int formats;
	int nr_cpus;
	int argc;
	char **argv;
	char hostname[128];

	/* Borrowed: open while the job runs (see dump__new). */
	struct capture *cap;
	struct sideband *sb;

	/* Ring copies: within copy_budget in memory, beyond it spilled. */
	uint64_t copy_budget;
	void *mem; /* the copies of the last round (the snapshot points into it) */
	size_t mem_size;
	bool mem_owned;	    /* unmapped with the job; else the dumper's resident buffer */
	uint64_t *pause_ns; /* per overwrite ring, in ring (= chunk) order */
	uint64_t *cut_bytes; /* per overwrite ring: its oldest bytes the kernel took back */
	int nr_rings;

	struct snapshot *snap;
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

	/* copy_memory_resident: held between dumps, faulted in once. */
	void *resident;
	size_t resident_size;
	struct ring_copy_pool *copiers; /* for every dump of this capture */
	struct compress_policy *compress; /* compression = auto: the daemon's (see dump__new) */

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
	struct dump_job *job;	      /* the dump in flight, or NULL */
	struct tracing_meta *tracing; /* handed to every snapshot */
};

static void job_free(struct dump_job *job)
{
	if (!job)
		return;
	snapshot__delete(job->snap);
	if (job->mem_owned && job->mem)
		munmap(job->mem, job->mem_size);
	free(job->pause_ns);
	free(job->cut_bytes);
	free(job->directory);
	for (int i = 0; job->argv && i < job->argc; i++)
		free(job->argv[i]);
	free(job->argv);
	free(job);
}

static uint64_t rings_bytes(const struct capture *cap)
{
	uint64_t sum = 0;

	for (int i = 0; i < capture__nr_rings(cap, true); i++)
		sum += capture__ring(cap, true, i)->data_size;
	return sum;
}

/* CPUs this thread may run on, as the writer threads a dump starts inherit them. */
static unsigned int usable_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned int)CPU_COUNT(&set) : 0;
}

static struct dump_job *job_new(const struct dump *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct dump_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->notify_fd = d->notify_pipe[1];
	job->dumper = (struct dump *)d;
	job->directory = strdup(cfg->directory);
	job->formats = cfg->formats;
	job->report.compressed = cfg->compression == CONFIG_COMPRESSION_ZSTD;
	if (cfg->compression == CONFIG_COMPRESSION_AUTO)
		job->report.compressed = compress_policy__choose(
			d->compress, monotonic_ns(),
			(unsigned int)__builtin_popcount(cfg->formats &
							 ~SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_JSON)),
			usable_cpus(), job->report.compress_why, sizeof(job->report.compress_why));
	job->nr_cpus = capture__max_cpu(d->cap) + 1;
	job->argv = calloc((size_t)d->argc + 1, sizeof(*job->argv));
	memcpy(job->hostname, d->hostname, sizeof(job->hostname));
	job->cap = d->cap;
	job->sb = d->sb;
	job->nr_rings = capture__nr_rings(d->cap, true);
	job->copy_budget = config__copy_memory(d->cfg, rings_bytes(d->cap));
	job->pause_ns = calloc(job->nr_rings ? (size_t)job->nr_rings : 1, sizeof(*job->pause_ns));
	job->cut_bytes = calloc(job->nr_rings ? (size_t)job->nr_rings : 1, sizeof(*job->cut_bytes));
	job->snap = snapshot__new();
	if (!job->directory || !job->argv || !job->snap || !job->pause_ns ||
	    !job->cut_bytes) {
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

/*
 * The copies of one round: spilled when more rounds follow (the memory is
 * reused), else left in memory for the snapshot to point at.
 */
static int keep_round(struct dump_job *job, const struct ring_copy_item *items, size_t nr,
		      bool spill)
{
	struct snapshot *s = job->snap;
	int r = 0;

	for (size_t i = 0; i < nr && r == 0; i++) {
		const struct ring_copy_item *it = &items[i];

		if (!spill) {
			r = snapshot__add_chunk_memory(s, it->ring->cpu, true, it->buf, it->len,
						       it->wrapped);
			job->report.copy_memory_bytes += it->len;
			continue;
		}
		r = snapshot__begin_chunk(s, it->ring->cpu, true);
		if (r == 0)
			r = snapshot__append(s, it->buf, it->len);
		if (r == 0 && it->wrapped)
			r = snapshot__set_chunk_overwritten(s);
		if (r == 0)
			r = snapshot__end_chunk(s);
		job->report.copy_spilled_bytes += it->len;
	}
	return r;
}

/* The rings of the round that starts at @first: as many as the budget holds, at least one. */
static size_t round_size(const struct ring_copy_item *items, size_t first, size_t nr,
			 uint64_t budget, uint64_t *ret_bytes)
{
	uint64_t bytes = items[first].ring->data_size;
	size_t n = 1;

	while (first + n < nr && bytes + items[first + n].ring->data_size <= budget)
		bytes += items[first + n++].ring->data_size;
	*ret_bytes = bytes;
	return n;
}

/*
 * Memory for the largest round: the dumper's resident memory, or address
 * space for this dump, where each round maps a copy file per ring (see
 * ring_copy__map_file(); the copy threads write them, around the pause).
 */
static int get_copy_memory(struct dump_job *job, struct dump *d, size_t size)
{
	uint64_t t0 = monotonic_ns();

	if (d->resident && d->resident_size >= size) {
		job->mem = d->resident;
		job->mem_size = d->resident_size;
		return 0;
	}
	job->mem = ring_copy__map(size);
	if (!job->mem)
		return -ENOMEM;
	job->mem_size = size;
	job->mem_owned = true;
	job->report.fault_ns = monotonic_ns() -
			       t0; /* the mapping; the faults come with the round */
	return 0;
}

static int copy_rings(struct dump_job *job, struct dump *d)
{
	size_t nr = (size_t)job->nr_rings, largest = 0;
	struct ring_copy_item *items = calloc(nr ? nr : 1, sizeof(*items));
	bool spill_open = false;
	int r = 0;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++)
		items[i].ring = capture__ring(job->cap, true, (int)i);
	for (size_t first = 0; r == 0 && first < nr;) {
		uint64_t bytes;
		size_t n = round_size(items, first, nr, job->copy_budget, &bytes);

		if (bytes > largest)
			largest = bytes;
		first += n;
	}
	if (r == 0 && nr)
		r = get_copy_memory(job, d, largest);
	for (size_t i = 0; i < nr; i++)
		items[i].fd = -1;
	for (size_t first = 0; r == 0 && first < nr;) {
		struct ring_copy_stats st;
		uint64_t bytes, off = 0;
		size_t n = round_size(items, first, nr, job->copy_budget, &bytes);

		for (size_t i = first; r == 0 && i < first + n; i++) {
			items[i].buf = (uint8_t *)job->mem + off;
			off += items[i].ring->data_size;
			if (job->mem_owned && (r = ring_copy__map_file(items[i].buf,
								       items[i].ring->data_size)) >= 0) {
				items[i].fd = r;
				r = 0;
			}
		}
		if (r == 0)
			r = ring_copy__round(d->copiers, items + first, n, &st);
		/* The views hold the files; a later round maps its own over them. */
		for (size_t i = first; i < first + n; i++)
			if (items[i].fd >= 0) {
				close(items[i].fd);
				items[i].fd = -1;
			}
		if (r < 0)
			break;
		job->report.rounds++;
		job->report.fault_ns += st.prepare_ns;
		job->report.copy_threads = st.nr_threads;
		if (st.rt_error)
			job->report.rt_error = st.rt_error;
		for (size_t i = first; r == 0 && i < first + n; i++) {
			uint64_t pause = items[i].resumed_ns - items[i].paused_ns;

			if ((r = items[i].error) < 0 || (r = items[i].copy_error) < 0)
				break;
			job->pause_ns[i] = pause;
			job->cut_bytes[i] = items[i].cut;
			job->report.copy_cut_bytes += items[i].cut;
			job->report.blind_total_ns += pause;
			if (pause > job->report.blind_max_ns)
				job->report.blind_max_ns = pause;
			job->report.copy_bytes += items[i].len;
			if (!job->report.first_pause_ns ||
			    items[i].paused_ns < job->report.first_pause_ns)
				job->report.first_pause_ns = items[i].paused_ns;
			if (items[i].paused_ns > job->report.last_pause_ns)
				job->report.last_pause_ns = items[i].paused_ns;
		}
		/*
		 * Side-band history and task names may need it too. Opened after the
		 * first pause: a file system under load can take long to create it.
		 */
		if (r == 0 && !spill_open) {
			r = snapshot__open_spill(job->snap, job->directory);
			spill_open = true;
		}
		if (r == 0)
			r = keep_round(job, items + first, n, first + n < nr);
		if (r == 0 && first == 0)
			job->report.pause_delay_ns = job->report.first_pause_ns -
						     job->report.trigger_ns;
		first += n;
	}
	if (r == 0 && !spill_open)
		r = snapshot__open_spill(job->snap, job->directory);
	free(items);
	return r;
}

static void job_notify(struct dump_job *job)
{
	char byte = 0;

	while (write(job->notify_fd, &byte, 1) < 0 && errno == EINTR)
		;
}

/*
 * A dump's own threads run at this niceness: the copy thread, for what it
 * does before the pause (it maps the copy memory and wakes the copiers)
 * and after it (the spill file), and the write thread and the files'
 * threads it starts (they inherit it). On a CPU kept busy by nice-0 tasks
 * such a thread gets about nine tenths of it, a nice-0 one a half: the
 * load loses the same CPU time to a dump either way (its work is bounded:
 * one merge, two files), but at nice 0 a busy dump took twice as long.
 * Refused (no CAP_SYS_NICE), they stay at 0.
 */
#define DUMP_NICE (-10)

static void set_dump_nice(void)
{
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DUMP_NICE);
}

static void *copy_main(void *arg)
{
	struct dump_job *job = arg;

	set_dump_nice();
	job->error = copy_rings(job, job->dumper);
	job->report.copied_ns = monotonic_ns();
	if (job->error < 0)
		snprintf(job->report.files.failed, sizeof(job->report.files.failed),
			 "the copy of the rings (an unnamed spill file in '%s')", job->directory);
	job_notify(job);
	return NULL;
}

/* Appends to @buf (of @size, @*len used) what fits; never overflows. */
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len >= size - 1)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/* After __seal: each ring's pause and newest record, and how far apart the newest are. */
static void ring_figures(struct dump_job *job)
{
	struct dump_report *rep = &job->report;
	uint64_t lo = UINT64_MAX, hi = 0;
	size_t pl = 0, nl = 0;

	for (int i = 0; i < job->nr_rings && (size_t)i < snapshot__nr_chunks(job->snap); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(job->snap, (size_t)i);

		appendf(rep->ring_pauses, sizeof(rep->ring_pauses), &pl, "%s%d:%" PRIu64,
			i ? " " : "", c->cpu, job->pause_ns[i] / 1000);
		if (!c->nr_records)
			continue;
		appendf(rep->ring_newest, sizeof(rep->ring_newest), &nl, "%s%d:%" PRIu64,
			nl ? " " : "", c->cpu, c->last_time);
		if (c->last_time < lo)
			lo = c->last_time;
		if (c->last_time > hi)
			hi = c->last_time;
	}
	rep->newest_spread_ns = hi > lo ? hi - lo : 0;
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
		.compress = job->report.compressed,
		.nr_cpus = job->nr_cpus,
		.json = { .stem = job->report.stem,
			  .reason = job->report.reason,
			  .hostname = job->hostname,
			  .trigger = job->report.has_trigger ? &job->report.trigger : NULL },
	};
	int r;

	r = snapshot__seal(job->snap);
	job->report.sealed_ns = monotonic_ns();
	if (r == 0)
		ring_figures(job);
	if (r == 0 && job->sb)
		r = sideband__name_tasks(job->sb, job->snap, &added, &unknown);
	job->report.named_ns = monotonic_ns();
	if (r == 0) {
		p.json.blind_max_ns = job->report.blind_max_ns;
		p.json.blind_total_ns = job->report.blind_total_ns;
		p.json.ring_pause_ns = job->pause_ns;
		p.json.ring_cut_bytes = job->cut_bytes;
		p.json.nr_ring_pauses = (size_t)job->nr_rings;
		p.json.pause_spread_ns = job->report.last_pause_ns - job->report.first_pause_ns;
		p.json.newest_spread_ns = job->report.newest_spread_ns;
		p.json.copy_realtime = !job->report.rt_error;
		p.json.copy_fault_ns = job->report.fault_ns;
		p.json.copy_memory_bytes = job->report.copy_memory_bytes;
		p.json.copy_spilled_bytes = job->report.copy_spilled_bytes;
		p.json.copy_rounds = job->report.rounds;
		p.json.compressed = job->report.compressed;
		p.json.compress_why = job->report.compress_why[0] ? job->report.compress_why : NULL;
		p.json.nr_synthesized = added;
		p.json.nr_tasks_unnamed = unknown;
		r = snapshot_files__write(job->snap, &p, &job->report.files);
	}
	job->report.error = r;
	job->report.nr_records = snapshot__stats(job->snap)->nr_records;
	job->report.record_bytes = snapshot__stats(job->snap)->bytes;
	job->report.lost_events = snapshot__stats(job->snap)->lost_events;
	job->report.index_bytes = snapshot__nr_records(job->snap) * 16;
}

static void *write_main(void *arg)
{
	struct dump_job *job = arg;

	set_dump_nice();
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

/* What the dump's data files cost per byte, for compression = auto. */
static void learn_compression(struct dump *d, const struct dump_report *rep)
{
	const struct snapshot_files_result *f = &rep->files;
	uint64_t last = 0, cost[SNAPSHOT_NR_FILES], run[SNAPSHOT_NR_FILES];
	size_t nr = 0, slowest = 0;

	/* The data files start together: the last one synced held the dump up. */
	for (int k = 0; k < SNAPSHOT_NR_FILES; k++) {
		if (k == SNAPSHOT_FILE_JSON || !f->synced_ns[k])
			continue;
		if (f->synced_ns[k] > last) {
			last = f->synced_ns[k];
			slowest = nr;
		}
		cost[nr] = f->cost_ns[k];
		run[nr++] = f->run_ns[k];
	}
	if (nr)
		compress_policy__record(d->compress, rep->compressed,
					compress_policy__dump_cost(cost, run, nr, slowest, usable_cpus()),
					rep->record_bytes, monotonic_ns());
}

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
	job->report.dump_ns = monotonic_ns() - job->report.trigger_ns;
	if (job->report.rt_error && !rt_warned) {
		rt_warned = true;
		log_warning("the ring copy cannot run at real-time priority (SCHED_FIFO: %s): it "
			    "runs at normal priority, so a busy CPU can stretch each ring's pause; "
			    "allow it with CAP_SYS_NICE or LimitRTPRIO=1",
			    strerror(-job->report.rt_error));
	}
	if (job->report.error == 0)
		learn_compression(d, &job->report);
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
	uint64_t now = monotonic_ns();
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
	job->report.trigger_ns = now;
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
	job->report.collected_ns = monotonic_ns();
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

	r = dump_schedule__request(d->sched, monotonic_ns(), waiter, waiter_ctx, &wait);
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

/*
 * copy_memory_resident = yes: the copy memory (one round's worth) is
 * faulted in now and held, so no dump pays for the faults.
 */
static int alloc_resident(struct dump *d)
{
	uint64_t budget = config__copy_memory(d->cfg, rings_bytes(d->cap)), size = 0;

	if (!d->cfg->copy_memory_resident)
		return 0;
	for (int i = 0; i < capture__nr_rings(d->cap, true); i++) {
		uint64_t ring = capture__ring(d->cap, true, i)->data_size;

		if (size && size + ring > budget)
			break;
		size += ring;
	}
	if (!size)
		return 0;
	d->resident = ring_copy__map(size);
	if (d->resident)
		ring_copy__fault_in(d->resident, size);
	if (!d->resident) {
		return log_errno(-ENOMEM,
				 "cannot allocate the %" PRIu64 "-byte resident copy memory", size);
	}
	d->resident_size = size;
	return 0;
}

/**
 * dump__new - prepare dumps of a capture
 * @cap: the open capture
 * @sb: its side-band, or NULL
 * @cfg: the configuration (kept by reference until dump__set_config())
 * @compress: what compression = auto has measured, kept by reference and
 *            updated after each dump; it outlives the dumper, which a
 *            reload that reopens the rings replaces, as the disk and the
 *            page cache do not change with the events
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
	      struct compress_policy *compress, struct event_base *base, int argc,
	      const char *const *argv, dump_done_fn done, void *done_ctx, struct dump **ret)
{
	struct dump_schedule_limits limits = limits_of(cfg);
	struct dump *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return log_errno(-ENOMEM, "dump");
	d->cap = cap;
	d->sb = sb;
	d->cfg = cfg;
	d->compress = compress;
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
		r = alloc_resident(d);
	if (r == 0 && (r = ring_copy_pool__new(&d->copiers)) < 0)
		log_errno(r, "cannot start the copy threads");
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
	ring_copy_pool__delete(d->copiers);
	if (d->notify_ev)
		event_free(d->notify_ev);
	if (d->defer_ev)
		event_free(d->defer_ev);
	if (d->notify_pipe[0] >= 0)
		close(d->notify_pipe[0]);
	if (d->notify_pipe[1] >= 0)
		close(d->notify_pipe[1]);
	if (d->resident)
		munmap(d->resident, d->resident_size);
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
	return d->resident_size;
}

uint64_t dump__copy_budget(const struct dump *d)
{
	return config__copy_memory(d->cfg, rings_bytes(d->cap));
}

bool dump__busy(const struct dump *d)
{
	return d->job != NULL;
}
