// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_pprof: snapshot -> pprof profile, in one pass over the
 * time-ordered records, as snapshot_perfetto does: side-band records feed
 * the task names, the maps symbols are found in and the build-ids of the
 * mapped files; each sample adds its stack to the profile
 * (pprof_profile.c), which is written at the end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

#include "perf_record.h"
#include "pprof_profile.h"
#include "snapshot.h"
#include "snapshot_callchain.h"
#include "snapshot_cursor.h"
#include "snapshot_pprof.h"
#include "snapshot_tasks.h"
#include "symbols.h"

#define MAX_FRAMES     1024
#define PROGRESS_EVERY 65536

/* What a snapshot event becomes: its value indexes, or not in the profile. */
struct event_types {
	bool included;
	bool tracepoint;
	int count_index, period_index; /* -1: none */
	uint64_t nr, period_sum;       /* for the profile's period */
};

struct writer {
	const struct snapshot *s;
	const struct pprof_meta *m;
	struct pprof_profile *prof;
	struct symbols *syms;
	struct event_types *types;
	size_t nr_types;
	struct snapshot_tasks *tasks;
	uint64_t kernel_mapping;
	uint64_t first_time, last_time;
	int64_t *values;
	uint64_t locs[MAX_FRAMES];
	struct pprof_result res;
};

/* The name of @tid now: its last COMM (or its parent's at FORK), else the snapshot's. */
static const char *comm_of(const struct writer *w, int32_t tid)
{
	const char *c = snapshot_tasks__comm(w->tasks, tid);

	if (!c)
		c = snapshot__comm(w->s, tid);
	return c ? c : "";
}

/* @hex: room for 2 * SYMBOLS_BUILD_ID_MAX + 1. NULL without a build-id. */
static const char *build_id_hex(const struct symbol_info *si, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	if (!si->build_id_size)
		return NULL;
	for (size_t i = 0; i < si->build_id_size; i++) {
		hex[2 * i] = digits[si->build_id[i] >> 4];
		hex[2 * i + 1] = digits[si->build_id[i] & 15];
	}
	hex[2 * si->build_id_size] = '\0';
	return hex;
}

/* A frame's location: its mapping (with its file's build-id) and function. */
static uint64_t location(struct writer *w, pid_t pid, const struct snapshot_frame *f)
{
	char hex[2 * SYMBOLS_BUILD_ID_MAX + 1];
	struct symbol_info si;
	struct pprof_mapping m;
	uint64_t mapping = 0;

	symbols__resolve(w->syms, pid, f, &si);
	if (f->context == SNAPSHOT_CONTEXT_KERNEL) {
		if (!w->kernel_mapping) {
			m = (struct pprof_mapping){ .start = si.dso_start,
						    .limit = si.dso_end,
						    .filename = si.dso,
						    .build_id = build_id_hex(&si, hex) };
			w->kernel_mapping = pprof_profile__mapping(w->prof, &m);
		}
		mapping = w->kernel_mapping;
	} else if (si.dso) {
		m = (struct pprof_mapping){ .start = si.dso_start,
					    .limit = si.dso_end,
					    .offset = si.dso_pgoff,
					    .filename = si.dso,
					    .build_id = build_id_hex(&si, hex) };
		mapping = pprof_profile__mapping(w->prof, &m);
	}
	return pprof_profile__location(w->prof, mapping, f->ip, si.name);
}

/* The stack (snapshot_callchain), leaf first, as location ids; returns how many. */
static size_t walk(struct writer *w, const struct perf_record_info *info, uint64_t sample_type,
		   uint16_t misc)
{
	struct snapshot_callchain c;
	struct snapshot_frame f;
	size_t nr = 0;

	snapshot_callchain__begin(&c, info, sample_type, misc);
	while (nr < MAX_FRAMES && snapshot_callchain__next(&c, &f))
		w->locs[nr++] = location(w, (pid_t)info->pid, &f);
	return nr;
}

