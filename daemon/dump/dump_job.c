// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump_job: one dump's job, which owns what the dump needs, and its two
 * threads: the copy thread (the overwrite rings, capture_copy) and the
 * write thread (seal, name the tasks, write the files). See dump-internal.h.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "capture.h"
#include "capture_backend.h"
#include "compress_policy.h"
#include "config.h"
#include "cpu_idle.h"
#include "dump-internal.h"
#include "monotonic.h"
#include "ring_copy.h"
#include "sideband.h"
#include "snapshot.h"
#include "snapshot_files.h"

void dump_job__free(struct dump_job *job)
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

unsigned int dump_job__usable_cpus(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned int)CPU_COUNT(&set) : 0;
}

void dump_job__look_at_cpus(struct compress_policy *p)
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

struct dump_job *dump_job__new(struct dump *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct dump_job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->nr_kept = capture__take_kept(d->cap, &job->kept);
	if (job->nr_kept < 0 || dump_figures__init(&job->fig, capture__nr_copy_rings(d->cap) +
								      (size_t)job->nr_kept) < 0) {
		job->nr_kept = job->nr_kept < 0 ? 0 : job->nr_kept;
		dump_job__free(job);
		return NULL;
	}
	offline_spans(d->cap, &job->fig);
	job->fig.window_ns = cfg->window_ms * 1000000ull;
	job->snap = snapshot__new();
	if (!job->snap) {
		dump_job__free(job);
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
		.budget = config__copy_memory(cfg, capture__rings_bytes(d->cap)),
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
		dump_job__look_at_cpus(d->compress);
		job->fig.compressed = compress_policy__choose(
			d->compress, monotonic_ns(), nr_data_files(cfg->formats),
			dump_job__usable_cpus(), job->fig.compress_why,
			sizeof(job->fig.compress_why));
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

void dump_job__rehearse(void)
{
	pthread_t t;

	if (ring_copy__start_thread(&t, rehearse_main, NULL) == 0)
		pthread_join(t, NULL);
}

static void *copy_main(void *arg)
{
	struct dump_job *job = arg;

	set_dump_nice();
	job->error = capture__copy(job->cap, &job->copy, job->snap, job->cfg->directory, &job->fig);
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

void dump_job__write_files(struct dump_job *job)
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
	uint64_t to;
	int r = 0;

	if (f->range.set) {
		dump_range__place(job);
		if (job->sb)
			snapshot__set_naming_cost(job->snap, sideband__naming_bytes, job->sb);
	}
	/* Where a backend stopped all its rings at one instant, every ring ends there. */
	to = f->range.set ? f->range.to_ns : UINT64_MAX;
	if (f->end_time && f->end_time < to)
		to = f->end_time;
	if (f->range.set)
		f->range.to_ns = to;
	if (to != UINT64_MAX || f->range.set)
		r = snapshot__set_window(job->snap, f->range.from_ns, to, f->range.max_bytes);
	if (r == 0)
		r = snapshot__seal(job->snap);
	f->sealed_at_ns = monotonic_ns();
	if (r == 0) {
		newest_records(job);
		dump_figures__set_reach(f, job->snap);
	}
	if (r == 0 && f->range.set)
		r = dump_range__held(job);
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
	dump_job__write_files(job);
	job_notify(job);
	return NULL;
}
int dump_job__start_copy(struct dump_job *job)
{
	job->stage = JOB_COPYING;
	return ring_copy__start_thread(&job->thread, copy_main, job);
}

int dump_job__start_write(struct dump_job *job)
{
	job->stage = JOB_WRITING;
	return -pthread_create(&job->thread, NULL, write_main, job);
}
