/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture: the perf events perfsnapd records, opened with libperf on every
 * configured CPU. Overwrite events live in the auxiliary evlist, whose
 * write_backward rings are mapped read-only and never consumed; the rest
 * in the forward main evlist. The kernel records; capture only opens,
 * pauses, resumes and closes.
 */
#ifndef PERFSNAPD_CAPTURE_H
#define PERFSNAPD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perf_internals.h"

struct capture;
struct perfsnapd_config;
struct perf_evlist;
struct perf_event_header;
struct tracing_meta;

struct capture_event {
	const char *name;
	const struct perf_event_attr *attr; /* as opened */
	const uint64_t *ids;
	size_t nr_ids;
	bool overwrite;
};

/*
 * Opens and maps every event, enabling only the side-band one. Logs why on
 * failure; returns 0 or -errno. capture__start() enables the others.
 */
int capture__open(const struct perfsnapd_config *cfg, bool may_cut, struct capture **ret);
void capture__start(struct capture *c);
void capture__close(struct capture *c);

size_t capture__nr_events(const struct capture *c);
const struct capture_event *capture__event(const struct capture *c, size_t idx);
int capture__nr_cpus(const struct capture *c);
/* Highest CPU number recorded (trace.dat numbers CPUs 0..max). */
int capture__max_cpu(const struct capture *c);
/* The side-band dummy event (the first event), or NULL when it is off. */
const struct capture_event *capture__sideband_event(const struct capture *c);
/*
 * Tracepoint formats and headers of [capture]'s and the triggers'
 * tracepoints, read once at open; NULL if not needed.
 */
struct tracing_meta *capture__tracing(const struct capture *c);
/* A reload with the same rings: reads the formats @cfg needs that it lacks. */
int capture__update_tracing(struct capture *c, const struct perfsnapd_config *cfg);

/* Rings of the aux (overwrite) or main (forward) evlist. */
int capture__nr_rings(const struct capture *c, bool overwrite);
/* Pages of each overwrite ring: buffer_size's, or fewer where locked memory cut them. */
unsigned int capture__ring_pages(const struct capture *c);
const struct ring_view *capture__ring(const struct capture *c, bool overwrite, int idx);
/*
 * Whether every page of the overwrite rings has been read once since open:
 * until then the first dump is slower and the daemon's resident memory is
 * still growing towards the rings' size.
 */
bool capture__warm(struct capture *c);
struct perf_evlist *capture__main_evlist(const struct capture *c);

/* Receives one record of a forward ring; < 0 stops the drain. */
typedef int (*capture_record_fn)(void *ctx, const struct perf_event_header *rec);

/* Consumes every record now in the forward rings. Returns 0 or @fn's error. */
int capture__drain_forward(struct capture *c, capture_record_fn fn, void *ctx);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on one ring. Returns 0 or -errno. */
int capture__pause_ring(const struct ring_view *ring, bool pause);

#endif
