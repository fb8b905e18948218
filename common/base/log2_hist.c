// SPDX-License-Identifier: GPL-2.0-only
/*
 * log2_hist: power-of-two buckets of microseconds, printed one line per
 * bucket with a bar scaled to the largest. See log2_hist.h.
 */
#include <stdio.h>
#include <string.h>

#include "log2_hist.h"

#define BAR_WIDTH 40

unsigned int log2_hist__bucket(uint64_t us)
{
	unsigned int b = 0;

	while (us > 1 && b < LOG2_HIST_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

void log2_hist__add_ns(struct log2_hist *h, uint64_t ns)
{
	h->count[log2_hist__bucket(ns / 1000)]++;
}

uint64_t log2_hist__total(const struct log2_hist *h)
{
	uint64_t n = 0;

	for (unsigned int i = 0; i < LOG2_HIST_BUCKETS; i++)
		n += h->count[i];
	return n;
}

/* First and last non-empty buckets; false when all are empty. */
static int span(const struct log2_hist *h, unsigned int *first, unsigned int *last)
{
	int found = 0;

	for (unsigned int i = 0; i < LOG2_HIST_BUCKETS; i++) {
		if (!h->count[i])
			continue;
		if (!found)
			*first = i;
		*last = i;
		found = 1;
	}
	return found;
}

int log2_hist__line(const struct log2_hist *h, int i, char *buf, size_t size)
{
	unsigned int first = 0, last = 0, b;
	uint64_t max = 0, low, high;
	char bar[BAR_WIDTH + 1];
	size_t stars;

	if (size)
		buf[0] = '\0';
	if (!span(h, &first, &last))
		return 0;
	if (i < 0) {
		snprintf(buf, size, "%20s : %-8s %s", "usecs", "count", "distribution");
		return (int)(last - first + 1);
	}
	b = first + (unsigned int)i;
	if (b > last)
		return (int)(last - first + 1);
	for (unsigned int k = first; k <= last; k++)
		if (h->count[k] > max)
			max = h->count[k];
	low = b ? 1ull << b : 0;
	high = (2ull << b) - 1;
	stars = (size_t)(h->count[b] * BAR_WIDTH / max);
	memset(bar, '*', stars);
	memset(bar + stars, ' ', BAR_WIDTH - stars);
	bar[BAR_WIDTH] = '\0';
	snprintf(buf, size, "%10llu -> %-10llu : %-8llu |%s|", (unsigned long long)low,
		 (unsigned long long)high, (unsigned long long)h->count[b], bar);
	return (int)(last - first + 1);
}
