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
 * The history of an overwrite ring closed when its CPU went offline, copied
 * out: snapshots take it (a reference each) until the first one after the
 * CPU is back. References are taken and dropped on the loop thread only.
 */
struct capture_kept {
	int refs;
	int cpu;
	void *buf; /* the ring's bytes, oldest first, as a ring copy is */
	size_t len;
	bool wrapped; /* older data had been overwritten */
};

/* A span a CPU was not recorded, in the recording clock (ns). */
struct capture_offline {
	int cpu;
	uint64_t from_ns, to_ns; /* 0: the clock could not be read */
	uint64_t from_mono_ns;	 /* CLOCK_MONOTONIC, for the log's duration */
	bool ended;		 /* it is back: to_ns is set */
};

/* Spans a capture keeps (the newest). */
#define CAPTURE_OFFLINE_MAX 16

/*
 * Opens and maps every event, enabling only the side-band one. Logs why on
 * failure; returns 0 or -errno. capture__start() enables the others.
 */
int capture__open(const struct perfsnapd_config *cfg, bool may_cut, struct capture **ret);
void capture__start(struct capture *c);
void capture__set_start(struct capture *c, int cpu, uint64_t time);
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

/*
 * Receives one record of a forward ring, consumed after it; non-zero stops
 * the drain there (< 0: an error).
 */
typedef int (*capture_record_fn)(void *ctx, const struct perf_event_header *rec);

/* Consumes every record now in the forward rings. Returns 0 or @fn's return that stopped it. */
int capture__drain_forward(struct capture *c, capture_record_fn fn, void *ctx);

/*
 * Hotplug, on the loop thread with no dump in flight (capture_cpu.c).
 * The CPUs the capture is asked to record ([capture] cpus, or every
 * possible one); whether one has live rings now.
 */
int capture__nr_wanted(const struct capture *c);
/* A CPU list file of sysfs ("0-3,8"); NULL where it cannot be read. */
struct perf_cpu_map *capture__read_cpu_file(const char *path);
int capture__wanted_cpu(const struct capture *c, int idx);
bool capture__cpu_recorded(const struct capture *c, int cpu);
/*
 * @cpu went offline at @now (recording clock): its overwrite ring's history
 * is copied out and kept, its rings are closed. Returns 0 or -errno.
 */
int capture__cpu_down(struct capture *c, int cpu, uint64_t now, uint64_t now_mono);
/* @cpu is offline and has no rings (so at open): a span from @now. */
void capture__cpu_absent(struct capture *c, int cpu, uint64_t now);
/*
 * @cpu is online (again) at @now: its events are opened anew, on rings of
 * their own. Returns 0 or -errno (logged by the caller).
 */
int capture__cpu_up(struct capture *c, int cpu, uint64_t now);
/* The open span of @cpu, or NULL. */
const struct capture_offline *capture__open_span(const struct capture *c, int cpu);
/* The spans kept, oldest first. */
size_t capture__offline_spans(const struct capture *c, const struct capture_offline **ret);
/*
 * For a snapshot: a reference to every kept history in *@ret (free() the
 * array, capture__put_kept() each). The capture drops those of CPUs that are
 * back: this snapshot is their last. Returns how many, or -ENOMEM.
 */
int capture__take_kept(struct capture *c, struct capture_kept ***ret);
void capture__put_kept(struct capture_kept *k);

/*
 * [capture] window (capture_window.c): each CPU's overwrite ring sized on
 * its own, on the loop thread with no dump in flight.
 */
struct capture_window_info {
	int cpu;
	size_t backend;		     /* which of capture__backends() */
	bool instance;		     /* a tracefs instance's ring, not perf's */
	unsigned int pages;	     /* of its ring */
	bool has_rate;		     /* measured over at least one interval */
	uint64_t rate;		     /* bytes per second into its ring */
	uint64_t plan_rate;	     /* the rate its ring is sized for: the window's highest */
	uint64_t reach_ns;	     /* how far back it reaches now (estimated) */
	bool wrapped;		     /* its ring has overwritten older records */
	unsigned int replaced_pages; /* of the ring a resize is replacing, else 0 */
	uint64_t replaced_for_ns;    /* ... since */
};

bool capture__windowed(const struct capture *c);
uint64_t capture__window_ms(const struct capture *c);
/* The largest ring a window gives a CPU, in pages. */
unsigned int capture__window_max_pages(void);
/* Measures each live ring's byte rate; @now is CLOCK_MONOTONIC. */
void capture__window_look(struct capture *c, uint64_t now);
/* The rings [capture] window sizes: every backend's, each CPU's; some may have none. */
size_t capture__window_nr_rings(const struct capture *c);
/* Ring @i of capture__window_nr_rings(); false where it has none. */
bool capture__window_ring(const struct capture *c, size_t i, uint64_t now,
			  struct capture_window_info *ret);
/*
 * Gives @ring (capture__window_ring()'s) @pages. A perf ring is replaced:
 * the old one stays, disabled, until capture__window_retire() unmaps it;
 * an instance's is resized in place. Returns 0, -EBUSY while one is being
 * replaced, or -errno.
 */
int capture__window_resize(struct capture *c, const struct capture_window_info *ring,
			   unsigned int pages, uint64_t now);
/* Unmaps the replaced rings whose successors reach the window. Returns how many, or -errno. */
int capture__window_retire(struct capture *c, uint64_t now);

/* PERF_EVENT_IOC_PAUSE_OUTPUT on one ring. Returns 0 or -errno. */
int capture__pause_ring(const struct ring_view *ring, bool pause);

#endif
