/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_callchain: the frames of a sample, leaf first, each with the
 * context it ran in, for every reader of stacks (the Perfetto and pprof
 * writers, the objects a snapshot hits). The callchain's PERF_CONTEXT_*
 * entries are no frames: each sets the context of the frames after it,
 * the sample's cpumode that of those before the first. A sample without
 * a callchain is its ip alone. Part of the snapshot layer: no I/O.
 */
#ifndef PERFSNAPD_SNAPSHOT_CALLCHAIN_H
#define PERFSNAPD_SNAPSHOT_CALLCHAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "perf_record.h"

/* Numbered as the PERF_RECORD_MISC_ cpumodes (and Perfetto's Profiling.CpuMode). */
enum snapshot_context {
	SNAPSHOT_CONTEXT_UNKNOWN = 0,
	SNAPSHOT_CONTEXT_KERNEL = 1,
	SNAPSHOT_CONTEXT_USER = 2,
	SNAPSHOT_CONTEXT_HYPERVISOR = 3,
	SNAPSHOT_CONTEXT_GUEST_KERNEL = 4,
	SNAPSHOT_CONTEXT_GUEST_USER = 5,
};

struct snapshot_frame {
	uint64_t ip;
	enum snapshot_context context;
};

/* A walk over one sample's frames; on the stack, its fields the walk's own. */
struct snapshot_callchain {
	const struct perf_record_info *info;
	uint64_t at;  /* the next callchain entry */
	bool ip_left; /* without a callchain: the ip, not returned yet */
	enum snapshot_context context;
};

/* The context of a record's cpumode (its header's misc). */
enum snapshot_context snapshot_callchain__context(uint16_t misc);
/*
 * Starts a walk over @info (parsed for @sample_type, its header's misc
 * @misc), which must outlive it.
 */
void snapshot_callchain__begin(struct snapshot_callchain *c, const struct perf_record_info *info,
			       uint64_t sample_type, uint16_t misc);
/* The next frame, towards the outermost; false after the last. */
bool snapshot_callchain__next(struct snapshot_callchain *c, struct snapshot_frame *ret);

#endif
