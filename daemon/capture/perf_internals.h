/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_internals: the few facts perfsnapd needs that libperf keeps in its
 * internal structs (a ring's fd, base and size; an evsel's ids). This is
 * the only file built against libperf's internal headers, so a libperf
 * change breaks one place.
 */
#ifndef PERFSNAPD_PERF_INTERNALS_H
#define PERFSNAPD_PERF_INTERNALS_H

#include <stddef.h>
#include <stdint.h>

struct perf_cpu_map;

struct perf_evlist;
struct perf_evsel;

struct ring_view {
	int fd; /* the fd whose ring it is (for PAUSE_OUTPUT) */
	int cpu;
	void *base;	  /* control page */
	void *data;	  /* data area */
	size_t data_size; /* a power of two */
	/*
	 * [capture] window: a ring a resize replaced, no longer written, kept
	 * until its successor reaches back the window; its newest @skip bytes
	 * (of a copy, see backward_ring.h) are also in the successor.
	 */
	bool replaced;
	size_t skip;
	/*
	 * Recording clock: since when every event writing here records (they
	 * are enabled one after the other); 0 where not known.
	 */
	uint64_t start_time;
};

/*
 * Fills up to @max views of the evlist's overwrite (@overwrite) or forward
 * rings. Returns how many rings there are (may exceed @max).
 */
int perf_internals__rings(struct perf_evlist *evlist, int overwrite, struct ring_view *views,
			  int max);

/* Points *ret_ids at the evsel's ids (owned by libperf); returns their count. */
size_t perf_internals__ids(struct perf_evsel *evsel, const uint64_t **ret_ids);

/* PERF_EVENT_IOC_SET_FILTER on each of the evsel's fds. Returns 0 or -errno. */
int perf_internals__set_filter(struct perf_evsel *evsel, const char *filter);

/* Unmaps @cpu's rings of @evlist and closes its fds; the other CPUs record on. */
void perf_internals__close_cpu(struct perf_evlist *evlist, int cpu);

/*
 * The CPUs of @list (a cpus= list) that are online, or NULL: an offline
 * CPU's event cannot be opened, and one that comes back gets new events.
 */
struct perf_cpu_map *perf_internals__online_cpus(const char *list);

/* Frees the ids and map references libperf leaves on a closed evsel. */
void perf_internals__release_evsel(struct perf_evsel *evsel);

#endif
