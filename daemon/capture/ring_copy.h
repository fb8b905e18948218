/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_copy: stops overwrite rings at one instant and copies them out.
 * A pool of copy threads, one per CPU the daemon may run on, each pinned to
 * it, lives as long as the dumper and sleeps between dumps at SCHED_FIFO
 * (when permitted), so that a trigger on a busy machine wakes them at once.
 * In a round the caller wakes the copiers of the round; the last one
 * ready pauses every ring of it back to back (PERF_EVENT_IOC_PAUSE_OUTPUT,
 * nothing in between); then each copies the oldest MiB of each of its
 * rings (where the kernel's next records go first) and resumes it, drops
 * its real-time priority, and copies the rest while the rings run, oldest
 * first, away from the kernel's writes: a ring is paused for the memcpy
 * of 1 MiB whatever its size, and the rings are paused as soon as the
 * copiers run after the trigger, not after the copies' memory is ready.
 * A copy goes to memory kept resident (a memcpy), or, by default, to a
 * memory file of its own that the kernel writes (ring_copy__map_file());
 * the oldest MiB of such a copy is copied into the copier's staging,
 * resident from its start, and written to the file after the resume.
 * Nothing that can block runs while a ring is paused: its part of the
 * destination is resident, the threads wait before, no lock another
 * thread takes, no allocation, no write to disk.
 */
#ifndef PERFSNAPD_RING_COPY_H
#define PERFSNAPD_RING_COPY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring_view;
struct ring_copy_pool;

/* One ring of a round: set ring, buf and fd, the rest is filled in. */
struct ring_copy_item {
	const struct ring_view *ring;
	void *buf; /* data_size bytes: ring_copy__map() memory, or a ring_copy__map_file() view */
	int fd;	   /* -1: the copy is a memcpy to buf; else written here, which buf maps */
	size_t len;
	size_t cut;			/* oldest bytes the kernel overwrote before their copy */
	bool wrapped;			/* older data had been overwritten */
	uint64_t paused_ns, resumed_ns; /* CLOCK_MONOTONIC */
	int error;			/* of its pause or resume, 0 or -errno */
	int copy_error;			/* of the writes to fd, 0 or -errno */
	/*
	 * The copier's own: data_head at the pause, the end of what is left to
	 * copy running, what of the copy is trusted so far.
	 */
	uint64_t head;
	size_t running_to, trusted;
	size_t paused_from;
	void *stage; /* where a copy file's paused part waits for the resume, or NULL */
};

struct ring_copy_stats {
	int nr_threads;
	int rt_error; /* the section did not run at SCHED_FIFO: why (-EPERM, ...), else 0 */
	uint64_t
		prepare_ns; /* copiers woken and ready: from the round's start to its first pause */
	int before_error;   /* what the round's before-pause call returned */
};

/* Starts the copy threads; 0 or -errno. */
int ring_copy_pool__new(size_t stage_bytes, struct ring_copy_pool **ret);
/* The bytes of a ring of @data_size bytes copied while it is paused: at most 1 MiB. */
size_t ring_copy__paused_bytes(size_t data_size);
/* Stops and joins them; no round may be in flight. NULL is a no-op. */
void ring_copy_pool__delete(struct ring_copy_pool *pool);

/*
 * The next round's copier that pauses its rings calls @fn(@arg) just
 * before, on its thread: another recorder's instant marked at the pause's
 * (its result in the round's before_error). For that round only.
 */
void ring_copy_pool__before_pause(struct ring_copy_pool *pool, int (*fn)(void *arg), void *arg);

/*
 * Pauses @items' rings back to back, copies and resumes them, on @pool's
 * threads (one round at a time). Returns 0 or -ENOMEM; each item's error
 * says whether its ring was paused and resumed.
 */
int ring_copy__round(struct ring_copy_pool *pool, struct ring_copy_item *items, size_t nr,
		     struct ring_copy_stats *ret);

/*
 * A thread that will ask for rounds (@fn(@arg)), started at the copiers'
 * real-time priority where the process may: at nice 0 on a busy machine a
 * new thread waits milliseconds for a CPU before it reaches the pause.
 * Else started as the caller's threads are. Returns 0 or -errno.
 */
int ring_copy__start_thread(pthread_t *ret, void *(*fn)(void *), void *arg);
/* The calling thread back to SCHED_OTHER (at its nice value), once its first round is copied. */
void ring_copy__leave_realtime(void);

/* Anonymous memory for copies, in base pages, not faulted in; NULL on error. */
void *ring_copy__map(size_t size);
/* Faults in and writes @size bytes of it at once (memory kept resident between dumps). */
void ring_copy__fault_in(void *buf, size_t size);
/*
 * A memory file of @size bytes for one ring's copy, mapped at
 * @at, which must lie in ring_copy__map() memory (it replaces those
 * pages): its fd, which the round writes through, or -errno. The mapping
 * holds the file; close the fd once the round is done.
 */
int ring_copy__map_file(void *at, size_t size);

#endif
