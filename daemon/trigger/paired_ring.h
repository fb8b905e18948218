/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * paired_ring: a paired trigger measured in user space, where the BPF
 * program cannot load. The start and end tracepoints are opened with their
 * kernel filters into forward rings of their own; the loop reads every
 * ring every few milliseconds, orders the records by time and pairs by key
 * (pair_table) those stamped before the previous pass began. It sees
 * every start and end event, so it costs more than the BPF path under a
 * high event rate (docs/benchmarks.md).
 * Outlier times are in the recording clock, as the records'.
 */
#ifndef PERFSNAPD_PAIRED_RING_H
#define PERFSNAPD_PAIRED_RING_H

#include <stdint.h>

#include "paired_bpf.h"

struct paired_ring;

struct recording_clock;

/*
 * @clock: "now" in the records' clock, from the loop's thread (NULL: they
 * are on CLOCK_MONOTONIC); the caller keeps it. Returns 0 or -errno
 * (logged); a filter the kernel refuses is -EINVAL.
 */
int paired_ring__new(const struct trigger_spec *sp, const char *cpus, struct recording_clock *clock,
		     struct event_base *base, paired_outlier_fn fn, void *arg,
		     struct paired_ring **ret);
void paired_ring__delete(struct paired_ring *pr);
/*
 * The pairs so far, the events its rings lost (pairs across a loss are
 * dropped) and the starts that reached a ring after their time was paired
 * (a CPU stalled a pass long between stamping and writing them; dropped).
 */
void paired_ring__stats(struct paired_ring *pr, struct paired_stats *ret, uint64_t *ret_lost,
			uint64_t *ret_late);

#endif
