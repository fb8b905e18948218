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

#include "intern.h"
#include "perf_record.h"
#include "pprof_profile.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "snapshot_pprof.h"
#include "symbols.h"
#include "tid_table.h"
#include "tracing_meta.h"

#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

#define MAX_FRAMES     1024
#define PROGRESS_EVERY 65536
#define BUILD_ID_MAX   20
#define COMM_LEN       16

struct task {
	int32_t tid; /* 0: free */
	char comm[COMM_LEN];
};

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
	struct tid_table tasks; /* of struct task */
	/* build-ids by path: the newest the records state, else the meta's */
	struct intern_table build_id_paths;
	char (*build_ids)[2 * BUILD_ID_MAX + 1];
	size_t cap_build_ids;
	uint64_t kernel_mapping;
	uint64_t first_time, last_time;
	int64_t *values;
	uint64_t locs[MAX_FRAMES];
	struct pprof_result res;
};

static struct task *task_find(const struct writer *w, int32_t tid)
{
	return tid_table__find(&w->tasks, tid);
}

static struct task *task_get(struct writer *w, int32_t tid)
{
	return tid_table__get(&w->tasks, tid);
}

/* The name of @tid now: its last COMM (or its parent's at FORK), else the snapshot's. */
static const char *comm_of(const struct writer *w, int32_t tid)
{
	const struct task *t = task_find(w, tid);
	const char *c;

	if (t && t->comm[0])
		return t->comm;
	c = snapshot__comm(w->s, tid);
	return c ? c : "";
}

static int set_build_id(struct writer *w, const char *path, const uint8_t *id, size_t size)
{
	bool is_new;
	uint64_t i = intern_table__get(&w->build_id_paths, path, strlen(path), &is_new);

	if (!i)
		return -ENOMEM;
	if (i > w->cap_build_ids) {
		size_t cap = w->cap_build_ids ? w->cap_build_ids * 2 : 64;
		void *v = realloc(w->build_ids, cap * sizeof(*w->build_ids));

		if (!v)
			return -ENOMEM;
		w->build_ids = v;
		w->cap_build_ids = cap;
	}
	for (size_t k = 0; k < size && k < BUILD_ID_MAX; k++)
		snprintf(w->build_ids[i - 1] + 2 * k, 3, "%02x", id[k]);
	w->build_ids[i - 1][2 * (size < BUILD_ID_MAX ? size : BUILD_ID_MAX)] = '\0';
	return 0;
}

static const char *build_id_of(struct writer *w, const char *path)
{
	bool is_new;
	uint64_t i;

	if (!w->build_id_paths.nr)
		return NULL;
	/* a lookup adds the path; an empty id says none */
	i = intern_table__get(&w->build_id_paths, path, strlen(path), &is_new);
	if (!i || (is_new && set_build_id(w, path, NULL, 0) < 0))
		return NULL;
	return w->build_ids[i - 1][0] ? w->build_ids[i - 1] : NULL;
}

/* COMM/FORK/MMAP/MMAP2: names, maps and build-ids, as of this point in time. */
static int sideband(struct writer *w, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	size_t body = h->size - sizeof(*h);
	struct task *t, *parent;
	int32_t ids[4];
	uint64_t addr[3];
	uint32_t prot;
	int r;

	switch (h->type) {
	case PERF_RECORD_COMM: /* pid, tid, comm */
		if (body <= 8)
			return 0;
		memcpy(ids, p, 8);
		if (ids[1] <= 0)
			return 0;
		t = task_get(w, ids[1]);
		if (!t)
			return -ENOMEM;
		snprintf(t->comm, sizeof(t->comm), "%.*s",
			 (int)strnlen((const char *)p + 8, body - 8), (const char *)p + 8);
		return 0;
	case PERF_RECORD_FORK: /* pid, ppid, tid, ptid */
		if (body < 16)
			return 0;
		memcpy(ids, p, 16);
		parent = task_find(w, ids[3]);
		if (ids[2] > 0 && parent && parent->comm[0]) {
			char comm[COMM_LEN];

			memcpy(comm, parent->comm, sizeof(comm));
			t = task_get(w, ids[2]);
			if (!t)
				return -ENOMEM;
			memcpy(t->comm, comm, sizeof(comm));
		}
		return ids[0] != ids[1] ? symbols__fork(w->syms, ids[0], ids[1]) : 0;
	case PERF_RECORD_MMAP: /* pid, tid, addr, len, pgoff, filename */
		if (body <= 32 || (h->misc & PERF_RECORD_MISC_MMAP_DATA))
			return 0;
		memcpy(ids, p, 8);
		memcpy(addr, p + 8, 24);
		return symbols__add_map(w->syms, ids[0], addr[0], addr[1], addr[2],
					(const char *)p + 32, NULL, 0);
	case PERF_RECORD_MMAP2:
		/* pid, tid, addr, len, pgoff, maj/min/ino or build-id (24), prot, flags, name */
		if (body <= 64)
			return 0;
		memcpy(ids, p, 8);
		memcpy(addr, p + 8, 24);
		memcpy(&prot, p + 56, 4);
		if (!(prot & 4)) /* PROT_EXEC */
			return 0;
		/* build_id_size, 3 reserved bytes, build_id[20] */
		if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && p[32] && p[32] <= BUILD_ID_MAX &&
		    memchr(p + 64, '\0', body - 64)) {
			r = set_build_id(w, (const char *)p + 64, p + 36, p[32]);
			if (r < 0)
				return r;
			return symbols__add_map(w->syms, ids[0], addr[0], addr[1], addr[2],
						(const char *)p + 64, p + 36, p[32]);
		}
		return symbols__add_map(w->syms, ids[0], addr[0], addr[1], addr[2],
					(const char *)p + 64, NULL, 0);
	default:
		return 0;
	}
}

