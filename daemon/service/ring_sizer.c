// SPDX-License-Identifier: GPL-2.0-only
/*
 * ring_sizer: measures, plans and resizes the rings of [capture] window.
 * See ring_sizer.h; the policy is ring_budget's, the rings capture's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "capture.h"
#include "config.h"
#include "config_value.h"
#include "daemon.h"
#include "dump.h"
#include "log.h"
#include "monotonic.h"
#include "ring_budget.h"
#include "ring_sizer.h"

/*
 * How often each ring's head is read: its reach is measured between two
 * looks, so they are frequent; the rings are planned every PLAN_EVERY.
 */
#define WINDOW_PERIOD_MS 250
#define PLAN_EVERY	 4
/* Looks before the first plan: the rate over two seconds. */
#define FIRST_PLAN_LOOKS 8

/* In ring_sizer.said_pages: the shortfall said was measured on a ring of that size. */
#define SAID_MEASURED (1u << 31)

struct ring_sizer {
	struct daemon *d;
	struct event *tick;
	unsigned long recording;  /* the capture looked at: d->recordings then */
	const void *cfg;	  /* the configuration it was planned for */
	unsigned int looks;	  /* of that capture */
	bool said;		  /* its first plan was logged */
	bool *was_short;	  /* by CPU, of the last plan */
	unsigned int *said_pages; /* by CPU: the ring size its last shortfall line named */
	int nr_slots;
};

static void format_rate(uint64_t rate, char *buf, size_t size)
{
	if (rate >= 1u << 20)
		snprintf(buf, size, "%.1f MiB/s", (double)rate / (1u << 20));
	else
		snprintf(buf, size, "%.1f KiB/s", (double)rate / 1024);
}

/* "cpu1", or "cpu1 tracefs" for an instance's ring: what the log and status call a ring. */
static const char *label(const struct capture_window_info *info, char *buf, size_t size)
{
	snprintf(buf, size, "cpu%d%s", info->cpu, info->instance ? " tracefs" : "");
	return buf;
}

void ring_sizer__format_cpu(const struct capture_window_info *info, uint64_t window_ms, char *buf,
			    size_t size)
{
	char name[32];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	/* A ring that has not wrapped holds all since it opened: not short, only young. */
	bool is_short = info->wrapped && info->reach_ns < window_ms * 1000000ull;
	char rate[32] = "rate not yet measured";
	int n;

	if (info->has_rate)
		format_rate(info->rate, rate, sizeof(rate));
	n = snprintf(buf, size, "%s %.3f s of %.3f s%s: ring %llu KiB, %s",
		     label(info, name, sizeof(name)), (double)info->reach_ns / 1e9,
		     (double)window_ms / 1e3, is_short ? " (short)" : "",
		     (unsigned long long)info->pages * page / 1024, rate);
	if (info->replaced_pages && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n,
			 "; resizing: its ring of %llu KiB stays mapped beside it for %.1f s more",
			 (unsigned long long)info->replaced_pages * page / 1024,
			 info->replaced_for_ns < window_ms * 1000000ull ?
				 (double)(window_ms * 1000000ull - info->replaced_for_ns) / 1e9 :
				 0.0);
}

/*
 * The rings, their figures into @info and their numbers (the slots of
 * was_short and said_pages) into @slot. Returns how many.
 */
static size_t collect(struct capture *cap, uint64_t now, struct capture_window_info *info,
		      size_t *slot, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < capture__window_nr_rings(cap) && n < max; i++)
		if (capture__window_ring(cap, i, now, &info[n]))
			slot[n++] = i;
	return n;
}

/* The CPUs with rings: each backend's rings are on CPUs of their own. */
static unsigned int nr_cpus_of(const struct capture_window_info *info, size_t n)
{
	unsigned int most = 0, run = 0;

	for (size_t i = 0; i < n; i++) {
		run = i && info[i].backend == info[i - 1].backend ? run + 1 : 1;
		most = run > most ? run : most;
	}
	return most;
}

