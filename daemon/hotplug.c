// SPDX-License-Identifier: GPL-2.0-only
/*
 * hotplug: notices CPUs going offline and coming back, on a timer of the
 * loop that reads /sys/devices/system/cpu/online, and has the capture
 * close and reopen their rings (capture_cpu.c). See hotplug.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

struct hotplug {
	struct daemon *d;
	struct event *tick;
	struct capture *cap;	       /* the capture last looked at */
	struct recording_clock *clock; /* in its events' clock */
	struct log_limit failed_log;   /* a CPU whose rings cannot change: tried each tick */
};

static struct perf_cpu_map *read_cpus(const char *path)
{
	FILE *f = fopen(path, "re");
	struct perf_cpu_map *map;

	if (!f)
		return NULL;
	map = perf_cpu_map__read(f);
	fclose(f);
	return map;
}

/* Now in the recording clock; 0 where it cannot be read (a span says null then). */
static uint64_t now_ns(struct hotplug *h)
{
	uint64_t t = 0;
	int r = h->clock ? recording_clock__now(h->clock, &t) : -ENODEV;

	if (r < 0)
		log_debug("hotplug: the recording clock cannot be read: %s", strerror(-r));
	return r < 0 ? 0 : t;
}

/* The events' clock, for a capture not seen before. */
static void new_capture(struct hotplug *h, struct capture *cap)
{
	const struct capture_event *ev = capture__event(cap, 0);
	int r;

	recording_clock__delete(h->clock);
	h->clock = NULL;
	h->cap = cap;
	r = ev ? recording_clock__new(ev->attr->use_clockid, ev->attr->clockid, &h->clock) :
		 -ENOENT;
	if (r < 0)
		log_warning("hotplug: cannot read the recording clock (%s): offline spans in the "
			    "sidecar will have no times",
			    strerror(-r));
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
	uint64_t now = now_ns(h);
	char at[32] = "?";
	struct tm tm;
	time_t t = time(NULL);
	int r;

	/* Its forward ring's last records reach the side-band before it closes. */
	sideband__unwatch(d->sb);
	r = capture__cpu_down(d->cap, cpu, now);
	if (d->sb && sideband__watch(d->sb, d->base) < 0)
		log_error("side-band: its rings are now read only at dumps");
	if (r < 0) {
		failed(h, cpu, r, "went offline, but its ring's history cannot be kept");
		return;
	}
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
	first = d->cap != h->cap;
	if (first)
		new_capture(h, d->cap);
	online = read_cpus("/sys/devices/system/cpu/online");
	if (first)
		present = read_cpus("/sys/devices/system/cpu/present");
	for (int i = 0; online && i < capture__nr_wanted(d->cap); i++) {
		int cpu = capture__wanted_cpu(d->cap, i);
		bool on = perf_cpu_map__has(online, (struct perf_cpu){ .cpu = cpu });
		bool recorded = capture__cpu_recorded(d->cap, cpu);

		if (recorded && !on) {
			went_offline(h, cpu);
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
		return log_errno(-ENOMEM, "hotplug");
	h->d = d;
	h->tick = event_new(d->base, -1, EV_PERSIST, on_tick, h);
	if (!h->tick || event_add(h->tick, &period) < 0) {
		hotplug__delete(h);
		return log_errno(-ENOMEM, "hotplug timer");
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
	recording_clock__delete(h->clock);
	free(h);
}
