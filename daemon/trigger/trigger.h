/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trigger: the [trigger NAME] sections at work. Event triggers are opened
 * beside the recording, in a small forward evlist of their own (so a reload
 * adds and removes them without touching the recording's rings), with the
 * filter set in the kernel and one wake-up per match; PSI triggers through
 * trigger_psi; manual ones only by name. Each trigger counts matches to its
 * `count` within `window`, waits `after`, applies its own min_interval and
 * max_per_hour, and asks the daemon for one dump; matches while that dump
 * is armed or running are coalesced into it. Refusals are counted and
 * logged at most once a minute. Matches of events the recording does not
 * already hold are kept (up to 256 KiB) and go into the next snapshot.
 */
#ifndef PERFSNAPD_TRIGGER_H
#define PERFSNAPD_TRIGGER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "dump.h"

struct config_diags;
struct paired_figures;
struct event_base;
struct perfsnapd_config;
struct snapshot;
struct trigger_set;

/* What the triggers need from the daemon. */
struct trigger_host {
	/* dump__trigger_by() on the current dumper. */
	int (*request)(void *ctx, const char *reason, const struct snapshot_trigger *what,
		       dump_done_fn done, void *done_ctx);
	/* The name of @tid at @time, into @buf ("" if unknown). */
	void (*comm)(void *ctx, pid_t tid, uint64_t time, char *buf, size_t size);
	void *ctx;
};

struct trigger_counts {
	uint64_t matches;     /* events that matched (event triggers), PSI reports, manual fires */
	uint64_t fired;	      /* times the trigger's condition was met */
	uint64_t dumps;	      /* dumps it started */
	uint64_t refused;     /* fires refused by its or the global limits */
	uint64_t coalesced;   /* matches absorbed into its armed or running dump */
	struct timespec last; /* realtime of the last fire; 0 if none */
};

/*
 * Opens the triggers of @cfg (a reference is taken). A filter or PSI threshold
 * the kernel refuses is added to @diags at its line, and -EINVAL returned;
 * other failures are logged. Returns 0 or -errno.
 */
int trigger_set__new(const struct perfsnapd_config *cfg, struct event_base *base,
		     const struct trigger_host *host, struct config_diags *diags,
		     struct trigger_set **ret);
/* Frees; dumps still in flight for it are answered into the void. */
void trigger_set__delete(struct trigger_set *ts);

/*
 * After a reload: takes the counts of @old's triggers with the same names,
 * and the matches @old kept for the next snapshot.
 */
void trigger_set__adopt(struct trigger_set *ts, const struct trigger_set *old);

/*
 * Fires trigger @name by hand. @waiter gets the report of the dump that
 * covers it. Returns 0, -ENOENT (no such trigger), or -EAGAIN (refused by
 * a limit, described in @why).
 */
int trigger_set__fire(struct trigger_set *ts, const char *name, dump_done_fn waiter,
		      void *waiter_ctx, char *why, size_t why_size);

/* For dump__set_collect(): the kept matches go into @s. */
int trigger_set__collect(void *ts, struct snapshot *s);

size_t trigger_set__nr(const struct trigger_set *ts);
/* The @idx-th trigger's name, kind and counts. */
const char *trigger_set__name(const struct trigger_set *ts, size_t idx);
const struct trigger_counts *trigger_set__counts(const struct trigger_set *ts, size_t idx);
/* A paired trigger's pairs and distribution so far: false if it is not paired. */
bool trigger_set__paired(const struct trigger_set *ts, size_t idx, struct paired_figures *ret);

#endif
