/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log2_hist: a latency distribution in power-of-two buckets of
 * microseconds, as the BPF latency tools print it ("usecs : count
 * distribution", one line per bucket from the first to the last
 * non-empty). Bucket i holds values v with floor(log2(v)) == i, v = 0 in
 * bucket 0. The BPF program fills the same layout (LOG2_HIST_BUCKETS).
 */
#ifndef PERFSNAPD_LOG2_HIST_H
#define PERFSNAPD_LOG2_HIST_H

#include <stddef.h>
#include <stdint.h>

#define LOG2_HIST_BUCKETS 32 /* up to 2^32 us, 71 minutes; longer goes in the last */

struct log2_hist {
	uint64_t count[LOG2_HIST_BUCKETS];
};

/* The bucket of @us. */
unsigned int log2_hist__bucket(uint64_t us);
/* Counts one value of @ns nanoseconds. */
void log2_hist__add_ns(struct log2_hist *h, uint64_t ns);
/* Sum of all buckets. */
uint64_t log2_hist__total(const struct log2_hist *h);
/*
 * Line @i (from 0) of the printed distribution into @buf, e.g.
 * "      2048 -> 4095       : 100      |****************************************|",
 * or the header for i = -1. Returns the number of bucket lines (0 when
 * empty), so that a caller loops over them.
 */
int log2_hist__line(const struct log2_hist *h, int i, char *buf, size_t size);

#endif
