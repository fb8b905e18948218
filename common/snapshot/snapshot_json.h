/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_json: the sidecar "<stem>.json" that says what a snapshot
 * covers: why it was taken, the files, events per type, and per CPU ring
 * the time span of its data and whether older data had been overwritten.
 */
#ifndef PERFSNAPD_SNAPSHOT_JSON_H
#define PERFSNAPD_SNAPSHOT_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct snapshot;

/* What fired a trigger's snapshot ([trigger NAME]); plain data, copied by value. */
struct snapshot_trigger {
	char name[72];
	char kind[8];	   /* "event", "psi" or "manual" */
	char event[128];   /* kind event: "signal:signal_generate" */
	uint64_t time;	   /* of the match, recording clock ns; 0 if none */
	int cpu, pid, tid; /* -1 when not known */
	char comm[32];
	char psi_resource[16];	/* kind psi: "memory" */
	char psi_threshold[48]; /* "some 150ms 2s" */
	char psi_file[256];
};

struct snapshot_json_meta {
	const char *stem;
	const char *reason; /* "signal", "ctl:<text>" */
	const char *hostname;
	const char *const *files; /* base names of the snapshot's data files */
	int nr_files;
	uint64_t blind_max_ns; /* longest ring pause */
	uint64_t blind_total_ns;
	uint64_t nr_synthesized;		/* COMM/MMAP2/... records added to name tasks */
	uint64_t nr_tasks_unnamed;		/* tasks with events but no known name */
	const struct snapshot_trigger *trigger; /* NULL unless a trigger took it */
	/* How the overwrite rings were stopped (chunks 0..nr_ring_pauses-1). */
	const uint64_t *ring_pause_ns;
	/* The same rings' oldest bytes the kernel overwrote before their copy (NULL: none). */
	const uint64_t *ring_cut_bytes;
	size_t nr_ring_pauses;
	uint64_t pause_spread_ns;  /* first to last ring paused */
	uint64_t newest_spread_ns; /* of the rings' newest records */
	bool copy_realtime;	   /* the pause-copy-resume ran at SCHED_FIFO */
	uint64_t
		copy_fault_ns; /* before the first pause: copy memory mapped, paused parts faulted in */
	uint64_t copy_memory_bytes, copy_spilled_bytes;
	unsigned int copy_rounds;
	bool compressed;	  /* the data files are zstd */
	const char *compress_why; /* compression = auto: why; NULL otherwise */
};

/* Writes the JSON document for a sealed snapshot. Returns 0 or -errno. */
int snapshot_json__write(const struct snapshot *s, const struct snapshot_json_meta *meta,
			 FILE *out);

#endif
