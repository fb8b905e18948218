/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedat_formats: the tracepoint format files a trace.dat carries,
 * grouped by system, and what they say about record sizes. Internal to
 * tracedat_writer; no I/O.
 */
#ifndef PERFSNAPD_TRACEDAT_FORMATS_H
#define PERFSNAPD_TRACEDAT_FORMATS_H

#include <stdbool.h>
#include <stddef.h>

struct tracedat_formats;

/* NULL on ENOMEM. */
struct tracedat_formats *tracedat_formats__new(void);
void tracedat_formats__delete(struct tracedat_formats *f);

int tracedat_formats__add(struct tracedat_formats *f, const char *system, const char *text,
			  size_t size);
bool tracedat_formats__has(const struct tracedat_formats *f, const char *system, const char *event);
size_t tracedat_formats__event_size(const struct tracedat_formats *f, const void *data,
				    size_t size);
int tracedat_formats__section(const struct tracedat_formats *f, bool ftrace, void **ret_data,
			      size_t *ret_size);

#endif
