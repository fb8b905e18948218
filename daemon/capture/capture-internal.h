/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture-internal: the layout of struct capture, shared by capture.c (open,
 * start, close, the rings) and capture_cpu.c (a CPU that goes offline and
 * comes back).
 */
#ifndef PERFSNAPD_CAPTURE_INTERNAL_H
#define PERFSNAPD_CAPTURE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "capture_backend.h"

struct perf_cpu_map;
struct perf_evlist;
struct perf_evsel;
struct perf_thread_map;

/* Where a CPU's rings are. */
enum capture_cpu_state {
	CAPTURE_CPU_NONE,  /* no rings: offline, or closed when it went */
	CAPTURE_CPU_BASE,  /* in the evlists opened with the capture */
	CAPTURE_CPU_PATCH, /* in evlists of its own, opened when it came back */
};

/* One CPU's events opened after the capture: it came online (again). */
struct capture_patch {
	int cpu;
	struct perf_cpu_map *cpus; /* that CPU alone */
	struct perf_evlist *aux, *main;
	struct perf_evsel **evsels; /* nr_events, in the capture's event order */
	bool opened[2];		    /* [0] main, [1] aux */
	bool aux_only;		    /* [capture] window: its overwrite ring alone */
	unsigned int pages;	    /* of its overwrite ring */
	bool replaced;		    /* a resize replaced its overwrite ring: disabled, kept */
	uint64_t replaced_ns;	    /* since when (CLOCK_MONOTONIC) */
	uint64_t replaced_reach_ns; /* how far back it reached then */
	size_t skip;		    /* its newest bytes the successor holds too */
	uint64_t opened_ns;	    /* CLOCK_MONOTONIC: when its overwrite ring opened */
	uint64_t start_time;	    /* recording clock: since when all its events record */
	bool start_set;		    /* ... or known not to be: capture__set_start() leaves it */
};

/* Backends a capture may hold: perf_event's and a tracefs instance's. */
#define CAPTURE_BACKENDS_MAX 2

/* Looks a CPU's window state keeps: its reach is measured as far back. */
#define CAPTURE_WINDOW_LOOKS 256

/* [capture] window: what capture_window.c knows of one CPU's ring. */
struct capture_window_cpu {
	uint64_t written;   /* bytes its live ring had written at the last look */
	uint64_t looked_ns; /* CLOCK_MONOTONIC of that look; 0: none yet */
	uint64_t rate;	    /* bytes per second, smoothed; valid once nr_looks > 0 */
	unsigned int nr_looks;
	const void *ring_base; /* the live ring's control page at the last look */
	/* The live ring's looks, oldest first: when it had written how much. */
	uint64_t seen_ns[CAPTURE_WINDOW_LOOKS], seen_written[CAPTURE_WINDOW_LOOKS];
	uint64_t seen_rate[CAPTURE_WINDOW_LOOKS]; /* the smoothed rate then */
	unsigned int nr_seen;
};

struct capture {
	struct perf_cpu_map *wanted; /* the configured CPUs, or every possible one */
	struct perf_cpu_map *cpus;   /* of the base evlists: those online at open */
	struct perf_thread_map *threads;
	struct perf_evlist *aux;  /* overwrite: write_backward rings */
	struct perf_evlist *main; /* forward rings */
	struct capture_event *events;
	struct perf_evsel **evsels;
	size_t nr_events;
	uint64_t **ids;		    /* per event, of every fd opened for it, closed ones' too */
	size_t *nr_ids;		    /* ... how many */
	size_t *ids_size;	    /* ... room */
	struct ring_view *rings[2]; /* [0] main, [1] aux: the live rings */
	int nr_rings[2];
	bool aux_used, main_used;
	bool opened[2];
	bool started;		      /* capture__start() ran: a reopened CPU samples at once */
	uint64_t start_time;	      /* the base rings': see capture__set_start() */
	unsigned int ring_pages;      /* of each overwrite ring, see capture__open() */
	unsigned int main_pages;      /* of each forward ring */
	bool quiet_mlock;	      /* a refused mmap is retried smaller: not logged */
	bool mlock_refused;	      /* ... and it was */
	struct perf_evsel *sideband;  /* the dummy event, or NULL */
	struct tracing_meta *tracing; /* tracefs metadata of the events, or NULL */
	char **tracing_names;	      /* the tracepoints it has the formats of */
	size_t nr_tracing_names;
	pthread_t warmer;	  /* reads the overwrite rings once, see warm_rings() */
	bool warming;		  /* warmer was started and is not joined */
	atomic_bool stop_warming; /* capture__close() asks the warmer to end */
	atomic_bool warm;	  /* the warmer has ended, see capture__warm() */

