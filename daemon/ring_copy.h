/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_copy: stops overwrite rings at one instant and copies them out. One
 * thread pauses every ring of a round back to back (PERF_EVENT_IOC_PAUSE_OUTPUT,
 * nothing in between); copy threads, at most one per CPU the daemon may run
 * on and each pinned to the CPU of the rings it copies, then copy them in
 * parallel, each ring resumed as soon as its own copy is done. Before the
 * pause each copy thread faults in its rings' destinations, on its own CPU
 * and in parallel with the others. The pause-copy-resume section
 * runs at SCHED_FIFO when permitted, and only that section. Nothing that
 * can block runs while a ring is paused: the destination is faulted in
 * before, the threads are created and waiting before, no lock, no
 * allocation, no file write.
 */
#ifndef PERFSNAPD_RING_COPY_H
#define PERFSNAPD_RING_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring_view;

/* One ring of a round: set ring and buf, the rest is filled in. */
struct ring_copy_item {
	const struct ring_view *ring;
	void *buf; /* data_size bytes: faulted in by its copy thread before the pause */
	size_t len;
	bool wrapped;			/* older data had been overwritten */
	uint64_t paused_ns, resumed_ns; /* CLOCK_MONOTONIC */
	int error;			/* of its pause or resume, 0 or -errno */
};

struct ring_copy_stats {
	int nr_threads;
	bool realtime;	     /* the section ran at SCHED_FIFO */
	int rt_error;	     /* why not: -EPERM, ...; 0 if it did or was not asked */
	uint64_t section_ns; /* first pause to last resume */
	uint64_t prepare_ns; /* threads started, memory faulted in: before the first pause */
};

/*
 * Pauses @items' rings back to back, copies and resumes them. @realtime:
 * try SCHED_FIFO for the section. Returns 0 or -errno (thread creation);
 * each item's error says whether its ring was paused and resumed.
 */
int ring_copy__round(struct ring_copy_item *items, size_t nr, bool realtime,
		     struct ring_copy_stats *ret);

/* Faults in @size bytes of anonymous memory (huge pages where available). */
void ring_copy__fault_in(void *buf, size_t size);

#endif
