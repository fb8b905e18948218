// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_internals: reads libperf's internal evlist, mmap and evsel structs.
 * Compiled with the tools/ include paths libperf's internal headers need.
 */
#include <errno.h>
#include <sys/ioctl.h>

#include <perf/cpumap.h>
#include <perf/evlist.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <internal/cpumap.h>
#include <internal/evlist.h>
#include <internal/evsel.h>
#include <internal/mmap.h>
#include <internal/xyarray.h>

#include "perf_internals.h"

/**
 * perf_internals__rings - describe an evlist's rings
 * @evlist: an mmapped evlist
 * @overwrite: nonzero for the write_backward rings, zero for forward ones
 * @views: filled with up to @max entries
 * @max: size of @views
 *
 * Returns the number of rings, which may be more than @max.
 */
int perf_internals__rings(struct perf_evlist *evlist, int overwrite, struct ring_view *views,
			  int max)
{
	struct perf_mmap *map;
	int n = 0;

	perf_evlist__for_each_mmap(evlist, map, overwrite != 0) {
		if (!map->base)
			continue; /* its CPU's, closed by perf_internals__close_cpu() */
		if (n < max) {
			/* The data area follows the one control page. */
			size_t page = perf_mmap__mmap_len(map) - ((size_t)map->mask + 1);

			views[n].fd = map->fd;
			views[n].cpu = map->cpu.cpu;
			views[n].base = map->base;
			views[n].data = (char *)map->base + page;
			views[n].data_size = (size_t)map->mask + 1;
			views[n].replaced = false;
			views[n].skip = 0;
		}
		n++;
	}
	return n;
}

/**
 * perf_internals__ids - the sample ids of an evsel's fds
 * @evsel: an opened and mmapped evsel with PERF_FORMAT_ID
 * @ret_ids: set to libperf's array (valid until the evsel is closed)
 *
 * Returns the number of ids.
 */
size_t perf_internals__ids(struct perf_evsel *evsel, const uint64_t **ret_ids)
{
	*ret_ids = evsel->id;
	return evsel->ids;
}

/**
 * perf_internals__release_evsel - free what perf_evsel__delete() leaves
 * @evsel: a closed evsel, about to be deleted with its evlist
 *
 * libperf 6.12's perf_evsel__delete() frees only the struct: the sample id
 * arrays from perf_evlist__mmap() and the cpu and thread map references
 * the evlist gave the evsel would leak (LeakSanitizer reports them).
 */
void perf_internals__release_evsel(struct perf_evsel *evsel)
{
	perf_evsel__free_id(evsel);
	perf_cpu_map__put(evsel->cpus);
	perf_cpu_map__put(evsel->own_cpus);
	perf_thread_map__put(evsel->threads);
	evsel->cpus = NULL;
	evsel->own_cpus = NULL;
	evsel->threads = NULL;
}

/**
 * perf_internals__set_filter - PERF_EVENT_IOC_SET_FILTER on every fd of an evsel
 * @evsel: an opened tracepoint evsel
 * @filter: the kernel's event filter syntax
 *
 * libperf 6.12 has no perf_evsel__apply_filter(). Returns 0 or -errno.
 */
int perf_internals__set_filter(struct perf_evsel *evsel, const char *filter)
{
	if (!evsel->fd)
		return -EBADF;
	for (int cpu = 0; cpu < xyarray__max_x(evsel->fd); cpu++)
		for (int thread = 0; thread < xyarray__max_y(evsel->fd); thread++) {
			int *fd = xyarray__entry(evsel->fd, cpu, thread);

			if (fd && *fd >= 0 && ioctl(*fd, PERF_EVENT_IOC_SET_FILTER, filter) < 0)
				return -errno;
		}
	return 0;
}

/**
 * perf_internals__close_cpu - unmap and close one CPU's part of an evlist
 * @evlist: an opened and mmapped evlist
 * @cpu: the CPU whose rings and fds go
 *
 * libperf closes an evlist only whole; a CPU that went offline takes its
 * events with it (they never count again), and the other CPUs' rings must
 * record on. Its rings are unmapped (so perf_internals__rings() and the
 * evlist's own munmap skip them) and its fds closed, freeing their locked
 * memory at once.
 */
void perf_internals__close_cpu(struct perf_evlist *evlist, int cpu)
{
	struct perf_evsel *evsel;
	struct perf_mmap *map;

	for (int overwrite = 0; overwrite < 2; overwrite++)
		perf_evlist__for_each_mmap(evlist, map, overwrite) {
			if (map->base && map->cpu.cpu == cpu)
				perf_mmap__munmap(map);
		}
	perf_evlist__for_each_evsel(evlist, evsel) {
		int idx = perf_cpu_map__idx(evsel->cpus, (struct perf_cpu){ .cpu = cpu });

		if (idx >= 0 && evsel->fd)
			perf_evsel__close_cpu(evsel, idx);
	}
}

struct perf_cpu_map *perf_internals__online_cpus(const char *list)
{
	struct perf_cpu_map *want = perf_cpu_map__new(list);
	struct perf_cpu_map *online = perf_cpu_map__new_online_cpus();
	struct perf_cpu_map *both = want && online ? perf_cpu_map__intersect(want, online) : NULL;

	perf_cpu_map__put(want);
	perf_cpu_map__put(online);
	return both;
}
