// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger: the trigger set: the forward trigger rings and their wake-ups,
 * the PSI and paired sources, the kept matches, and what a reload carries
 * over. One trigger's states and limits are trigger_fire.c's. See trigger.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/event.h>
#include <perf/mmap.h>
#include <perf/threadmap.h>

#include "config.h"
#include "log.h"
#include "monotonic.h"
#include "perf_internals.h"
#include "perf_record.h"
#include "snapshot.h"
#include "trigger-internal.h"
#include "trigger.h"
#include "trigger_paired.h"
#include "trigger_psi.h"

static void describe(const struct trigger *t, struct snapshot_trigger *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "%s", t->spec->name);
	snprintf(w->kind, sizeof(w->kind), "%s", config__trigger_kind_name(t->spec->kind));
	w->cpu = w->pid = w->tid = -1;
}

static void keep(struct trigger_set *ts, const struct perf_event_header *h)
{
	if (!ts->kept || ts->kept_len + h->size > KEPT_MAX) {
		ts->kept_dropped++;
		return;
	}
	memcpy(ts->kept + ts->kept_len, h, h->size);
	ts->kept_len += h->size;
}

static struct trigger *trigger_of(struct trigger_set *ts, uint64_t id)
{
	for (size_t i = 0; i < ts->nr; i++)
		for (size_t j = 0; j < ts->triggers[i].nr_ids; j++)
			if (ts->triggers[i].ids[j] == id)
				return &ts->triggers[i];
	return NULL;
}

static void take_sample(struct trigger_set *ts, const struct perf_event_header *h)
{
	struct perf_record_info info;
	struct snapshot_trigger w;
	struct trigger *t;
	uint64_t id;

	if (perf_record__id(h, &id) < 0 || !(t = trigger_of(ts, id)) ||
	    perf_record__parse_sample(h, perf_evsel__attr(t->evsel)->sample_type, &info) < 0)
		return;
	if (!t->recorded)
		keep(ts, h);
	describe(t, &w);
	snprintf(w.event, sizeof(w.event), "%s", t->spec->event.name);
	w.time = info.time;
	w.cpu = (int)info.cpu;
	w.pid = (int)info.pid;
	w.tid = (int)info.tid;
	ts->host.comm(ts->host.ctx, (pid_t)info.tid, info.time, w.comm, sizeof(w.comm));
	trigger__match(t, &w);
}

static void on_ring_ready(evutil_socket_t fd, short what, void *arg)
{
	struct trigger_set *ts = arg;
	struct perf_mmap *map;
	union perf_event *ev;

	(void)fd;
	(void)what;
	perf_evlist__for_each_mmap(ts->evlist, map, false) {
		if (perf_mmap__read_init(map) < 0)
			continue;
		while ((ev = perf_mmap__read_event(map))) {
			if (ev->header.type == PERF_RECORD_SAMPLE) {
				take_sample(ts, &ev->header);
			} else if (ev->header.type == PERF_RECORD_LOST) {
				if (!ts->lost)
					log_warning("trigger rings overflowed: %llu matches lost",
						    (unsigned long long)ev->lost.lost);
				ts->lost += ev->lost.lost;
			}
			perf_mmap__consume(map);
		}
	}
}

static void on_psi(void *arg)
{
	struct trigger *t = arg;
	struct snapshot_trigger w;

	describe(t, &w);
	snprintf(w.psi_resource, sizeof(w.psi_resource), "%s", t->spec->psi_resource);
	snprintf(w.psi_threshold, sizeof(w.psi_threshold), "%s",
		 strchr(t->spec->psi, ' ') ? strchr(t->spec->psi, ' ') + 1 : t->spec->psi);
	snprintf(w.psi_file, sizeof(w.psi_file), "%s", t->spec->psi_file);
	trigger__match(t, &w);
}

_Static_assert(sizeof(((struct snapshot_trigger *)0)->hist) ==
		       sizeof(((struct paired_figures *)0)->hist.count),
	       "one histogram layout");

