// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_tracefs: see capture_tracefs.h. The instance, its mapped rings
 * and the memory a dump copies them into are made at open, so a dump
 * allocates nothing while the instance is stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <perf/cpumap.h>

#include "byte_buffer.h"
#include "capture-internal.h"
#include "capture_copy.h"
#include "capture_tracefs.h"
#include "config.h"
#include "dump_figures.h"
#include "ftrace_instance.h"
#include "ftrace_pages.h"
#include "ftrace_ring.h"
#include "log.h"
#include "monotonic.h"
#include "procinfo.h"
#include "snapshot.h"

#define INSTANCE_PREFIX "perfsnapd"
/* Instances this daemon made: the next one's number. On the loop thread only. */
static unsigned int instances;

/* Above the ids the kernel gives perf events, so the two never meet in a snapshot. */
#define ID_BASE	  (1ull << 56)
/* The id the dump's marker gets in ftrace_pages' table: read, never written out. */
#define MARK_ID	  (ID_BASE - 1)
#define MARK_TEXT "perfsnapd: dump\n"

struct tracefs_cpu {
	int cpu;
	struct ftrace_ring *ring;
	void *held; /* the last take's sub-buffers, oldest first */
	size_t held_size, held_len;
	uint64_t overrun;   /* per_cpu stats at the take: the ring had wrapped */
	uint64_t lost;	    /* ... and events it could not store */
	unsigned int pages; /* its size asked (buffer_size_kb), in pages */
	/* [capture] window, at the last look: how far back it reached, and whether it had wrapped. */
	uint64_t reach_ns;
	bool wrapped;
};

struct capture_tracefs {
	struct ftrace_instance *fi;
	struct tracefs_cpu *cpus;
	size_t nr_cpus;
	struct capture_window_cpu *win; /* [capture] window's looks, by cpus[]; NULL without */
	uint64_t opened_ns;		/* CLOCK_MONOTONIC: recording since (a resize keeps it) */
	/* The tracepoints it records, in [capture] order. */
	char **names;
	struct perf_event_attr *attrs;
	uint64_t *ids;
	size_t nr_events;
	struct ftrace_pages_event *types; /* sorted by type; the marker's too */
	size_t nr_types;
	uint64_t take_ns;	/* the last copy of every ring */
	uint64_t blind_ns;	/* ... how long the instance stopped recording: 0 but */
	uint64_t stopped_at_ns; /* ... the instant it ends at (CLOCK_MONOTONIC) */
	bool marked;		/* ... where its marker was written */
};

bool capture_tracefs__takes(const struct event_spec *e)
{
	const struct perf_event_attr *a = &e->attr;

	return e->is_tracepoint && e->overwrite && !a->freq && a->sample_period == 1 &&
	       !(a->sample_type & PERF_SAMPLE_CALLCHAIN);
}

/* The ftrace clock of [capture] clock, or NULL where none is it. */
static const char *ftrace_clock(enum config_clock clock)
{
	static const char *const names[] = {
		[CONFIG_CLOCK_PERF] = "perf", /* perf_clock(): the kernel's local clock */
		[CONFIG_CLOCK_MONOTONIC] = "mono",
		[CONFIG_CLOCK_BOOTTIME] = "boot",
	};

	return (size_t)clock < sizeof(names) / sizeof(names[0]) ? names[clock] : NULL;
}

static int cmp_type(const void *a, const void *b)
{
	const struct ftrace_pages_event *x = a, *y = b;

	return x->type < y->type ? -1 : x->type > y->type;
}

/*
 * Each tracepoint's samples carry the address of its __traceiter_ function
 * as their ip, where perf's carry the tracepoint's caller: ftrace records
 * no ip, and perf report then names the tracepoint rather than address 0.
 * A syscalls: event is one of sys_enter's or sys_exit's. Where kallsyms
 * hides the addresses, the ip is 0.
 */
