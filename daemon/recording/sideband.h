/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sideband: keeps names and mappings of tasks right, including tasks that
 * exited before a dump. A dummy event in the forward main evlist reports
 * every comm, exec, mmap, fork and exit; the daemon drains its rings when
 * the kernel wakes it (watermark) into a process table, and /no-overwrite/
 * events from the same rings into a bounded history. At dump time the
 * snapshot gets the history and the records that name its tasks.
 */
#ifndef PERFSNAPD_SIDEBAND_H
#define PERFSNAPD_SIDEBAND_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct capture;
struct event_base;
struct perfsnapd_config;
struct snapshot;
struct snapshot_task;
struct sideband;

struct sideband_stats {
	uint64_t nr_tasks, nr_dropped_tasks, table_bytes;
	uint64_t history_records, history_bytes, history_dropped;
	uint64_t records_drained, lost_events;
	uint64_t build_ids_kernel, build_ids_read, build_ids_none; /* file mappings */
	uint64_t build_ids_waiting;				   /* queued to the reader thread */
	uint64_t build_id_busy_ns; /* how long its read in progress has taken */
};

/* Seeds the table from /proc (any thread). Returns 0 or -errno. */
int sideband__new(struct capture *cap, const struct perfsnapd_config *cfg, struct sideband **ret);
/* Loop thread: drains the main rings on every wake-up from now on. Returns 0 or -errno. */
int sideband__watch(struct sideband *sb, struct event_base *base);
/*
 * Loop thread: drains the rings one last time and stops watching them,
 * before the capture's rings change (a CPU's closed or opened);
 * sideband__watch() then watches the rings there are.
 */
void sideband__unwatch(struct sideband *sb);
void sideband__delete(struct sideband *sb);

/* Loop thread, at dump time: drains the rings, adds the history chunk. */
int sideband__collect(struct sideband *sb, struct snapshot *s);

/*
 * Worker thread: merges into the sealed @s the COMM/FORK/MMAP2/EXIT records
 * that were true during its span for every task in it; with @cmdlines, keeps
 * with @s its processes' command lines from /proc too (for a Perfetto
 * trace). Returns 0 or -errno.
 */
int sideband__name_tasks(struct sideband *sb, struct snapshot *s, bool cmdlines,
			 uint64_t *ret_added, uint64_t *ret_unknown);
/*
 * Worker thread, a snapshot_naming_fn: at most the bytes sideband__name_tasks()
 * merges to name @tasks over [@from, @to] (a dump's --max-size counts them).
 */
uint64_t sideband__naming_bytes(void *ctx, const struct snapshot_task *tasks, size_t nr,
				uint64_t from, uint64_t to);

/*
 * The name of @tid at @time into @buf ("" if unknown), from the table as
 * drained so far: no drain first.
 */
void sideband__comm(struct sideband *sb, pid_t tid, uint64_t time, char *buf, size_t size);

void sideband__stats(struct sideband *sb, struct sideband_stats *ret);

/*
 * The objects mapped executable, held open for the symbol pack ([snapshot]
 * symbols = pack when the side-band was made), or NULL.
 */
struct symbol_cache *sideband__symbol_cache(struct sideband *sb);

#endif
