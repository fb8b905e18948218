// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump: a job per snapshot and the two threads that run it; the loop
 * thread only starts them and collects their results. See dump.h.
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
#include "compress_policy.h"
#include "cpu_idle.h"
#include "config.h"
#include "control_window.h"
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

enum job_stage {
	JOB_COPYING, /* copy thread: the overwrite rings */
	JOB_WRITING, /* write thread: seal, name tasks, files */
};

/*
 * Everything one dump needs, owned by it: a reload may replace the
 * dumper's configuration at any time, the job keeps its own reference.
 */
struct dump_job {
	enum job_stage stage;
	pthread_t thread;
	int notify_fd; /* the dumper's pipe: one byte when a stage is done */
	struct perfsnapd_config *cfg;

	/* The dumper's, which outlives the job. */
	struct capture *cap;
	struct sideband *sb;
	int argc;
	const char *const *argv;

	struct capture_copy copy;
	struct capture_kept **kept; /* references, for copy.kept */
	int nr_kept;
	struct snapshot *snap;
	int error; /* of the copy stage */
	struct dump_figures fig;

	/* A window (fig.window.set): as asked, and the clocks read at the trigger. */
	struct control_window window;
	uint64_t at_clock, at_mono;
	int64_t at_realtime;
};

struct dump {
	struct capture *cap;
	struct sideband *sb;
	struct perfsnapd_config *cfg;
	int argc;
	const char *const *argv;
	dump_done_fn done;
	void *done_ctx;
	char hostname[128];
	struct log_limit refused_log; /* max_per_hour's refusals */

	/* copy_memory_resident: held between dumps, faulted in once. */
	void *resident;
	size_t resident_size;
	struct ring_copy_pool *copiers;	  /* for every dump of this capture */
	struct compress_policy *compress; /* compression = auto: the daemon's (see dump__new) */

	struct event_base *base;
	int notify_pipe[2];
	struct event *notify_ev;
	struct event *defer_ev; /* min_interval timer */
	struct dump_schedule *sched;
	char pending_reason[128];
	bool pending_has_trigger;
	struct snapshot_trigger pending_trigger;
	struct control_window pending_window; /* unset: everything */
	struct recording_clock *clock;	      /* what a window is resolved in; NULL: none */
	uint64_t opened_ns;		      /* the clock when the dumper came: its rings' start */
	dump_collect_fn collect_fn;
	void *collect_ctx;
	struct dump_job *job; /* the dump in flight, or NULL */

	/* dump__retire(): called once the dumper is done and gone. */
	struct event *retire_ev;
	bool retiring;
	dump_retired_fn retired_fn;
	void *retired_ctx;
};

static void job_free(struct dump_job *job)
{
	if (!job)
		return;
	/* The snapshot points into the copies: it goes first. */
	snapshot__delete(job->snap);
	for (int i = 0; i < job->nr_kept; i++)
		capture__put_kept(job->kept[i]);
	free(job->kept);
	capture_copy__fini(&job->copy);
	dump_figures__fini(&job->fig);
	config__put(job->cfg);
	free(job);
}

/* CPUs this thread may run on, as the writer threads a dump starts inherit them. */
static unsigned int usable_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned int)CPU_COUNT(&set) : 0;
}

/* compression = auto: how idle the writers' CPUs were since the last look. */
static void look_at_cpus(struct compress_policy *p)
{
	struct cpu_idle now;

	if (cpu_idle__read(&now) == 0)
		compress_policy__look(p, now.idle, now.total);
}

/* The data files of @formats: every format but the sidecar. */
static unsigned int nr_data_files(unsigned int formats)
{
	return (unsigned int)__builtin_popcount(formats & ~SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_JSON) &
						~SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_SYMBOLS));
}

/* The capture's offline spans, as the sidecar states them. */
static void offline_spans(const struct capture *cap, struct dump_figures *f)
{
	const struct capture_offline *spans;
	size_t nr = capture__offline_spans(cap, &spans);

	for (size_t i = 0; i < nr && f->nr_offline < DUMP_OFFLINE_MAX; i++)
		f->offline[f->nr_offline++] = (struct dump_offline_span){
			.cpu = spans[i].cpu,
			.from_ns = spans[i].from_ns,
			.to_ns = spans[i].to_ns,
			.ended = spans[i].ended,
		};
}