static void set_ips(struct capture_tracefs *t)
{
	char **names = calloc(t->nr_events ? t->nr_events : 1, sizeof(*names));
	uint64_t *addrs = calloc(t->nr_events ? t->nr_events : 1, sizeof(*addrs));

	for (size_t i = 0; names && addrs && i < t->nr_events; i++) {
		const char *event = strchr(t->names[i], ':') + 1;

		if (!strncmp(t->names[i], "syscalls:", 9))
			event = !strncmp(event, "sys_enter", 9) ? "sys_enter" : "sys_exit";
		if (asprintf(&names[i], "__traceiter_%s", event) < 0)
			names[i] = NULL;
		if (!names[i])
			goto out;
	}
	if (names && addrs &&
	    procinfo__kernel_addrs((const char *const *)names, t->nr_events, addrs) == 0)
		for (size_t i = 0; i < t->nr_events; i++)
			t->types[i].ip = addrs[i];
out:
	for (size_t i = 0; names && i < t->nr_events; i++)
		free(names[i]);
	free(names);
	free(addrs);
}

/* The events it takes: names, the attrs their samples describe, ids. */
static int take_events(struct capture_tracefs *t, const struct perfsnapd_config *cfg)
{
	size_t n = 0;
	int r;

	for (size_t i = 0; i < cfg->nr_events; i++)
		n += capture_tracefs__takes(&cfg->events[i]);
	if (!n)
		return 0;
	t->names = calloc(n, sizeof(*t->names));
	t->attrs = calloc(n, sizeof(*t->attrs));
	t->ids = calloc(n, sizeof(*t->ids));
	t->types = calloc(n + 1, sizeof(*t->types));
	if (!t->names || !t->attrs || !t->ids || !t->types)
		return -ENOMEM;
	for (size_t i = 0; i < cfg->nr_events; i++) {
		const struct event_spec *e = &cfg->events[i];
		struct perf_event_attr *a = &t->attrs[t->nr_events];

		if (!capture_tracefs__takes(e))
			continue;
		if (!(t->names[t->nr_events] = strdup(e->name)))
			return -ENOMEM;
		*a = e->attr;
		a->sample_type = FTRACE_PAGES_SAMPLE_TYPE;
		a->write_backward = 0;
		a->disabled = 0;
		t->ids[t->nr_events] = ID_BASE + t->nr_events;
		/* A tracepoint's perf config is its ftrace type. */
		t->types[t->nr_events] = (struct ftrace_pages_event){ .type = (uint16_t)a->config,
								      .id = t->ids[t->nr_events] };
		t->nr_events++;
	}
	t->nr_types = t->nr_events;
	set_ips(t);
	/* The dump's marker: where an instance cannot say its type, no end is set. */
	r = ftrace_instance__event_type("ftrace", "print");
	if (r > 0)
		t->types[t->nr_types++] = (struct ftrace_pages_event){ .type = (uint16_t)r,
								       .id = MARK_ID };
	qsort(t->types, t->nr_types, sizeof(*t->types), cmp_type);
	return 0;
}

static int enable_events(struct capture_tracefs *t)
{
	for (size_t i = 0; i < t->nr_events; i++) {
		char system[256];
		const char *colon = strchr(t->names[i], ':');
		int r;

		if (!colon || (size_t)(colon - t->names[i]) >= sizeof(system))
			return -EINVAL;
		memcpy(system, t->names[i], (size_t)(colon - t->names[i]));
		system[colon - t->names[i]] = '\0';
		r = ftrace_instance__enable_event(t->fi, system, colon + 1, NULL);
		if (r < 0)
			return log__errno(r, "tracefs instance %s: cannot enable %s",
					  ftrace_instance__name(t->fi), t->names[i]);
	}
	return 0;
}

