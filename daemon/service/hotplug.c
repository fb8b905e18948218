// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotplug: notices CPUs going offline and coming back, on a timer of the
 * loop that reads /sys/devices/system/cpu/online and a probe event per
 * recorded CPU, and has the capture close and reopen their rings
 * (capture_cpu.c). See hotplug.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <event2/event.h>
#include <perf/cpumap.h>

#include "capture.h"
#include "daemon.h"
#include "hotplug.h"
#include "log.h"
#include "monotonic.h"
#include "recording_clock.h"
#include "sideband.h"

/*
 * How often the online CPUs are read: one small sysfs read, about 10 us
 * (docs/decisions.md). A CPU is noticed at most this late, and a span
 * stated in a snapshot is late by as much.
 */
#define HOTPLUG_PERIOD_MS 1000

/*
 * A CPU that goes offline and comes back between two reads of the online
 * CPUs leaves no trace in sysfs. A probe does: a counting dummy event on
 * the CPU, whose enabled time stops for good when the kernel takes it out
 * of the CPU's context, as it does the capture's events. Its frozen time
 * also says when the CPU went (measured: docs/decisions.md).
 */
struct cpu_probe {
	int fd;			      /* -1: none */
	uint64_t enabled, read_mono;  /* its enabled time at the last read, and when */
	uint64_t opened, opened_mono; /* recording clock and CLOCK_MONOTONIC at its open */
};

/*
 * A live probe's enabled time keeps up with CLOCK_MONOTONIC (both count
 * the kernel's time, within parts per million); one that fell behind by
 * more than this since the last read stopped in between.
 */
#define PROBE_SLACK_NS (50 * 1000000ull)

struct hotplug {
	struct daemon *d;
	struct event *tick;
	unsigned long recording;       /* d->recordings when it last looked */
	struct recording_clock *clock; /* in its events' clock */
	struct log_limit failed_log;   /* a CPU whose rings cannot change: tried each tick */
	struct cpu_probe *probes;      /* by CPU number, of the capture's */
	int nr_probes;
};

/* Now in the recording clock; 0 where it cannot be read (a span says null then). */
static uint64_t now_ns(struct hotplug *h)
{
	uint64_t t = 0;
	int r = h->clock ? recording_clock__now(h->clock, &t) : -ENODEV;

	if (r < 0)
		log_debug("hotplug: the recording clock cannot be read: %s", strerror(-r));
	return r < 0 ? 0 : t;
}

static void probe_close(struct hotplug *h, int cpu)
{
	if (cpu < h->nr_probes && h->probes[cpu].fd >= 0) {
		close(h->probes[cpu].fd);
		h->probes[cpu].fd = -1;
	}
}

