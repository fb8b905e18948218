/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump-internal: what the dumper (dump.c), its job (dump_job.c) and the
 * job's time window (dump_range.c) share; no other part includes it.
 */
#ifndef PERFSNAPD_DUMP_INTERNAL_H
#define PERFSNAPD_DUMP_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture_copy.h"
#include "control_range.h"
#include "dump.h"
#include "log.h"

struct capture_kept;
struct event;
struct recording_clock;
struct ring_copy_pool;

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
	const struct perfsnapd_config *cfg;

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

	/* A window (fig.range.set): as asked, and the clocks read at the trigger. */
	struct control_range window;
	uint64_t at_clock, at_mono;
	int64_t at_realtime;
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
	struct snapshot_origin pending_origin;
	bool pending_has_trigger;
	struct snapshot_trigger pending_trigger;
	struct control_range pending_range; /* unset: everything */
	struct recording_clock *clock;	    /* what a window is resolved in; NULL: none */
	uint64_t opened_ns;		    /* the clock when the dumper came: its rings' start */
	dump_collect_fn collect_fn;
	void *collect_ctx;
	struct dump_job *job; /* the dump in flight, or NULL */

	/* dump__retire(): called once the dumper is done and gone. */
	struct event *retire_ev;
	bool retiring;
	dump_retired_fn retired_fn;
	void *retired_ctx;
};

/* dump_job.c: a job's life and its two threads. */
struct dump_job *dump_job__new(struct dump *d);
void dump_job__free(struct dump_job *job);
/* Start the job's copy (or write) thread. Returns 0 or -errno. */
int dump_job__start_copy(struct dump_job *job);
int dump_job__start_write(struct dump_job *job);
void dump_job__rehearse(void);
/* The write stage, on the calling thread (a dumper's last job, at exit). */
void dump_job__write_files(struct dump_job *job);
/* compression = auto: how idle the writers' CPUs were since the last look. */
void dump_job__look_at_cpus(struct compress_policy *p);
/* CPUs this thread may run on, as the writer threads a dump starts inherit them. */
unsigned int dump_job__usable_cpus(void);

/* dump_range.c: a dump's time window, checked at the trigger, placed after the copy. */
int dump_range__check(struct dump *d, struct dump_job *job, const struct control_range *w);
void dump_range__place(struct dump_job *job);
int dump_range__held(struct dump_job *job);

#endif