/* Says what the plan gives each CPU: at a capture's first plan, and when a CPU's shortfall changes. */
static void say(struct ring_sizer *w, const struct ring_budget *b,
		const struct capture_window_info *info, const size_t *slot,
		const unsigned int *want, const bool *sh, size_t n, uint64_t need_pages)
{
	char name[32];
	const struct perfsnapd_config *cfg = w->d->cfg;
	char rate[32], mem[CONFIG_VALUE_FORMAT_MAX], more[CONFIG_VALUE_FORMAT_MAX];
	uint64_t page = b->page_size;
	bool first = !w->said;

	config_value__format_size(cfg->memory, mem, sizeof(mem));
	config_value__format_size((cfg->memory / page - b->budget_pages + need_pages) * page, more,
				  sizeof(more));
	for (size_t i = 0; i < n; i++) {
		size_t cpu = slot[i];
		bool was = w->was_short[cpu];
		uint64_t reach = ring_budget__reach_ns(want[i], b->page_size, info[i].rate);
		bool in_place = info[i].pages == want[i] && info[i].wrapped &&
				!info[i].replaced_pages;
		unsigned int said = want[i] | (in_place ? SAID_MEASURED : 0);

		format_rate(info[i].rate, rate, sizeof(rate));
		/*
		 * Said from the rate when planned (at start and reload), and again
		 * as measured once its ring of that size has wrapped.
		 */
		if (sh[i] && (first || !was || (w->said_pages[cpu] & ~SAID_MEASURED) != want[i] ||
			      (in_place && !(w->said_pages[cpu] & SAID_MEASURED))))
			log_warning("window: %s %s %.3f s of %.3f s (short) in a ring of %llu "
				    "KiB at %s: [capture] memory = %s cannot hold the window on "
				    "every CPU; about %s would",
				    label(&info[i], name, sizeof(name)),
				    in_place ? "holds" : "will hold about",
				    (double)(in_place ? info[i].reach_ns : reach) / 1e9,
				    (double)b->window_ms / 1e3,
				    (unsigned long long)want[i] * page / 1024, rate, mem, more);
		else if (!sh[i] && (first || was))
			log_notice("window: %s holds the %.3f s window in a ring of %llu KiB at %s",
				   label(&info[i], name, sizeof(name)), (double)b->window_ms / 1e3,
				   (unsigned long long)want[i] * page / 1024, rate);
		w->was_short[cpu] = sh[i];
		if (!sh[i] || (w->said_pages[cpu] & ~SAID_MEASURED) != want[i] || in_place)
			w->said_pages[cpu] = said;
	}
	w->said = true;
}

/*
 * One ring at a time, so that during a resize only the ring being
 * replaced stands beside its successor: the ring that reaches least far
 * grows first where the budget holds it beside the others as they are,
 * else the largest shrink comes first, so that the memory at rest never
 * passes the budget.
 */
static void resize_one(struct capture *cap, const struct capture_window_info *info,
		       const unsigned int *want, size_t n, uint64_t budget, uint64_t now)
{
	uint64_t total = 0, took, window_ms = capture__window_ms(cap);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), pick = n;
	char rate[32], name[32];
	int r;

	for (size_t i = 0; i < n; i++)
		if (info[i].replaced_pages)
			return;
	for (size_t i = 0; i < n; i++)
		total += info[i].pages + 1ull;
	for (size_t i = 0; i < n; i++)
		if (want[i] > info[i].pages && total - info[i].pages + want[i] <= budget &&
		    (pick == n || info[i].reach_ns < info[pick].reach_ns))
			pick = i;
	for (size_t i = 0; pick == n && i < n; i++)
		if (want[i] < info[i].pages)
			pick = i;
	for (size_t i = pick; pick < n && i < n; i++)
		if (want[i] < info[i].pages && want[pick] < info[pick].pages &&
		    info[i].pages - want[i] > info[pick].pages - want[pick])
			pick = i;
	/* Grows that do not fit yet wait for the shrinks; with none left, the plan fits. */
	for (size_t i = 0; pick == n && i < n; i++)
		if (want[i] > info[i].pages)
			pick = i;
	if (pick == n)
		return;
	took = monotonic_ns();
	r = capture__window_resize(cap, &info[pick], want[pick], now);
	took = monotonic_ns() - took;
	format_rate(info[pick].rate, rate, sizeof(rate));
	if (r < 0) {
		log__errno(r, "window: %s's ring cannot be resized from %llu to %llu KiB",
			   label(&info[pick], name, sizeof(name)),
			   (unsigned long long)info[pick].pages * page / 1024,
			   (unsigned long long)want[pick] * page / 1024);
		return;
	}
	if (info[pick].instance)
		log_info("window: %s's ring resized from %llu to %llu KiB at %s in %.3f ms, in "
			 "place",
			 label(&info[pick], name, sizeof(name)),
			 (unsigned long long)info[pick].pages * page / 1024,
			 (unsigned long long)want[pick] * page / 1024, rate, (double)took / 1e6);
	else
		log_info("window: %s's ring resized from %llu to %llu KiB at %s in %.3f ms; the "
			 "old one stays mapped until the new one reaches back %.1f s",
			 label(&info[pick], name, sizeof(name)),
			 (unsigned long long)info[pick].pages * page / 1024,
			 (unsigned long long)want[pick] * page / 1024, rate, (double)took / 1e6,
			 (double)window_ms / 1e3);
}

