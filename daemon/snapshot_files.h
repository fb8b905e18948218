/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_files: writes one sealed snapshot as its set of files in the
 * snapshot directory (named by snapshot_name: one per format, then the
 * sidecar "<stem>.json"), all or nothing: each is written as an unnamed file
 * (O_TMPFILE) and synced, and only when every one is complete are they
 * linked into place, so a crash at any point leaves nothing. File systems
 * without O_TMPFILE get a hidden ".<name>.tmp" instead, renamed into place;
 * a crash leaves that, and the next start removes it. On any failure
 * nothing of the snapshot remains.
 */
#ifndef PERFSNAPD_SNAPSHOT_FILES_H
#define PERFSNAPD_SNAPSHOT_FILES_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "procinfo.h"
#include "snapshot_json.h"
#include "snapshot_name.h"
#include "snapshot_perfdata.h"

struct snapshot;

#define SNAPSHOT_MAX_FILES SNAPSHOT_NR_FILES

struct snapshot_files_params {
	const char *directory;
	const char *stem;
	unsigned int formats; /* SNAPSHOT_FILE_BIT() of each data file */
	struct perfdata_meta perfdata;
	int compress; /* nonzero: zstd */
	int nr_cpus;
	struct snapshot_json_meta json; /* files/nr_files are filled in here */
};

struct snapshot_files_result {
	char paths[SNAPSHOT_MAX_FILES][PATH_MAX];
	int nr_paths;
	uint64_t bytes; /* all files together */
	struct perfdata_result perfdata;
	uint64_t tracedat_events, tracedat_skipped;
	/* CLOCK_MONOTONIC ns, per file kind: its bytes written, its fsync done (0: not) */
	uint64_t written_ns[SNAPSHOT_NR_FILES], synced_ns[SNAPSHOT_NR_FILES];
	uint64_t published_ns;	    /* every file linked into place, the directory synced */
	/*
	 * Per file kind, from its start to its fsync's end (ns), less the time
	 * its thread waited for a CPU: running, or blocked (the disk, mostly).
	 */
	uint64_t cost_ns[SNAPSHOT_NR_FILES];
	/* Per file kind, the time its thread ran on a CPU over the same span (ns). */
	uint64_t run_ns[SNAPSHOT_NR_FILES];
	char failed[PATH_MAX + 32]; /* on failure, what could not be written */
};

/* Returns 0 or -errno; *ret describes the files written. */
int snapshot_files__write(const struct snapshot *s, const struct snapshot_files_params *p,
			  struct snapshot_files_result *ret);

#endif