static int sample(struct writer *w, const struct perf_event_header *h,
		  const struct snapshot_event *ev, struct event_types *et)
{
	uint64_t st = ev->attr.sample_type;
	struct perf_record_info info;
	struct pprof_label labels[4];
	size_t nr, nr_labels = 0;
	uint64_t period;
	int r;

	if (perf_record__parse_sample(h, st, &info) < 0) {
		w->res.nr_invalid++;
		return 0;
	}
	if (et->tracepoint && !info.callchain_nr) {
		w->res.nr_skipped++;
		return 0;
	}
	nr = walk(w, &info, st, h->misc);
	if (st & PERF_SAMPLE_TID) {
		labels[nr_labels++] = (struct pprof_label){ .key = "pid",
							    .num = (int32_t)info.pid };
		labels[nr_labels++] = (struct pprof_label){ .key = "tid",
							    .num = (int32_t)info.tid };
		labels[nr_labels++] = (struct pprof_label){ .key = "comm",
							    .str = comm_of(w, (int32_t)info.tid) };
	}
	if (st & PERF_SAMPLE_CPU)
		labels[nr_labels++] = (struct pprof_label){ .key = "cpu", .num = info.cpu };
	period = st & PERF_SAMPLE_PERIOD ? info.period : ev->attr.sample_period;
	memset(w->values, 0, (2 * w->nr_types + 1) * sizeof(*w->values));
	w->values[et->count_index] = 1;
	if (et->period_index >= 0)
		w->values[et->period_index] = (int64_t)period;
	r = pprof_profile__add_sample(w->prof, w->locs, nr, labels, nr_labels, w->values);
	if (r < 0)
		return r;
	et->nr++;
	et->period_sum += period;
	if (st & PERF_SAMPLE_TIME) {
		if (!w->res.nr_samples || info.time < w->first_time)
			w->first_time = info.time;
		if (info.time > w->last_time)
			w->last_time = info.time;
	}
	w->res.nr_samples++;
	if (et->tracepoint)
		w->res.nr_tracepoint_samples++;
	return 0;
}

static int record(struct writer *w, const struct perf_event_header *h)
{
	const struct snapshot_event *ev;
	uint64_t id;

	if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(w->s, id)))
		return 0;
	if (h->type != PERF_RECORD_SAMPLE)
		return symbols__take_record(w->syms, w->tasks, h, ev->attr.sample_type);
	for (size_t i = 0; i < snapshot__nr_events(w->s); i++) {
		if (snapshot__event(w->s, i) != ev)
			continue;
		if (w->types[i].included)
			return sample(w, h, ev, &w->types[i]);
		if (ev->attr.type == PERF_TYPE_TRACEPOINT)
			w->res.nr_skipped++;
		return 0;
	}
	return 0;
}

static bool is_nanoseconds(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK || a->config == PERF_COUNT_SW_TASK_CLOCK);
}

static const char *event_name(const struct snapshot_event *ev, size_t i, char *buf, size_t size)
{
	if (ev->name && ev->name[0])
		return ev->name;
	snprintf(buf, size, "event%zu", i);
	return buf;
}

/*
 * The sample types: per sampling event its samples and, where each
 * sample's weight is known, their period. Returns the first event's index
 * or -1 (none), or -errno.
 */
static int sample_types(struct writer *w)
{
	char buf[32], type[512];
	int first = -1, r;

	for (size_t i = 0; i < w->nr_types; i++) {
		const struct snapshot_event *ev = snapshot__event(w->s, i);
		const struct perf_event_attr *a = &ev->attr;
		struct event_types *et = &w->types[i];
		const char *name = event_name(ev, i, buf, sizeof(buf));

		et->count_index = et->period_index = -1;
		et->tracepoint = a->type == PERF_TYPE_TRACEPOINT;
		if (a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY)
			continue;
		if (et->tracepoint ? !(a->sample_type & PERF_SAMPLE_CALLCHAIN) :
				     !(a->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN)))
			continue;
		et->included = true;
		r = pprof_profile__add_sample_type(w->prof, name, "count");
		if (r < 0)
			return r;
		et->count_index = r;
		if (!et->tracepoint &&
		    ((a->sample_type & PERF_SAMPLE_PERIOD) || (!a->freq && a->sample_period))) {
			snprintf(type, sizeof(type), "%s_period", name);
			r = pprof_profile__add_sample_type(
				w->prof, type, is_nanoseconds(a) ? "nanoseconds" : "count");
			if (r < 0)
				return r;
			et->period_index = r;
		}
		if (first < 0)
			first = (int)i;
	}
	return first;
}

/*
 * Wall-clock time at @t (the events' clock) from the meta's reference,
 * when that was read in the events' clock.
 */
static bool realtime_at(const struct writer *w, uint64_t t, uint64_t *ret)
{
	const struct pprof_clock_ref *ref = &w->m->clock_ref;

	for (size_t i = 0; i < snapshot__nr_events(w->s); i++) {
		const struct perf_event_attr *a = &snapshot__event(w->s, i)->attr;

		if (!a->use_clockid)
			continue;
		if (a->clockid == CLOCK_REALTIME) {
			*ret = t;
			return true;
		}
		if (!ref->valid || a->clockid != ref->clockid)
			return false;
		*ret = ref->realtime_ns + (t - ref->clock_ns); /* modulo 2^64: t may be earlier */
		return true;
	}
	return false;
}

