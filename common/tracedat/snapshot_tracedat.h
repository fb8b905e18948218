/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_tracedat: writes the tracepoint samples of a sealed snapshot as
 * a trace.dat (v7) file for trace-cmd report and KernelShark, through
 * tracedat_writer, from the snapshot alone (its records, task names and
 * tracing metadata). Other samples are left out and counted.
 */
#ifndef PERFSNAPD_SNAPSHOT_TRACEDAT_H
#define PERFSNAPD_SNAPSHOT_TRACEDAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tracedat_writer.h"

struct snapshot;

struct tracedat_meta {
	enum tracedat_compression compression;
	/* 0: the CPUs configured here; raised to cover every sample's CPU */
	int nr_cpus;
	const char *uname; /* NULL: this machine's */
	/* Called now and then with records done and the total; may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct tracedat_result {
	uint64_t bytes;		/* the file's size */
	uint64_t nr_events;	/* tracepoint samples written */
	uint64_t nr_skipped;	/* samples of other events, left out */
	uint64_t nr_invalid;	/* tracepoint samples without a usable raw record */
	uint64_t lost_events;	/* PERF_RECORD_LOST counts shown as MISSING_EVENTS */
	uint64_t lost_unplaced; /* lost after a CPU's last event: not shown */
	uint64_t nr_cmdlines;	/* tasks named in CMDLINES */
	int nr_cpus;
};

/*
 * Writes @s to @fd (at offset 0). Returns 0 or -errno; on error the content
 * of @fd is undefined and the caller discards it.
 */
int snapshot_tracedat__write(const struct snapshot *s, int fd, const struct tracedat_meta *meta,
			     struct tracedat_result *ret);

/* The ftrace name ("local", "mono", "boot", ...) of the clock of @s's samples. */
const char *snapshot_tracedat__trace_clock(const struct snapshot *s);

#endif
