/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config: perfsnapd.conf, parsed with inih and validated in full before
 * anything is opened. Every problem becomes one diagnostic naming the file,
 * line, key, the bad value and what is accepted; the caller prints them all
 * and exits with EX_CONFIG (78).
 */
#ifndef PERFSNAPD_CONFIG_H
#define PERFSNAPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/perf_event.h>

#define PERFSNAPD_DEFAULT_CONFIG "/etc/perfsnapd/perfsnapd.conf"

enum snapshot_format {
	SNAPSHOT_FORMAT_PERFDATA = 1u << 0,
	SNAPSHOT_FORMAT_TRACEDAT = 1u << 1,
};

/* One perf event, resolved from its config text. */
struct event_spec {
	char *name;			/* "sched:sched_switch", "cpu-clock" */
	struct perf_event_attr attr;	/* type, config, sample_*, freq, callchain... */
	bool overwrite;			/* backward ring (aux evlist) or forward (main) */
	bool is_tracepoint;
	int line;			/* config line it came from */
};

struct config_diag {
	char *file;
	int line;			/* 0 when not tied to a line */
	char *message;			/* "[capture] buffer_size: bad size '4Q': accepted: ..." */
};

struct config_diags {
	struct config_diag *items;
	size_t nr;
};

struct perfsnapd_config {
	char *path;
	struct event_spec *events;
	size_t nr_events;
	uint64_t buffer_size;		/* as requested, bytes */
	unsigned int buffer_pages;	/* data pages per CPU ring: a power of two */
	char *cpus;			/* NULL for all online CPUs, else "0-3,8" (normalized) */
	char *directory;
	unsigned int formats;		/* enum snapshot_format bits */
	int config_line_buffer_size;	/* for reporting rounding */
};

/*
 * Parses and validates @path. Tracepoints are looked up under @tracing_dir
 * (NULL: the system's tracefs). Returns 0 and a config in *ret, -EINVAL
 * with every problem appended to @diags, or -errno if the file cannot be
 * read (also reported in @diags).
 */
int config__load(const char *path, const char *tracing_dir, struct perfsnapd_config **ret,
		 struct config_diags *diags);
void config__delete(struct perfsnapd_config *cfg);

/* Prints the effective configuration in config-file syntax. */
void config__print(const struct perfsnapd_config *cfg, FILE *out);

/* Prints each diagnostic as "file:line: message". */
void config_diags__print(const struct config_diags *diags, FILE *out);
void config_diags__clear(struct config_diags *diags);

/*
 * Appends one diagnostic, e.g. for an event that later fails to open, at
 * its event_spec.line. Returns 0 or -ENOMEM.
 */
int config_diags__add(struct config_diags *diags, const char *file, int line,
		      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
