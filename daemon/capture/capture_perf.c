// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_perf: the perf_event rings as a capture backend
 * (capture_backend.h): the overwrite rings of the auxiliary evlist, paused
 * one by one with PERF_EVENT_IOC_PAUSE_OUTPUT by the copy stage
 * (capture_copy.c), CPUs going and coming (capture_cpu.c), a CPU's ring
 * resized for [capture] window (capture_window.c).
 */
#include "capture-internal.h"
#include "capture_backend.h"
#include "capture_copy.h"
#include "snapshot.h"

static size_t perf_nr_rings(const void *impl)
{
	return (size_t)capture__nr_rings(impl, true);
}

static uint64_t perf_rings_bytes(const void *impl)
{
	return capture_copy__rings_bytes(impl);
}

static int perf_declare(const void *impl, struct snapshot *s)
{
	const struct capture *c = impl;

	for (size_t i = 0; i < capture__nr_events(c); i++) {
		const struct capture_event *ev = capture__event(c, i);
		int r = snapshot__add_event(s, ev->attr, ev->name, ev->ids, ev->nr_ids);

		if (r < 0)
			return r;
	}
	return 0;
}

static int perf_copy(void *impl, struct capture_copy *c, struct snapshot *s, const char *spill_dir,
		     struct dump_figures *f)
{
	(void)impl; /* c->cap */
	return capture_copy__run(c, s, spill_dir, f);
}

static int perf_cpu_down(void *impl, int cpu, uint64_t now, uint64_t now_mono)
{
	return capture_cpu__down(impl, cpu, now, now_mono);
}

static int perf_cpu_up(void *impl, int cpu, uint64_t now)
{
	return capture_cpu__up(impl, cpu, now);
}

static void perf_window_look(void *impl, uint64_t now)
{
	capture_window__look(impl, now);
}

static bool perf_window_ring(const void *impl, int cpu, uint64_t window_ms, uint64_t now,
			     struct capture_window_info *ret)
{
	(void)window_ms; /* the capture's own */
	return capture_window__cpu(impl, cpu, now, ret);
}

static int perf_resize(void *impl, int cpu, unsigned int pages, uint64_t now)
{
	return capture_window__resize(impl, cpu, pages, now);
}

const struct capture_backend_ops capture_perf__ops = {
	.name = "perf",
	.nr_rings = perf_nr_rings,
	.rings_bytes = perf_rings_bytes,
	.declare = perf_declare,
	.copy = perf_copy,
	.cpu_down = perf_cpu_down,
	.cpu_up = perf_cpu_up,
	.window_look = perf_window_look,
	.window_ring = perf_window_ring,
	.resize = perf_resize,
};