static void on_pair(void *arg, const struct paired_hit *h)
{
	struct trigger *t = arg;
	const struct trigger_spec *sp = t->spec;
	struct paired_figures f;
	struct snapshot_trigger w;

	describe(t, &w);
	snprintf(w.event, sizeof(w.event), "%s", sp->end.event.name);
	snprintf(w.start_event, sizeof(w.start_event), "%s", sp->start.event.name);
	w.time = h->end_time;
	w.time_mono = h->end_mono;
	w.cpu = h->end_cpu;
	w.pid = w.tid = h->end_pid;
	t->set->host.comm(t->set->host.ctx, (pid_t)h->end_pid, h->end_time, w.comm, sizeof(w.comm));
	w.duration_ns = h->duration_ns;
	w.key = h->key;
	w.start_time = h->start_time;
	w.end_time = h->end_time;
	w.threshold_ns = sp->threshold_ns;
	trigger_paired__figures(t->paired, &f);
	w.pairs = f.pairs;
	w.max_ns = f.max_ns;
	memcpy(w.hist, f.hist.count, sizeof(w.hist));
	if (t->state == TRIGGER_IDLE)
		log_info("trigger %s: %s -> %s took %llu us (key %lld), over its threshold of %llu "
			 "us",
			 sp->name, sp->start.event.name, sp->end.event.name,
			 (unsigned long long)(h->duration_ns / 1000), (long long)h->key,
			 (unsigned long long)(sp->threshold_ns / 1000));
	trigger__match(t, &w);
}

static bool recorded_by_capture(const struct perfsnapd_config *cfg, const char *name)
{
	/* Its ring (or, for /no-overwrite/, the history) holds the match already. */
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (!strcmp(cfg->events[i].name, name))
			return true;
	return false;
}

/* The forward evlist of every event trigger, filters set, one ring per CPU. */
static int open_events(struct trigger_set *ts, struct config_diags *diags)
{
	const struct perfsnapd_config *cfg = ts->cfg;
	struct ring_view *views;
	int r, nr;

	ts->cpus = perf_internals__online_cpus(cfg->cpus);
	ts->threads = perf_thread_map__new_dummy();
	ts->evlist = perf_evlist__new();
	if (!ts->cpus || !ts->threads || !ts->evlist)
		return -ENOMEM;
	for (size_t i = 0; i < ts->nr; i++) {
		struct trigger *t = &ts->triggers[i];
		struct perf_event_attr attr;

		if (t->spec->kind != TRIGGER_KIND_EVENT)
			continue;
		attr = t->spec->event.attr;
		/* A match names its task and CPU, and is kept beside the rings' records. */
		attr.sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
		attr.disabled = 1;
		attr.watermark = 0;
		attr.wakeup_events = 1; /* the loop wakes on each match */
		t->evsel = perf_evsel__new(&attr);
		if (!t->evsel)
			return -ENOMEM;
		perf_evlist__add(ts->evlist, t->evsel);
		t->recorded = recorded_by_capture(cfg, t->spec->event.name);
	}
	perf_evlist__set_maps(ts->evlist, ts->cpus, ts->threads);
	r = perf_evlist__open(ts->evlist);
	if (r < 0)
		return log__errno(r, "cannot open the trigger events");
	ts->opened = true;
	for (size_t i = 0; i < ts->nr; i++) {
		struct trigger *t = &ts->triggers[i];

		if (!t->evsel || !t->spec->filter)
			continue;
		r = perf_internals__set_filter(t->evsel, t->spec->filter);
		if (r < 0) {
			config_diags__add(diags, cfg->path, t->spec->filter_line,
					  "[trigger %s] filter: the kernel refused '%s' for %s: %s",
					  t->spec->name, t->spec->filter, t->spec->event.name,
					  strerror(-r));
			return -EINVAL;
		}
	}
	r = perf_evlist__mmap(ts->evlist, RING_PAGES);
	if (r < 0)
		return log__errno(r ? r : -errno, "cannot map the trigger rings");
	ts->mapped = true;
	for (size_t i = 0; i < ts->nr; i++)
		if (ts->triggers[i].evsel)
			ts->triggers[i].nr_ids = perf_internals__ids(ts->triggers[i].evsel,
								     &ts->triggers[i].ids);
	nr = perf_internals__rings(ts->evlist, 0, NULL, 0);
	ts->ring_evs = calloc(nr ? (size_t)nr : 1, sizeof(*ts->ring_evs));
	if (!ts->ring_evs)
		return -ENOMEM;
	views = calloc(nr ? (size_t)nr : 1, sizeof(*views));
	if (!views)
		return -ENOMEM;
	perf_internals__rings(ts->evlist, 0, views, nr);
	for (int i = 0; i < nr; i++) {
		ts->ring_evs[i] = event_new(ts->base, views[i].fd, EV_READ | EV_PERSIST,
					    on_ring_ready, ts);
		if (!ts->ring_evs[i] || event_add(ts->ring_evs[i], NULL) < 0) {
			free(views);
			return -ENOMEM;
		}
		ts->nr_ring_evs++;
	}
	free(views);
	ts->kept = malloc(KEPT_MAX);
	if (!ts->kept)
		return -ENOMEM;
	perf_evlist__enable(ts->evlist);
	return 0;
}

