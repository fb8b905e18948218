// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_budget: the sizing policy of [capture] window and memory, see
 * ring_budget.h and docs/design.md ("A time window under a memory budget").
 */
#include <errno.h>
#include <stdint.h>

#include "ring_budget.h"

/*
 * A ring is sized for the window plus a quarter: a rate measured over a
 * few seconds is an average, and bursts above it would otherwise cut the
 * window short until the next resize.
 */
#define HEADROOM_NUM 5
#define HEADROOM_DEN 4
/*
 * Hysteresis: a ring that holds the window with a tenth to spare is not
 * grown, and one is shrunk only when it is four times what it needs (two
 * powers of two), so a rate that wobbles around a power of two does not
 * resize it back and forth.
 */
#define ENOUGH_NUM   11
#define ENOUGH_DEN   10
#define SHRINK_RATIO 4

static uint64_t window_bytes(const struct ring_budget *b, uint64_t rate)
{
	return rate * b->window_ms / 1000;
}

static unsigned int clamp_pow2(const struct ring_budget *b, uint64_t pages)
{
	unsigned int n = b->floor_pages;

	while (n < pages && n < b->max_pages)
		n <<= 1;
	return n;
}

unsigned int ring_budget__need(const struct ring_budget *b, uint64_t rate)
{
	uint64_t bytes = window_bytes(b, rate) * HEADROOM_NUM / HEADROOM_DEN;

	return clamp_pow2(b, (bytes + b->page_size - 1) / b->page_size);
}

uint64_t ring_budget__reach_ns(unsigned int pages, unsigned int page_size, uint64_t rate)
{
	uint64_t bytes = (uint64_t)pages * page_size;

	if (!rate)
		return UINT64_MAX;
	/* In ms first: bytes * 1e9 overflows past 18 GiB. */
	return bytes * 1000 / rate * 1000000 + (bytes * 1000 % rate) * 1000000 / rate;
}

static bool holds(const struct ring_budget *b, unsigned int pages, uint64_t rate)
{
	return (uint64_t)pages * b->page_size * ENOUGH_DEN >= window_bytes(b, rate) * ENOUGH_NUM;
}

static uint64_t total(const unsigned int *pages, size_t nr)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nr; i++)
		sum += pages[i] + 1ull; /* the control page */
	return sum;
}

/* The shortest reach of @pages, over the CPUs that write at all. */
static uint64_t min_reach(const struct ring_budget *b, const struct ring_budget_cpu *cpus,
			  const unsigned int *pages, size_t nr)
{
	uint64_t min = UINT64_MAX;

	for (size_t i = 0; i < nr; i++) {
		uint64_t r = ring_budget__reach_ns(pages[i], b->page_size, cpus[i].rate);

		if (r < min)
			min = r;
	}
	return min;
}

/*
 * The budget cannot hold every window: from the floor up, the CPU that
 * reaches least back is doubled while the budget holds it, so the pages
 * go by rate and the shortest reach is as long as powers of two allow.
 */
static void share(const struct ring_budget *b, const struct ring_budget_cpu *cpus, size_t nr,
		  const unsigned int *need, unsigned int *want)
{
	uint64_t used;

	for (size_t i = 0; i < nr; i++)
		want[i] = b->floor_pages;
	used = total(want, nr);
	for (;;) {
		uint64_t best_reach = UINT64_MAX;
		size_t best = nr;

		for (size_t i = 0; i < nr; i++) {
			uint64_t r = ring_budget__reach_ns(want[i], b->page_size, cpus[i].rate);

			if (want[i] >= need[i] || used + want[i] > b->budget_pages)
				continue;
			if (best == nr || r < best_reach) {
				best = i;
				best_reach = r;
			}
		}
		if (best == nr)
			return;
		used += want[best];
		want[best] <<= 1;
	}
}

int ring_budget__plan(const struct ring_budget *b, const struct ring_budget_cpu *cpus, size_t nr,
		      unsigned int *want, bool *short_)
{
	unsigned int need[nr ? nr : 1], cur[nr ? nr : 1];
	bool have_all = true;
	int nr_short = 0;

	if ((uint64_t)nr * (b->floor_pages + 1ull) > b->budget_pages)
		return -EINVAL;
	for (size_t i = 0; i < nr; i++) {
		need[i] = ring_budget__need(b, cpus[i].rate);
		cur[i] = cpus[i].pages;
		have_all = have_all && cur[i];
		/* Hysteresis: keep what holds the window and is not far too big. */
		if (cur[i] >= b->floor_pages && holds(b, cur[i], cpus[i].rate) &&
		    cur[i] < (uint64_t)need[i] * SHRINK_RATIO)
			want[i] = cur[i];
		else
			want[i] = need[i];
	}
	if (total(want, nr) > b->budget_pages) {
		for (size_t i = 0; i < nr; i++)
			want[i] = need[i];
		if (total(want, nr) > b->budget_pages) {
			share(b, cpus, nr, need, want);
			/* Hysteresis again: the rings as they are, if they do nearly as well. */
			if (have_all && total(cur, nr) <= b->budget_pages &&
			    min_reach(b, cpus, cur, nr) >= min_reach(b, cpus, want, nr) / 10 * 9)
				for (size_t i = 0; i < nr; i++)
					want[i] = cur[i];
		}
	}
	for (size_t i = 0; i < nr; i++) {
		bool s = (uint64_t)want[i] * b->page_size < window_bytes(b, cpus[i].rate);

		nr_short += s;
		if (short_)
			short_[i] = s;
	}
	return nr_short;
}
