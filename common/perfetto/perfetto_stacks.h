/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_stacks: a snapshot's samples with callchains as Perfetto
 * PerfSamples or StackSamples, their frames, mappings and names interned,
 * written to a pftrace_out; and the marks of samples the kernel lost.
 */
#ifndef PERFSNAPD_PERFETTO_STACKS_H
#define PERFSNAPD_PERFETTO_STACKS_H

#include <stddef.h>
#include <stdint.h>

struct perf_record_info;
struct pftrace_out;
struct snapshot;
struct snapshot_event;
struct symbols;

struct perfetto_stacks;

/*
 * The packet a sample becomes. PerfSample (TracePacket field 66) is what
 * every trace processor and UI reads; StackSample (field 135) only
 * Perfetto v58 and later.
 */
enum perfetto_sample_kind {
	PERFETTO_SAMPLE_PERF,
	PERFETTO_SAMPLE_STACK,
};

struct perfetto_stacks *perfetto_stacks__new(const struct snapshot *s, struct symbols *syms,
					     uint32_t clock_id, enum perfetto_sample_kind kind);
void perfetto_stacks__delete(struct perfetto_stacks *sc);
/* A sample of @ev (index @ev_idx) as a StackSample. Returns 0 or -errno. */
int perfetto_stacks__sample(struct perfetto_stacks *sc, struct pftrace_out *o, size_t ev_idx,
			    const struct snapshot_event *ev, const struct perf_record_info *info,
			    uint16_t misc);
/*
 * @lost records of @cpu's sampling ring were lost at @time: a PerfSample
 * with kernel_records_lost (of either kind: StackSample has no such field),
 * which trace processor counts in stats as perf_cpu_lost_records[@cpu].
 */
int perfetto_stacks__lost(struct perfetto_stacks *sc, struct pftrace_out *o, uint32_t cpu,
			  uint64_t time, uint64_t lost);

#endif
