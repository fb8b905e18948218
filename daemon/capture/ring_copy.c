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
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backward_ring.h"
#include "capture.h"
#include "file_output.h"
#include "monotonic.h"
#include "ring_copy.h"

/*
 * Above the priorities applications' real-time threads commonly take
 * (1-30: a task spinning at such a priority on a CPU would otherwise hold
 * that CPU's copy, and so its ring's pause, until it yields), below the
 * threaded interrupt handlers (50) and the kernel's per-CPU threads (99).
 * A copier runs only for its pause-copy-resume section: one memcpy per
 * ring, milliseconds per dump.
 */
#define COPY_RT_PRIORITY 40
/* Stack the copy path may use, touched before any ring is paused. */
#define STACK_TOUCH	 16384

/*
 * A copier: a thread that lives as long as its pool, pinned to one CPU, and
 * copies the rings of that CPU (and of CPUs the daemon may not run on).
 * Between rounds it sleeps on its own generation word (only the copiers of
 * a round are woken for it, so no other one reads what the round sets up),
 * at SCHED_FIFO when permitted: a sleeping thread takes no CPU, and being
 * at that priority already, it runs the instant it is woken, on a CPU
 * every other task keeps busy.
 */
struct copier {
	pthread_t thread;
	int cpu; /* pinned to */
	struct ring_copy_pool *pool;
	struct ring_copy_item **items; /* this round's: a slice of the pool's slots */
	size_t nr;
	_Atomic unsigned int gen; /* futex word: a round for it, or stop */
	int rt_error;		  /* SCHED_FIFO refused at its start: -errno */
	uint8_t *stage;		  /* resident: its rings' paused parts (stage_for()) */
	size_t stage_size;
};

struct ring_copy_pool {
	struct copier *cps;
	size_t nr_cps, nr_started;
	short by_cpu[CPU_SETSIZE]; /* the copier pinned to a CPU + 1, or 0 */
	size_t stage_bytes;	   /* each copier's staging at its start */
	_Atomic int started;	   /* futex word: copiers through their start */
	bool stop;

	/* The round in flight; set by ring_copy__round before a copier's gen moves. */
	struct ring_copy_item **slots;
	size_t nr_slots;
	struct ring_copy_item *items;
	size_t nr_items;
	int nr_active;		  /* copiers with rings in it */
	_Atomic int ready;	  /* copiers waiting for go */
	_Atomic int go;		  /* futex word: 1 once every ring is paused */
	_Atomic int done;	  /* futex word: copiers through their copies */
	int (*before)(void *arg); /* ring_copy_pool__before_pause(), for the round in flight */
	void *before_arg;
	int before_error;
};

