// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_cpu: a CPU that goes offline takes its perf events with it: the
 * kernel removes them from the CPU's context and never puts them back, so
 * they neither count nor record again once it is online. Here its rings'
 * history is copied out and kept for the next snapshots, its rings are
 * closed, and when it is back its events are opened anew on rings of their
 * own. See capture.h; the daemon's hotplug watcher calls this.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>

#include "backward_ring.h"
#include "capture-internal.h"
#include "capture.h"
#include "config.h"
#include "log.h"
#include "monotonic.h"

/**
 * capture__add_ids - record an evsel's sample ids as event @idx's
 * @c: the capture
 * @idx: the event
 * @evsel: opened and mmapped, of that event
 *
 * Ids only grow: a closed ring's kept history still names its events by
 * the ids it was recorded with. Returns 0 or -ENOMEM.
 */
int capture__add_ids(struct capture *c, size_t idx, struct perf_evsel *evsel)
{
	const uint64_t *ids;
	size_t n = perf_internals__ids(evsel, &ids);

	if (c->nr_ids[idx] + n > c->ids_size[idx]) {
		size_t size = (c->nr_ids[idx] + n) * 2;
		uint64_t *grown = realloc(c->ids[idx], size * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		c->ids[idx] = grown;
		c->ids_size[idx] = size;
	}
	if (n) /* ids may be NULL then, which memcpy must not get */
		memcpy(c->ids[idx] + c->nr_ids[idx], ids, n * sizeof(*ids));
	c->nr_ids[idx] += n;
	c->events[idx].ids = c->ids[idx];
	c->events[idx].nr_ids = c->nr_ids[idx];
	return 0;
}

/**
 * capture__read_cpu_file - a CPU list file of sysfs ("0-3,8")
 * @path: e.g. /sys/devices/system/cpu/online
 *
 * Returns the map, or NULL where it cannot be read.
 */
struct perf_cpu_map *capture__read_cpu_file(const char *path)
{
	FILE *f = fopen(path, "re");
	struct perf_cpu_map *map;

	if (!f)
		return NULL;
	map = perf_cpu_map__read(f);
	fclose(f);
	return map;
}

/**
 * capture__open_cpus - the CPUs a capture records, and those it opens on now
 * @c: the capture being opened
 * @cfg: its configuration
 *
 * The CPUs asked for (every possible one for "all": one that comes online
 * later gets its rings then), and of those the ones online now, which the
 * base evlists open on. Returns 0 or -errno (logged).
 */
int capture__open_cpus(struct capture *c, const struct perfsnapd_config *cfg)
{
	struct perf_cpu_map *online = perf_cpu_map__new(NULL);
	size_t len = 0, size;
	char *list = NULL;
	struct perf_cpu cpu;
	int idx, r = -ENOMEM;

	c->wanted = cfg->cpus ? perf_cpu_map__new(cfg->cpus) :
				capture__read_cpu_file("/sys/devices/system/cpu/possible");
	if (!c->wanted && !cfg->cpus)
		c->wanted = perf_cpu_map__get(online);
	if (!c->wanted || !online)
		goto out;
	size = (size_t)perf_cpu_map__nr(c->wanted) * 12 + 1;
	list = malloc(size);
	if (!list)
		goto out;
	perf_cpu_map__for_each_cpu(cpu, idx, c->wanted)
		if (perf_cpu_map__has(online, cpu))
			len += (size_t)snprintf(list + len, size - len, "%s%d", len ? "," : "",
						cpu.cpu);
	if (!len) {
		r = log__errno(-ENODEV, "none of the CPUs to record (%s) is online",
			       cfg->cpus ? cfg->cpus : "all");
		goto out;
	}
	c->cpus = perf_cpu_map__new(list);
	c->nr_cpu_slots = perf_cpu_map__max(c->wanted).cpu + 1;
	c->cpu_state = calloc((size_t)c->nr_cpu_slots, sizeof(*c->cpu_state));
	if (!c->cpus || !c->cpu_state)
		goto out;
	perf_cpu_map__for_each_cpu(cpu, idx, c->cpus)
		c->cpu_state[cpu.cpu] = CAPTURE_CPU_BASE;
	c->max_cpu = perf_cpu_map__max(c->cpus).cpu;
	r = 0;
out:
	if (r == -ENOMEM)
		log__errno(r, "capture");
	free(list);
	perf_cpu_map__put(online);
	return r;
}

int capture__nr_wanted(const struct capture *c)
{
	return perf_cpu_map__nr(c->wanted);
}

int capture__wanted_cpu(const struct capture *c, int idx)
{
	return perf_cpu_map__cpu(c->wanted, idx).cpu;
}

bool capture__cpu_recorded(const struct capture *c, int cpu)
{
	return cpu >= 0 && cpu < c->nr_cpu_slots && c->cpu_state[cpu] != CAPTURE_CPU_NONE;
}

/* The warmer reads the ring views: it ends before they change. */
static void stop_warmer(struct capture *c)
{
	if (!c->warming)
		return;
	atomic_store(&c->stop_warming, true);
	pthread_join(c->warmer, NULL);
	c->warming = false;
}

/**
 * capture__put_kept - drop a reference to a kept history
 * @k: the history, or NULL; freed with its last reference
 */
void capture__put_kept(struct capture_kept *k)
{
	if (!k || --k->refs > 0)
		return;
	free(k->buf);
	free(k);
}

/*
 * The offline CPU's overwrite ring, copied out: the kernel no longer
 * writes it, so no pause is needed. Returns 0 or -ENOMEM.
 */
static int keep_history(struct capture *c, int cpu)
{
	struct capture_kept **grown, *k;
	const struct ring_view *v = NULL;
	uint64_t head;

	for (int i = 0; i < c->nr_rings[1]; i++)
		if (c->rings[1][i].cpu == cpu && !c->rings[1][i].replaced)
			v = &c->rings[1][i];
	if (!v)
		return 0;
	head = __atomic_load_n(&((const struct perf_event_mmap_page *)v->base)->data_head,
			       __ATOMIC_ACQUIRE);
	if (!backward_ring__len(v->data_size, head))
		return 0; /* nothing recorded: nothing to keep */
	grown = realloc(c->kept, (c->nr_kept + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->kept = grown;
	k = calloc(1, sizeof(*k));
	if (k)
		k->buf = malloc(backward_ring__len(v->data_size, head));
	if (!k || !k->buf) {
		free(k);
		return -ENOMEM;
	}
	k->refs = 1;
	k->cpu = cpu;
	k->len = backward_ring__copy(k->buf, v->data, v->data_size, head);
	/* data_head counts down from 0: -head is what was ever written. */
	k->wrapped = (uint64_t)0 - head > v->data_size;
	c->kept[c->nr_kept++] = k;
	return 0;
}

/* Drops the views of @cpu's rings in place: no allocation, so it cannot fail. */
static void drop_views(struct capture *c, int cpu)
{
	for (int which = 0; which < 2; which++) {
		int n = 0;

		for (int i = 0; i < c->nr_rings[which]; i++)
			if (c->rings[which][i].cpu != cpu)
				c->rings[which][n++] = c->rings[which][i];
		c->nr_rings[which] = n;
	}
}

void capture__close_patch(struct capture_patch *p, size_t nr_events)
{
	if (!p)
		return;
	for (int which = 0; which < 2; which++) {
		struct perf_evlist *evlist = which ? p->aux : p->main;

		if (!evlist)
			continue;
		if (p->opened[which])
			perf_evlist__disable(evlist);
		perf_evlist__munmap(evlist);
		perf_evlist__close(evlist);
	}
	for (size_t i = 0; p->evsels && i < nr_events; i++)
		if (p->evsels[i])
			perf_internals__release_evsel(p->evsels[i]);
	perf_evlist__delete(p->aux);
	perf_evlist__delete(p->main);
	perf_cpu_map__put(p->cpus);
	free(p->evsels);
	free(p);
}

static void add_span(struct capture *c, int cpu, uint64_t now, uint64_t now_mono)
{
	if (capture__open_span(c, cpu))
		return;
	if (c->nr_spans == CAPTURE_OFFLINE_MAX) /* the oldest goes */
		memmove(c->spans, c->spans + 1, --c->nr_spans * sizeof(c->spans[0]));
	c->spans[c->nr_spans++] = (struct capture_offline){
		.cpu = cpu,
		.from_ns = now,
		.from_mono_ns = now_mono,
	};
}

/**
 * capture_cpu__down - a recorded CPU went offline (perf backend)
 * @c: the capture, on the loop thread, no dump in flight
 * @cpu: the CPU
 * @now: recording clock ns, for its offline span
 * @now_mono: the same instant in CLOCK_MONOTONIC
 *
 * Its overwrite ring's history is copied out first; on -ENOMEM the rings
 * stay as they are (their history with them) and the caller may try again.
 * Returns 0 or -ENOMEM.
 */
int capture_cpu__down(struct capture *c, int cpu, uint64_t now, uint64_t now_mono)
{
	int r;

	if (!capture__cpu_recorded(c, cpu))
		return 0;
	stop_warmer(c);
	r = keep_history(c, cpu);
	if (r < 0)
		return r;
	drop_views(c, cpu);
	if (c->cpu_state[cpu] == CAPTURE_CPU_BASE)
		for (int which = 0; which < 2; which++)
			if (c->opened[which])
				perf_internals__close_cpu(which ? c->aux : c->main, cpu);
	/* Its patches: reopened rings, and with [capture] window its own and a replaced one. */
	for (size_t i = 0; i < c->nr_patches;) {
		if (c->patches[i]->cpu != cpu) {
			i++;
			continue;
		}
		capture__close_patch(c->patches[i], c->nr_events);
		c->patches[i] = c->patches[--c->nr_patches];
	}
	c->cpu_state[cpu] = CAPTURE_CPU_NONE;
	add_span(c, cpu, now, now_mono);
	return 0;
}

void capture__cpu_absent(struct capture *c, int cpu, uint64_t now)
{
	if (!capture__cpu_recorded(c, cpu))
		add_span(c, cpu, now, monotonic_ns());
}

/* See capture-internal.h. */
int capture__open_patch(struct capture *c, struct capture_patch *p)
{
	char list[16];
	int r;

	snprintf(list, sizeof(list), "%d", p->cpu);
	p->cpus = perf_cpu_map__new(list);
	p->aux = perf_evlist__new();
	p->main = perf_evlist__new();
	p->evsels = calloc(c->nr_events ? c->nr_events : 1, sizeof(*p->evsels));
	if (!p->cpus || !p->aux || !p->main || !p->evsels)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_events; i++) {
		/* The attr as the base evsel opened it: a watermark set, the same clock. */
		struct perf_event_attr attr = *c->events[i].attr;

		if (p->aux_only && !c->events[i].overwrite)
			continue;
		p->evsels[i] = perf_evsel__new(&attr);
		if (!p->evsels[i])
			return -ENOMEM;
		perf_evlist__add(c->events[i].overwrite ? p->aux : p->main, p->evsels[i]);
	}
	for (int which = 1; which >= 0; which--) {
		struct perf_evlist *evlist = which ? p->aux : p->main;

		if (!(which ? c->aux_used : c->main_used) || (!which && p->aux_only))
			continue;
		perf_evlist__set_maps(evlist, p->cpus, c->threads);
		errno = 0;
		r = capture__libperf_err(perf_evlist__open(evlist), errno);
		if (r < 0)
			return r;
		p->opened[which] = true;
		errno = 0;
		r = capture__libperf_err(
			perf_evlist__mmap(evlist, (int)(which ? p->pages : c->main_pages)), errno);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < c->nr_events; i++)
		if (p->evsels[i] && (r = capture__add_ids(c, i, p->evsels[i])) < 0)
			return r;
	if (c->sideband && !p->aux_only) {
		errno = 0;
		r = capture__libperf_err(perf_evsel__enable(p->evsels[0]), errno);
		if (r < 0)
			return r;
	}
	if (c->started && c->aux_used)
		perf_evlist__enable(p->aux);
	if (c->started && c->main_used && !p->aux_only)
		perf_evlist__enable(p->main);
	return 0;
}

/**
 * capture_cpu__up - record on a CPU that is online (again) (perf backend)
 * @c: the capture, on the loop thread, no dump in flight
 * @cpu: the CPU, one asked for and without rings
 * @now: recording clock ns, the end of its offline span
 *
 * Returns 0 or -errno; on error the CPU stays without rings.
 */
int capture_cpu__up(struct capture *c, int cpu, uint64_t now)
{
	struct capture_patch **grown, *p;
	int r;

	if (!perf_cpu_map__has(c->wanted, (struct perf_cpu){ .cpu = cpu }))
		return -EINVAL;
	if (capture__cpu_recorded(c, cpu))
		return 0;
	stop_warmer(c);
	grown = realloc(c->patches, (c->nr_patches + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	c->patches = grown;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->cpu = cpu;
	p->pages = c->ring_pages;
	p->opened_ns = monotonic_ns();
	r = capture__open_patch(c, p);
	if (r == 0) {
		c->patches[c->nr_patches++] = p;
		r = capture__refill_rings(c);
		if (r < 0)
			c->nr_patches--;
	}
	if (r < 0) {
		capture__close_patch(p, c->nr_events);
		return r;
	}
	c->cpu_state[cpu] = CAPTURE_CPU_PATCH;
	if (cpu > c->max_cpu)
		c->max_cpu = cpu;
	for (size_t i = 0; i < c->nr_spans; i++)
		if (c->spans[i].cpu == cpu && !c->spans[i].ended) {
			c->spans[i].to_ns = now;
			c->spans[i].ended = true;
		}
	return 0;
}

const struct capture_offline *capture__open_span(const struct capture *c, int cpu)
{
	for (size_t i = 0; i < c->nr_spans; i++)
		if (c->spans[i].cpu == cpu && !c->spans[i].ended)
			return &c->spans[i];
	return NULL;
}

size_t capture__offline_spans(const struct capture *c, const struct capture_offline **ret)
{
	*ret = c->spans;
	return c->nr_spans;
}

/**
 * capture__take_kept - the kept histories, for a snapshot
 * @c: the capture, on the loop thread
 * @ret: an array of references (free() it, capture__put_kept() each)
 *
 * A CPU's history goes to every snapshot while it is offline, and to the
 * first one after it is back; the new ring has the rest.
 * Returns how many, or -ENOMEM.
 */
int capture__take_kept(struct capture *c, struct capture_kept ***ret)
{
	struct capture_kept **all = calloc(c->nr_kept ? c->nr_kept : 1, sizeof(*all));
	size_t n = 0, total;

	if (!all)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_kept; i++) {
		all[i] = c->kept[i];
		all[i]->refs++;
		if (capture__cpu_recorded(c, c->kept[i]->cpu))
			capture__put_kept(c->kept[i]);
		else
			c->kept[n++] = c->kept[i];
	}
	*ret = all;
	total = c->nr_kept;
	c->nr_kept = n;
	return (int)total;
}

/* Closes the reopened CPUs' events, drops the kept histories. */
void capture__close_cpus(struct capture *c)
{
	for (size_t i = 0; i < c->nr_patches; i++)
		capture__close_patch(c->patches[i], c->nr_events);
	free(c->patches);
	c->patches = NULL;
	c->nr_patches = 0;
	for (size_t i = 0; i < c->nr_kept; i++)
		capture__put_kept(c->kept[i]);
	free(c->kept);
	c->kept = NULL;
	c->nr_kept = 0;
	free(c->cpu_state);
	c->cpu_state = NULL;
	c->nr_cpu_slots = 0;
}
