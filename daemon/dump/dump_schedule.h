/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump_schedule: when snapshots are taken, as plain functions of the time
 * they are given (no clock, no loop, no threads, no logging). At most one
 * dump runs; triggers while one runs or is deferred coalesce into one
 * pending dump; min_interval defers it; max_per_hour refuses a trigger
 * that would start a new dump. Every waiter is answered exactly once, by
 * the dump that covers its trigger or by dump_schedule__cancel().
 */
#ifndef PERFSNAPD_DUMP_SCHEDULE_H
#define PERFSNAPD_DUMP_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

struct dump_figures;
struct dump_schedule;

typedef void (*dump_done_fn)(void *ctx, const struct dump_figures *report);

struct dump_schedule_limits {
	uint64_t min_interval_ns;  /* 0: none */
	unsigned int max_per_hour; /* 0: no limit */
};

enum dump_schedule_verdict {
	DUMP_SCHEDULE_IDLE,	 /* nothing to start */
	DUMP_SCHEDULE_START,	 /* start the pending dump now */
	DUMP_SCHEDULE_DEFER,	 /* the pending dump may start in *ret_wait_ns */
	DUMP_SCHEDULE_FOLLOW,	 /* a dump runs; the pending one follows it */
	DUMP_SCHEDULE_COALESCED, /* the trigger joined the pending dump */
};

int dump_schedule__new(const struct dump_schedule_limits *limits, struct dump_schedule **ret);
/* Waiters still queued are dropped unanswered: cancel first. */
void dump_schedule__delete(struct dump_schedule *s);
void dump_schedule__set_limits(struct dump_schedule *s, const struct dump_schedule_limits *limits);

/*
 * A trigger at @now. @waiter (may be NULL) is answered by the dump that
 * covers it. Returns a verdict (START and DEFER as dump_schedule__poll()
 * would say), or -EAGAIN (max_per_hour; @waiter not queued) or -ENOMEM.
 */
int dump_schedule__request(struct dump_schedule *s, uint64_t now, dump_done_fn waiter,
			   void *waiter_ctx, uint64_t *ret_wait_ns);
/* What to do with the pending dump at @now: IDLE, START or DEFER. */
int dump_schedule__poll(const struct dump_schedule *s, uint64_t now, uint64_t *ret_wait_ns);
/* The pending dump starts at @now; returns its sequence number (1, 2, ...). */
unsigned long dump_schedule__begin(struct dump_schedule *s, uint64_t now);
/*
 * The running dump is over: its waiters get @report, once. Returns true
 * when another dump is pending (then poll).
 */
bool dump_schedule__end(struct dump_schedule *s, const struct dump_figures *report);
/*
 * Drops the pending dump and answers its waiters with @report (e.g.
 * -ECANCELED); the waiters of a running dump stay for dump_schedule__end().
 */
void dump_schedule__cancel(struct dump_schedule *s, const struct dump_figures *report);

bool dump_schedule__running(const struct dump_schedule *s);
bool dump_schedule__pending(const struct dump_schedule *s);
/* Dumps started in the hour before @now. */
unsigned int dump_schedule__starts_last_hour(const struct dump_schedule *s, uint64_t now);

#endif
