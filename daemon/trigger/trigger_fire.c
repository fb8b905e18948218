// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger_fire: one trigger's states, IDLE -> ARMED (the `after` window)
 * -> DUMPING -> IDLE, its own and the global limits, the waiters of its
 * dump and the once-a-minute summaries of what it refused or coalesced.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "config.h"
#include "log.h"
#include "monotonic.h"
#include "trigger-internal.h"

static void answer_waiters(struct trigger *t, const struct dump_figures *rep)
{
	struct waiter *w = t->waiters;
	size_t n = t->nr_waiters;

	t->waiters = NULL;
	t->nr_waiters = 0;
	for (size_t i = 0; i < n; i++)
		w[i].fn(w[i].ctx, rep);
	free(w);
}

void trigger__answer_refused(struct trigger *t, int err)
{
	struct dump_figures rep = { .error = err };

	snprintf(rep.reason, sizeof(rep.reason), "%s", t->reason);
	answer_waiters(t, &rep);
}

static void arm_summary(struct trigger *t)
{
	struct timeval tv = { .tv_sec = SUMMARY_EVERY };

	if (!t->summary_armed && evtimer_add(t->summary_ev, &tv) == 0)
		t->summary_armed = true;
}

/* The first refusal is logged at once; the rest are summed once a minute. */
static void note_refused(struct trigger *t, const char *why)
{
	t->counts.refused++;
	if (t->summary_armed) {
		t->unlogged_refused++;
		return;
	}
	log_warning("trigger %s: refused by %s; further refusals are counted and summed "
		    "at most once a minute",
		    t->spec->name, why);
	arm_summary(t);
}

void trigger__note_coalesced(struct trigger *t)
{
	t->counts.coalesced++;
	t->unlogged_coalesced++;
	arm_summary(t);
}

void trigger__on_summary(evutil_socket_t fd, short what, void *arg)
{
	struct trigger *t = arg;

	(void)fd;
	(void)what;
	t->summary_armed = false;
	if (!t->unlogged_refused && !t->unlogged_coalesced)
		return;
	log_notice("trigger %s: in the last minute %llu fires refused by limits, %llu matches "
		   "coalesced into a dump already armed or running (totals: %llu refused, "
		   "%llu coalesced)",
		   t->spec->name, (unsigned long long)t->unlogged_refused,
		   (unsigned long long)t->unlogged_coalesced, (unsigned long long)t->counts.refused,
		   (unsigned long long)t->counts.coalesced);
	t->unlogged_refused = t->unlogged_coalesced = 0;
	arm_summary(t);
}

static void on_dump_done(void *ctx, const struct dump_figures *rep)
{
	struct ticket *k = ctx;
	struct trigger *t = k->t;

	free(k);
	if (!t)
		return; /* the trigger went with a reload */
	t->ticket = NULL;
	t->state = TRIGGER_IDLE;
	answer_waiters(t, rep);
}

/* Limits of this trigger. Returns NULL, or what refuses. */
static const char *own_limit(struct trigger *t, uint64_t now, char *buf, size_t size)
{
	const struct trigger_spec *sp = t->spec;
	size_t n = 0;

	if (sp->min_interval_ms && t->counts.dumps &&
	    now - t->last_start < sp->min_interval_ms * 1000000ull) {
		snprintf(buf, size,
			 "its min_interval (%llu ms since its last dump, %llu ms needed)",
			 (unsigned long long)((now - t->last_start) / 1000000),
			 (unsigned long long)sp->min_interval_ms);
		return buf;
	}
	for (size_t i = 0; i < t->nr_starts; i++)
		if (now - t->starts[i] < HOUR_NS)
			t->starts[n++] = t->starts[i];
	t->nr_starts = n;
	if (sp->max_per_hour && n >= sp->max_per_hour) {
		snprintf(buf, size, "its max_per_hour = %u", sp->max_per_hour);
		return buf;
	}
	/* dump.c logs each refusal: ask it again only a minute later. */
	if (t->global_refused && now - t->global_refused < SUMMARY_EVERY * 1000000000ull) {
		snprintf(buf, size,
			 "[snapshot] max_per_hour = %u (asked again a minute after it refused)",
			 t->set->cfg->max_per_hour);
		return buf;
	}
	return NULL;
}