static void futex_wait(void *word, int val)
{
	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(void *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* SCHED_FIFO for the calling thread; 0 or -errno. */
static int set_realtime(void)
{
	struct sched_param sp = { .sched_priority = COPY_RT_PRIORITY };

	return -pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

int ring_copy__start_thread(pthread_t *ret, void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = COPY_RT_PRIORITY };
	pthread_attr_t attr;
	int r = pthread_attr_init(&attr);

	if (r == 0) {
		r = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
		if (r == 0)
			r = pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
		if (r == 0)
			r = pthread_attr_setschedparam(&attr, &sp);
		if (r == 0)
			r = pthread_create(ret, &attr, fn, arg);
		pthread_attr_destroy(&attr);
	}
	/* EPERM without CAP_SYS_NICE or RLIMIT_RTPRIO: as any other thread. */
	if (r != 0)
		r = pthread_create(ret, NULL, fn, arg);
	return -r;
}

void ring_copy__leave_realtime(void)
{
	static const struct sched_param other = { .sched_priority = 0 };

	(void)pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
}

static uint64_t ring_head(const struct ring_view *ring)
{
	const struct perf_event_mmap_page *pc = ring->base;

	return __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
}

/*
 * The bytes of a ring copied while it is paused: its oldest, which the
 * kernel's next records overwrite first once it runs. The rest is copied
 * after the resume, oldest first, in pieces (copy_running_piece()), so
 * that the copier, far faster than a busy CPU writes into its ring, moves
 * away from the kernel: the paused part only has to last from the resume
 * to the end of the first piece's copy (longer with several rings per
 * copier), whatever the ring's size (docs/decisions.md). If the kernel
 * ever did come to a piece before its copy ended, the copy says so by
 * data_head and what it may have touched is cut off
 * (backward_ring__intact()). Smaller rings are copied whole while paused.
 */
#define PAUSED_BYTES  (1u << 20)
/*
 * data_head shows a record only once written: the kernel may be writing
 * more than it says when the copy ends (one record per context it nests
 * in: task, softirq, irq, NMI, each at most 64 KiB), so that much more is
 * assumed written.
 */
#define IN_FLIGHT_MAX (4u << 16)

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* Faults in the pages of [@from, @to) of @buf (page-aligned), in place. */
static void populate(void *buf, size_t from, size_t to)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint8_t *lo = (uint8_t *)buf + (from & ~(page - 1));
	uint8_t *hi = (uint8_t *)buf + ((to + page - 1) & ~(page - 1));

	if (lo >= hi || madvise(lo, (size_t)(hi - lo), MADV_POPULATE_WRITE) == 0)
		return;
	/* Kernels before 5.14 (or memory not from mmap): touch every page. */
	for (volatile uint8_t *p = lo; p < hi; p += page)
		*p = *p;
}

/**
 * ring_copy__map - anonymous memory for ring copies, in base pages
 * @size: bytes
 *
 * Not faulted in: a round faults in each destination itself (see
 * ring_copy__round()). Base pages, also where THP is "always": huge pages
 * are faster only where the memory was just freed. A flight recorder
 * dumps after long idle times, and a host that takes back memory the
 * guest freed (free page reporting, which reports free blocks of
 * huge-page size) backs a huge page anew at its first touch, far slower
 * than base pages (docs/decisions.md).
 *
 * Returns the memory (munmap() it), or NULL with errno set.
 */
void *ring_copy__map(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, size, MADV_NOHUGEPAGE);
	return p;
}

/*
 * Faults in @size bytes from ring_copy__map() at once (resident copy
 * memory), and writes them: on a virtual machine whose host backs a page
 * at the process's first write to it, not at the fault, the first dump
 * would pay that where later ones do not (docs/decisions.md).
 */
void ring_copy__fault_in(void *buf, size_t size)
{
	populate(buf, 0, size);
	memset(buf, 0, size);
}

/**
 * ring_copy__map_file - a memory file for one ring's copy, and a view of it
 * @at: where, page-aligned, in ring_copy__map() memory
 * @size: bytes, the ring's data_size
 *
 * Why a file the kernel writes rather than anonymous memory the copier
 * writes: on a virtual machine, user memory new to the process can cost
 * most at its first write, not at its fault, where the hypervisor backs
 * each page then (pre-faulting it with MADV_POPULATE_WRITE does not help);
 * pages the guest kernel writes through its own mapping are backed sooner,
 * and only the first read of each through the view is left to pay
 * (measured: docs/decisions.md). One file per ring: a write takes the
 * file's lock, and copiers must not wait for each other while their rings
 * are paused.
 * The view is mapped writable: the paused part is copied through it
 * (prepare_paused()), the rest with pwrite.
 *
 * Returns the file's descriptor, or -errno; @at is left as it was then.
 */
