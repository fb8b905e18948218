/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_stacks: a snapshot's samples with callchains as Perfetto
 * StackSamples, their frames, mappings and names interned, written to a
 * pftrace_out.
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

struct perfetto_stacks *perfetto_stacks__new(const struct snapshot *s, struct symbols *syms,
					     uint32_t clock_id);
void perfetto_stacks__delete(struct perfetto_stacks *sc);
/* A sample of @ev (index @ev_idx) as a StackSample. Returns 0 or -errno. */
int perfetto_stacks__sample(struct perfetto_stacks *sc, struct pftrace_out *o, size_t ev_idx,
			    const struct snapshot_event *ev, const struct perf_record_info *info,
			    uint16_t misc);

#endif
