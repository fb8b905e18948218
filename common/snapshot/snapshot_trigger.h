/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_trigger: what fired a trigger's snapshot, as the sidecar, the
 * log and perfsnapctl tell it.
 */
#ifndef PERFSNAPD_SNAPSHOT_TRIGGER_H
#define PERFSNAPD_SNAPSHOT_TRIGGER_H

#include <stdint.h>

/* What fired a trigger's snapshot ([trigger NAME]); plain data, copied by value. */
struct snapshot_trigger {
	char name[72];
	char kind[8];		  /* "event", "psi", "paired" or "manual" */
	char event[128];	  /* kind event: "signal:signal_generate" */
	uint64_t time;		  /* of the match, recording clock ns; 0 if none */
	uint64_t paused_after_ns; /* from time to the last ring's pause; 0 if not known */
	uint64_t time_mono;	  /* time in CLOCK_MONOTONIC where measured so; 0 if not */
	int cpu, pid, tid;	  /* -1 when not known */
	char comm[32];
	char psi_resource[16];	/* kind psi: "memory" */
	char psi_threshold[48]; /* "some 150ms 2s" */
	char psi_file[256];
	uint64_t before_ms; /* the dump keeps this long before the match (0: all) */
	uint64_t after_ms;  /* and goes on this long after it */
	/* kind paired: the pair over the threshold; event is the end event */
	char start_event[128];
	uint64_t duration_ns, key;
	uint64_t start_time, end_time; /* recording clock ns */
	uint64_t threshold_ns;
	uint64_t pairs, max_ns; /* since the trigger started */
	uint64_t hist[32];	/* log2 of microseconds (log2_hist.h) */
};

#endif
