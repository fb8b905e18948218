// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_window: [capture] window and memory. Each CPU's overwrite ring
 * is a patch of its own (capture-internal.h), so that each has its own
 * size; here their byte rates are measured and a ring is replaced by one
 * of another size without losing history: the new ring records before
 * the old one stops, the old one stays mapped (disabled) until the new
 * one reaches back the window, and a dump meanwhile takes both, the
 * records they both hold once. See capture.h; ring_sizer.c decides.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perf/cpumap.h>
#include <perf/evlist.h>

#include "backward_ring.h"
#include "capture-internal.h"
#include "capture.h"
#include "capture_tracefs.h"
#include "config.h"
#include "log.h"
#include "monotonic.h"
#include "perf_record.h"
#include "ring_budget.h"

/* The largest ring a window gives a CPU: buffer_size's maximum. */
#define WINDOW_MAX_PAGES (1u << 18)
/*
 * The newest bytes of a replaced ring searched for records its successor
 * also holds: they overlap only from the successor's enable to the old
 * one's disable, a few system calls.
 */
#define OVERLAP_MAX	 (1u << 20)

unsigned int capture__window_max_pages(void)
{
	return WINDOW_MAX_PAGES;
}

/**
 * capture__window_start_pages - each CPU's ring at open
 * @cfg: a configuration with window and memory
 *
 * Before any rate is known, an equal share: the rings are then resized
 * one by one, and a busy CPU that would start at the floor would lose the
 * most history exactly while the rates are measured.
 */
unsigned int capture__window_start_pages(const struct perfsnapd_config *cfg)
{
	struct perf_cpu_map *cpus = perf_cpu_map__new(cfg->cpus);
	int nr = cpus ? perf_cpu_map__nr(cpus) : 1;
	int64_t left = config__window_pages(cfg, nr > 0 ? (unsigned int)nr : 1);
	unsigned int pages = CONFIG_WINDOW_FLOOR_PAGES;
	bool perf = false, instance = false;
	uint64_t rings;

	perf_cpu_map__put(cpus);
	/* A CPU has a perf ring, an instance ring (capture_tracefs.c), or both. */
	for (size_t i = 0; i < cfg->nr_events; i++) {
		bool takes = cfg->backend != CONFIG_BACKEND_PERF &&
			     capture_tracefs__takes(&cfg->events[i]);

		instance |= takes;
		perf |= !takes && cfg->events[i].overwrite;
	}
	rings = (uint64_t)(nr > 0 ? nr : 1) * (perf && instance ? 2 : 1);
	if (left < 0 || nr <= 0)
		return pages;
	while ((uint64_t)(pages * 2 + 1) * rings <= (uint64_t)left && pages < WINDOW_MAX_PAGES)
		pages *= 2;
	return pages;
}

static int add_patch(struct capture *c, struct capture_patch *p)
{
	struct capture_patch **grown = realloc(c->patches, (c->nr_patches + 1) * sizeof(*grown));

	if (!grown)
		return -ENOMEM;
	c->patches = grown;
	c->patches[c->nr_patches++] = p;
	return 0;
}

/* A ring of @pages for @cpu, its overwrite events only. Returns 0 or -errno. */
static int open_ring(struct capture *c, int cpu, unsigned int pages, struct capture_patch **ret)
{
	struct capture_patch *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->cpu = cpu;
	p->aux_only = true;
	p->pages = pages;
	r = capture__open_patch(c, p);
	if (r == 0)
		r = add_patch(c, p);
	if (r < 0) {
		capture__close_patch(p, c->nr_events);
		return r;
	}
	*ret = p;
	return 0;
}

/**
 * capture__open_window - each CPU's overwrite ring, of c->ring_pages
 * @c: a capture being opened, CPUs set, events added
 * @cfg: its configuration, with window
 *
 * Returns 0 or -errno (logged, but for a locked-memory refusal when
 * c->quiet_mlock: capture__open() then tries smaller).
 */
