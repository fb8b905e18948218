// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump_schedule: the rules that turn triggers into dumps. See
 * dump_schedule.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dump_schedule.h"

#define HOUR_NS (3600ull * 1000000000ull)

struct waiter {
	dump_done_fn fn;
	void *ctx;
	unsigned long seq; /* the dump that answers it */
};

struct dump_schedule {
	struct dump_schedule_limits limits;
	bool running, pending;
	unsigned long seq; /* of the last dump started */
	uint64_t last_start;
	uint64_t *starts; /* start times within the last hour, oldest first */
	size_t nr_starts, cap_starts;
	struct waiter *waiters;
	size_t nr_waiters, cap_waiters;
};

int dump_schedule__new(const struct dump_schedule_limits *limits, struct dump_schedule **ret)
{
	struct dump_schedule *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->limits = *limits;
	*ret = s;
	return 0;
}

void dump_schedule__delete(struct dump_schedule *s)
{
	if (!s)
		return;
	free(s->starts);
	free(s->waiters);
	free(s);
}

void dump_schedule__set_limits(struct dump_schedule *s, const struct dump_schedule_limits *limits)
{
	s->limits = *limits;
}

static void forget_old_starts(struct dump_schedule *s, uint64_t now)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nr_starts; i++)
		if (now - s->starts[i] < HOUR_NS)
			s->starts[n++] = s->starts[i];
	s->nr_starts = n;
}

unsigned int dump_schedule__starts_last_hour(const struct dump_schedule *s, uint64_t now)
{
	unsigned int n = 0;

	for (size_t i = 0; i < s->nr_starts; i++)
		n += now - s->starts[i] < HOUR_NS;
	return n;
}

int dump_schedule__poll(const struct dump_schedule *s, uint64_t now, uint64_t *ret_wait_ns)
{
	uint64_t min = s->limits.min_interval_ns;

	if (s->running || !s->pending)
		return DUMP_SCHEDULE_IDLE;
	if (s->seq && min && now - s->last_start < min) {
		*ret_wait_ns = min - (now - s->last_start);
		return DUMP_SCHEDULE_DEFER;
	}
	return DUMP_SCHEDULE_START;
}

int dump_schedule__request(struct dump_schedule *s, uint64_t now, dump_done_fn waiter,
			   void *waiter_ctx, uint64_t *ret_wait_ns)
{
	unsigned int max = s->limits.max_per_hour;

	if (!s->pending && max && dump_schedule__starts_last_hour(s, now) >= max)
		return -EAGAIN;
	if (waiter) {
		if (s->nr_waiters == s->cap_waiters) {
			size_t cap = s->cap_waiters ? 2 * s->cap_waiters : 8;
			struct waiter *w = realloc(s->waiters, cap * sizeof(*w));

			if (!w)
				return -ENOMEM;
			s->waiters = w;
			s->cap_waiters = cap;
		}
		/* Pending or not, the next dump to start is the one that covers it. */
		s->waiters[s->nr_waiters++] = (struct waiter){ waiter, waiter_ctx, s->seq + 1 };
	}
	if (s->pending)
		return DUMP_SCHEDULE_COALESCED;
	s->pending = true;
	if (s->running)
		return DUMP_SCHEDULE_FOLLOW;
	return dump_schedule__poll(s, now, ret_wait_ns);
}

unsigned long dump_schedule__begin(struct dump_schedule *s, uint64_t now)
{
	s->pending = false;
	s->running = true;
	s->seq++;
	s->last_start = now;
	forget_old_starts(s, now);
	if (s->nr_starts == s->cap_starts) {
		size_t cap = s->cap_starts ? 2 * s->cap_starts : 16;
		uint64_t *st = realloc(s->starts, cap * sizeof(*st));

		/* Out of memory: this start goes uncounted, the oldest stays. */
		if (st) {
			s->starts = st;
			s->cap_starts = cap;
		}
	}
	if (s->nr_starts < s->cap_starts)
		s->starts[s->nr_starts++] = now;
	return s->seq;
}

/* Takes waiter @i off the list (keeping the order) and returns it. */
static struct waiter take_waiter(struct dump_schedule *s, size_t i)
{
	struct waiter w = s->waiters[i];

	memmove(&s->waiters[i], &s->waiters[i + 1], (s->nr_waiters - i - 1) * sizeof(w));
	s->nr_waiters--;
	return w;
}

bool dump_schedule__end(struct dump_schedule *s, const struct dump_figures *report)
{
	unsigned long seq = s->seq;
	size_t i = 0;

	s->running = false;
	/*
	 * Each waiter leaves the list before it is called: its callback may
	 * trigger again, which appends a waiter for a later dump.
	 */
	while (i < s->nr_waiters) {
		if (s->waiters[i].seq == seq) {
			struct waiter w = take_waiter(s, i);

			w.fn(w.ctx, report);
		} else {
			i++;
		}
	}
	return s->pending;
}

void dump_schedule__cancel(struct dump_schedule *s, const struct dump_figures *report)
{
	size_t i = 0;

	s->pending = false;
	while (i < s->nr_waiters) {
		struct waiter w;

		if (s->running && s->waiters[i].seq == s->seq) {
			i++;
			continue;
		}
		w = take_waiter(s, i);
		w.fn(w.ctx, report);
	}
}

bool dump_schedule__running(const struct dump_schedule *s)
{
	return s->running;
}

bool dump_schedule__pending(const struct dump_schedule *s)
{
	return s->pending;
}
