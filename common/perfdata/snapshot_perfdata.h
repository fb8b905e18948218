/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_perfdata: writes a sealed snapshot as a perf.data file, with the
 * tail-synthesized COMM/MMAP2 records for its tasks, the kernel MMAP, and
 * the feature sections perf script and perf report use.
 */
#ifndef PERFSNAPD_SNAPSHOT_PERFDATA_H
#define PERFSNAPD_SNAPSHOT_PERFDATA_H

#include <stdbool.h>
#include <stdint.h>

struct snapshot;

struct perfdata_meta {
	int argc; /* the recorder's command line */
	const char *const *argv;
	uint64_t clock_res_ns; /* resolution of the recording clock */
	/*
	 * Name the snapshot's tasks from /proc as they are now (tail
	 * synthesis). Off when side-band records already name them.
	 */
	bool synthesize_from_proc;
	/* zstd level (1..22) for PERF_RECORD_COMPRESSED data, 0: none. */
	int compress_level;
	/* No BUILD_ID feature ([snapshot] symbols = none): paths only. */
	bool no_build_ids;
};

struct perfdata_result {
	uint64_t bytes;
	uint64_t nr_synthesized; /* COMM, MMAP2, MMAP records added */
	uint64_t nr_tasks_gone;	 /* tasks in the snapshot no longer in /proc */
	uint64_t nr_build_ids;	 /* BUILD_ID entries: objects hit that have one */
};

/*
 * Writes @s to @fd (at offset 0). Returns 0 or -errno; on error the
 * content of @fd is undefined and the caller discards it.
 */
int snapshot_perfdata__write(const struct snapshot *s, int fd, const struct perfdata_meta *meta,
			     struct perfdata_result *ret);

#endif