static struct dump_job *job_new(struct dump *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct dump_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->nr_kept = capture__take_kept(d->cap, &job->kept);
	if (job->nr_kept < 0 ||
	    dump_figures__init(&job->fig, (size_t)capture__nr_rings(d->cap, true) +
						  (size_t)job->nr_kept) < 0) {
		job->nr_kept = job->nr_kept < 0 ? 0 : job->nr_kept;
		job_free(job);
		return NULL;
	}
	offline_spans(d->cap, &job->fig);
	job->fig.window_ns = cfg->window_ms * 1000000ull;
	job->snap = snapshot__new();
	if (!job->snap) {
		job_free(job);
		return NULL;
	}
	job->notify_fd = d->notify_pipe[1];
	job->cfg = config__get(d->cfg);
	job->cap = d->cap;
	job->sb = d->sb;
	job->argc = d->argc;
	job->argv = d->argv;
	job->copy = (struct capture_copy){
		.cap = d->cap,
		.copiers = d->copiers,
		.budget = config__copy_memory(cfg, capture_copy__rings_bytes(d->cap)),
		.resident = d->resident,
		.resident_size = d->resident_size,
		.kept = job->kept,
		.nr_kept = (size_t)job->nr_kept,
	};
	snprintf(job->fig.hostname, sizeof(job->fig.hostname), "%s", d->hostname);
	snprintf(job->fig.directory, sizeof(job->fig.directory), "%s", cfg->directory);
	job->fig.formats = cfg->formats;
	if (cfg->symbols == CONFIG_SYMBOLS_PACK)
		job->fig.formats |= SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_SYMBOLS);
	job->fig.compressed = cfg->compression == CONFIG_COMPRESSION_ZSTD;
	job->fig.pftrace_zstd = cfg->compression == CONFIG_COMPRESSION_ZSTD;
	if (cfg->compression == CONFIG_COMPRESSION_AUTO) {
		look_at_cpus(d->compress);
		job->fig.compressed = compress_policy__choose(
			d->compress, monotonic_ns(), nr_data_files(cfg->formats), usable_cpus(),
			job->fig.compress_why, sizeof(job->fig.compress_why));
	}
	/* The capture's tracepoint formats: the snapshot holds a reference. */
	snapshot__set_tracing(job->snap, capture__tracing(d->cap));
	return job;
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
 * such a thread gets most of it, a nice-0 one half: the load loses the
 * same CPU time to a dump either way (its work is bounded: one merge, the
 * files), but a dump at nice 0 takes longer. Refused (no CAP_SYS_NICE),
 * they stay at 0.
 */
#define DUMP_NICE (-10)

static void set_dump_nice(void)
{
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), DUMP_NICE);
}

/*
 * A copy thread that copies nothing, once as the dumper starts. The first
 * dump's copy thread then finds the stack and the malloc arena glibc kept
 * from it, and the copy files' paths in the kernel have run, which the
 * first dump otherwise paid for between its trigger and its pause
 * (docs/decisions.md).
 */
static void *rehearse_main(void *arg)
{
	(void)arg;
	set_dump_nice();
	capture_copy__rehearse();
	return NULL;
}

static void rehearse(void)
{
	pthread_t t;

	if (ring_copy__start_thread(&t, rehearse_main, NULL) == 0)
		pthread_join(t, NULL);
}

static void *copy_main(void *arg)
{
	struct dump_job *job = arg;

	set_dump_nice();
	job->error = capture_copy__run(&job->copy, job->snap, job->cfg->directory, &job->fig);
	job->fig.copied_at_ns = monotonic_ns();
	job_notify(job);
	return NULL;
}

/* After __seal: each overwrite ring's newest record (its chunk, in ring order). */
static void newest_records(struct dump_job *job)
{
	size_t nr = snapshot__nr_chunks(job->snap);

	for (size_t i = 0; i < job->fig.nr_rings && i < nr; i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(job->snap, i);

		job->fig.rings[i].has_records = c->nr_records != 0;
		job->fig.rings[i].newest_time = c->last_time;
	}
}

static void window_place(struct dump_job *job);

/* Seconds, for a note. */
static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * After a windowed __seal: which rings hold less than the window asked
 * (they had wrapped, and their oldest record is newer than its start),
 * said in the note the reply and the sidecar carry. A window the rings
 * hold nothing of fails the dump: no empty files.
 */