int ring_copy__map_file(void *at, size_t size)
{
	int fd = memfd_create("perfsnapd-copy", MFD_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

/*
 * Once the ring runs again, the copier sleeps for RUNNING_BREAK_NS before
 * each piece of the rest, and whatever shares its CPU runs: the task the
 * pause section stopped first of all. At nice -10 (RUNNING_NICE) it would
 * otherwise hold the CPU for the whole rest, and a busy CPU's own task
 * would stand still that long after each dump (the busy benchmark's blind
 * window by time: nothing lost, the task stopped; docs/decisions.md).
 */
#define RUNNING_PIECE	 (2u << 20)
#define RUNNING_BREAK_NS 50000

static void running_break(void)
{
	struct timespec t = { .tv_nsec = RUNNING_BREAK_NS };

	(void)nanosleep(&t, NULL);
}

/* The bytes of a ring of @len bytes copied paused: its oldest PAUSED_BYTES. */
static size_t paused_share(size_t len)
{
	return len < PAUSED_BYTES ? len : PAUSED_BYTES;
}

/*
 * Before the pause, a resident copy's paused part faulted in: the last
 * paused_share() bytes of the copy as long as it is now, and as long as it
 * may grow until the pause (a ring not yet wrapped) by as much again. A
 * copy file's paused part goes to the copier's staging, resident already.
 */
static void prepare_paused(struct ring_copy_item *it)
{
	size_t size = it->ring->data_size;
	size_t len = backward_ring__len(size, ring_head(it->ring));
	size_t part = paused_share(size);
	size_t from = len > part ? len - part : 0, to = len + part < size ? len + part : size;

	if (it->fd < 0)
		populate(it->buf, from, to);
}

/*
 * The paused part of one ring: its oldest bytes, then the resume. A record
 * the kernel was writing when the pause landed is published after as a
 * further drop of data_head: the bytes it took are the oldest ones of the
 * copy, and are cut off rather than trusted.
 */
static void copy_paused(struct ring_copy_item *it)
{
	const struct ring_view *ring = it->ring;
	uint64_t resume_head;
	size_t len, from;

	if (it->error)
		return; /* never paused */
	it->head = ring_head(ring);
	len = backward_ring__len(ring->data_size, it->head);
	from = len - paused_share(len);
	if (it->fd < 0)
		backward_ring__copy_range(it->buf, ring->data, ring->data_size, it->head, from,
					  len);
	else if (it->stage)
		backward_ring__copy_out(it->stage, ring->data, ring->data_size, it->head, from,
					len);
	else /* no staging: the file's pages are taken under the pause */
		it->copy_error = backward_ring__write_range(it->fd, ring->data, ring->data_size,
							    it->head, from, len);
	resume_head = ring_head(ring);
	it->error = capture__pause_ring(ring, false);
	it->resumed_ns = monotonic_ns();
	it->len = len;
	it->running_to = it->paused_from = from;
	it->trusted = backward_ring__intact(len, ring->data_size, len, it->head - resume_head);
}

/*
 * The next piece of the rest of a ring, running again: the oldest not yet
 * copied, then what of the copy to trust (the kernel comes down from the
 * top). Returns whether any is left.
 */
static bool copy_running_piece(struct ring_copy_item *it)
{
	const struct ring_view *ring = it->ring;
	size_t to = it->running_to, from;

	if (!it->resumed_ns || !to || it->copy_error)
		return false; /* never paused, or done */
	from = to > RUNNING_PIECE ? to - RUNNING_PIECE : 0;
	running_break();
	if (it->fd < 0) {
		populate(it->buf, from, to);
		backward_ring__copy_range(it->buf, ring->data, ring->data_size, it->head, from, to);
	} else {
		it->copy_error = backward_ring__write_range(it->fd, ring->data, ring->data_size,
							    it->head, from, to);
	}
	it->trusted = backward_ring__intact(it->trusted, ring->data_size, to,
					    it->head - ring_head(ring) + IN_FLIGHT_MAX);
	it->running_to = from;
	return from > 0;
}

/*
 * A ring's copy, whole: a copy file's view is faulted in at once, as the
 * walks of the copy would page by page, and the copy cut to what is
 * trusted.
 */
static void finish_running(struct ring_copy_item *it)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (!it->resumed_ns)
		return; /* never paused */
	if (it->stage && !it->copy_error)
		it->copy_error = file_output__write_at(it->fd, it->paused_from, it->stage,
						       it->len - it->paused_from);
	if (it->fd >= 0 && !it->copy_error && it->len)
		(void)madvise(it->buf, (it->len + page - 1) & ~(page - 1), MADV_POPULATE_READ);
	it->cut = it->len - it->trusted;
	it->len = it->trusted;
	/* data_head counts down from 0: -head is what was ever written. */
	it->wrapped = (uint64_t)0 - it->head > it->ring->data_size;
}

static void touch_stack(void)
{
	volatile char pad[STACK_TOUCH];

	for (size_t i = 0; i < sizeof(pad); i += 1024)
		pad[i] = 0;
}

/*
 * The last copier of a round to be ready pauses every ring of it: already
 * at its real-time priority, nothing else runs on its CPU between the
 * pauses, and no other thread has to be scheduled first.
 */
static void pause_all(struct ring_copy_pool *pool)
{
	if (pool->before)
		pool->before_error = pool->before(pool->before_arg);
	for (size_t i = 0; i < pool->nr_items; i++) {
		struct ring_copy_item *it = &pool->items[i];

		it->error = capture__pause_ring(it->ring, true);
		it->paused_ns = monotonic_ns();
	}
	atomic_store(&pool->go, 1);
	futex_wake(&pool->go);
}

/*
 * The copier's scheduling after the resume, for the fault-in and copy of
 * the rest: SCHED_OTHER at nice -10, as the dumper's copy thread, so that
 * this longer part (most of the copy's time, most of it page faults) does
 * not take every CPU from the machine's load, nor from its own real-time
 * tasks, at once; at that niceness it still gets nine tenths of a CPU
 * shared with nice-0 tasks, and copies oldest first far faster than the
 * kernel writes (a piece it reaches anyway is cut, not trusted).
 */
#define RUNNING_NICE (-10)

/* Where SCHED_FIFO was refused at its start, a copier stays as it is. */
static void set_running(struct copier *cp, bool realtime)
{
	if (cp->rt_error)
		return;
	if (realtime)
		(void)set_realtime();
	else
		ring_copy__leave_realtime();
}

/*
 * The copier's staging, grown to @size bytes and resident from then on: a
 * copy file's paused part goes there under the pause, and into the file
 * once the ring runs again. Taking the file's pages for it before the
 * pause would put the pause that much later after the trigger: about 1 ms
 * per MiB on a VM whose host backs memory anew at its first touch
 * (docs/decisions.md). Returns whether it holds @size bytes.
 */
static bool stage_reserve(struct copier *cp, size_t size)
{
	uint8_t *p;

	if (cp->stage_size >= size)
		return true;
	p = ring_copy__map(size);
	if (!p)
		return false;
	ring_copy__fault_in(p, size);
	if (cp->stage)
		munmap(cp->stage, cp->stage_size);
	cp->stage = p;
	cp->stage_size = size;
	return true;
}

/*
 * Each copy file's paused part its place in the staging, which grows here
 * where this round has more such rings than it held (no place where it
 * cannot: that part is written under the pause).
 */
static void stage_for(struct copier *cp)
{
	size_t need = 0, off = 0;
	bool ok;

	for (size_t i = 0; i < cp->nr; i++)
		if (cp->items[i]->fd >= 0)
			need += paused_share(cp->items[i]->ring->data_size);
	ok = need && stage_reserve(cp, need);
	for (size_t i = 0; i < cp->nr; i++) {
		struct ring_copy_item *it = cp->items[i];

		it->stage = NULL;
		if (it->fd < 0 || !ok)
			continue;
		it->stage = cp->stage + off;
		off += paused_share(it->ring->data_size);
	}
}

static void run_round(struct copier *cp)
{
	struct ring_copy_pool *pool = cp->pool;
	/*
	 * Read once, now: once this copier has counted itself done, the caller
	 * may already be setting up the next round.
	 */
	const int active = pool->nr_active;

	touch_stack();
	stage_for(cp);
	for (size_t i = 0; i < cp->nr; i++)
		prepare_paused(cp->items[i]);
	if (atomic_fetch_add(&pool->ready, 1) + 1 == active)
		pause_all(pool);
	else
		while (!atomic_load(&pool->go))
			futex_wait(&pool->go, 0);
	for (size_t i = 0; i < cp->nr; i++)
		copy_paused(cp->items[i]);
	set_running(cp, false);
	/* A piece of each ring in turn: each moves away from its kernel at once. */
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < cp->nr; i++)
			more |= copy_running_piece(cp->items[i]);
	}
	for (size_t i = 0; i < cp->nr; i++)
		finish_running(cp->items[i]);
	set_running(cp, true); /* to sleep at it, ready for the next trigger */
	if (atomic_fetch_add(&pool->done, 1) + 1 == active)
		futex_wake(&pool->done);
}

