/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cpu_idle: how much of the CPUs perfsnapd may run on (its affinity) was
 * left idle, from /proc/stat's per-CPU lines, for compression = auto to
 * see whether CPU time is to be had before it has measured anything.
 */
#ifndef PERFSNAPD_CPU_IDLE_H
#define PERFSNAPD_CPU_IDLE_H

#include <stdint.h>

struct cpu_idle {
	uint64_t idle;	/* idle and iowait, in USER_HZ ticks */
	uint64_t total; /* every state */
};

/* Reads the counters of the CPUs the calling thread may run on. Returns 0 or -errno. */
int cpu_idle__read(struct cpu_idle *ret);

/* The idle share between two reads, in percent; -1 if too little time passed. */
int cpu_idle__pct(const struct cpu_idle *before, const struct cpu_idle *after);

#endif