static int window_held(struct dump_job *job)
{
	struct dump_window *w = &job->fig.window;
	const struct snapshot_stats *st = snapshot__stats(job->snap);
	uint64_t oldest = UINT64_MAX, newest = 0;
	size_t n = 0, len = 0;
	char list[256] = "";

	for (size_t i = 0; i < job->fig.nr_rings && i < snapshot__nr_chunks(job->snap); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(job->snap, i);
		struct dump_ring_figures *rf = &job->fig.rings[i];
		/* A ring that never wrapped holds all since the rings opened. */
		uint64_t held = c->overwritten && c->held_records ? c->held_first_time :
								    w->recording_since_ns;
		int k;

		if (c->held_records && c->held_first_time < oldest)
			oldest = c->held_first_time;
		if (c->held_records && c->held_last_time > newest)
			newest = c->held_last_time;
		if (!w->from_ns || held <= w->from_ns)
			continue;
		rf->window_short = true;
		rf->window_reach_ns = w->to_ns != UINT64_MAX && w->to_ns > held ? w->to_ns - held :
										  0;
		w->nr_short++;
		k = snprintf(list + len, sizeof(list) - len, "%scpu%d %.3f s", n++ ? ", " : "",
			     c->cpu, secs(rf->window_reach_ns));
		if (k > 0 && (size_t)k < sizeof(list) - len)
			len += (size_t)k;
	}
	if (!st->nr_records) {
		if (oldest == UINT64_MAX)
			snprintf(w->note, sizeof(w->note), "nothing to write: the rings are empty");
		else
			snprintf(w->note, sizeof(w->note),
				 "nothing to write: the window asked ends %.3f s before the oldest "
				 "record the rings hold",
				 secs(oldest > w->to_ns ? oldest - w->to_ns : 0));
		return -ENODATA;
	}
	if (w->nr_short)
		snprintf(w->note, sizeof(w->note),
			 "the rings hold less than the window asked (%.3f s): written what they "
			 "hold, %s of it",
			 secs((uint64_t)(w->to_realtime_ns - w->from_realtime_ns)), list);
	else if (st->max_bytes_cut)
		snprintf(w->note, sizeof(w->note),
			 "--max-size kept the newest %.3f s (%" PRIu64 " of %" PRIu64
			 " records' bytes)",
			 secs(st->last_time - st->window_from), st->bytes,
			 st->bytes + st->cropped_bytes);
	return 0;
}

static void write_files(struct dump_job *job)
{
	struct dump_figures *f = &job->fig;
	const struct snapshot_files_params p = {
		.perfdata = { .argc = job->argc,
			      .argv = job->argv,
			      .clock_res_ns = 1,
			      .synthesize_from_proc = job->sb == NULL,
			      .no_build_ids = job->cfg->symbols == CONFIG_SYMBOLS_NONE },
		.nr_cpus = capture__max_cpu(job->cap) + 1,
		.perfetto_samples = job->cfg->perfetto_samples,
		.symbol_cache = job->sb ? sideband__symbol_cache(job->sb) : NULL,
		.symbols = &f->symbols,
		.nr_build_ids = &f->nr_build_ids,
	};
	int r = 0;

	if (f->window.set) {
		window_place(job);
		if (job->sb)
			snapshot__set_naming_cost(job->snap, sideband__naming_bytes, job->sb);
		r = snapshot__set_window(job->snap, f->window.from_ns, f->window.to_ns,
					 f->window.max_bytes);
	}
	if (r == 0)
		r = snapshot__seal(job->snap);
	f->sealed_at_ns = monotonic_ns();
	if (r == 0) {
		newest_records(job);
		dump_figures__set_reach(f, job->snap);
	}
	if (r == 0 && f->window.set)
		r = window_held(job);
	if (r == 0 && job->sb)
		r = sideband__name_tasks(job->sb, job->snap,
					 job->cfg->formats &
						 SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_PERFETTO),
					 &f->nr_synthesized, &f->nr_tasks_unnamed);
	f->named_at_ns = monotonic_ns();
	f->nr_records = snapshot__stats(job->snap)->nr_records;
	f->record_bytes = snapshot__stats(job->snap)->bytes;
	f->lost_events = snapshot__stats(job->snap)->lost_events;
	f->index_bytes = snapshot__nr_records(job->snap) * 16;
	if (r == 0)
		r = snapshot_files__write(job->snap, &p, f);
	f->error = r;
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
		compress_policy__learn(d->compress, &job->fig, usable_cpus(), monotonic_ns());
	if (job->fig.error == 0 && job->fig.window.note[0])
		log_notice("dump %s (%s): %s", job->fig.stem, job->fig.reason,
			   job->fig.window.note);
	d->done(d->done_ctx, &job->fig);
	more = dump_schedule__end(d->sched, &job->fig);
	job_free(job);
	if (more)
		schedule(d);
	else if (d->retiring)
		retire_later(d);
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