static void *copier_main(void *arg)
{
	struct copier *cp = arg;
	struct ring_copy_pool *pool = cp->pool;
	unsigned int seen = 0, gen;

	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), RUNNING_NICE);
	cp->rt_error = set_realtime();
	touch_stack();
	if (pool->stage_bytes)
		(void)stage_reserve(cp, pool->stage_bytes);
	atomic_fetch_add(&pool->started, 1);
	futex_wake(&pool->started);
	for (;;) {
		while ((gen = atomic_load(&cp->gen)) == seen)
			futex_wait(&cp->gen, (int)seen);
		seen = gen;
		if (pool->stop)
			break;
		run_round(cp);
	}
	return NULL;
}

/* The copier for ring @i on @cpu: the one pinned there, else round robin. */
static struct copier *copier_for(struct ring_copy_pool *pool, int cpu, size_t i)
{
	if (cpu >= 0 && cpu < CPU_SETSIZE && pool->by_cpu[cpu])
		return &pool->cps[pool->by_cpu[cpu] - 1];
	return &pool->cps[i % pool->nr_cps];
}

static int start_copier(struct copier *cp)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int r;

	pthread_attr_init(&attr);
	CPU_ZERO(&set);
	CPU_SET(cp->cpu, &set);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	r = -pthread_create(&cp->thread, &attr, copier_main, cp);
	pthread_attr_destroy(&attr);
	return r;
}