/* Its enabled time in *@ret. Returns 0 or -errno. */
static int probe_read(const struct cpu_probe *p, uint64_t *ret)
{
	uint64_t v[2]; /* the count, then the enabled time */

	if (read(p->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
		return -EIO;
	*ret = v[1];
	return 0;
}

/* A probe on @cpu, recorded and online; without one, sysfs alone tells. */
static void probe_open(struct hotplug *h, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED,
	};
	struct cpu_probe *p;

	if (cpu < 0 || cpu >= h->nr_probes)
		return;
	probe_close(h, cpu);
	p = &h->probes[cpu];
	p->fd = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	p->opened = now_ns(h);
	p->opened_mono = monotonic_ns();
	p->read_mono = p->opened_mono;
	if (p->fd >= 0 && probe_read(p, &p->enabled) < 0)
		probe_close(h, cpu);
}

/* Whether @cpu's probe stopped since the last read: the CPU went offline. */
static bool probe_stopped(struct hotplug *h, int cpu)
{
	struct cpu_probe *p = cpu < h->nr_probes ? &h->probes[cpu] : NULL;
	uint64_t t, now;

	if (!p || p->fd < 0 || probe_read(p, &t) < 0)
		return false;
	now = monotonic_ns();
	if (t - p->enabled + PROBE_SLACK_NS < now - p->read_mono)
		return true;
	p->enabled = t;
	p->read_mono = now;
	return false;
}

/*
 * When @cpu went offline, by its probe's frozen time (else now), in the
 * recording clock and CLOCK_MONOTONIC.
 */
static void went_at(struct hotplug *h, int cpu, uint64_t *ret, uint64_t *ret_mono)
{
	struct cpu_probe *p = cpu < h->nr_probes ? &h->probes[cpu] : NULL;
	uint64_t t;

	*ret = now_ns(h);
	*ret_mono = monotonic_ns();
	if (p && p->fd >= 0 && probe_read(p, &t) == 0 && p->opened_mono + t <= *ret_mono) {
		*ret = p->opened ? p->opened + t : 0;
		*ret_mono = p->opened_mono + t;
	}
}

/* The events' clock, for a capture not seen before. */
static void new_capture(struct hotplug *h, struct capture *cap)
{
	const struct capture_event *ev = capture__event(cap, 0);
	int r;

	recording_clock__delete(h->clock);
	h->clock = NULL;
	h->recording = h->d->recordings;
	r = ev ? recording_clock__new(ev->attr->use_clockid, ev->attr->clockid, &h->clock) :
		 -ENOENT;
	if (r < 0)
		log_warning("hotplug: cannot read the recording clock (%s): offline spans in the "
			    "sidecar will have no times",
			    strerror(-r));
	for (int cpu = 0; cpu < h->nr_probes; cpu++)
		probe_close(h, cpu);
	free(h->probes);
	/* Wanted CPUs are sorted: the last is the highest. */
	h->nr_probes = capture__wanted_cpu(cap, capture__nr_wanted(cap) - 1) + 1;
	h->probes = calloc((size_t)h->nr_probes, sizeof(*h->probes));
	if (!h->probes)
		h->nr_probes = 0;
	for (int cpu = 0; cpu < h->nr_probes; cpu++) {
		h->probes[cpu].fd = -1;
		if (capture__cpu_recorded(cap, cpu))
			probe_open(h, cpu);
	}
}

static void failed(struct hotplug *h, int cpu, int err, const char *what)
{
	char note[96];
	uint64_t quiet;

	if (log_limit__pass(&h->failed_log, monotonic_ns(), &quiet))
		log_warning("cpu%d %s: %s; trying again every %d ms%s", cpu, what, strerror(-err),
			    HOTPLUG_PERIOD_MS, log_limit__note(quiet, note, sizeof(note)));
}

static void went_offline(struct hotplug *h, int cpu)
{
	struct daemon *d = h->d;
	uint64_t from, from_mono;
	char at[32] = "?";
	struct tm tm;
	time_t t;
	int r;

	went_at(h, cpu, &from, &from_mono);
	t = time(NULL) - (time_t)((monotonic_ns() - from_mono) / 1000000000ull);
	/* Its forward ring's last records reach the side-band before it closes. */
	sideband__unwatch(d->sb);
	r = capture__cpu_down(d->cap, cpu, from, from_mono);
	if (d->sb && sideband__watch(d->sb, d->base) < 0)
		log_error("side-band: its rings are now read only at dumps");
	if (r < 0) {
		failed(h, cpu, r, "went offline, but its ring's history cannot be kept");
		return;
	}
	probe_close(h, cpu);
	if (localtime_r(&t, &tm))
		strftime(at, sizeof(at), "%Y-%m-%d %H:%M:%S", &tm);
	log_notice("cpu%d went offline at %s; its ring is kept for the next snapshots", cpu, at);
	daemon__update_status(d);
}

static void came_online(struct hotplug *h, int cpu)
{
	struct daemon *d = h->d;
	const struct capture_offline *span = capture__open_span(d->cap, cpu);
	uint64_t since = span ? span->from_mono_ns : 0, now = now_ns(h);
	int r;

	sideband__unwatch(d->sb);
	r = capture__cpu_up(d->cap, cpu, now);
	if (d->sb && sideband__watch(d->sb, d->base) < 0)
		log_error("side-band: its rings are now read only at dumps");
	if (r < 0) {
		failed(h, cpu, r, "is online, but its events cannot be opened");
		return;
	}
	capture__set_start(d->cap, cpu, now_ns(h));
	probe_open(h, cpu);
	daemon__rearm_triggers(d);
	if (since)
		log_notice("cpu%d is back online: recording on it again after %.1f s", cpu,
			   (double)(monotonic_ns() - since) / 1e9);
	else
		log_notice("cpu%d is online: recording on it from now on", cpu);
	daemon__update_status(d);
}

/*
 * Compares the CPUs recorded with those online. Not while a dump is in
 * flight (its copy reads the rings) nor while a reload opens new ones:
 * the next tick does it.
 */
static void check(struct hotplug *h)
{
	struct daemon *d = h->d;
	struct perf_cpu_map *online, *present = NULL;
	bool first;

	if (!d->cap || !d->dump || d->reloading || dump__busy(d->dump))
		return;
	first = d->recordings != h->recording;
	if (first)
		new_capture(h, d->cap);
	online = capture__read_cpu_file("/sys/devices/system/cpu/online");
	if (first)
		present = capture__read_cpu_file("/sys/devices/system/cpu/present");
	for (int i = 0; online && i < capture__nr_wanted(d->cap); i++) {
		int cpu = capture__wanted_cpu(d->cap, i);
		bool on = perf_cpu_map__has(online, (struct perf_cpu){ .cpu = cpu });
		bool recorded = capture__cpu_recorded(d->cap, cpu);

		if (recorded && (!on || probe_stopped(h, cpu))) {
			/* Online but its probe stopped: it went and came back since the last look. */
			went_offline(h, cpu);
			if (on)
				came_online(h, cpu);
		} else if (!recorded && on) {
			came_online(h, cpu);
		} else if (!recorded && first && present &&
			   perf_cpu_map__has(present, (struct perf_cpu){ .cpu = cpu })) {
			/* Present but offline at start: the same span, from now. */
			capture__cpu_absent(d->cap, cpu, now_ns(h));
			log_notice("cpu%d is offline: recording on it starts when it comes online",
				   cpu);
		}
	}
	perf_cpu_map__put(present);
	perf_cpu_map__put(online);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	check(arg);
}

/**
 * hotplug__new - watch the CPUs of the daemon's capture
 * @d: the daemon, recording
 * @ret: the watcher
 *
 * Looks at once (a CPU offline at start is said now), then every
 * HOTPLUG_PERIOD_MS. Returns 0 or -errno (logged).
 */
int hotplug__new(struct daemon *d, struct hotplug **ret)
{
	const struct timeval period = { .tv_sec = HOTPLUG_PERIOD_MS / 1000,
					.tv_usec = HOTPLUG_PERIOD_MS % 1000 * 1000 };
	struct hotplug *h = calloc(1, sizeof(*h));

	if (!h)
		return log__errno(-ENOMEM, "hotplug");
	h->d = d;
	h->tick = event_new(d->base, -1, EV_PERSIST, on_tick, h);
	if (!h->tick || event_add(h->tick, &period) < 0) {
		hotplug__delete(h);
		return log__errno(-ENOMEM, "hotplug timer");
	}
	check(h);
	*ret = h;
	return 0;
}

/**
 * hotplug__delete - stop watching
 * @h: the watcher, or NULL
 */
void hotplug__delete(struct hotplug *h)
{
	if (!h)
		return;
	if (h->tick)
		event_free(h->tick);
	for (int cpu = 0; cpu < h->nr_probes; cpu++)
		probe_close(h, cpu);
	free(h->probes);
	recording_clock__delete(h->clock);
	free(h);
}
