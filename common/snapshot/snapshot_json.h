/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_json: the sidecar "<stem>.json" that says what a snapshot
 * covers: why it was taken, the files, events per type, and per CPU ring
 * the time span of its data and whether older data had been overwritten.
 */
#ifndef PERFSNAPD_SNAPSHOT_JSON_H
#define PERFSNAPD_SNAPSHOT_JSON_H

#include <stdint.h>
#include <stdio.h>

struct snapshot;

struct snapshot_json_meta {
	const char *stem;
	const char *reason; /* "signal", "ctl:<text>" */
	const char *hostname;
	const char *const *files; /* base names of the snapshot's data files */
	int nr_files;
	uint64_t blind_max_ns; /* longest ring pause */
	uint64_t blind_total_ns;
	uint64_t nr_synthesized;   /* COMM/MMAP2/... records added to name tasks */
	uint64_t nr_tasks_unnamed; /* tasks with events but no known name */
};

/* Writes the JSON document for a sealed snapshot. Returns 0 or -errno. */
int snapshot__write_json(const struct snapshot *s, const struct snapshot_json_meta *meta,
			 FILE *out);

#endif