/* Maps @cpu's ring and takes memory for its copy, faulted in now. */
static int map_cpu(struct capture_tracefs *t, struct tracefs_cpu *tc)
{
	int fd = ftrace_instance__open_cpu_raw(t->fi, tc->cpu);
	int r;

	if (fd < 0)
		return fd;
	r = ftrace_ring__map(fd, &tc->ring);
	close(fd);
	if (r < 0)
		return r;
	tc->held_size = ftrace_ring__bytes(tc->ring);
	tc->held = mmap(NULL, tc->held_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	if (tc->held == MAP_FAILED) {
		tc->held = NULL;
		return -ENOMEM;
	}
	/* A dump must not fault in its copy memory while the instance is stopped. */
	(void)madvise(tc->held, tc->held_size, MADV_POPULATE_WRITE);
	return 0;
}

static void unmap_cpu(struct tracefs_cpu *tc)
{
	ftrace_ring__unmap(tc->ring);
	tc->ring = NULL;
	if (tc->held)
		munmap(tc->held, tc->held_size);
	tc->held = NULL;
	tc->held_size = tc->held_len = 0;
}

static int open_cpus(struct capture_tracefs *t, const struct perf_cpu_map *cpus, size_t ring_kb)
{
	int nr = perf_cpu_map__nr(cpus);

	t->cpus = calloc((size_t)(nr > 0 ? nr : 1), sizeof(*t->cpus));
	if (!t->cpus)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		struct tracefs_cpu *tc = &t->cpus[t->nr_cpus];
		int r;

		tc->cpu = perf_cpu_map__cpu(cpus, i).cpu;
		if (tc->cpu < 0)
			continue;
		t->nr_cpus++;
		tc->pages = (unsigned int)(ring_kb * 1024 / (size_t)sysconf(_SC_PAGESIZE));
		r = ftrace_instance__set_cpu_kb(t->fi, tc->cpu, ring_kb);
		if (r == 0)
			r = map_cpu(t, tc);
		if (r < 0)
			return r;
	}
	return 0;
}

void capture_tracefs__close(struct capture_tracefs *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->cpus && i < t->nr_cpus; i++)
		unmap_cpu(&t->cpus[i]);
	free(t->cpus);
	free(t->win);
	if (t->fi)
		(void)ftrace_instance__destroy(t->fi);
	for (size_t i = 0; t->names && i < t->nr_events; i++)
		free(t->names[i]);
	free(t->names);
	free(t->attrs);
	free(t->ids);
	free(t->types);
	free(t);
}

/* Makes the instance; -ENODEV and the like where the kernel cannot. */
static int open_instance(struct capture_tracefs *t, const struct perfsnapd_config *cfg,
			 const struct perf_cpu_map *cpus, size_t ring_kb)
{
	const char *clock = ftrace_clock(cfg->clock);
	int r = ftrace_instance__remove_leftovers(INSTANCE_PREFIX);

	if (r > 0)
		log_notice("removed %d tracefs instance%s left by a perfsnapd that was killed", r,
			   r == 1 ? "" : "s");
	if (!clock || !ftrace_instance__has_clock(clock))
		return -EOPNOTSUPP;
	/* A reload opens its instance before the old one goes: each has a number. */
	r = ftrace_instance__create(INSTANCE_PREFIX, getpid(), instances++, &t->fi);
	if (r == 0)
		r = ftrace_instance__set_clock(t->fi, clock);
	if (r == 0 && cfg->window_ms &&
	    !(t->win = calloc((size_t)(perf_cpu_map__nr(cpus) > 0 ? perf_cpu_map__nr(cpus) : 1),
			      sizeof(*t->win))))
		r = -ENOMEM;
	t->opened_ns = monotonic_ns();
	if (r == 0)
		r = open_cpus(t, cpus, ring_kb);
	if (r == 0)
		r = enable_events(t);
	return r;
}