	/* Hotplug (capture_cpu.c). */
	unsigned char *cpu_state; /* enum capture_cpu_state, by CPU number */
	int nr_cpu_slots;	  /* max wanted CPU + 1 */
	int max_cpu;		  /* the highest that has had rings */
	struct capture_patch **patches;
	size_t nr_patches;
	struct capture_kept **kept; /* closed rings' history, for the next snapshots */
	size_t nr_kept;
	struct capture_offline spans[CAPTURE_OFFLINE_MAX]; /* the newest, oldest first */
	size_t nr_spans;

	/* [capture] window (capture_window.c). */
	bool windowed; /* each CPU's overwrite ring is a patch of its own */
	uint64_t window_ms;
	struct capture_window_cpu *win; /* by CPU number, nr_cpu_slots */

	/* What records (capture_backend.h): the perf rings above, then the instance's. */
	struct capture_tracefs *tracefs; /* NULL: perf records every event */
	struct capture_backend backends[CAPTURE_BACKENDS_MAX];
	size_t nr_backends;
};

struct perfsnapd_config;

/* Sets wanted, cpus and the CPU states (capture_cpu.c). Returns 0 or -errno (logged). */
int capture__open_cpus(struct capture *c, const struct perfsnapd_config *cfg);
/* The views of the live rings, again, after a CPU's rings came or went. */
int capture__refill_rings(struct capture *c);
/* Appends @evsel's ids to event @idx's. Returns 0 or -ENOMEM. */
int capture__add_ids(struct capture *c, size_t idx, struct perf_evsel *evsel);
/* Converts libperf's return into 0 or -errno (see capture.c). */
int capture__libperf_err(int r, int err);
/*
 * Opens, maps and (as the capture is) enables @p's events on p->cpu:
 * the overwrite ring of p->pages, and unless p->aux_only the forward one.
 * Returns 0 or -errno; the caller closes @p either way on failure.
 */
int capture__open_patch(struct capture *c, struct capture_patch *p);
void capture__close_patch(struct capture_patch *p, size_t nr_events);
/* [capture] window: the pages of each CPU's ring at open, an equal share of memory. */
unsigned int capture__window_start_pages(const struct perfsnapd_config *cfg);
/* The window state of a new capture (capture_window.c). Returns 0 or -errno (logged). */
int capture__open_window(struct capture *c, const struct perfsnapd_config *cfg);
/* Frees the hotplug state (capture_cpu.c). */
void capture__close_cpus(struct capture *c);

/* The perf backend's own (capture_perf.c): see capture__cpu_down() and the others. */
int capture_cpu__down(struct capture *c, int cpu, uint64_t now, uint64_t now_mono);
int capture_cpu__up(struct capture *c, int cpu, uint64_t now);
int capture_window__resize(struct capture *c, int cpu, unsigned int pages, uint64_t now);
void capture_window__look(struct capture *c, uint64_t now);
/* Every backend with a take takes its rings (capture_backend.c). Returns 0 or -errno. */
int capture__take(struct capture *c);
bool capture_window__cpu(const struct capture *c, int cpu, uint64_t now,
			 struct capture_window_info *ret);

/*
 * [capture] window, whatever the ring (capture_window.c): a look at what
 * it has written since it opened, and the rate its ring is sized for (the
 * window's highest).
 */
void capture_window__note(struct capture_window_cpu *w, uint64_t now, uint64_t written,
			  const void *ring);
uint64_t capture_window__plan_rate(const struct capture_window_cpu *w, uint64_t window_ms,
				   uint64_t now);

#endif
