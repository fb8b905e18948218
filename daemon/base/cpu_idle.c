// SPDX-License-Identifier: GPL-2.0-only
/* cpu_idle: see cpu_idle.h. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "cpu_idle.h"

/* Fewer ticks than this (USER_HZ is 100) say nothing of a machine's load. */
#define MIN_TICKS 50

int cpu_idle__read(struct cpu_idle *ret)
{
	unsigned long long v[8];
	char line[512];
	cpu_set_t set;
	unsigned int cpu;
	FILE *f;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -errno;
	f = fopen("/proc/stat", "re");
	if (!f)
		return -errno;
	*ret = (struct cpu_idle){ 0 };
	while (fgets(line, sizeof(line), f)) {
		/* cpuN user nice system idle iowait irq softirq steal ... */
		if (sscanf(line, "cpu%u %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
		    cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &set))
			continue;
		ret->idle += v[3] + v[4];
		for (int i = 0; i < 8; i++)
			ret->total += v[i];
	}
	fclose(f);
	return ret->total ? 0 : -ENODATA;
}

int cpu_idle__pct(const struct cpu_idle *before, const struct cpu_idle *after)
{
	uint64_t total = after->total - before->total, idle = after->idle - before->idle;

	if (after->total < before->total || total < MIN_TICKS || idle > total)
		return -1;
	return (int)(idle * 100 / total);
}