static int request_dump(struct trigger *t)
{
	struct trigger_set *ts = t->set;
	uint64_t now = monotonic_ns();
	struct ticket *k = calloc(1, sizeof(*k));
	int r;

	if (!k) {
		t->state = TRIGGER_IDLE;
		trigger__answer_refused(t, -ENOMEM);
		return log__errno(-ENOMEM, "trigger %s", t->spec->name);
	}
	k->t = t;
	t->ticket = k;
	t->state = TRIGGER_DUMPING;
	t->counts.dumps++;
	t->last_start = now;
	if (t->spec->max_per_hour && t->nr_starts < t->spec->max_per_hour)
		t->starts[t->nr_starts++] = now;
	log_notice("trigger %s fired (%s%s%s): dump requested", t->spec->name, t->what.kind,
		   t->what.event[0] ? " " : "", t->what.event);
	/* The dump may finish (or fail) before this returns: the ticket says so. */
	r = ts->host.request(ts->host.ctx, t->reason, &t->what, on_dump_done, k);
	if (r < 0) {
		/* Refused by [snapshot] max_per_hour: the dumper did not keep the ticket. */
		free(k);
		t->ticket = NULL;
		t->counts.dumps--;
		if (t->nr_starts && t->starts[t->nr_starts - 1] == now)
			t->nr_starts--;
		t->state = TRIGGER_IDLE;
		t->global_refused = now;
		note_refused(t, "[snapshot] max_per_hour");
		trigger__answer_refused(t, r);
	}
	return r;
}

void trigger__on_after(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	request_dump(arg);
}

/* The condition is met: arm the dump, or refuse. Returns 0 or -EAGAIN. */
int trigger__fire(struct trigger *t, const struct snapshot_trigger *what, char *why, size_t size)
{
	char buf[160];
	const char *limit;

	t->counts.fired++;
	clock_gettime(CLOCK_REALTIME, &t->counts.last);
	limit = own_limit(t, monotonic_ns(), buf, sizeof(buf));
	if (limit) {
		note_refused(t, limit);
		if (why)
			snprintf(why, size, "refused by %s", limit);
		return -EAGAIN;
	}
	t->what = *what;
	t->what.before_ms = t->spec->before_ms;
	t->what.after_ms = t->spec->after_ms;
	t->nr_times = 0;
	t->state = TRIGGER_ARMED;
	if (t->spec->after_ms) {
		struct timeval tv = { .tv_sec = (time_t)(t->spec->after_ms / 1000),
				      .tv_usec = (suseconds_t)(t->spec->after_ms % 1000 * 1000) };

		evtimer_add(t->after_ev, &tv);
		return 0;
	}
	if (request_dump(t) < 0) {
		if (why)
			snprintf(why, size, "refused by [snapshot] max_per_hour = %u",
				 t->set->cfg->max_per_hour);
		return -EAGAIN;
	}
	return 0;
}

/* One more match: fire on the count-th within the window. */
void trigger__match(struct trigger *t, const struct snapshot_trigger *what)
{
	const struct trigger_spec *sp = t->spec;
	uint64_t now = monotonic_ns();

	t->counts.matches++;
	if (t->state != TRIGGER_IDLE) {
		trigger__note_coalesced(t);
		return;
	}
	if (sp->count > 1) {
		t->times[t->next_time] = now;
		t->next_time = (t->next_time + 1) % sp->count;
		if (t->nr_times < sp->count)
			t->nr_times++;
		/* The oldest of the last `count` is where next_time now points. */
		if (t->nr_times < sp->count ||
		    now - t->times[t->next_time] > sp->window_ms * 1000000ull)
			return;
	}
	trigger__fire(t, what, NULL, 0);
}
