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
 *   counted. A PERF_RECORD_LOST on a ring that carries tracepoints, or a
 *   ring that had wrapped, sets lost_events on the next bundle of its CPU.
 * - Other samples become PerfSample or StackSample packets (the meta's
 *   choice), one sequence per event, with interned function names,
 *   mappings, frames and callstacks; names from kallsyms and the mapped
 *   files' ELF symbol tables. A PERF_RECORD_LOST on a ring that carries
 *   sampling events becomes a PerfSample with kernel_records_lost.
 * - A ProcessTree names every task from the COMM/FORK records (so exited
 *   tasks keep their names; snapshot__comm()).
 * Formats, long size and kallsyms come from the snapshot's tracing
 * metadata (kallsyms: this machine's when it carries none).
 * - A ClockSnapshot makes the snapshot's clock the trace clock.
 * - A SystemInfo names the recording machine: the meta's, never the
 *   writing machine's (a converter's input was recorded elsewhere).
 * Part of common/: no logging.
 */
#ifndef PERFSNAPD_SNAPSHOT_PERFETTO_H
#define PERFSNAPD_SNAPSHOT_PERFETTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfetto_stacks.h"
#include "pftrace_out.h"

struct snapshot;
struct symbols_source;

/* The recording machine, as uname(2) named it; NULL or "": not known. */
struct perfetto_system {
	const char *sysname; /* "Linux" */
	const char *version; /* utsname.version ("#1 SMP ..."); perf.data has none */
	const char *release; /* picks how sched_switch prev_state is read */
	const char *machine; /* picks the syscall table of sys_enter ids */
};

/*
 * One instant read on the recording machine in the events' clock and in
 * CLOCK_REALTIME (perf.data's HEADER_CLOCK_DATA): the ClockSnapshot then
 * also places the trace in wall-clock time. valid false: none.
 */
struct perfetto_clock_ref {
	bool valid;
	int clockid; /* of the events' clock (attr.clockid) */
	uint64_t clock_ns, realtime_ns;
};

/* A mapped file's build-id by path, e.g. from a perf.data's BUILD_ID. */
struct perfetto_build_id {
	const char *path;
	const uint8_t *id;
	size_t size;
};

struct perfetto_meta {
	enum pftrace_compression compression;
	struct perfetto_clock_ref clock_ref;
	enum perfetto_sample_kind samples;
	struct perfetto_system system; /* all unknown: no SystemInfo */
	/* A kallsyms text over the snapshot's and this machine's; NULL: none. */
	const char *kallsyms;
	size_t kallsyms_size;
	/*
	 * Build-ids of files by path, for mappings whose records carry none
	 * (MMAP2 in its inode form, MMAP); the records' own come first.
	 */
	const struct perfetto_build_id *build_ids;
	size_t nr_build_ids;
	/* Objects by build-id before their paths (a symbol pack); NULL: none. */
	const struct symbols_source *symbols;
	/* Called now and then with records done and the total; may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct perfetto_result {
	uint64_t bytes;		       /* the file's size */
	uint64_t nr_ftrace;	       /* tracepoint samples written as ftrace events */
	uint64_t nr_samples;	       /* other samples, written as Perf- or StackSamples */
	uint64_t nr_tracepoint_stacks; /* of nr_ftrace, those with a callchain: samples too */
	uint64_t nr_invalid;	       /* samples that could not be decoded */
	uint64_t lost_events;	       /* sum of PERF_RECORD_LOST counts */
	uint64_t nr_lost_marks;	       /* bundles marked lost_events */
	uint64_t nr_cpu_skipped;       /* tracepoint samples of CPUs >= 1024, left out */
	uint64_t nr_sample_lost_marks; /* PerfSamples with kernel_records_lost */
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