static int init_trigger(struct trigger_set *ts, struct trigger *t, const struct trigger_spec *sp,
			struct config_diags *diags)
{
	int r;

	t->set = ts;
	t->spec = sp;
	snprintf(t->reason, sizeof(t->reason), "trigger %s", sp->name);
	t->after_ev = evtimer_new(ts->base, trigger__on_after, t);
	t->summary_ev = evtimer_new(ts->base, trigger__on_summary, t);
	t->times = calloc(sp->count ? sp->count : 1, sizeof(*t->times));
	t->starts = calloc(sp->max_per_hour ? sp->max_per_hour : 1, sizeof(*t->starts));
	if (!t->after_ev || !t->summary_ev || !t->times || !t->starts)
		return -ENOMEM;
	if (sp->kind == TRIGGER_KIND_PAIRED) {
		char why[256] = "";

		r = trigger_paired__new(sp, ts->cfg, ts->base, on_pair, t, why, sizeof(why),
					&t->paired);
		if (r == -EINVAL) {
			config_diags__add(diags, ts->cfg->path, sp->line,
					  "[trigger %s] the kernel refused its BPF program: %s: "
					  "accepted: a start and end the program can pair (see "
					  "perfsnapd.conf(5))",
					  sp->name, why);
			return -EINVAL;
		}
		return r;
	}
	if (sp->kind != TRIGGER_KIND_PSI)
		return 0;
	r = trigger_psi__new(ts->base, sp->psi_file, sp->psi_full, sp->psi_stall_us,
			     sp->psi_window_us, on_psi, t, &t->psi);
	if (r == -EINVAL || r == -ENOENT || r == -EACCES) {
		config_diags__add(diags, ts->cfg->path, sp->psi_line,
				  "[trigger %s] psi: the kernel refused '%s' on %s: %s", sp->name,
				  sp->psi, sp->psi_file, strerror(-r));
		return -EINVAL;
	}
	return r < 0 ? log__errno(r, "trigger %s: PSI trigger on %s", sp->name, sp->psi_file) : 0;
}

/**
 * trigger_set__new - open every trigger of a configuration
 * @cfg: the configuration (a reference is taken)
 * @base: the loop
 * @host: how to ask for a dump and name a task
 * @diags: a filter or PSI threshold the kernel refuses is added here
 * @ret: the set
 *
 * Returns 0, -EINVAL with @diags filled, or -errno (logged).
 */
int trigger_set__new(const struct perfsnapd_config *cfg, struct event_base *base,
		     const struct trigger_host *host, struct config_diags *diags,
		     struct trigger_set **ret)
{
	struct trigger_set *ts = calloc(1, sizeof(*ts));
	bool events = false;
	int r = 0;

	if (!ts)
		return log__errno(-ENOMEM, "triggers");
	ts->cfg = config__get(cfg);
	ts->base = base;
	ts->host = *host;
	ts->triggers = calloc(cfg->nr_triggers ? cfg->nr_triggers : 1, sizeof(*ts->triggers));
	if (!ts->triggers)
		r = -ENOMEM;
	for (size_t i = 0; r == 0 && i < cfg->nr_triggers; i++) {
		r = init_trigger(ts, &ts->triggers[i], &cfg->triggers[i], diags);
		ts->nr++;
		events |= cfg->triggers[i].kind == TRIGGER_KIND_EVENT;
	}
	if (r == 0 && events)
		r = open_events(ts, diags);
	if (r < 0) {
		if (r == -ENOMEM)
			log__errno(r, "triggers");
		trigger_set__delete(ts);
		return r;
	}
	*ret = ts;
	return 0;
}