/* Profile-wide fields: time range, period, default type, counts. */
static void finish(struct writer *w, int first)
{
	const struct snapshot_event *ev;
	const struct event_types *et;
	char buf[32];
	uint64_t wall = 0;
	const char *name;

	if (w->res.nr_samples && !realtime_at(w, w->first_time, &wall))
		wall = 0;
	pprof_profile__set_time(w->prof, (int64_t)wall,
				w->res.nr_samples ? (int64_t)(w->last_time - w->first_time) : 0);
	if (first < 0)
		return;
	ev = snapshot__event(w->s, (size_t)first);
	et = &w->types[first];
	name = event_name(ev, (size_t)first, buf, sizeof(buf));
	pprof_profile__set_default_sample_type(w->prof, name);
	if (et->tracepoint)
		pprof_profile__set_period(w->prof, name, "count", 1);
	else if (!ev->attr.freq)
		pprof_profile__set_period(w->prof, name,
					  is_nanoseconds(&ev->attr) ? "nanoseconds" : "count",
					  (int64_t)ev->attr.sample_period);
	else if (et->nr)
		pprof_profile__set_period(w->prof, name,
					  is_nanoseconds(&ev->attr) ? "nanoseconds" : "count",
					  (int64_t)(et->period_sum / et->nr));
}

/**
 * snapshot_pprof__write - write a snapshot's samples as a pprof profile
 * @s: a sealed snapshot
 * @fd: destination, written from its current offset (never closed)
 * @meta: clock reference, kallsyms, build-ids, progress
 * @ret: sizes and counts, set on success (may be NULL)
 *
 * See snapshot_pprof.h. Returns 0, -EINVAL without @s, @meta or a valid
 * @fd, -ENOMEM, or the -errno of a write.
 */
int snapshot_pprof__write(const struct snapshot *s, int fd, const struct pprof_meta *meta,
			  struct pprof_result *ret)
{
	struct writer w = { .s = s, .m = meta };
	const struct perf_event_header *h;
	struct snapshot_cursor *cur = NULL;
	struct pprof_profile_stats ps;
	size_t nr;
	int first = -1, r = 0;

	if (!s || !meta || fd < 0)
		return -EINVAL;
	w.nr_types = snapshot__nr_events(s);
	w.types = calloc(w.nr_types ? w.nr_types : 1, sizeof(*w.types));
	w.values = calloc(2 * w.nr_types + 1, sizeof(*w.values));
	w.prof = pprof_profile__new();
	w.syms = symbols__new_snapshot(s, meta->kallsyms, meta->kallsyms_size);
	if (w.syms)
		symbols__set_source(w.syms, meta->symbols);
	w.tasks = snapshot_tasks__new();
	if (!w.types || !w.values || !w.prof || !w.syms || !w.tasks)
		r = -ENOMEM;
	for (size_t i = 0; !r && i < meta->nr_build_ids; i++)
		if (meta->build_ids[i].filename)
			r = symbols__add_build_id(w.syms, meta->build_ids[i].filename,
						  meta->build_ids[i].id, meta->build_ids[i].size);
	if (!r)
		first = sample_types(&w);
	if (first < -1)
		r = first;
	/* No sampling event: a valid profile still has a sample type. */
	if (!r && first < 0)
		r = pprof_profile__add_sample_type(w.prof, "samples", "count");
	if (r > 0)
		r = 0;
	nr = snapshot__nr_records(s);
	if (!r && first >= 0) {
		cur = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
		if (!cur)
			r = -ENOMEM;
	}
	for (size_t i = 0; !r && cur && (h = snapshot_cursor__next(cur, NULL)); i++) {
		r = record(&w, h);
		if (meta->progress && (i % PROGRESS_EVERY) == 0)
			meta->progress(meta->progress_ctx, i, nr);
	}
	snapshot_cursor__delete(cur);
	if (!r) {
		finish(&w, first);
		r = pprof_profile__write(w.prof, fd, &w.res.bytes);
	}
	if (!r && meta->progress)
		meta->progress(meta->progress_ctx, nr, nr);
	if (!r && ret) {
		pprof_profile__stats(w.prof, &ps);
		w.res.nr_profile_samples = ps.nr_samples;
		w.res.nr_locations = ps.nr_locations;
		w.res.nr_functions = ps.nr_functions;
		w.res.nr_mappings = ps.nr_mappings;
		*ret = w.res;
	}
	pprof_profile__delete(w.prof);
	symbols__delete(w.syms);
	free(w.types);
	free(w.values);
	snapshot_tasks__delete(w.tasks);
	return r;
}
