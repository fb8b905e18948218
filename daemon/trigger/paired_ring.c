// SPDX-License-Identifier: GPL-2.0-only
/*
 * paired_ring: the user-space fallback of the paired triggers. See
 * paired_ring.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "config.h"
#include "log.h"
#include "log2_hist.h"
#include "monotonic.h"
#include "pair_table.h"
#include "paired_ring.h"
#include "perf_internals.h"
#include "perf_record.h"
#include "recording_clock.h"

#define RING_PAGES   CONFIG_PAIRED_RING_PAGES /* per CPU, both sides */
#define READ_EVERY   10			      /* ms */
#define TABLE_SLOTS  65536
/*
 * A record stamped before a pass began may still be on its way into a ring
 * on another CPU (stamped, not yet committed; a virtual CPU the host
 * preempts there stays so for milliseconds). As perf's rounds do, a pass
 * pairs only what was stamped before the previous pass began, so each
 * record has a whole pass to arrive, and at least this long.
 */
#define IN_FLIGHT_NS 1000000ULL

struct pending {
	uint64_t time, key;
	int32_t cpu, pid;
	bool end;
};

struct paired_ring {
	const struct trigger_spec *sp;
	struct recording_clock *clock; /* NULL: the records' clock is CLOCK_MONOTONIC */
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evlist *evlist;
	struct perf_evsel *evsel[2]; /* start, end */
	const uint64_t *ids[2];
	size_t nr_ids[2];
	bool opened, mapped;
	struct event *timer;
	struct pair_table table;
	struct pending *batch;
	size_t nr_batch, cap_batch;
	struct paired_stats stats;
	uint64_t lost, lost_passes;
	uint64_t prev_now;  /* when the previous pass began */
	uint64_t paired_to; /* records stamped up to this are paired */
	uint64_t late;	    /* starts that came after their time was paired */
	paired_outlier_fn fn;
	void *arg;
};

static int64_t read_field(const void *raw, uint32_t raw_size, const struct trigger_field *f)
{
	int64_t v = 0;

	if (f->offset + f->size > raw_size)
		return 0;
	switch (f->size) {
	case 1: {
		uint8_t x;

		memcpy(&x, (const char *)raw + f->offset, 1);
		v = f->is_signed ? (int8_t)x : x;
		break;
	}
	case 2: {
		uint16_t x;

		memcpy(&x, (const char *)raw + f->offset, 2);
		v = f->is_signed ? (int16_t)x : x;
		break;
	}
	case 4: {
		uint32_t x;

		memcpy(&x, (const char *)raw + f->offset, 4);
		v = f->is_signed ? (int32_t)x : (int64_t)x;
		break;
	}
	default:
		memcpy(&v, (const char *)raw + f->offset, 8);
		break;
	}
	return v;
}

static int side_of(const struct paired_ring *pr, uint64_t id)
{
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < pr->nr_ids[s]; i++)
			if (pr->ids[s][i] == id)
				return s;
	return -1;
}

static void take(struct paired_ring *pr, const struct perf_event_header *h)
{
	struct perf_record_info info;
	const struct trigger_side *side;
	struct pending *p;
	uint64_t id;
	int s;

	if (perf_record__id(h, &id) < 0 || (s = side_of(pr, id)) < 0 ||
	    perf_record__parse_sample(h, perf_evsel__attr(pr->evsel[s])->sample_type, &info) < 0 ||
	    !info.raw)
		return;
	if (pr->nr_batch == pr->cap_batch) {
		size_t cap = pr->cap_batch ? pr->cap_batch * 2 : 4096;
		struct pending *n = realloc(pr->batch, cap * sizeof(*n));

		if (!n)
			return;
		pr->batch = n;
		pr->cap_batch = cap;
	}
	side = s ? &pr->sp->end : &pr->sp->start;
	p = &pr->batch[pr->nr_batch++];
	p->time = info.time;
	p->key = (uint64_t)read_field(info.raw, info.raw_size, &side->key);
	p->cpu = (int32_t)info.cpu;
	p->pid = (int32_t)info.tid;
	p->end = s == 1;
}

static int by_time(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	/* A start and an end at one time: the start first. */
	return (int)x->end - (int)y->end;
}

