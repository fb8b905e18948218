/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * monotonic: CLOCK_MONOTONIC in nanoseconds, the clock every interval,
 * deadline and stage time of the daemon is measured in.
 */
#ifndef PERFSNAPD_MONOTONIC_H
#define PERFSNAPD_MONOTONIC_H

#include <stdint.h>
#include <time.h>

static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
