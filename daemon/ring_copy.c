// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_copy: the one-instant pause of a round of rings and their parallel
 * copy. See ring_copy.h.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backward_ring.h"
#include "capture.h"
#include "ring_copy.h"

/* Above every SCHED_OTHER task, below the kernel's own real-time threads. */
#define COPY_RT_PRIORITY 1
/* Stack the copy path may use, touched before any ring is paused. */
#define STACK_TOUCH	 16384

struct round {
	_Atomic int ready; /* copy threads waiting for go */
	_Atomic int go;	   /* futex word: 1 once every ring is paused */
	bool realtime;
};

struct copier {
	pthread_t thread;
	int cpu; /* pinned to, or -1 */
	struct round *round;
	struct ring_copy_item **items;
	size_t nr;
	int rt_error;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void futex_wait(_Atomic int *word, int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* SCHED_FIFO on (or back to SCHED_OTHER for) the calling thread; 0 or -errno. */
static int set_realtime(bool on)
{
	struct sched_param sp = { .sched_priority = on ? COPY_RT_PRIORITY : 0 };

	return -pthread_setschedparam(pthread_self(), on ? SCHED_FIFO : SCHED_OTHER, &sp);
}

static uint64_t ring_head(const struct ring_view *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/*
 * Copies one paused ring and resumes it. A record the kernel was writing
 * when the pause landed is published after the copy as a further drop of
 * data_head; the bytes it took were the oldest ones in the copy, so they
 * are cut off rather than trusted.
 */
static void copy_one(struct ring_copy_item *it)
{
	const struct ring_view *ring = it->ring;
	uint64_t head, head_after;
	size_t len;
	int r;

	if (it->error)
		return; /* never paused */
	head = ring_head(ring);
	len = backward_ring__copy(it->buf, ring->data, ring->data_size, head);
	head_after = ring_head(ring);
	r = capture__pause_ring(ring, false);
	it->resumed_ns = now_ns();
	if (head_after != head) {
		uint64_t clobbered = head - head_after;

		len = clobbered >= ring->data_size	? 0 :
		      len > ring->data_size - clobbered ? ring->data_size - clobbered :
							  len;
	}
	/* data_head counts down from 0: -head is what was ever written. */
	it->wrapped = (uint64_t)0 - head > ring->data_size;
	it->len = len;
	it->error = r;
}

static void touch_stack(void)
{
	volatile char pad[STACK_TOUCH];

	for (size_t i = 0; i < sizeof(pad); i += 1024)
		pad[i] = 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/*
 * ring_copy__fault_in - fault in a destination: transparent huge pages where the kernel has
 * them (on this VM 64 MiB take 15-40 ms instead of 105-155 ms in 4 KiB
 * faults). A populated page is left as it is.
 */
void ring_copy__fault_in(void *buf, size_t size)
{
	long page = sysconf(_SC_PAGESIZE);

	(void)madvise(buf, size, MADV_HUGEPAGE); /* a hint */
	if (madvise(buf, size, MADV_POPULATE_WRITE) == 0)
		return;
	/* Kernels before 5.14 (or memory not from mmap): touch every page. */
	for (size_t off = 0; off < size; off += (size_t)page)
		((volatile uint8_t *)buf)[off] = ((volatile uint8_t *)buf)[off];
}

static void *copier_main(void *arg)
{
	struct copier *cp = arg;
	struct round *rd = cp->round;

	touch_stack();
	for (size_t i = 0; i < cp->nr; i++)
		ring_copy__fault_in(cp->items[i]->buf, cp->items[i]->ring->data_size);
	if (rd->realtime)
		cp->rt_error = set_realtime(true);
	atomic_fetch_add(&rd->ready, 1);
	futex_wake(&rd->ready);
	while (!atomic_load(&rd->go))
		futex_wait(&rd->go, 0);
	for (size_t i = 0; i < cp->nr; i++)
		copy_one(cp->items[i]);
	if (rd->realtime && !cp->rt_error)
		set_realtime(false);
	return NULL;
}

/* The copier for @cpu, a new one while fewer than @max exist, else round robin. */
static struct copier *copier_for(struct copier *cps, size_t *nr, size_t max, int cpu,
				 const cpu_set_t *allowed, size_t i)
{
	bool ok = cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, allowed);

	for (size_t k = 0; k < *nr; k++)
		if (ok && cps[k].cpu == cpu)
			return &cps[k];
	if (*nr < max) {
		cps[*nr].cpu = ok ? cpu : -1;
		return &cps[(*nr)++];
	}
	return &cps[i % *nr];
}

static int start_copier(struct copier *cp)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int r;

	pthread_attr_init(&attr);
	if (cp->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cp->cpu, &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	r = -pthread_create(&cp->thread, &attr, copier_main, cp);
	pthread_attr_destroy(&attr);
	return r;
}

/**
 * ring_copy__round - pause rings at one instant, copy them in parallel
 * @items: the rings and their destinations
 * @nr: how many
 * @realtime: run the section at SCHED_FIFO if permitted
 * @ret: what happened
 *
 * Returns 0 or -errno (no ring paused then).
 */
int ring_copy__round(struct ring_copy_item *items, size_t nr, bool realtime,
		     struct ring_copy_stats *ret)
{
	struct round rd = { .realtime = realtime };
	struct copier *cps = calloc(nr ? nr : 1, sizeof(*cps));
	struct ring_copy_item **slots = calloc(nr ? nr : 1, sizeof(*slots));
	size_t *owner = calloc(nr ? nr : 1, sizeof(*owner));
	size_t nr_cps = 0, max, started = 0, used = 0;
	uint64_t first = 0, last = 0, t0 = now_ns();
	cpu_set_t allowed;
	int r = 0, self_rt = 0;

	memset(ret, 0, sizeof(*ret));
	(void)t0;
	if (!cps || !slots || !owner) {
		r = -ENOMEM;
		goto out;
	}
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		CPU_ZERO(&allowed);
	max = CPU_COUNT(&allowed) > 0 ? (size_t)CPU_COUNT(&allowed) : 1;
	/* Each copier's items are a slice of @slots, grouped by copier. */
	for (size_t i = 0; i < nr; i++) {
		struct copier *cp = copier_for(cps, &nr_cps, max, items[i].ring->cpu, &allowed, i);

		owner[i] = (size_t)(cp - cps);
		cp->nr++;
		items[i].error = 0;
		items[i].len = 0;
	}
	for (size_t k = 0; k < nr_cps; k++) {
		cps[k].items = slots + used;
		used += cps[k].nr;
		cps[k].nr = 0;
		cps[k].round = &rd;
	}
	for (size_t i = 0; i < nr; i++) {
		struct copier *cp = &cps[owner[i]];

		cp->items[cp->nr++] = &items[i];
	}
	for (; started < nr_cps; started++)
		if ((r = start_copier(&cps[started])) < 0)
			break;
	if (r < 0) {
		/* Let the ones started go with nothing paused. */
		for (size_t i = 0; i < nr; i++)
			items[i].error = -ECANCELED;
		atomic_store(&rd.go, 1);
		futex_wake(&rd.go);
		goto join;
	}
	/* Every copier waits, at its priority, with its stack touched. */
	for (int n; (n = atomic_load(&rd.ready)) < (int)nr_cps;)
		futex_wait(&rd.ready, n);
	ret->prepare_ns = now_ns() - t0;
	if (realtime)
		self_rt = set_realtime(true);
	/* The instant: nothing between the pauses but reading the clock. */
	for (size_t i = 0; i < nr; i++) {
		items[i].error = capture__pause_ring(items[i].ring, true);
		items[i].paused_ns = now_ns();
	}
	atomic_store(&rd.go, 1);
	futex_wake(&rd.go);
	if (realtime && !self_rt)
		set_realtime(false);
join:
	for (size_t k = 0; k < started; k++)
		pthread_join(cps[k].thread, NULL);
	ret->nr_threads = (int)nr_cps;
	ret->rt_error = self_rt;
	for (size_t k = 0; k < started && !ret->rt_error; k++)
		ret->rt_error = cps[k].rt_error;
	ret->realtime = realtime && !ret->rt_error;
	for (size_t i = 0; i < nr; i++) {
		if (!first || (items[i].paused_ns && items[i].paused_ns < first))
			first = items[i].paused_ns;
		if (items[i].resumed_ns > last)
			last = items[i].resumed_ns;
	}
	ret->section_ns = last > first ? last - first : 0;
out:
	free(cps);
	free(slots);
	free(owner);
	return r;
}