/*
 * Pairs the records stamped up to @horizon in time order; the later ones
 * wait for the next pass. The rings are read one after another, so a pass
 * may hold a CPU's end and not yet the start another CPU wrote after its
 * ring was read: paired out of order, the end would miss its start, and the
 * start would wait for a later end of its key, a duration that never was.
 */
static void pair_batch(struct paired_ring *pr, uint64_t horizon)
{
	struct log2_hist *h = (struct log2_hist *)pr->stats.hist;
	size_t i;

	qsort(pr->batch, pr->nr_batch, sizeof(*pr->batch), by_time);
	for (i = 0; i < pr->nr_batch && pr->batch[i].time <= horizon; i++) {
		const struct pending *p = &pr->batch[i];
		struct pair_start st = {
			.key = p->key, .time = p->time, .cpu = p->cpu, .pid = p->pid
		};
		struct paired_outlier o;
		uint64_t d;

		/*
		 * A late start may belong to an end already passed over, or may
		 * have replaced a start still waiting: its key pairs nothing
		 * until its next start, rather than a duration that never was.
		 * A late end is paired as any (its start was at or before it).
		 */
		if (!p->end && p->time <= pr->paired_to) {
			pr->late++;
			pair_table__end(&pr->table, p->key, UINT64_MAX, &st);
			continue;
		}
		if (!p->end) {
			pair_table__start(&pr->table, &st);
			continue;
		}
		if (!pair_table__end(&pr->table, p->key, p->time, &st))
			continue;
		d = p->time - st.time;
		pr->stats.pairs++;
		if (d > pr->stats.max_ns)
			pr->stats.max_ns = d;
		log2_hist__add_ns(h, d);
		if (d < pr->sp->threshold_ns)
			continue;
		pr->stats.outliers++;
		o = (struct paired_outlier){ .key = p->key,
					     .start_time = st.time,
					     .end_time = p->time,
					     .start_cpu = (__u32)st.cpu,
					     .end_cpu = (__u32)p->cpu,
					     .start_pid = (__u32)st.pid,
					     .end_pid = (__u32)p->pid };
		pr->fn(pr->arg, &o);
	}
	memmove(pr->batch, pr->batch + i, (pr->nr_batch - i) * sizeof(*pr->batch));
	pr->nr_batch -= i;
	pr->paired_to = horizon;
}

/*
 * The pass's horizon: the previous pass's start, and IN_FLIGHT_NS before
 * now at the latest; all there is if now is unknown.
 */
static uint64_t pass_horizon(struct paired_ring *pr)
{
	uint64_t now = 0, prev = pr->prev_now;

	if (!pr->clock)
		now = monotonic_ns();
	else if (recording_clock__now(pr->clock, &now) < 0)
		return UINT64_MAX;
	pr->prev_now = now;
	now = now > IN_FLIGHT_NS ? now - IN_FLIGHT_NS : 0;
	return prev < now ? prev : now;
}

/*
 * A pass that lost records pairs nothing: a lost end would leave its start
 * to pair with a later end of the same key, a duration that never was.
 * The starts waiting are dropped with it, and the records kept back.
 */
static void read_rings(struct paired_ring *pr)
{
	uint64_t horizon = pass_horizon(pr);
	struct perf_mmap *map;
	union perf_event *ev;
	uint64_t lost = 0;

	perf_evlist__for_each_mmap(pr->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			if (ev->header.type == PERF_RECORD_SAMPLE)
				take(pr, &ev->header);
			else if (ev->header.type == PERF_RECORD_LOST)
				lost += ev->lost.lost;
			perf_mmap__consume(map);
		}
	}
	if (!lost) {
		pair_batch(pr, horizon);
		return;
	}
	if (!pr->lost)
		log_warning("trigger %s: its rings overflowed (%llu events lost): pairs across "
			    "the loss are dropped; further losses are counted in status",
			    pr->sp->name, (unsigned long long)lost);
	pr->lost += lost;
	pr->lost_passes++;
	pr->nr_batch = 0;
	pr->paired_to = horizon;
	pair_table__fini(&pr->table);
	if (pair_table__init(&pr->table, TABLE_SLOTS) < 0)
		log_warning("trigger %s: out of memory: it pairs nothing more", pr->sp->name);
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	read_rings(arg);
}

