/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracing_meta: the tracepoint metadata of one capture (header_page,
 * header_event, the recorded tracepoints' formats, printk formats), read
 * from tracefs once when recording starts, or taken from a perf.data's
 * TRACING_DATA. It is immutable and reference counted: each snapshot holds
 * one (snapshot__set_tracing()), so every writer of every dump reads the
 * same metadata and none reads tracefs. Kept as the TRACING_DATA blob
 * (what perf.data carries) and its parsed view (what trace.dat and
 * Perfetto need).
 */
#ifndef PERFSNAPD_TRACING_META_H
#define PERFSNAPD_TRACING_META_H

#include <stddef.h>

#include "tracing_data.h"

struct tracing_meta;

/*
 * Reads tracefs (@tracing_dir, NULL: the system's) for tracepoints named
 * "system:event". Returns 0 or -errno (see tracing_data__build()).
 */
int tracing_meta__read(const char *tracing_dir, const char *const *events, size_t nr_events,
		       struct tracing_meta **ret);
/*
 * Takes a malloc'ed TRACING_DATA blob (owned by the result from now on,
 * freed on error too). Returns 0, -EPROTO or -EPROTONOSUPPORT with a
 * message in @errbuf, or -ENOMEM.
 */
int tracing_meta__from_blob(void *data, size_t size, struct tracing_meta **ret, char *errbuf,
			    size_t errlen);

/* Another reference (thread-safe); returns @m. */
struct tracing_meta *tracing_meta__get(struct tracing_meta *m);
/* Drops a reference; the last frees. NULL is fine. */
void tracing_meta__put(struct tracing_meta *m);

/* The TRACING_DATA blob, for perf.data. */
const void *tracing_meta__blob(const struct tracing_meta *m, size_t *ret_size);
/* Its parts: headers, formats by system, printk, kallsyms. */
const struct tracing_data_info *tracing_meta__info(const struct tracing_meta *m);

#endif
