/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_budget: how many pages each CPU's overwrite ring gets so that it
 * holds a time window, all rings within one memory budget ([capture]
 * window and memory). A pure function of the byte rates measured and the
 * sizes the rings have now; the daemon measures and resizes.
 */
#ifndef PERFSNAPD_RING_BUDGET_H
#define PERFSNAPD_RING_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring_budget {
	uint64_t window_ms;	  /* what every CPU should hold */
	uint64_t budget_pages;	  /* for the overwrite rings, control pages included */
	unsigned int page_size;	  /* bytes */
	unsigned int floor_pages; /* the smallest ring: a power of two */
	unsigned int max_pages;	  /* the largest: a power of two */
};

struct ring_budget_cpu {
	uint64_t rate;	    /* bytes per second the kernel writes into its ring */
	unsigned int pages; /* data pages now; 0 when it has no ring yet */
};

/*
 * The pages @nr CPUs' rings should have: into @want (powers of two, at
 * least floor_pages), and whether each is short of the window into @short_
 * (may be NULL). Returns how many are short, or -EINVAL when the budget
 * does not hold even floor_pages on every CPU.
 */
int ring_budget__plan(const struct ring_budget *b, const struct ring_budget_cpu *cpus, size_t nr,
		      unsigned int *want, bool *short_);

/* The pages a ring needs to hold the window at @rate, headroom included. */
unsigned int ring_budget__need(const struct ring_budget *b, uint64_t rate);

/* How far back @pages reach at @rate, in ns; UINT64_MAX at rate 0. */
uint64_t ring_budget__reach_ns(unsigned int pages, unsigned int page_size, uint64_t rate);

#endif
