/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture_tracefs: tracepoints recorded by the kernel's own tracer, in a
 * tracefs instance of the recording's own, as a capture backend
 * (capture_backend.h). Every CPU's ring is mapped at open and never
 * consumed; a dump marks an instant in the instance, copies the
 * sub-buffers that hold events into memory taken at open while the
 * instance records on, then (after the perf rings' copy) reads them into
 * one chunk of samples per CPU, cropped at that instant.
 * docs/decisions.md, "A tracefs-instance backend".
 */
#ifndef PERFSNAPD_CAPTURE_TRACEFS_H
#define PERFSNAPD_CAPTURE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

#include "capture_backend.h"

struct capture_tracefs;
struct event_spec;
struct perf_cpu_map;
struct perfsnapd_config;

/* Whether the instance would record @e: a tracepoint of every hit, no callchain, overwrite. */
bool capture_tracefs__takes(const struct event_spec *e);

/*
 * capture_tracefs__open - the instance for @cfg's tracepoints it takes
 * @cfg: the configuration ([capture] backend, clock, events)
 * @cpus: the CPUs to record on now
 * @ring_kb: each CPU's ring
 * @ret: the backend, or NULL where it records nothing (backend = perf, no
 *	event it takes, or auto on a kernel that cannot map its rings)
 *
 * Removes instances killed daemons left first. Returns 0 or -errno,
 * logged (backend = tracefs where the kernel cannot).
 */
int capture_tracefs__open(const struct perfsnapd_config *cfg, const struct perf_cpu_map *cpus,
			  size_t ring_kb, struct capture_tracefs **ret);
/* Starts recording (tracing_on). Returns 0 or -errno (logged). */
int capture_tracefs__start(struct capture_tracefs *t);
/* Stops, unmaps and removes the instance; NULL is fine. */
void capture_tracefs__close(struct capture_tracefs *t);
/* The instance's name, for the log and status. */
const char *capture_tracefs__name(const struct capture_tracefs *t);

extern const struct capture_backend_ops capture_tracefs__ops;

#endif