int paired_ring__new(const struct trigger_spec *sp, const char *cpus, struct recording_clock *clock,
		     struct event_base *base, paired_outlier_fn fn, void *arg,
		     struct paired_ring **ret)
{
	const struct trigger_side *sides[2] = { &sp->start, &sp->end };
	struct timeval every = { .tv_usec = READ_EVERY * 1000 };
	struct paired_ring *pr = calloc(1, sizeof(*pr));
	int r = -ENOMEM;

	if (!pr)
		return -ENOMEM;
	pr->sp = sp;
	pr->clock = clock;
	pr->fn = fn;
	pr->arg = arg;
	pr->cpus = perf_internals__online_cpus(cpus);
	pr->threads = perf_thread_map__new_dummy();
	pr->evlist = perf_evlist__new();
	if (!pr->cpus || !pr->threads || !pr->evlist ||
	    pair_table__init(&pr->table, TABLE_SLOTS) < 0)
		goto fail;
	for (int s = 0; s < 2; s++) {
		struct perf_event_attr attr = sides[s]->event.attr;

		attr.disabled = 1;
		attr.watermark = 1;
		attr.wakeup_watermark = RING_PAGES * 4096 / 2;
		attr.sample_type |= PERF_SAMPLE_RAW | PERF_SAMPLE_TIME | PERF_SAMPLE_TID |
				    PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
		pr->evsel[s] = perf_evsel__new(&attr);
		if (!pr->evsel[s])
			goto fail;
		perf_evlist__add(pr->evlist, pr->evsel[s]);
	}
	perf_evlist__set_maps(pr->evlist, pr->cpus, pr->threads);
	r = perf_evlist__open(pr->evlist);
	if (r < 0) {
		log__errno(r, "trigger %s: cannot open %s and %s", sp->name, sp->start.event.name,
			   sp->end.event.name);
		goto fail;
	}
	pr->opened = true;
	for (int s = 0; s < 2; s++) {
		if (!sides[s]->filter)
			continue;
		r = perf_internals__set_filter(pr->evsel[s], sides[s]->filter);
		if (r < 0) {
			r = -EINVAL;
			goto fail;
		}
	}
	r = perf_evlist__mmap(pr->evlist, RING_PAGES);
	if (r < 0) {
		r = log__errno(r ? r : -errno, "trigger %s: cannot map its rings", sp->name);
		goto fail;
	}
	pr->mapped = true;
	for (int s = 0; s < 2; s++)
		pr->nr_ids[s] = perf_internals__ids(pr->evsel[s], &pr->ids[s]);
	pr->timer = event_new(base, -1, EV_PERSIST, on_timer, pr);
	if (!pr->timer || event_add(pr->timer, &every) < 0) {
		r = -ENOMEM;
		goto fail;
	}
	perf_evlist__enable(pr->evlist);
	*ret = pr;
	return 0;
fail:
	paired_ring__delete(pr);
	return r;
}

void paired_ring__delete(struct paired_ring *pr)
{
	if (!pr)
		return;
	if (pr->timer)
		event_free(pr->timer);
	if (pr->evlist) {
		if (pr->opened)
			perf_evlist__disable(pr->evlist);
		if (pr->mapped)
			perf_evlist__munmap(pr->evlist);
		perf_evlist__close(pr->evlist);
		for (int s = 0; s < 2; s++)
			if (pr->evsel[s])
				perf_internals__release_evsel(pr->evsel[s]);
		perf_evlist__delete(pr->evlist);
	}
	perf_cpu_map__put(pr->cpus);
	perf_thread_map__put(pr->threads);
	pair_table__fini(&pr->table);
	free(pr->batch);
	free(pr);
}

void paired_ring__stats(struct paired_ring *pr, struct paired_stats *ret, uint64_t *ret_lost,
			uint64_t *ret_late)
{
	/* As of the last read: reading here could fire the trigger from within its fire. */
	*ret = pr->stats;
	*ret_lost = pr->lost;
	*ret_late = pr->late;
}