int capture__open_window(struct capture *c, const struct perfsnapd_config *cfg)
{
	uint64_t now = monotonic_ns();
	struct perf_cpu cpu;
	int idx, r = 0;

	c->windowed = true;
	c->window_ms = cfg->window_ms;
	c->win = calloc((size_t)c->nr_cpu_slots, sizeof(*c->win));
	if (!c->win)
		return log__errno(-ENOMEM, "capture");
	if (!c->aux_used)
		return 0;
	perf_cpu_map__for_each_cpu(cpu, idx, c->cpus) {
		struct capture_patch *p;

		r = open_ring(c, cpu.cpu, c->ring_pages, &p);
		if (r == -EPERM && c->quiet_mlock) {
			c->mlock_refused = true;
			return r;
		}
		if (r < 0)
			return log__errno(r, "cannot open cpu%d's overwrite ring of %u pages",
					  cpu.cpu, c->ring_pages);
		p->opened_ns = now;
	}
	r = capture__refill_rings(c);
	return r < 0 ? log__errno(r, "capture") : 0;
}

bool capture__windowed(const struct capture *c)
{
	return c->windowed;
}

uint64_t capture__window_ms(const struct capture *c)
{
	return c->window_ms;
}

/* @cpu's ring the kernel writes (replaced: the one a resize replaced), or NULL. */
static struct capture_patch *ring_of(const struct capture *c, int cpu, bool replaced)
{
	for (size_t i = 0; i < c->nr_patches; i++) {
		struct capture_patch *p = c->patches[i];

		if (p->cpu == cpu && p->opened[1] && p->replaced == replaced)
			return p;
	}
	return NULL;
}

static int view_of(const struct capture_patch *p, struct ring_view *v)
{
	return perf_internals__rings(p->aux, 1, v, 1) == 1 ? 0 : -ENOENT;
}

static uint64_t head_of(const struct ring_view *v)
{
	return __atomic_load_n(&((const struct perf_event_mmap_page *)v->base)->data_head,
			       __ATOMIC_ACQUIRE);
}

/**
 * capture_window__note - one look at a ring: its rate, smoothed
 * @w: the ring's window state
 * @now: CLOCK_MONOTONIC ns
 * @written: the bytes it has written since it opened
 * @ring: which ring that is: a new one's count starts again, the rate stays
 *
 * The rate is smoothed, rising faster than it falls: a ring sized for a
 * rate that just fell holds more than the window, one sized for a rate
 * that just rose, less.
 */
void capture_window__note(struct capture_window_cpu *w, uint64_t now, uint64_t written,
			  const void *ring)
{
	uint64_t inst;

	if (w->nr_seen == CAPTURE_WINDOW_LOOKS) {
		w->nr_seen--;
		memmove(w->seen_ns, w->seen_ns + 1, w->nr_seen * sizeof(w->seen_ns[0]));
		memmove(w->seen_written, w->seen_written + 1,
			w->nr_seen * sizeof(w->seen_written[0]));
		memmove(w->seen_rate, w->seen_rate + 1, w->nr_seen * sizeof(w->seen_rate[0]));
	}
	w->seen_ns[w->nr_seen] = now;
	w->seen_rate[w->nr_seen] = w->rate;
	w->seen_written[w->nr_seen++] = written;
	if (w->ring_base != ring || !w->looked_ns || now <= w->looked_ns || written < w->written) {
		w->ring_base = ring;
		w->written = written;
		w->looked_ns = now;
		return;
	}
	inst = (written - w->written) * 1000000000ull / (now - w->looked_ns);
	if (!w->nr_looks)
		w->rate = inst;
	else if (inst > w->rate)
		w->rate = (w->rate + inst) / 2;
	else
		w->rate = (w->rate * 3 + inst) / 4;
	w->nr_looks++;
	w->written = written;
	w->looked_ns = now;
	w->seen_rate[w->nr_seen - 1] = w->rate;
}

/* How far each live perf ring's data_head moved since the last look. */
void capture_window__look(struct capture *c, uint64_t now)
{
	for (int cpu = 0; c->windowed && cpu < c->nr_cpu_slots; cpu++) {
		struct capture_patch *p = ring_of(c, cpu, false);
		struct ring_view v;

		/* data_head counts down from 0: -head is what was ever written. */
		if (p && view_of(p, &v) == 0)
			capture_window__note(&c->win[cpu], now, (uint64_t)0 - head_of(&v), v.base);
	}
}