/* The bytes of a ring of @data_size bytes that a round copies while it is paused. */
size_t ring_copy__paused_bytes(size_t data_size)
{
	return paused_share(data_size);
}

/**
 * ring_copy_pool__new - start the copy threads
 * @stage_bytes: each copier's staging for the paused parts of copy files,
 *	resident from its start (0: none until a round needs it)
 * @ret: the pool
 *
 * One thread per CPU the calling thread may run on, pinned to it, each
 * asking for SCHED_FIFO once at its start. Returns 0 or -errno.
 */
int ring_copy_pool__new(size_t stage_bytes, struct ring_copy_pool **ret)
{
	struct ring_copy_pool *pool = calloc(1, sizeof(*pool));
	cpu_set_t allowed;
	int r = 0, n;

	if (!pool)
		return -ENOMEM;
	pool->stage_bytes = stage_bytes;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0 || CPU_COUNT(&allowed) == 0) {
		CPU_ZERO(&allowed);
		CPU_SET(0, &allowed);
		pool->nr_cps = 1;
	} else {
		pool->nr_cps = (size_t)CPU_COUNT(&allowed);
	}
	pool->cps = calloc(pool->nr_cps, sizeof(*pool->cps));
	if (!pool->cps) {
		free(pool);
		return -ENOMEM;
	}
	for (int cpu = 0, k = 0; cpu < CPU_SETSIZE && (size_t)k < pool->nr_cps; cpu++)
		if (CPU_ISSET(cpu, &allowed)) {
			pool->cps[k].cpu = cpu;
			pool->cps[k++].pool = pool;
			pool->by_cpu[cpu] = (short)k;
		}
	for (; pool->nr_started < pool->nr_cps; pool->nr_started++)
		if ((r = start_copier(&pool->cps[pool->nr_started])) < 0)
			break;
	/* Each has its priority and its stack before the first round. */
	while ((n = atomic_load(&pool->started)) < (int)pool->nr_started)
		futex_wait(&pool->started, n);
	if (r < 0) {
		ring_copy_pool__delete(pool);
		return r;
	}
	*ret = pool;
	return 0;
}

/**
 * ring_copy_pool__delete - stop and join the copy threads
 * @pool: the pool, or NULL; no round may be in flight
 */
