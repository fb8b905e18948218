/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracing_formats: tracepoint format files grouped by system, and what
 * they say about record sizes. The trace.dat writer keeps its EVENT_FORMATS
 * in one; tracing_data__parse() refuses what it would refuse. No I/O.
 */
#ifndef PERFSNAPD_TRACING_FORMATS_H
#define PERFSNAPD_TRACING_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

struct tracing_formats;

/* NULL on ENOMEM. */
struct tracing_formats *tracing_formats__new(void);
void tracing_formats__delete(struct tracing_formats *f);

int tracing_formats__add(struct tracing_formats *f, const char *system, const char *text,
			 size_t size);
bool tracing_formats__has(const struct tracing_formats *f, const char *system, const char *event);
size_t tracing_formats__event_size(const struct tracing_formats *f, const void *data, size_t size);
int tracing_formats__section(const struct tracing_formats *f, bool ftrace, void **ret_data,
			     size_t *ret_size);

#endif