/*
 * The rate a ring is sized for: the highest smoothed rate of the last
 * window (as far back as the looks go). A rate that rises is followed at
 * once; one that falls shrinks the ring only once it has stayed low for a
 * whole window, so a load that pauses and comes back finds its ring.
 */
uint64_t capture_window__plan_rate(const struct capture_window_cpu *w, uint64_t window_ms,
				   uint64_t now)
{
	uint64_t max = w->rate, since = window_ms * 1000000ull;

	for (unsigned int i = 0; i < w->nr_seen; i++)
		if (now - w->seen_ns[i] <= since && w->seen_rate[i] > max)
			max = w->seen_rate[i];
	return max;
}

static bool wrapped(const struct capture_patch *p)
{
	struct ring_view v;

	return view_of(p, &v) == 0 && (uint64_t)0 - head_of(&v) > v.data_size;
}

static bool sample_time(const struct capture *c, const struct perf_event_header *h, uint64_t *ret);

/* Copies the record at @off of a ring's data (it may wrap) into @buf; NULL if it does not fit. */
static const struct perf_event_header *record_at(const struct ring_view *v, uint64_t off, void *buf,
						 size_t size)
{
	const uint8_t *data = v->data;
	size_t mask = v->data_size - 1, at = (size_t)(off & mask), first;
	struct perf_event_header h;

	memcpy(&h, data + at, sizeof(h)); /* 8-aligned: never split by the wrap */
	if (h.size < sizeof(h) || h.size > size)
		return NULL;
	first = v->data_size - at < h.size ? v->data_size - at : h.size;
	memcpy(buf, data + at, first);
	memcpy((uint8_t *)buf + first, data, h.size - first);
	return buf;
}

/*
 * The time between the newest and the oldest sample a wrapped ring holds
 * now, read in place: headers from data_head on, the kernel writing
 * meanwhile. Where it may have overwritten the oldest sample before it was
 * read, -EAGAIN. Returns 0 or -errno.
 */
static int span_of(const struct capture *c, const struct ring_view *v, uint64_t *ret)
{
	static _Thread_local uint64_t buf[(64 << 10) / 8];
	uint64_t head = head_of(v), newest, oldest, off = 0, first = UINT64_MAX, last = 0, end = 0;
	const struct perf_event_header *h;

	/* Headers only: the newest and the oldest sample are parsed, not those between. */
	while (off < v->data_size) {
		struct perf_event_header hh;

		memcpy(&hh, (const uint8_t *)v->data + ((head + off) & (v->data_size - 1)),
		       sizeof(hh));
		if (hh.size < sizeof(hh) || off + hh.size > v->data_size)
			break;
		if (hh.type == PERF_RECORD_SAMPLE) {
			if (first == UINT64_MAX)
				first = off;
			last = off;
			end = off + hh.size;
		}
		off += hh.size;
	}
	if (first == UINT64_MAX)
		return -ENODATA;
	if (!(h = record_at(v, head + first, buf, sizeof(buf))) || !sample_time(c, h, &newest) ||
	    !(h = record_at(v, head + last, buf, sizeof(buf))) || !sample_time(c, h, &oldest))
		return -ENODATA;
	/* What the kernel wrote since: it overwrote as much of the oldest end. */
	if (end + (head - head_of(v)) > v->data_size)
		return -EAGAIN;
	*ret = newest > oldest ? newest - oldest : 0;
	return 0;
}

/*
 * How far back @p's ring reaches now: a wrapped ring's newest sample less
 * its oldest, else all since it opened.
 */
