/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * event_spec: one token of the [capture] events list, such as
 * "sched:sched_*" or "cpu-clock/freq=999,call-graph=fp/", resolved into
 * filled-in perf_event_attrs. Tracepoint globs are expanded against tracefs.
 * Used by config; struct event_spec itself lives in config.h.
 */
#ifndef PERFSNAPD_EVENT_SPEC_H
#define PERFSNAPD_EVENT_SPEC_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* Default sampling frequency of software and hardware events, in Hz. */
#define EVENT_SPEC_DEFAULT_FREQ 4000

int event_spec__parse(const char *token, const char *tracing_dir, int line,
		      struct event_spec **specs, size_t *nr, char **ret_err);
void event_spec__fini(struct event_spec *spec);
void event_spec__print(const struct event_spec *spec, FILE *out);

#endif