int capture_tracefs__open(const struct perfsnapd_config *cfg, const struct perf_cpu_map *cpus,
			  size_t ring_kb, struct capture_tracefs **ret)
{
	struct capture_tracefs *t;
	int r;

	*ret = NULL;
	if (cfg->backend == CONFIG_BACKEND_PERF)
		return 0;
	t = calloc(1, sizeof(*t));
	if (!t)
		return log__errno(-ENOMEM, "capture");
	r = take_events(t, cfg);
	if (r == 0 && !t->nr_events) {
		capture_tracefs__close(t);
		return 0;
	}
	if (r == 0)
		r = open_instance(t, cfg, cpus, ring_kb);
	if (r == -ENOMEM) {
		capture_tracefs__close(t);
		return log__errno(r, "capture");
	}
	if (r < 0 && cfg->backend == CONFIG_BACKEND_AUTO) {
		log_notice("backend auto: tracepoints recorded by perf: a tracefs instance "
			   "cannot record them here (%s)",
			   strerror(-r));
		capture_tracefs__close(t);
		return 0;
	}
	if (r < 0) {
		capture_tracefs__close(t);
		return log__errno(r, "backend tracefs: cannot record in a tracefs instance; "
				     "backend = perf records the same events");
	}
	log_notice("backend %s: %zu tracepoint%s recorded in tracefs instance %s",
		   cfg->backend == CONFIG_BACKEND_AUTO ? "auto" : "tracefs", t->nr_events,
		   t->nr_events == 1 ? "" : "s", ftrace_instance__name(t->fi));
	*ret = t;
	return 0;
}

int capture_tracefs__start(struct capture_tracefs *t)
{
	int r = ftrace_instance__set_on(t->fi, true);

	return r < 0 ? log__errno(r, "tracefs instance %s: cannot start it",
				  ftrace_instance__name(t->fi)) :
		       0;
}

const char *capture_tracefs__name(const struct capture_tracefs *t)
{
	return ftrace_instance__name(t->fi);
}

static size_t tracefs_nr_rings(const void *impl)
{
	return ((const struct capture_tracefs *)impl)->nr_cpus;
}

static uint64_t tracefs_rings_bytes(const void *impl)
{
	const struct capture_tracefs *t = impl;
	uint64_t sum = 0;

	for (size_t i = 0; i < t->nr_cpus; i++)
		sum += t->cpus[i].held_size;
	return sum;
}

static int tracefs_declare(const void *impl, struct snapshot *s)
{
	const struct capture_tracefs *t = impl;
	int r = 0;

	for (size_t i = 0; r == 0 && i < t->nr_events; i++)
		r = snapshot__add_event(s, &t->attrs[i], t->names[i], &t->ids[i], 1);
	return r;
}

/* Every CPU's sub-buffers into its held memory, and its stats after. */
static int copy_rings(struct capture_tracefs *t)
{
	uint64_t from = monotonic_ns();
	int r = 0;

	for (size_t i = 0; r == 0 && i < t->nr_cpus; i++) {
		struct tracefs_cpu *tc = &t->cpus[i];
		struct ftrace_ring_copy_info info;

		tc->held_len = 0;
		if (tc->ring)
			r = ftrace_ring__copy(tc->ring, tc->held, tc->held_size, &tc->held_len,
					      &info);
	}
	t->take_ns = monotonic_ns() - from;
	for (size_t i = 0; i < t->nr_cpus; i++) {
		struct ftrace_cpu_stats st;

		if (ftrace_instance__cpu_stats(t->fi, t->cpus[i].cpu, &st) == 0) {
			t->cpus[i].overrun = st.overrun;
			t->cpus[i].lost = st.commit_overrun + st.dropped_events;
		}
	}
	return r;
}

/*
 * The take marks the instant the snapshot ends at, in the events' clock,
 * before any perf ring pauses; the copy stage then copies the rings as
 * the kernel writes on (an event a writer commits during the copy is left
 * out whole, as the commit is read first, and a sub-buffer it moves into
 * and resets is left out: ftrace_ring__copy()), and the dump crops every
 * ring at the marker, so what came after it is left for the next dump.
 * Nothing goes unrecorded, where a stop (tracing_on 0) would leave the
 * instance blind for the whole copy. Without a marker there is no such
 * instant: the instance stops, and is copied at once.
 */
static int tracefs_take(void *impl)
{
	struct capture_tracefs *t = impl;
	int r = ftrace_instance__mark(t->fi, MARK_TEXT);

	t->marked = r == 0;
	t->stopped_at_ns = monotonic_ns();
	t->blind_ns = 0;
	if (t->marked)
		return 0;
	r = ftrace_instance__set_on(t->fi, false);
	if (r == 0)
		r = copy_rings(t);
	if (ftrace_instance__set_on(t->fi, true) < 0 && r == 0)
		r = -EIO;
	t->blind_ns = t->take_ns;
	return r;
}