static uint64_t location(struct writer *w, pid_t pid, uint64_t ip, bool kernel)
{
	struct symbol_info si;
	struct pprof_mapping m;
	uint64_t mapping = 0;

	symbols__resolve(w->syms, pid, ip, kernel, &si);
	if (kernel) {
		if (!w->kernel_mapping) {
			m = (struct pprof_mapping){ .start = si.dso_start,
						    .limit = si.dso_end,
						    .filename = si.dso };
			m.build_id = build_id_of(w, m.filename);
			w->kernel_mapping = pprof_profile__mapping(w->prof, &m);
		}
		mapping = w->kernel_mapping;
	} else if (si.dso) {
		m = (struct pprof_mapping){ .start = si.dso_start,
					    .limit = si.dso_end,
					    .offset = si.dso_pgoff,
					    .filename = si.dso };
		m.build_id = build_id_of(w, si.dso);
		mapping = pprof_profile__mapping(w->prof, &m);
	}
	return pprof_profile__location(w->prof, mapping, ip, si.name);
}

/* The stack, leaf first, as location ids; returns how many. */
static size_t walk(struct writer *w, const struct perf_record_info *info, bool sample_kernel)
{
	bool kernel = sample_kernel;
	size_t nr = 0;

	if (!info->callchain_nr) {
		w->locs[nr++] = location(w, (pid_t)info->pid, info->ip, kernel);
		return nr;
	}
	for (uint64_t i = 0; i < info->callchain_nr && nr < MAX_FRAMES; i++) {
		uint64_t ip = info->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			kernel = ip == (uint64_t)PERF_CONTEXT_KERNEL ||
				 ip == (uint64_t)PERF_CONTEXT_GUEST_KERNEL;
			continue;
		}
		w->locs[nr++] = location(w, (pid_t)info->pid, ip, kernel);
	}
	return nr;
}

static int sample(struct writer *w, const struct perf_event_header *h,
		  const struct snapshot_event *ev, struct event_types *et)
{
	uint64_t st = ev->attr.sample_type;
	uint16_t mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	struct perf_record_info info;
	struct pprof_label labels[4];
	size_t nr = 0, nr_labels = 0;
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
	if (st & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN))
		nr = walk(w, &info,
			  mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL);
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

	if (h->type != PERF_RECORD_SAMPLE)
		return sideband(w, h);
	if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(w->s, id)))
		return 0;
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

static struct symbols *new_symbols(const struct snapshot *s, const struct pprof_meta *meta)
{
	const struct tracing_meta *tm = snapshot__tracing(s);
	const struct tracing_data_info *t = tm ? tracing_meta__info(tm) : NULL;

	/* The caller's kallsyms, else a recorded one (a converter's input), else this machine's. */
	if (meta->kallsyms)
		return symbols__new(meta->kallsyms, meta->kallsyms_size);
	if (t && t->kallsyms_size > 1)
		return symbols__new(t->kallsyms, t->kallsyms_size);
	return symbols__new(NULL, 0);
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
	struct writer w = { .s = s, .m = meta, .tasks = { .elem_size = sizeof(struct task) } };
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
	w.syms = new_symbols(s, meta);
	if (!w.types || !w.values || !w.prof || !w.syms)
		r = -ENOMEM;
	for (size_t i = 0; !r && i < meta->nr_build_ids; i++)
		if (meta->build_ids[i].filename && meta->build_ids[i].size)
			r = set_build_id(&w, meta->build_ids[i].filename, meta->build_ids[i].id,
					 meta->build_ids[i].size);
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
	intern_table__fini(&w.build_id_paths);
	free(w.build_ids);
	free(w.types);
	free(w.values);
	tid_table__fini(&w.tasks);
	return r;
}