/* A dump that could not even start: its waiters hear why. */
static void start_failed(struct dump *d, int err)
{
	struct dump_figures f = { .error = err };

	snprintf(f.reason, sizeof(f.reason), "%s", d->pending_reason);
	log_errno(err, "dump (%s)", d->pending_reason);
	d->done(d->done_ctx, &f);
	if (dump_schedule__end(d->sched, &f))
		schedule(d);
	else if (d->retiring)
		retire_later(d);
}

/*
 * Below this --max-size, what a data file holds besides the records (its
 * headers, the side-band that names the tasks) leaves too little room.
 */
#define WINDOW_MIN_MAX_SIZE (1ull << 20)

/*
 * The bytes of ring records, and of the side-band records that name their
 * tasks (sideband__naming_bytes()), a --max-size leaves room for: the rest
 * of the largest data file (perf.data: its headers and sections, the
 * formats, the build-ids) is not known before the files are written, so an
 * eighth of the size, at least 512 KiB, is kept for it (docs/decisions.md).
 */
static uint64_t window_record_bytes(uint64_t max_size)
{
	uint64_t reserve = max_size / 8;

	if (reserve < (512u << 10))
		reserve = 512u << 10;
	return max_size - reserve;
}

/*
 * Loop thread, at the trigger: checks @w and reads the recording clock
 * beside CLOCK_REALTIME and CLOCK_MONOTONIC, for window_place(). Returns
 * 0 or -errno (@out->note says why).
 */
static int window_check(struct dump *d, struct dump_job *job, const struct control_window *w)
{
	struct dump_window *out = &job->fig.window;
	struct timespec ts;
	int r;

	out->set = true;
	job->window = *w;
	control_window__format(w, out->asked, sizeof(out->asked));
	out->max_size = w->max_size;
	r = d->clock ? recording_clock__now(d->clock, &job->at_clock) : -ENODEV;
	clock_gettime(CLOCK_REALTIME, &ts);
	job->at_mono = monotonic_ns();
	if (r < 0) {
		snprintf(out->note, sizeof(out->note),
			 "cannot read the recording clock to place the window: %s", strerror(-r));
		return r;
	}
	job->at_realtime = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	r = control_window__check(w, job->at_realtime, out->note, sizeof(out->note));
	if (r < 0)
		return r;
	if (w->max_size && w->max_size < WINDOW_MIN_MAX_SIZE) {
		snprintf(out->note, sizeof(out->note),
			 "--max-size %" PRIu64 " is too small: a snapshot's headers and the "
			 "records that name its tasks need room too (at least 1M)",
			 w->max_size);
		return -EINVAL;
	}
	out->recording_since_ns = d->opened_ns;
	if (w->max_size)
		out->max_bytes = window_record_bytes(w->max_size);
	return 0;
}

/*
 * @ns of CLOCK_REALTIME in the recording clock, by the readings at the
 * trigger. A time at or before the clock's zero (--last 1h on a machine up
 * for less) is its first nanosecond: a window's 0 means no bound, and a
 * start taken for none would leave the rings' shortfall unsaid.
 */
static uint64_t clock_at(const struct dump_job *job, int64_t realtime)
{
	int64_t back = job->at_realtime - realtime;

	if (back <= 0)
		return job->at_clock + (uint64_t)-back;
	return (uint64_t)back < job->at_clock ? job->at_clock - (uint64_t)back : 1;
}

/*
 * After the copy: the window in the recording clock. "Now" is the instant
 * the rings were paused (their newest records), which on a busy machine
 * can come well after the request: relative bounds count from it, and no
 * bound lies after it. Wall-clock bounds go through the readings taken at
 * the trigger.
 */
static void window_place(struct dump_job *job)
{
	const struct control_window *w = &job->window;
	struct dump_window *out = &job->fig.window;
	uint64_t paused = job->fig.first_pause_at_ns ? job->fig.first_pause_at_ns : job->at_mono;
	int64_t now_rt = job->at_realtime + (int64_t)(paused - job->at_mono);
	uint64_t now = job->at_clock + (paused - job->at_mono);
	int64_t since, until;

	if (w->since.set) {
		since = w->since.relative ? now_rt + w->since.ns : w->since.ns;
		out->from_ns = clock_at(job, since);
		out->from_realtime_ns = since;
	}
	if (w->since.set || w->until.set) {
		until = w->until.set ? (w->until.relative ? now_rt + w->until.ns : w->until.ns) :
				       now_rt;
		if (until > now_rt)
			until = now_rt;
		out->to_ns = clock_at(job, until);
		out->to_realtime_ns = until;
	} else {
		out->to_ns = UINT64_MAX;
	}
	if (out->to_ns > now)
		out->to_ns = now;
	if (!w->since.set && !w->until.set)
		out->to_ns = UINT64_MAX;
	if (out->from_ns > out->to_ns)
		out->from_ns = out->to_ns;
}

