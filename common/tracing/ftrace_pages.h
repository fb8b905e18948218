/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_pages: one CPU's ftrace sub-buffers (ftrace_ring__copy()'s, oldest
 * first) as perf samples, so that a snapshot holds a tracefs instance's
 * events as it holds the perf rings' compact records: each event becomes
 * a PERF_RECORD_SAMPLE of sample_type PERF_SAMPLE_IDENTIFIER |
 * PERF_SAMPLE_TIME | PERF_SAMPLE_RAW (id, time, the event's bytes from
 * common_type on), the id of its tracepoint by common_type. Pages are
 * read with libtraceevent's kbuffer.
 */
#ifndef PERFSNAPD_FTRACE_PAGES_H
#define PERFSNAPD_FTRACE_PAGES_H

#include <stddef.h>
#include <stdint.h>

/* The sample_type of the records ftrace_pages__records() makes. */
#define FTRACE_PAGES_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

/*
 * A tracepoint the instance records: its common_type, its perf id, and
 * the ip its samples carry (ftrace keeps none: the caller's choice, such
 * as the tracepoint's own function, or 0).
 */
struct ftrace_pages_event {
	uint16_t type;
	uint64_t id;
	uint64_t ip;
};

struct ftrace_pages_info {
	uint64_t nr_events;		/* made into records */
	uint64_t nr_unknown;		/* left out: a common_type not in the table */
	uint64_t nr_after;		/* left out: newer than @until */
	uint64_t missed_events;		/* the sub-buffers' missed-events counts */
	uint64_t first_time, last_time; /* of the records made */
};

/* Receives one record; < 0 stops the walk and is returned. */
typedef int (*ftrace_pages_fn)(void *ctx, const void *rec, size_t len);

/*
 * ftrace_pages__records - the events of one CPU's sub-buffers, as samples
 * @pages: sub-buffers of @subbuf_size bytes each, oldest first
 * @len: their bytes
 * @subbuf_size: the ring's
 * @events: the tracepoints, sorted by type
 * @nr_events: their number
 * @until: events newer than this (ns, the ring's clock) are left out
 * @fn: called for each record, in time order
 * @ctx: for @fn
 * @info: counts (zeroed first)
 *
 * Returns 0, -EINVAL for a @len that is no whole number of sub-buffers,
 * -EPROTO for a sub-buffer whose commit or events do not fit in it (an
 * event too large for a perf record included), -ENOMEM, or @fn's error.
 */
int ftrace_pages__records(const void *pages, size_t len, size_t subbuf_size,
			  const struct ftrace_pages_event *events, size_t nr_events, uint64_t until,
			  ftrace_pages_fn fn, void *ctx, struct ftrace_pages_info *info);

#endif
