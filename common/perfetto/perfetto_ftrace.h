/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_ftrace: a snapshot's tracepoint samples as Perfetto
 * FtraceEventBundles, one open bundle per CPU, written to a pftrace_out.
 */
#ifndef PERFSNAPD_PERFETTO_FTRACE_H
#define PERFSNAPD_PERFETTO_FTRACE_H

#include <stdint.h>

struct perf_record_info;
struct pftrace_out;
struct snapshot;

struct perfetto_ftrace;

int perfetto_ftrace__new(const struct snapshot *s, struct perfetto_ftrace **ret);
void perfetto_ftrace__delete(struct perfetto_ftrace *fc);
/*
 * A tracepoint sample (PERF_SAMPLE_RAW in @info). Returns 0, 1 if
 * undecodable, PERFETTO_FTRACE_SKIPPED if left out for its CPU (1024 or
 * more: trace processor refuses the trace at such a bundle), or -errno.
 */
#define PERFETTO_FTRACE_SKIPPED 2
int perfetto_ftrace__sample(struct perfetto_ftrace *fc, struct pftrace_out *o,
			    const struct perf_record_info *info);
/* Data of @cpu was lost here: the next bundle of @cpu says so. */
int perfetto_ftrace__lost(struct perfetto_ftrace *fc, struct pftrace_out *o, uint32_t cpu);
/*
 * Writes every open bundle. Returns 0 or -errno; counts bundles marked
 * lost and the samples left out for their CPU.
 */
int perfetto_ftrace__finish(struct perfetto_ftrace *fc, struct pftrace_out *o,
			    uint64_t *nr_lost_marks, uint64_t *nr_cpu_skipped);

#endif
