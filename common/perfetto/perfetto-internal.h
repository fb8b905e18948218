/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The parts of snapshot_perfetto: ftrace bundles (perfetto_ftrace.c) and
 * stack samples (perfetto_stacks.c), both writing packets to one stream.
 */
#ifndef PERFSNAPD_PERFETTO_INTERNAL_H
#define PERFSNAPD_PERFETTO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "pb.h"
#include "pftrace_out.h"
#include "snapshot_perfetto.h"

struct snapshot;
struct snapshot_event;
struct perf_record_info;
struct symbols;

/* TracePacket fields */
#define PKT_FTRACE_EVENTS      1
#define PKT_PROCESS_TREE       2
#define PKT_CLOCK_SNAPSHOT     6
#define PKT_TIMESTAMP	       8
#define PKT_SEQ_ID	       10
#define PKT_INTERNED_DATA      12
#define PKT_SEQ_FLAGS	       13
#define PKT_SYSTEM_INFO	       45
#define PKT_TIMESTAMP_CLOCK_ID 58
#define PKT_DEFAULTS	       59
#define PKT_STACK_SAMPLE       135

#define SEQ_INCREMENTAL_STATE_CLEARED 1
#define SEQ_NEEDS_INCREMENTAL_STATE   2

/* Sends @b as one TracePacket and empties it. */
int perfetto__emit(struct pftrace_out *o, struct pb_buf *b);

struct ftrace_conv;

int ftrace_conv__new(const struct snapshot *s, struct ftrace_conv **ret);
void ftrace_conv__delete(struct ftrace_conv *fc);
/* A tracepoint sample (PERF_SAMPLE_RAW in @info). Returns 0, 1 if undecodable, or -errno. */
int ftrace_conv__sample(struct ftrace_conv *fc, struct pftrace_out *o,
			const struct perf_record_info *info);
/* Data of @cpu was lost here: the next bundle of @cpu says so. */
int ftrace_conv__lost(struct ftrace_conv *fc, struct pftrace_out *o, uint32_t cpu);
/* Writes every open bundle. Returns 0 or -errno; counts bundles marked lost. */
int ftrace_conv__finish(struct ftrace_conv *fc, struct pftrace_out *o, uint64_t *nr_lost_marks);

struct stack_conv;

struct stack_conv *stack_conv__new(const struct snapshot *s, struct symbols *syms,
				   uint32_t clock_id);
void stack_conv__delete(struct stack_conv *sc);
/* A sample of @ev (index @ev_idx) as a StackSample. Returns 0 or -errno. */
int stack_conv__sample(struct stack_conv *sc, struct pftrace_out *o, size_t ev_idx,
		       const struct snapshot_event *ev, const struct perf_record_info *info,
		       uint16_t misc);

#endif
