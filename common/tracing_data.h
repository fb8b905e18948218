/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracing_data: tracepoint metadata read from tracefs, in the forms the
 * output files need: the perf.data TRACING_DATA feature (trace-cmd's
 * "tracing" blob, version 0.6) and the pieces trace.dat repeats
 * (header_page, header_event, event formats).
 */
#ifndef PERFSNAPD_TRACING_DATA_H
#define PERFSNAPD_TRACING_DATA_H

#include <stddef.h>

/*
 * Builds the TRACING_DATA blob for tracepoints named "system:event".
 * @tracing_dir may be NULL for the system's tracefs. On success returns 0
 * and a malloc'ed blob in *ret_data / *ret_size; otherwise -errno.
 */
int tracing_data__build(const char *tracing_dir, const char *const *events, size_t nr_events,
			void **ret_data, size_t *ret_size);

#endif