struct put_ctx {
	struct byte_buffer *out;
	uint64_t mark_time; /* the newest marker's: the last take's */
};

/* A record of an event; the dumps' markers are read for their time, not kept. */
static int put_record(void *ctx, const void *rec, size_t len)
{
	struct put_ctx *p = ctx;
	/* header, id, ip, time: FTRACE_PAGES_SAMPLE_TYPE */
	const uint64_t *w = (const uint64_t *)rec;

	if (len >= 32 && w[1] == MARK_ID) {
		if (w[3] > p->mark_time)
			p->mark_time = w[3];
		return 0;
	}
	return byte_buffer__put(p->out, rec, len);
}

/* One CPU's held pages as a chunk of samples, in memory the copy stage frees. */
static int copy_cpu(const struct capture_tracefs *t, const struct tracefs_cpu *tc,
		    struct capture_copy *c, struct snapshot *s, uint64_t *mark_time)
{
	struct byte_buffer b = { 0 };
	struct put_ctx p = { .out = &b };
	struct ftrace_pages_info info;
	int r;

	r = ftrace_pages__records(tc->held, tc->held_len, ftrace_ring__subbuf_size(tc->ring),
				  t->types, t->nr_types, UINT64_MAX, put_record, &p, &info);
	if (p.mark_time > *mark_time)
		*mark_time = p.mark_time;
	if (r == 0 && b.len)
		r = capture_copy__hold(c, b.data);
	else
		byte_buffer__fini(&b);
	if (r < 0)
		return r;
	return snapshot__add_chunk_memory(s, tc->cpu, false, b.len ? b.data : NULL, b.len,
					  tc->overrun != 0);
}

static int tracefs_copy(void *impl, struct capture_copy *c, struct snapshot *s,
			const char *spill_dir, struct dump_figures *f)
{
	struct capture_tracefs *t = impl;
	size_t first = snapshot__nr_chunks(s);
	uint64_t mark_time = 0;
	int r = 0;

	(void)spill_dir;
	if (first + t->nr_cpus > f->nr_rings)
		return -EINVAL;
	if (t->marked && (r = copy_rings(t)) < 0)
		return r;
	for (size_t i = 0; r == 0 && i < t->nr_cpus; i++) {
		struct dump_ring_figures *ring = &f->rings[first + i];

		r = copy_cpu(t, &t->cpus[i], c, s, &mark_time);
		ring->cpu = t->cpus[i].cpu;
		ring->instance = true;
		ring->instance_lost = t->cpus[i].lost;
		ring->pause_ns = t->blind_ns;
		f->copy_bytes += t->cpus[i].held_len;
	}
	/* Every CPU of the instance ends at one instant, before any perf ring paused. */
	if (t->nr_cpus && (!f->first_pause_at_ns || t->stopped_at_ns < f->first_pause_at_ns))
		f->first_pause_at_ns = t->stopped_at_ns;
	if (t->nr_cpus && t->stopped_at_ns > f->last_pause_at_ns)
		f->last_pause_at_ns = t->stopped_at_ns;
	/* The perf rings paused after it: their records after the marker are left out. */
	if (t->marked && mark_time && (!f->end_time || mark_time < f->end_time))
		f->end_time = mark_time;
	return r;
}

static int tracefs_cpu_down(void *impl, int cpu, uint64_t now, uint64_t now_mono)
{
	/* The instance keeps an offline CPU's ring and its history. */
	(void)impl;
	(void)cpu;
	(void)now;
	(void)now_mono;
	return 0;
}

static int tracefs_cpu_up(void *impl, int cpu, uint64_t now)
{
	struct capture_tracefs *t = impl;

	(void)now;
	for (size_t i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].cpu == cpu)
			return t->cpus[i].ring ? 0 : map_cpu(t, &t->cpus[i]);
	return 0;
}

