/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump: turns triggers into snapshots without ever making the event loop
 * wait. dump_schedule decides when a dump starts; each dump is a job that
 * owns what it needs (a reference to the configuration it started with,
 * the snapshot, the ring copies, its figures), so a reload only swaps the
 * configuration. A job runs in two threads one after the other: the first
 * pauses, copies and resumes the overwrite rings (capture_copy); the loop
 * then adds the side-band records (on the loop, which drains those rings);
 * the second seals the snapshot and writes the files while recording goes
 * on. A reload that reopens the rings retires the dumper: it finishes
 * what it has started on the old rings, then frees itself.
 */
#ifndef PERFSNAPD_DUMP_H
#define PERFSNAPD_DUMP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "compress_policy.h"
#include "dump_figures.h"
#include "dump_schedule.h"

struct capture;
struct dump;
struct event_base;
struct perfsnapd_config;
struct sideband;
struct snapshot;

/*
 * Prepares dumps for @cap; @sb may be NULL (no side-band). Both stay open
 * as long as the dumper (see dump__retire()). Takes a reference to @cfg.
 * Returns 0 or -errno (logged).
 */
int dump__new(struct capture *cap, struct sideband *sb, const struct perfsnapd_config *cfg,
	      struct compress_policy *compress, struct event_base *base, int argc,
	      const char *const *argv, dump_done_fn done, void *done_ctx, struct dump **ret);
/* Finishes a dump in flight (on the calling thread), answers every waiter, frees. */
void dump__delete(struct dump *d);
uint64_t dump__opened_at(const struct dump *d);

/*
 * No more triggers: the dumper finishes the dump in flight and the one
 * pending on the rings it has, then frees itself and calls @fn(@ctx) on
 * the loop, where the caller closes the side-band and the capture. At
 * once when nothing is in flight or pending.
 */
typedef void (*dump_retired_fn)(void *ctx);
void dump__retire(struct dump *d, dump_retired_fn fn, void *ctx);

/* A reloaded configuration (a reference is taken): later dumps use it, one in flight its own. */
void dump__set_config(struct dump *d, const struct perfsnapd_config *cfg);

/*
 * Asks for a snapshot. @reason goes into logs and the sidecar as given (the
 * operator's words, "signal"), @origin (may be NULL) says who asked: a
 * field of its own. @waiter (may be NULL) is called with the report of the
 * dump that covers this trigger, exactly once (also if the dumper is
 * deleted first: then with -ECANCELED). Returns 0 if a dump was started or
 * queued, -EAGAIN if max_per_hour refuses it (logged; @waiter not called).
 */
int dump__trigger(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		  dump_done_fn waiter, void *waiter_ctx);
/* Dumps started in the last hour, as max_per_hour counts them. */
unsigned int dump__starts_last_hour(const struct dump *d);

/* Like dump__trigger(), for a [trigger NAME]: @trigger goes into the sidecar and the log. */
int dump__trigger_by(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		     const struct snapshot_trigger *trigger, dump_done_fn waiter, void *waiter_ctx);

/*
 * Like dump__trigger_by(), for a window (perfsnapctl dump --last, --since,
 * --until, --max-size): @window (may be NULL: everything) is resolved
 * against the recording clock when the dump starts, and the snapshot
 * keeps only what falls in it. A request coalesced into a pending dump
 * takes that dump's window. A [trigger NAME] with before = T asks for the
 * window T before its match through dump__trigger_by().
 */
struct control_range;
int dump__request(struct dump *d, const char *reason, const struct snapshot_origin *origin,
		  const struct snapshot_trigger *trigger, const struct control_range *window,
		  dump_done_fn waiter, void *waiter_ctx);

/*
 * Called on the loop thread at the end of each dump's copy phase to add
 * records of its own to the snapshot (the triggers' matches). Returns 0 or -errno.
 */
typedef int (*dump_collect_fn)(void *ctx, struct snapshot *s);
void dump__set_collect(struct dump *d, dump_collect_fn fn, void *ctx);

/* Bytes of memory held for ring copies between dumps (copy_memory_resident). */
uint64_t dump__copy_buffer_size(const struct dump *d);
/* Bytes a dump may hold ring copies in (copy_memory). */
uint64_t dump__copy_budget(const struct dump *d);
/* True while a dump runs. */
bool dump__busy(const struct dump *d);

#endif
