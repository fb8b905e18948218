// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_backend: a capture's backends run in turn, for the dump and the
 * service's watchers. See capture_backend.h.
 */
#include <errno.h>

#include "capture-internal.h"
#include "capture_backend.h"
#include "capture_copy.h"
#include "capture_tracefs.h"

size_t capture__backends(const struct capture *c, const struct capture_backend **ret)
{
	*ret = c->backends;
	return c->nr_backends;
}

const char *capture__tracefs_instance(const struct capture *c)
{
	return c->tracefs ? capture_tracefs__name(c->tracefs) : NULL;
}

size_t capture__nr_copy_rings(const struct capture *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->nr_backends; i++)
		n += c->backends[i].ops->nr_rings(c->backends[i].impl);
	return n;
}

uint64_t capture__rings_bytes(const struct capture *c)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < c->nr_backends; i++)
		sum += c->backends[i].ops->rings_bytes(c->backends[i].impl);
	return sum;
}

int capture__declare(const struct capture *c, struct snapshot *s)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->nr_backends; i++)
		r = c->backends[i].ops->declare(c->backends[i].impl, s);
	return r;
}

/**
 * capture__copy - a dump's copy stage over every backend
 * @c: the capture, its rings recording
 * @cc: the dump's copy memory and budget
 * @s: the snapshot the copies go into
 * @spill_dir: where an unnamed spill file may go
 * @f: the dump's figures
 *
 * A backend that copies all its rings at one instant takes them (marks
 * that instant) just before perf's rings pause (capture_copy.c), or
 * before its own copy where perf has no ring to copy. Then each backend
 * puts its rings into @s, in order. Returns 0 or the first -errno.
 */
int capture__copy(struct capture *c, struct capture_copy *cc, struct snapshot *s,
		  const char *spill_dir, struct dump_figures *f)
{
	int r = 0;

	cc->taken = false;
	for (size_t i = 0; r == 0 && i < c->nr_backends; i++) {
		if (c->backends[i].ops->take && !cc->taken) {
			cc->taken = true;
			r = capture__take(c);
		}
		if (r == 0)
			r = c->backends[i].ops->copy(c->backends[i].impl, cc, s, spill_dir, f);
	}
	return r;
}

int capture__take(struct capture *c)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->nr_backends; i++)
		if (c->backends[i].ops->take)
			r = c->backends[i].ops->take(c->backends[i].impl);
	return r;
}

/*
 * The watchers' calls (hotplug, ring_sizer): every backend, in order; the
 * first error ends the call.
 */
int capture__cpu_down(struct capture *c, int cpu, uint64_t now, uint64_t now_mono)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->nr_backends; i++)
		r = c->backends[i].ops->cpu_down(c->backends[i].impl, cpu, now, now_mono);
	return r;
}

int capture__cpu_up(struct capture *c, int cpu, uint64_t now)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < c->nr_backends; i++)
		r = c->backends[i].ops->cpu_up(c->backends[i].impl, cpu, now);
	return r;
}

void capture__window_look(struct capture *c, uint64_t now)
{
	for (size_t i = 0; c->windowed && i < c->nr_backends; i++)
		c->backends[i].ops->window_look(c->backends[i].impl, now);
}

size_t capture__window_nr_rings(const struct capture *c)
{
	return c->windowed ? c->nr_backends * (size_t)capture__nr_wanted(c) : 0;
}

bool capture__window_ring(const struct capture *c, size_t i, uint64_t now,
			  struct capture_window_info *ret)
{
	size_t nr = (size_t)capture__nr_wanted(c), b = nr ? i / nr : 0;
	const struct capture_backend *be;

	if (!c->windowed || !nr || b >= c->nr_backends)
		return false;
	be = &c->backends[b];
	if (!be->ops->window_ring(be->impl, capture__wanted_cpu(c, (int)(i % nr)), c->window_ms,
				  now, ret))
		return false;
	ret->backend = b;
	ret->instance = be->ops != &capture_perf__ops;
	return true;
}

int capture__window_resize(struct capture *c, const struct capture_window_info *ring,
			   unsigned int pages, uint64_t now)
{
	const struct capture_backend *be;

	if (ring->backend >= c->nr_backends)
		return -ENOENT;
	be = &c->backends[ring->backend];
	return be->ops->resize(be->impl, ring->cpu, pages, now);
}