static void free_adopted(struct trigger_set *ts)
{
	for (size_t i = 0; i < ts->nr_adopted; i++) {
		free(ts->adopted[i].name);
		free(ts->adopted[i].ids);
	}
	free(ts->adopted);
	ts->adopted = NULL;
	ts->nr_adopted = 0;
}

/**
 * trigger_set__delete - close every trigger
 * @ts: the set, or NULL
 *
 * Dumps it asked for finish without it; clients waiting on a trigger are
 * answered with -ECANCELED.
 */
void trigger_set__delete(struct trigger_set *ts)
{
	if (!ts)
		return;
	for (int i = 0; i < ts->nr_ring_evs; i++)
		event_free(ts->ring_evs[i]);
	free(ts->ring_evs);
	for (size_t i = 0; i < ts->nr; i++) {
		struct trigger *t = &ts->triggers[i];

		if (t->ticket)
			t->ticket->t = NULL;
		trigger__answer_refused(t, -ECANCELED);
		trigger_psi__delete(t->psi);
		trigger_paired__delete(t->paired);
		if (t->after_ev)
			event_free(t->after_ev);
		if (t->summary_ev)
			event_free(t->summary_ev);
		free(t->times);
		free(t->starts);
	}
	if (ts->evlist) {
		if (ts->opened)
			perf_evlist__disable(ts->evlist);
		if (ts->mapped)
			perf_evlist__munmap(ts->evlist);
		perf_evlist__close(ts->evlist);
		for (size_t i = 0; i < ts->nr; i++)
			if (ts->triggers[i].evsel)
				perf_internals__release_evsel(ts->triggers[i].evsel);
		perf_evlist__delete(ts->evlist);
	}
	perf_cpu_map__put(ts->cpus);
	perf_thread_map__put(ts->threads);
	free_adopted(ts);
	free(ts->kept);
	free(ts->triggers);
	config__put(ts->cfg);
	free(ts);
}

