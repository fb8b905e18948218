/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump: turns triggers into snapshots without ever making the event loop
 * wait. dump_schedule decides when a dump starts; each dump is a job that
 * owns what it needs (its own copy of the settings, the snapshot, the ring
 * copies), so a reload only swaps the configuration. A job runs in two
 * threads one after the other: the first pauses, copies and resumes the
 * overwrite rings; the loop then adds the side-band records (on the loop,
 * which drains those rings); the second seals the snapshot and writes the
 * files while recording goes on.
 */
#ifndef PERFSNAPD_DUMP_H
#define PERFSNAPD_DUMP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "compress_policy.h"
#include "dump_schedule.h"
#include "snapshot_files.h"

struct capture;
struct dump;
struct event_base;
struct perfsnapd_config;
struct sideband;
struct tracing_meta;
struct snapshot;

/* What a finished dump did (for logs, status and waiting clients). */
struct dump_report {
	char stem[256];
	char reason[128];
	int error; /* 0 or -errno */
	struct snapshot_files_result files;
	uint64_t nr_records;
	uint64_t record_bytes; /* of the snapshot's records */
	uint64_t lost_events;
	uint64_t blind_max_ns; /* longest single ring pause */
	uint64_t blind_total_ns;
	uint64_t first_pause_ns, last_pause_ns; /* CLOCK_MONOTONIC: the spread of the pauses */
	uint64_t newest_spread_ns;		/* of the overwrite rings' newest records */
	char ring_pauses[512];			/* "CPU:us ..." per ring */
	char ring_newest[1024];	 /* "CPU:ns ..." newest record per ring, recording clock */
	uint64_t fault_ns;	 /* before the first pause: mapping, faulting in the paused parts */
	uint64_t pause_delay_ns; /* from the trigger to the first ring paused */
	uint64_t copy_memory_bytes, copy_spilled_bytes;
	/* Overwritten by the kernel after the resume, before their copy: cut off. */
	uint64_t copy_cut_bytes;
	unsigned int rounds; /* > 1: the rings did not fit copy_memory at once */
	int copy_threads;
	int rt_error;	  /* the copy could not run at SCHED_FIFO: -errno */
	uint64_t dump_ns; /* trigger to renamed files */
	bool compressed;	/* written with zstd */
	char compress_why[192]; /* compression = auto: why (or why not) */
	/* CLOCK_MONOTONIC ns of its stages (files: the per-file times in .files) */
	uint64_t trigger_ns, copied_ns, collected_ns, sealed_ns, named_ns;
	uint64_t copy_bytes;  /* ring bytes copied */
	uint64_t index_bytes; /* memory for the time index */
	bool has_trigger;     /* a [trigger NAME] asked for it: */
	struct snapshot_trigger trigger;
};

/*
 * Prepares dumps for @cap; @sb may be NULL (no side-band). Both must stay
 * open while dump__busy() (the daemon defers a reopen until then). Returns
 * 0 or -errno (logged).
 */
int dump__new(struct capture *cap, struct sideband *sb, const struct perfsnapd_config *cfg,
	      struct compress_policy *compress, struct event_base *base, int argc,
	      const char *const *argv, dump_done_fn done, void *done_ctx, struct dump **ret);
/* Finishes a dump in flight (on the calling thread), answers every waiter, frees. */
void dump__delete(struct dump *d);

/* A reloaded configuration: later dumps use it; a dump in flight keeps its own. */
void dump__set_config(struct dump *d, const struct perfsnapd_config *cfg);

/*
 * Asks for a snapshot. @reason goes into logs and the sidecar ("signal",
 * "ctl:<text>"). @waiter (may be NULL) is called with the report of the
 * dump that covers this trigger, exactly once (also if the dumper is
 * deleted first: then with -ECANCELED). Returns 0 if a dump was started or
 * queued, -EAGAIN if max_per_hour refuses it (logged; @waiter not called).
 */
int dump__trigger(struct dump *d, const char *reason, dump_done_fn waiter, void *waiter_ctx);
/* Like dump__trigger(), for a [trigger NAME]: @trigger goes into the sidecar and the log. */
int dump__trigger_by(struct dump *d, const char *reason, const struct snapshot_trigger *trigger,
		     dump_done_fn waiter, void *waiter_ctx);

/*
 * Called on the loop thread at the end of each dump's copy phase to add
 * records of its own to the snapshot (the triggers' matches). Returns 0 or -errno.
 */
typedef int (*dump_collect_fn)(void *ctx, struct snapshot *s);
void dump__set_collect(struct dump *d, dump_collect_fn fn, void *ctx);

/* The tracepoint metadata handed to each dump's snapshot (a reference is taken). */
void dump__set_tracing(struct dump *d, struct tracing_meta *m);

/* Bytes of memory held for ring copies between dumps (copy_memory_resident). */
uint64_t dump__copy_buffer_size(const struct dump *d);
/* Bytes a dump may hold ring copies in (copy_memory). */
uint64_t dump__copy_budget(const struct dump *d);
/* True while a dump runs. */
bool dump__busy(const struct dump *d);

#endif