static uint64_t reach_of(const struct capture *c, const struct capture_patch *p, uint64_t now)
{
	const struct capture_window_cpu *w = &c->win[p->cpu];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ring_view v;
	uint64_t since = now > p->opened_ns ? now - p->opened_ns : 0, written, oldest;

	if (view_of(p, &v) < 0)
		return 0;
	written = (uint64_t)0 - head_of(&v);
	if (written < v.data_size || !w->nr_looks) {
		/* Not wrapped: all of it since it opened, and what it replaced. */
		const struct capture_patch *old = ring_of(c, p->cpu, true);

		return since + (old ? old->replaced_reach_ns : 0);
	}
	for (int tries = 0; tries < 3; tries++) {
		uint64_t span;
		int r = span_of(c, &v, &span);

		if (r == 0)
			return span;
		if (r != -EAGAIN)
			break;
	}
	/*
	 * Else its oldest byte was written when the ring had written
	 * data_size bytes less than now: found between two looks.
	 */
	oldest = written - v.data_size;
	/* Looks of this ring only: the rates before it stay for the plan. */
	for (unsigned int i = w->nr_seen; i-- > 1 && w->seen_ns[i - 1] > p->opened_ns;)
		if (w->seen_written[i - 1] <= oldest && oldest <= w->seen_written[i]) {
			uint64_t dw = w->seen_written[i] - w->seen_written[i - 1];
			uint64_t dt = w->seen_ns[i] - w->seen_ns[i - 1];
			uint64_t at = w->seen_ns[i - 1] +
				      (dw ? (uint64_t)((double)(oldest - w->seen_written[i - 1]) *
						       (double)dt / (double)dw) :
					    0);

			return now > at ? now - at : 0;
		}
	/* Further back than the looks kept: from the rate. */
	return ring_budget__reach_ns((unsigned int)(v.data_size / page), (unsigned int)page,
				     w->rate);
}

/**
 * capture_window__cpu - a CPU's perf ring as [capture] window sees it
 * @c: a windowed capture
 * @cpu: the CPU
 * @now: CLOCK_MONOTONIC ns
 * @ret: filled
 *
 * Returns false when @cpu has no overwrite ring.
 */
bool capture_window__cpu(const struct capture *c, int cpu, uint64_t now,
			 struct capture_window_info *ret)
{
	const struct capture_patch *p, *old;

	if (!c->windowed || cpu < 0 || cpu >= c->nr_cpu_slots || !(p = ring_of(c, cpu, false)))
		return false;
	old = ring_of(c, cpu, true);
	memset(ret, 0, sizeof(*ret));
	ret->cpu = cpu;
	ret->pages = p->pages;
	ret->has_rate = c->win[cpu].nr_looks > 0;
	ret->rate = c->win[cpu].rate;
	ret->plan_rate = capture_window__plan_rate(&c->win[cpu], c->window_ms, now);
	ret->reach_ns = reach_of(c, p, now);
	ret->wrapped = wrapped(p);
	if (old) {
		ret->replaced_pages = old->pages;
		ret->replaced_for_ns = now - old->replaced_ns;
	}
	return true;
}

/* The time of a SAMPLE record, by its event's sample_type; false for others. */
static bool sample_time(const struct capture *c, const struct perf_event_header *h, uint64_t *ret)
{
	uint64_t id;

	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*h) + sizeof(id))
		return false;
	memcpy(&id, h + 1, sizeof(id));
	for (size_t e = 0; e < c->nr_events; e++)
		for (size_t k = 0; k < c->events[e].nr_ids; k++)
			if (c->events[e].ids[k] == id)
				return perf_record__time(h, c->events[e].attr->sample_type, ret) ==
				       0;
	return false;
}

/*
 * The newest bytes of @old's copy (it is disabled: its copy at any dump is
 * this one) that @new holds too: its records from @new's oldest on. Both
 * recorded from @new's enable to @old's disable.
 */
static size_t overlap(const struct capture *c, const struct capture_patch *old,
		      const struct capture_patch *new)
{
	struct ring_view vo, vn;
	uint64_t ho, hn, oldest = 0, t;
	size_t lo, ln, pos = 0, prev = 0, skip;
	const struct perf_event_header *h;
	bool have = false;
	uint8_t *buf;

	if (view_of(old, &vo) < 0 || view_of(new, &vn) < 0)
		return 0;
	hn = head_of(&vn);
	ln = backward_ring__len(vn.data_size, hn);
	buf = ln ? malloc(ln) : NULL;
	if (!buf)
		return 0;
	backward_ring__copy(buf, vn.data, vn.data_size, hn);
	while ((h = backward_ring__next(buf, ln, &pos)))
		if (sample_time(c, h, &t)) {
			oldest = t;
			have = true;
		}
	free(buf);
	if (!have)
		return 0;
	ho = head_of(&vo);
	lo = backward_ring__len(vo.data_size, ho);
	lo = lo < OVERLAP_MAX ? lo : OVERLAP_MAX;
	buf = lo ? malloc(lo) : NULL;
	if (!buf)
		return 0;
	backward_ring__copy_range(buf, vo.data, vo.data_size, ho, 0, lo);
	pos = 0;
	skip = 0;
	for (;;) {
		prev = pos;
		h = backward_ring__next(buf, lo, &pos);
		if (!h || (sample_time(c, h, &t) && t < oldest)) {
			skip = prev;
			break;
		}
	}
	free(buf);
	return skip;
}