static int grow_slots(struct ring_sizer *w, size_t slot)
{
	unsigned int *pages;
	bool *grown;
	int cpu = (int)slot;

	if (cpu < w->nr_slots)
		return 0;
	grown = realloc(w->was_short, (size_t)(cpu + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	w->was_short = grown;
	pages = realloc(w->said_pages, (size_t)(cpu + 1) * sizeof(*pages));
	if (!pages)
		return -ENOMEM;
	w->said_pages = pages;
	memset(grown + w->nr_slots, 0, (size_t)(cpu + 1 - w->nr_slots) * sizeof(*grown));
	memset(pages + w->nr_slots, 0, (size_t)(cpu + 1 - w->nr_slots) * sizeof(*pages));
	w->nr_slots = cpu + 1;
	return 0;
}

static void plan(struct ring_sizer *w, struct capture *cap, uint64_t now)
{
	const struct perfsnapd_config *cfg = w->d->cfg;
	size_t max = capture__window_nr_rings(cap), n;
	size_t *slot = calloc(max ? max : 1, sizeof(*slot));
	struct capture_window_info *info = calloc(max ? max : 1, sizeof(*info));
	struct ring_budget_cpu *cpus = calloc(max ? max : 1, sizeof(*cpus));
	unsigned int *want = calloc(max ? max : 1, sizeof(*want));
	bool *sh = calloc(max ? max : 1, sizeof(*sh));
	struct ring_budget b = {
		.window_ms = capture__window_ms(cap),
		.page_size = (unsigned int)sysconf(_SC_PAGESIZE),
		.floor_pages = CONFIG_WINDOW_FLOOR_PAGES,
		.max_pages = capture__window_max_pages(),
	};
	uint64_t need = 0;
	int64_t left;

	if (!info || !cpus || !want || !sh || !slot)
		goto out;
	n = collect(cap, now, info, slot, max);
	for (size_t i = 0; i < n; i++) {
		if (!info[i].has_rate || grow_slots(w, slot[i]) < 0)
			goto out; /* a CPU just back: the next look */
		cpus[i].rate = info[i].plan_rate;
		cpus[i].pages = info[i].pages;
	}
	/* The budget's fixed part is by CPU; its rings, by ring. */
	left = config__window_pages(cfg, nr_cpus_of(info, n));
	if (!n || left < 0)
		goto out; /* more CPUs than at load: they keep the rings they have */
	b.budget_pages = (uint64_t)left;
	if (ring_budget__plan(&b, cpus, n, want, sh) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		need += ring_budget__need(&b, cpus[i].rate) + 1ull;
	say(w, &b, info, slot, want, sh, n, need);
	resize_one(cap, info, want, n, b.budget_pages, now);
out:
	free(info);
	free(slot);
	free(cpus);
	free(want);
	free(sh);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct ring_sizer *w = arg;
	struct daemon *d = w->d;
	uint64_t now = monotonic_ns();
	int r;

	(void)fd;
	(void)what;
	/* Not while a dump copies the rings nor while a reload opens new ones. */
	if (!d->cap || !capture__windowed(d->cap) || !d->dump || d->reloading ||
	    dump__busy(d->dump))
		return;
	/* A reload, with new rings or the same: the plan is said again. */
	if (w->cfg != d->cfg)
		w->said = false;
	w->cfg = d->cfg;
	if (w->recording != d->recordings) {
		w->recording = d->recordings;
		w->looks = 0;
		w->said = false;
		if (w->was_short) /* NULL until the first plan sizes it */
			memset(w->was_short, 0, (size_t)w->nr_slots * sizeof(*w->was_short));
	}
	capture__window_look(d->cap, now);
	r = capture__window_retire(d->cap, now);
	if (r > 0)
		log_info("window: %d replaced ring%s unmapped: the new one reaches back the window",
			 r, r == 1 ? "" : "s");
	if (++w->looks >= FIRST_PLAN_LOOKS && w->looks % PLAN_EVERY == 0)
		plan(w, d->cap, now);
}

int ring_sizer__new(struct daemon *d, struct ring_sizer **ret)
{
	const struct timeval period = { .tv_sec = WINDOW_PERIOD_MS / 1000,
					.tv_usec = WINDOW_PERIOD_MS % 1000 * 1000 };
	struct ring_sizer *w = calloc(1, sizeof(*w));

	if (!w)
		return log__errno(-ENOMEM, "window");
	w->d = d;
	w->tick = event_new(d->base, -1, EV_PERSIST, on_tick, w);
	if (!w->tick || event_add(w->tick, &period) < 0) {
		ring_sizer__delete(w);
		return log__errno(-ENOMEM, "window timer");
	}
	*ret = w;
	return 0;
}

void ring_sizer__delete(struct ring_sizer *w)
{
	if (!w)
		return;
	if (w->tick)
		event_free(w->tick);
	free(w->was_short);
	free(w->said_pages);
	free(w);
}