void ring_copy_pool__delete(struct ring_copy_pool *pool)
{
	if (!pool)
		return;
	pool->stop = true;
	for (size_t k = 0; k < pool->nr_started; k++) {
		atomic_fetch_add(&pool->cps[k].gen, 1);
		futex_wake(&pool->cps[k].gen);
	}
	for (size_t k = 0; k < pool->nr_started; k++)
		pthread_join(pool->cps[k].thread, NULL);
	for (size_t k = 0; k < pool->nr_cps; k++)
		if (pool->cps[k].stage)
			munmap(pool->cps[k].stage, pool->cps[k].stage_size);
	free(pool->slots);
	free(pool->cps);
	free(pool);
}

void ring_copy_pool__before_pause(struct ring_copy_pool *pool, int (*fn)(void *arg), void *arg)
{
	pool->before = fn;
	pool->before_arg = arg;
}

/**
 * ring_copy__round - pause rings at one instant, copy them in parallel
 * @pool: the copy threads
 * @items: the rings and their destinations
 * @nr: how many
 * @ret: what happened
 *
 * Returns 0 or -errno (no ring paused then).
 */
int ring_copy__round(struct ring_copy_pool *pool, struct ring_copy_item *items, size_t nr,
		     struct ring_copy_stats *ret)
{
	uint64_t first = 0, t0 = monotonic_ns();
	size_t used = 0;
	int n, active = 0;

	memset(ret, 0, sizeof(*ret));
	pool->before_error = 0;
	if (nr > pool->nr_slots) {
		struct ring_copy_item **slots = realloc(pool->slots, nr * sizeof(*slots));

		if (!slots) {
			pool->before = NULL;
			return -ENOMEM;
		}
		pool->slots = slots;
		pool->nr_slots = nr;
	}
	for (size_t k = 0; k < pool->nr_cps; k++)
		pool->cps[k].nr = 0;
	for (size_t i = 0; i < nr; i++) {
		copier_for(pool, items[i].ring->cpu, i)->nr++;
		items[i].error = 0;
		items[i].copy_error = 0;
		items[i].stage = NULL;
		items[i].paused_from = 0;
		items[i].len = items[i].cut = 0;
		items[i].paused_ns = items[i].resumed_ns = 0;
	}
	/* Each copier's rings are a slice of the slots, grouped by copier. */
	for (size_t k = 0; k < pool->nr_cps; k++) {
		pool->cps[k].items = pool->slots + used;
		used += pool->cps[k].nr;
		active += pool->cps[k].nr > 0;
		pool->cps[k].nr = 0;
	}
	for (size_t i = 0; i < nr; i++) {
		struct copier *cp = copier_for(pool, items[i].ring->cpu, i);

		cp->items[cp->nr++] = &items[i];
	}
	pool->items = items;
	pool->nr_items = nr;
	pool->nr_active = active;
	atomic_store(&pool->ready, 0);
	atomic_store(&pool->go, 0);
	atomic_store(&pool->done, 0);
	for (size_t k = 0; k < pool->nr_cps; k++)
		if (pool->cps[k].nr) {
			atomic_fetch_add(&pool->cps[k].gen, 1);
			futex_wake(&pool->cps[k].gen);
		}
	if (active) {
		while ((n = atomic_load(&pool->done)) < active)
			futex_wait(&pool->done, n);
	}
	ret->nr_threads = active;
	for (size_t k = 0; k < pool->nr_cps && !ret->rt_error; k++)
		if (pool->cps[k].nr)
			ret->rt_error = pool->cps[k].rt_error;
	for (size_t i = 0; i < nr; i++)
		if (!first || (items[i].paused_ns && items[i].paused_ns < first))
			first = items[i].paused_ns;
	ret->prepare_ns = first > t0 ? first - t0 : 0;
	/* A round with no ring to pause calls it here. */
	if (pool->before && !active)
		pool->before_error = pool->before(pool->before_arg);
	ret->before_error = pool->before_error;
	pool->before = NULL;
	return 0;
}