static void start(struct dump *d)
{
	uint64_t now = monotonic_ns();
	unsigned long seq = dump_schedule__begin(d->sched, now);
	struct dump_job *job = job_new(d);
	int r;

	if (!job) {
		start_failed(d, -ENOMEM);
		return;
	}
	job->fig.trigger_at_ns = now;
	snprintf(job->fig.reason, sizeof(job->fig.reason), "%s", d->pending_reason);
	job->fig.has_trigger = d->pending_has_trigger;
	job->fig.trigger = d->pending_trigger;
	d->job = job;
	r = control_window__is_set(&d->pending_window) ? window_check(d, job, &d->pending_window) :
							 0;
	if (r < 0) {
		log_warning("dump (%s): %s", job->fig.reason, job->fig.window.note);
		job->fig.error = r;
		finish(d, job);
		return;
	}
	r = make_stem(d, job, seq);
	log_debug("dump %s (%s)", job->fig.stem, job->fig.reason);
	if (r == 0)
		r = add_events(d, job->snap);
	if (r == 0) {
		job->stage = JOB_COPYING;
		r = ring_copy__start_thread(&job->thread, copy_main, job);
	}
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
	if (r == 0)
		ring_starts(job);
	if (r == 0) {
		job->stage = JOB_WRITING;
		what = "the write thread";
		r = -pthread_create(&job->thread, NULL, write_main, job);
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
 * @reason: recorded in logs and the sidecar ("signal", "ctl:<text>")
 * @waiter: called with the figures of the dump that covers this trigger
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
	struct control_window w = { 0 };

	if (trigger && trigger->before_ms)
		w.since = (struct control_time){
			.set = true,
			.relative = true,
			.ns = -(int64_t)((trigger->before_ms + trigger->after_ms) * 1000000),
		};
	return dump__request(d, reason, trigger, trigger && trigger->before_ms ? &w : NULL, waiter,
			     waiter_ctx);
}

/**
 * dump__request - ask for a snapshot of a window
 * @d: the dumper
 * @reason: as for dump__trigger()
 * @trigger: as for dump__trigger_by(), or NULL
 * @window: what to keep, or NULL for everything; copied
 * @waiter: as for dump__trigger()
 * @waiter_ctx: its argument
 *
 * Returns 0, or -EAGAIN when max_per_hour refuses a new dump.
 */
int dump__request(struct dump *d, const char *reason, const struct snapshot_trigger *trigger,
		  const struct control_window *window, dump_done_fn waiter, void *waiter_ctx)
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
		return log_errno(r, "dump (%s)", reason);
	if (!pending) {
		snprintf(d->pending_reason, sizeof(d->pending_reason), "%s", reason);
		d->pending_has_trigger = trigger != NULL;
		if (trigger)
			d->pending_trigger = *trigger;
		d->pending_window = window ? *window : (struct control_window){ 0 };
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
void dump__set_config(struct dump *d, struct perfsnapd_config *cfg)
{
	struct dump_schedule_limits limits = limits_of(cfg);
	struct perfsnapd_config *old = d->cfg;

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
int dump__new(struct capture *cap, struct sideband *sb, struct perfsnapd_config *cfg,
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
	d->cfg = config__get(cfg);
	d->compress = compress;
	/* The first dump's look needs one before it (at start, or a reload's). */
	if (!compress->looked)
		look_at_cpus(compress);
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
	if (r == 0 && cfg->copy_memory_resident) {
		uint64_t budget = config__copy_memory(cfg, capture_copy__rings_bytes(cap));

		r = capture_copy__map_resident(cap, budget, &d->resident, &d->resident_size);
		if (r < 0)
			log_errno(r,
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
	if (r == 0 && (r = ring_copy_pool__new(&d->copiers)) < 0)
		log_errno(r, "cannot start the copy threads");
	if (r == 0)
		rehearse();
	if (r == 0 && pipe2(d->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		r = log_errno(-errno, "pipe");
	if (r == 0) {
		d->notify_ev = event_new(base, d->notify_pipe[0], EV_READ | EV_PERSIST,
					 on_stage_done, d);
		d->defer_ev = evtimer_new(base, on_defer_timer, d);
		d->retire_ev = evtimer_new(base, on_retire, d);
		if (!d->notify_ev || !d->defer_ev || !d->retire_ev ||
		    event_add(d->notify_ev, NULL) < 0)
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
	return config__copy_memory(d->cfg, capture_copy__rings_bytes(d->cap));
}

bool dump__busy(const struct dump *d)
{
	return d->job != NULL;
}