static struct tracefs_cpu *cpu_of(const struct capture_tracefs *t, int cpu, size_t *idx)
{
	for (size_t i = 0; i < t->nr_cpus; i++)
		if (t->cpus[i].cpu == cpu && t->cpus[i].ring) {
			*idx = i;
			return &t->cpus[i];
		}
	return NULL;
}

/*
 * [capture] window reads each ring's stats: the kernel counts the events
 * it ever wrote (entries and overrun) and the bytes it holds, so what it
 * wrote is the events at the mean size of those it holds; the oldest
 * event's time gives the reach, in the instance's clock.
 */
static void tracefs_window_look(void *impl, uint64_t now)
{
	struct capture_tracefs *t = impl;

	for (size_t i = 0; t->win && i < t->nr_cpus; i++) {
		struct tracefs_cpu *tc = &t->cpus[i];
		struct ftrace_cpu_stats st;
		uint64_t written;

		if (!tc->ring || ftrace_instance__cpu_stats(t->fi, tc->cpu, &st) < 0)
			continue;
		written = st.entries ? (uint64_t)((double)(st.entries + st.overrun) *
						  (double)st.bytes / (double)st.entries) :
				       0;
		capture_window__note(&t->win[i], now, written, tc);
		tc->wrapped = st.overrun > 0;
		if (tc->wrapped && st.oldest_ns && st.now_ns > st.oldest_ns)
			tc->reach_ns = st.now_ns - st.oldest_ns;
		else
			tc->reach_ns = now > t->opened_ns ? now - t->opened_ns : 0;
	}
}

static bool tracefs_window_ring(const void *impl, int cpu, uint64_t window_ms, uint64_t now,
				struct capture_window_info *ret)
{
	const struct capture_tracefs *t = impl;
	const struct tracefs_cpu *tc;
	size_t i;

	if (!t->win || !(tc = cpu_of(t, cpu, &i)))
		return false;
	memset(ret, 0, sizeof(*ret));
	ret->cpu = cpu;
	ret->pages = tc->pages;
	ret->has_rate = t->win[i].nr_looks > 0;
	ret->rate = t->win[i].rate;
	ret->plan_rate = capture_window__plan_rate(&t->win[i], window_ms, now);
	ret->reach_ns = tc->reach_ns;
	ret->wrapped = tc->wrapped;
	return true;
}

/*
 * The kernel resizes only a ring nobody maps (EBUSY), so it is unmapped,
 * resized and mapped again. It records throughout: a grow keeps every
 * event, a shrink the newest, as the smaller ring would have; no copy
 * runs meanwhile (the loop thread's, with no dump in flight).
 */
static int tracefs_resize(void *impl, int cpu, unsigned int pages, uint64_t now)
{
	struct capture_tracefs *t = impl;
	struct tracefs_cpu *tc;
	size_t i;
	int r, m;

	(void)now;
	for (i = 0; i < t->nr_cpus && t->cpus[i].cpu != cpu; i++)
		;
	if (i == t->nr_cpus)
		return -ENOENT;
	tc = &t->cpus[i];
	unmap_cpu(tc);
	r = ftrace_instance__set_cpu_kb(t->fi, cpu,
					(size_t)pages * (size_t)sysconf(_SC_PAGESIZE) / 1024);
	m = map_cpu(t, tc);
	if (m < 0)
		unmap_cpu(tc); /* unread until the CPU comes up again: the caller says so */
	if (r == 0) {
		tc->pages = pages;
		/* Its counts go on, but their mean changes: measured again. */
		if (t->win)
			t->win[i].ring_base = NULL;
	}
	return r < 0 ? r : m;
}

const struct capture_backend_ops capture_tracefs__ops = {
	.name = "tracefs",
	.nr_rings = tracefs_nr_rings,
	.rings_bytes = tracefs_rings_bytes,
	.declare = tracefs_declare,
	.take = tracefs_take,
	.copy = tracefs_copy,
	.cpu_down = tracefs_cpu_down,
	.cpu_up = tracefs_cpu_up,
	.window_look = tracefs_window_look,
	.window_ring = tracefs_window_ring,
	.resize = tracefs_resize,
};
