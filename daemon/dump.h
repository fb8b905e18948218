/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump: turns a trigger into snapshot files. The event loop thread pauses
 * each overwrite ring in turn, copies it out and resumes it (the ring's
 * blind window is only that copy); a worker thread then builds and writes
 * the files while recording goes on. Triggers that arrive during a dump
 * coalesce into at most one more.
 */
#ifndef PERFSNAPD_DUMP_H
#define PERFSNAPD_DUMP_H

#include <stdint.h>

struct capture;
struct dump;
struct event_base;
struct perfsnapd_config;

/* What the last finished dump did (for logs and status). */
struct dump_report {
	char path[4096];		/* perf.data path, "" if it failed */
	int error;			/* 0 or -errno */
	uint64_t nr_records;
	uint64_t bytes;
	uint64_t blind_max_ns;		/* longest single ring pause */
	uint64_t blind_total_ns;
	uint64_t dump_ns;		/* trigger to renamed file */
	uint64_t copy_bytes;		/* ring bytes copied */
};

typedef void (*dump_done_fn)(void *ctx, const struct dump_report *report);

/*
 * Prepares dumps for @cap. The copy buffer (one ring) is allocated and
 * faulted in now, not at dump time. Returns 0 or -errno (logged).
 */
int dump__new(struct capture *cap, const struct perfsnapd_config *cfg, struct event_base *base,
	      int argc, const char *const *argv, dump_done_fn done, void *done_ctx,
	      struct dump **ret);
/* Waits for a dump in flight, then frees. */
void dump__delete(struct dump *d);

/* Starts a dump, or marks one pending if a dump is running. */
void dump__trigger(struct dump *d, const char *reason);

/* Bytes of memory held for ring copies. */
uint64_t dump__copy_buffer_size(const struct dump *d);

#endif
