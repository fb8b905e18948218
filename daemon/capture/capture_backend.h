/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture_backend: what a dump and the service's watchers need of one way
 * of recording into overwrite rings, whatever records them. The perf_event
 * rings (capture_perf.c) are the first backend; a tracefs instance's
 * per-CPU rings (capture_tracefs.c) the second, behind the same table,
 * not branches in the dump. A capture holds its backends; the capture__
 * functions below run each of them in turn, and a dump has every backend
 * that can stop all its rings at once take them before any copies, so
 * that all end together.
 */
#ifndef PERFSNAPD_CAPTURE_BACKEND_H
#define PERFSNAPD_CAPTURE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;
struct capture_copy;
struct capture_window_info;
struct dump_figures;
struct snapshot;

struct capture_backend_ops {
	const char *name; /* for the log and status: "perf", "tracefs" */
	/* The rings a dump copies, and their bytes (copy_memory = auto's measure). */
	size_t (*nr_rings)(const void *impl);
	uint64_t (*rings_bytes)(const void *impl);
	/* Declares its events (attributes, names, ids) in a new snapshot. Returns 0 or -errno. */
	int (*declare)(const void *impl, struct snapshot *s);
	/*
	 * Copies every ring of the backend into memory of its own, all
	 * ending at one instant (f->end_time, set by copy), before any
	 * backend copies; NULL where the copy pauses each ring itself, back
	 * to back (perf's PAUSE_OUTPUT). Returns 0 or -errno.
	 */
	int (*take)(void *impl);
	/*
	 * The copy stage: every ring copied into @s, spilling to an unnamed
	 * file in @spill_dir what @c's memory does not hold, with each ring's
	 * figures (pauses, reach, loss) in @f. Returns 0 or -errno.
	 */
	int (*copy)(void *impl, struct capture_copy *c, struct snapshot *s, const char *spill_dir,
		    struct dump_figures *f);
	/*
	 * @cpu went offline: its rings' history is kept, an offline span
	 * opens at @now (recording clock; @now_mono the same instant in
	 * CLOCK_MONOTONIC). Returns 0 or -errno (the rings stay as they are).
	 */
	int (*cpu_down)(void *impl, int cpu, uint64_t now, uint64_t now_mono);
	/* @cpu is online (again): its rings record from @now on. Returns 0 or -errno. */
	int (*cpu_up)(void *impl, int cpu, uint64_t now);
	/*
	 * [capture] window (@window_ms), @now CLOCK_MONOTONIC: a look at
	 * each ring's rate; @cpu's ring's figures (false where it has none);
	 * @cpu's ring to @pages, losing no history (0 or -errno).
	 */
	void (*window_look)(void *impl, uint64_t now);
	bool (*window_ring)(const void *impl, int cpu, uint64_t window_ms, uint64_t now,
			    struct capture_window_info *ret);
	int (*resize)(void *impl, int cpu, unsigned int pages, uint64_t now);
};

struct capture_backend {
	const struct capture_backend_ops *ops;
	void *impl;
};

/*
 * The perf_event backend (capture_perf.c): its impl is the capture itself.
 * It comes first: its rings' chunks and figures lead a snapshot's.
 */
extern const struct capture_backend_ops capture_perf__ops;

/* A capture's backends, in the order a dump stops and copies them. */
size_t capture__backends(const struct capture *c, const struct capture_backend **ret);

/*
 * The name of the tracefs instance that records the tracepoints
 * capture_tracefs__takes(), or NULL where perf records every event.
 */
const char *capture__tracefs_instance(const struct capture *c);

/* Over every backend: the rings a dump copies, and their bytes. */
size_t capture__nr_copy_rings(const struct capture *c);
uint64_t capture__rings_bytes(const struct capture *c);
/* Declares every backend's events in @s. Returns 0 or -errno. */
int capture__declare(const struct capture *c, struct snapshot *s);
/*
 * A dump's copy stage: every backend that can takes its rings, then each
 * is copied into @s (its rings' figures in @f in backend order).
 * Returns 0 or the first -errno.
 */
int capture__copy(struct capture *c, struct capture_copy *cc, struct snapshot *s,
		  const char *spill_dir, struct dump_figures *f);

#endif