/* The matches @old kept, and the events they need declared, become @ts's. */
static int adopt_kept(struct trigger_set *ts, const struct trigger_set *old)
{
	size_t room;

	if (!old->kept_len)
		return 0;
	if (!ts->kept && !(ts->kept = malloc(KEPT_MAX)))
		return -ENOMEM;
	room = KEPT_MAX - ts->kept_len;
	if (old->kept_len > room) {
		ts->kept_dropped++;
		return 0;
	}
	for (size_t i = 0; i < old->nr + old->nr_adopted; i++) {
		const struct trigger *t = i < old->nr ? &old->triggers[i] : NULL;
		const struct adopted_event *e = t ? NULL : &old->adopted[i - old->nr];
		struct adopted_event *n;

		if (t && (!t->evsel || t->recorded || !t->nr_ids))
			continue;
		n = realloc(ts->adopted, (ts->nr_adopted + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		ts->adopted = n;
		n = &ts->adopted[ts->nr_adopted];
		n->attr = t ? *perf_evsel__attr(t->evsel) : e->attr;
		n->nr_ids = t ? t->nr_ids : e->nr_ids;
		n->name = strdup(t ? t->spec->event.name : e->name);
		n->ids = malloc(n->nr_ids * sizeof(*n->ids));
		if (n->ids)
			memcpy(n->ids, t ? t->ids : e->ids, n->nr_ids * sizeof(*n->ids));
		if (!n->name || !n->ids) {
			free(n->name);
			free(n->ids);
			return -ENOMEM;
		}
		ts->nr_adopted++;
	}
	memcpy(ts->kept + ts->kept_len, old->kept, old->kept_len);
	ts->kept_len += old->kept_len;
	return 0;
}

/**
 * trigger_set__adopt - carry a reloaded set's state over
 * @ts: the new set
 * @old: the set it replaces, or NULL
 *
 * The triggers of @ts take the counts of @old's triggers of the same name,
 * and the matches @old kept for the next snapshot go into it still: a
 * reload between a trigger's fire and its dump's collection would lose
 * the event that fired it otherwise.
 */
void trigger_set__adopt(struct trigger_set *ts, const struct trigger_set *old)
{
	if (!old)
		return;
	for (size_t i = 0; i < ts->nr; i++)
		for (size_t j = 0; j < old->nr; j++)
			if (!strcmp(ts->triggers[i].spec->name, old->triggers[j].spec->name))
				ts->triggers[i].counts = old->triggers[j].counts;
	if (adopt_kept(ts, old) < 0)
		log_warning("triggers: the matches kept before the reload cannot be carried over "
			    "(out of memory): the next snapshot lacks them");
}

/**
 * trigger_set__fire - fire a trigger by name (perfsnapctl trigger NAME)
 * @ts: the set
 * @name: the trigger
 * @waiter: called with the report of the dump that covers it
 * @waiter_ctx: its argument
 * @why: on -EAGAIN, what refused
 * @why_size: size of @why
 *
 * A trigger whose dump is armed or running takes the waiter into that dump.
 * Returns 0, -ENOENT or -EAGAIN.
 */
int trigger_set__fire(struct trigger_set *ts, const char *name, dump_done_fn waiter,
		      void *waiter_ctx, char *why, size_t why_size)
{
	struct trigger *t = NULL;
	struct snapshot_trigger w;
	struct waiter *ws;
	int r = 0;

	for (size_t i = 0; i < ts->nr; i++)
		if (!strcmp(ts->triggers[i].spec->name, name))
			t = &ts->triggers[i];
	if (!t)
		return -ENOENT;
	t->counts.matches++;
	if (t->state == TRIGGER_IDLE) {
		describe(t, &w);
		snprintf(w.kind, sizeof(w.kind), "manual");
		r = trigger__fire(t, &w, why, why_size);
	} else {
		trigger__note_coalesced(t);
	}
	if (r < 0)
		return r;
	if (t->state == TRIGGER_IDLE) {
		/* The dump was started and has already failed and answered. */
		snprintf(why, why_size, "the dump failed at once (see the log)");
		return -EIO;
	}
	ws = realloc(t->waiters, (t->nr_waiters + 1) * sizeof(*ws));
	if (!ws)
		return -ENOMEM;
	t->waiters = ws;
	ws[t->nr_waiters++] = (struct waiter){ waiter, waiter_ctx };
	return 0;
}

/**
 * trigger_set__collect - put the kept matches into a snapshot
 * @arg: the set
 * @s: the snapshot being collected
 *
 * The trigger events not recorded by [capture] are declared, and the matches
 * kept since the last snapshot go in as one forward chunk. Returns 0 or -errno.
 */
int trigger_set__collect(void *arg, struct snapshot *s)
{
	struct trigger_set *ts = arg;
	int r = 0;

	if (!ts || !ts->kept_len)
		return 0;
	for (size_t i = 0; r == 0 && i < ts->nr; i++) {
		const struct trigger *t = &ts->triggers[i];

		if (t->evsel && !t->recorded && t->nr_ids)
			r = snapshot__add_event(s, perf_evsel__attr(t->evsel), t->spec->event.name,
						t->ids, t->nr_ids);
	}
	for (size_t i = 0; r == 0 && i < ts->nr_adopted; i++)
		r = snapshot__add_event(s, &ts->adopted[i].attr, ts->adopted[i].name,
					ts->adopted[i].ids, ts->adopted[i].nr_ids);
	if (r == 0)
		r = snapshot__begin_chunk(s, -1, false);
	if (r == 0)
		r = snapshot__append(s, ts->kept, ts->kept_len);
	if (r == 0)
		r = snapshot__end_chunk(s);
	ts->kept_len = 0;
	free_adopted(ts);
	return r;
}

size_t trigger_set__nr(const struct trigger_set *ts)
{
	return ts ? ts->nr : 0;
}

const char *trigger_set__name(const struct trigger_set *ts, size_t idx)
{
	return ts->triggers[idx].spec->name;
}

bool trigger_set__paired(const struct trigger_set *ts, size_t idx, struct paired_figures *ret)
{
	if (!ts->triggers[idx].paired)
		return false;
	trigger_paired__figures(ts->triggers[idx].paired, ret);
	return true;
}

const struct trigger_counts *trigger_set__counts(const struct trigger_set *ts, size_t idx)
{
	return &ts->triggers[idx].counts;
}