/**
 * capture_window__resize - replace @cpu's overwrite ring by one of @pages (perf backend)
 * @c: a windowed capture, on the loop thread, no dump in flight
 * @cpu: a CPU with a ring and none being replaced
 * @pages: the new size, a power of two
 * @now: CLOCK_MONOTONIC ns
 *
 * The new ring is enabled before the old one is disabled, so no record
 * falls between them; those both hold are skipped in the old one's copy.
 * Returns 0 or -errno (the old ring then records on).
 */
int capture_window__resize(struct capture *c, int cpu, unsigned int pages, uint64_t now)
{
	struct capture_patch *old = ring_of(c, cpu, false), *p;
	uint64_t reach;
	int r;

	if (!c->windowed || !old)
		return -ENOENT;
	if (ring_of(c, cpu, true))
		return -EBUSY;
	reach = reach_of(c, old, now);
	r = open_ring(c, cpu, pages, &p);
	if (r < 0)
		return r;
	p->opened_ns = now;
	/*
	 * No start (capture__set_start()): the old ring's copy ends where this
	 * one's oldest record is (overlap()), so leaving out this one's first
	 * records would lose them from both.
	 */
	p->start_set = true;
	perf_evlist__disable(old->aux);
	old->replaced = true;
	old->replaced_ns = now;
	old->replaced_reach_ns = reach;
	old->skip = overlap(c, old, p);
	r = capture__refill_rings(c);
	if (r < 0) {
		/* The views still name the old ring alone: it records on. */
		perf_evlist__enable(old->aux);
		old->replaced = false;
		c->nr_patches--;
		capture__close_patch(p, c->nr_events);
	}
	return r;
}

/**
 * capture__window_retire - unmap the replaced rings whose successors reach the window
 * @c: a windowed capture, on the loop thread, no dump in flight
 * @now: CLOCK_MONOTONIC ns
 *
 * Returns how many were unmapped, or -ENOMEM (their views then stay valid:
 * the rings stay mapped until the next call).
 */
int capture__window_retire(struct capture *c, uint64_t now)
{
	uint64_t window_ns = c->window_ms * 1000000ull;
	int n = 0, r;

	for (size_t i = 0; c->windowed && i < c->nr_patches; i++) {
		struct capture_patch *p = c->patches[i];

		if (p->replaced && p->opened[1] && now - p->replaced_ns >= window_ns)
			n++;
	}
	if (!n)
		return 0;
	/* Drop them from the views first: no view may name an unmapped ring. */
	for (size_t i = 0; i < c->nr_patches; i++)
		if (c->patches[i]->replaced && now - c->patches[i]->replaced_ns >= window_ns)
			c->patches[i]->opened[1] = false;
	r = capture__refill_rings(c);
	if (r < 0) {
		for (size_t i = 0; i < c->nr_patches; i++)
			if (c->patches[i]->replaced &&
			    now - c->patches[i]->replaced_ns >= window_ns)
				c->patches[i]->opened[1] = true;
		return r;
	}
	for (size_t i = 0; i < c->nr_patches;) {
		struct capture_patch *p = c->patches[i];

		if (!p->replaced || p->opened[1]) {
			i++;
			continue;
		}
		if (p->aux_only) {
			capture__close_patch(p, c->nr_events);
			c->patches[i] = c->patches[--c->nr_patches];
			continue;
		}
		/* A reopened CPU's patch: its forward ring stays. */
		perf_evlist__munmap(p->aux);
		perf_evlist__close(p->aux);
		p->replaced = false;
		i++;
	}
	return n;
}
