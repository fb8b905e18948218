/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trigger-internal: the trigger set and its triggers, shared by trigger.c
 * (the set, its rings and sources) and trigger_fire.c (one trigger's
 * states and limits); no other file includes it.
 */
#ifndef PERFSNAPD_TRIGGER_INTERNAL_H
#define PERFSNAPD_TRIGGER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/util.h>
#include <linux/perf_event.h>

#include "dump_figures.h"
#include "trigger.h"

struct perf_cpu_map;
struct perf_evlist;
struct perf_evsel;
struct perf_thread_map;
struct trigger_spec;
struct trigger_psi;
struct trigger_paired;

#define RING_PAGES    CONFIG_TRIGGER_RING_PAGES /* per CPU, for all trigger events: 32 KiB */
#define KEPT_MAX      (256u << 10)		/* matches kept for the next snapshot */
#define HOUR_NS	      (3600ull * 1000000000ull)
#define SUMMARY_EVERY 60

enum trigger_state { TRIGGER_IDLE, TRIGGER_ARMED, TRIGGER_DUMPING };

/* The dump's waiter: outlives its trigger if the set is deleted first. */
struct ticket {
	struct trigger *t;
};

struct waiter {
	dump_done_fn fn;
	void *ctx;
};

struct trigger {
	struct trigger_set *set;
	const struct trigger_spec *spec;
	char reason[96];
	struct perf_evsel *evsel;
	const uint64_t *ids;
	size_t nr_ids;
	bool recorded; /* [capture] records the event: its rings hold the match */
	struct trigger_psi *psi;
	struct trigger_paired *paired;
	uint64_t *times; /* the last `count` match times, a ring */
	unsigned int nr_times, next_time;
	enum trigger_state state;
	struct ticket *ticket;
	struct event *after_ev, *summary_ev;
	struct snapshot_trigger what;
	uint64_t *starts; /* this trigger's dump starts within the hour */
	size_t nr_starts;
	uint64_t last_start;
	uint64_t global_refused; /* when [snapshot] max_per_hour last refused it; 0: never */
	struct trigger_counts counts;
	uint64_t unlogged_refused, unlogged_coalesced;
	bool summary_armed;
	struct waiter *waiters;
	size_t nr_waiters;
};

/* The event of matches an earlier set kept, declared when they go into a snapshot. */
struct adopted_event {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

struct trigger_set {
	const struct perfsnapd_config *cfg; /* a reference */
	struct event_base *base;
	struct trigger_host host;
	struct trigger *triggers;
	size_t nr;
	struct perf_cpu_map *cpus;
	struct perf_thread_map *threads;
	struct perf_evlist *evlist; /* NULL without event triggers */
	bool opened, mapped;
	struct event **ring_evs;
	int nr_ring_evs;
	uint8_t *kept;
	size_t kept_len;
	uint64_t kept_dropped, lost;
	struct adopted_event *adopted; /* of kept matches from the set before a reload */
	size_t nr_adopted;
};

/* trigger_fire.c: a match, a fire, a dump's end. */
void trigger__match(struct trigger *t, const struct snapshot_trigger *what);
/* Fires @t now (perfsnapctl trigger): 0, or < 0 with @why filled. */
int trigger__fire(struct trigger *t, const struct snapshot_trigger *what, char *why, size_t size);
void trigger__note_coalesced(struct trigger *t);
void trigger__answer_refused(struct trigger *t, int err);
/* Timer callbacks: the end of the `after` window, the summary of refusals. */
void trigger__on_after(evutil_socket_t fd, short what, void *arg);
void trigger__on_summary(evutil_socket_t fd, short what, void *arg);

#endif
