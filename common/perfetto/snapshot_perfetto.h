/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_perfetto: writes a sealed snapshot as a Perfetto trace
 * (protos/perfetto/trace/perfetto_trace.proto) for ui.perfetto.dev and
 * trace processor, streamed: memory is the interning tables and one
 * bundle per CPU, never the trace.
 *
 * - Tracepoint samples become ftrace events in an FtraceEventBundle per
 *   CPU: sched_switch and sched_waking in the compact encoding, the other
 *   tracepoints Perfetto's schema has a message for as that typed
 *   message, anything else as a GenericFtraceEvent with every field by
 *   name (libtraceevent parses the formats). Trace processor refuses a
 *   bundle of CPU 1024 or more: those CPUs' tracepoints are left out,
 *   counted. A PERF_RECORD_LOST, or a ring that had wrapped,
 *   sets lost_events on the next bundle of its CPU.
 * - Other samples become StackSample packets, one sequence per event,
 *   with interned function names, mappings, frames and callstacks; names
 *   from kallsyms and the mapped files' ELF symbol tables.
 * - A ProcessTree names every task from the COMM/FORK records (so exited
 *   tasks keep their names; snapshot__comm()).
 * Formats, long size and kallsyms come from the snapshot's tracing
 * metadata (kallsyms: this machine's when it carries none).
 * - A ClockSnapshot makes the snapshot's clock the trace clock.
 * Part of common/: no logging.
 */
#ifndef PERFSNAPD_SNAPSHOT_PERFETTO_H
#define PERFSNAPD_SNAPSHOT_PERFETTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pftrace_out.h"

struct snapshot;

struct perfetto_meta {
	enum pftrace_compression compression;
	/* A kallsyms text over the snapshot's and this machine's; NULL: none. */
	const char *kallsyms;
	size_t kallsyms_size;
	/* Called now and then with records done and the total; may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct perfetto_result {
	uint64_t bytes;		       /* the file's size */
	uint64_t nr_ftrace;	       /* tracepoint samples written as ftrace events */
	uint64_t nr_samples;	       /* other samples, written as StackSamples */
	uint64_t nr_tracepoint_stacks; /* of nr_ftrace, those with a callchain: StackSamples too */
	uint64_t nr_invalid;	       /* samples that could not be decoded */
	uint64_t lost_events;	       /* sum of PERF_RECORD_LOST counts */
	uint64_t nr_lost_marks;	       /* bundles marked lost_events */
	uint64_t nr_cpu_skipped;       /* tracepoint samples of CPUs >= 1024, left out */
	uint64_t nr_tasks;	       /* threads in the ProcessTree */
};

/*
 * Writes @s to @fd (from its current offset). Returns 0 or -errno (-ENOENT
 * for a tracepoint whose format is unknown); on error the content of @fd
 * is undefined and the caller discards it.
 */
int snapshot_perfetto__write(const struct snapshot *s, int fd, const struct perfetto_meta *meta,
			     struct perfetto_result *ret);

#endif
