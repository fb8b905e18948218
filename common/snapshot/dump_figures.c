// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump_figures: the figures of one dump, and the few that are worked out
 * from them rather than kept twice. See dump_figures.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump_figures.h"
#include "snapshot.h"

/**
 * dump_figures__init - empty figures for a dump of some rings
 * @f: the figures
 * @nr_rings: the overwrite rings the dump copies
 *
 * Returns 0 or -ENOMEM (then @f is empty, without rings).
 */
int dump_figures__init(struct dump_figures *f, size_t nr_rings)
{
	memset(f, 0, sizeof(*f));
	if (!nr_rings)
		return 0;
	f->rings = calloc(nr_rings, sizeof(*f->rings));
	if (!f->rings)
		return -ENOMEM;
	f->nr_rings = nr_rings;
	return 0;
}

void dump_figures__fini(struct dump_figures *f)
{
	free(f->rings);
	f->rings = NULL;
	f->nr_rings = 0;
}

/**
 * dump_figures__copy - keep the figures of a dump
 * @dst: the copy, zeroed or initialised (its rings are freed)
 * @src: the figures
 *
 * Returns 0, or -ENOMEM with @dst a copy without rings.
 */
int dump_figures__copy(struct dump_figures *dst, const struct dump_figures *src)
{
	struct dump_ring_figures *rings = NULL;

	if (src->nr_rings) {
		rings = malloc(src->nr_rings * sizeof(*rings));
		if (rings)
			memcpy(rings, src->rings, src->nr_rings * sizeof(*rings));
	}
	dump_figures__fini(dst);
	*dst = *src;
	dst->rings = rings;
	if (src->nr_rings && !rings) {
		dst->nr_rings = 0;
		return -ENOMEM;
	}
	return 0;
}

uint64_t dump_figures__blind_max_ns(const struct dump_figures *f)
{
	uint64_t max = 0;

	for (size_t i = 0; i < f->nr_rings; i++)
		if (f->rings[i].pause_ns > max)
			max = f->rings[i].pause_ns;
	return max;
}

uint64_t dump_figures__blind_total_ns(const struct dump_figures *f)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->nr_rings; i++)
		sum += f->rings[i].pause_ns;
	return sum;
}

uint64_t dump_figures__pause_spread_ns(const struct dump_figures *f)
{
	return f->last_pause_at_ns > f->first_pause_at_ns ?
		       f->last_pause_at_ns - f->first_pause_at_ns :
		       0;
}

uint64_t dump_figures__pause_delay_ns(const struct dump_figures *f)
{
	return f->first_pause_at_ns > f->trigger_at_ns ? f->first_pause_at_ns - f->trigger_at_ns :
							 0;
}

uint64_t dump_figures__newest_spread_ns(const struct dump_figures *f)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < f->nr_rings; i++) {
		/* A closed ring's newest record is as old as its CPU's going offline. */
		if (!f->rings[i].has_records || f->rings[i].closed)
			continue;
		if (f->rings[i].newest_time < lo)
			lo = f->rings[i].newest_time;
		if (f->rings[i].newest_time > hi)
			hi = f->rings[i].newest_time;
	}
	return hi > lo ? hi - lo : 0;
}

uint64_t dump_figures__cut_bytes(const struct dump_figures *f)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < f->nr_rings; i++)
		sum += f->rings[i].cut_bytes;
	return sum;
}

/* Appends to @buf (of @size, @*len used) what fits; never overflows. */
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void appendf(char *buf, size_t size, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*len + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *len, size - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size - 1;
}

/**
 * dump_figures__format_pauses - each ring's pause, for a log line
 * @f: the figures
 * @buf: receives "CPU:us CPU:us ...", in ring order, cut to fit
 * @size: its size, at least 1
 *
 * Returns @buf.
 */
char *dump_figures__format_pauses(const struct dump_figures *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->nr_rings; i++)
		appendf(buf, size, &len, "%s%d:%" PRIu64, i ? " " : "", f->rings[i].cpu,
			f->rings[i].pause_ns / 1000);
	return buf;
}

/**
 * dump_figures__format_newest - each ring's newest record, for a log line
 * @f: the figures
 * @buf: receives "CPU:ns ...", in ring order, of the rings with records
 * @size: its size, at least 1
 *
 * Returns @buf.
 */
char *dump_figures__format_newest(const struct dump_figures *f, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < f->nr_rings; i++)
		if (f->rings[i].has_records)
			appendf(buf, size, &len, "%s%d:%" PRIu64, len ? " " : "", f->rings[i].cpu,
				f->rings[i].newest_time);
	return buf;
}

/*
 * A cropped dump's chunks hold its window; what each ring held before the
 * crop is in their held_* figures, and a reach is the ring's, not the
 * crop's.
 */
static bool held(const struct dump_figures *f, const struct snapshot_chunk_info *c, uint64_t *first,
		 uint64_t *last)
{
	if (f->range.set) {
		*first = c->held_first_time;
		*last = c->held_last_time;
		return c->held_records;
	}
	*first = c->first_time;
	*last = c->last_time;
	return c->nr_records;
}

/* The instant a reach is counted from: the trigger's match, else the newest record. */
static uint64_t reach_from(const struct dump_figures *f, const struct snapshot *s)
{
	uint64_t newest = 0, first, last;

	if (f->has_trigger && f->trigger.time)
		return f->trigger.time;
	if (!f->range.set)
		return snapshot__stats(s)->last_time;
	for (size_t k = 0; k < snapshot__nr_chunks(s); k++)
		if (held(f, snapshot__chunk(s, k), &first, &last) && last > newest)
			newest = last;
	return newest;
}

/**
 * dump_figures__set_reach - how far back each overwrite ring's CPU reaches
 * @f: the dump's figures, rings in chunk order
 * @s: its snapshot, sealed
 */
void dump_figures__set_reach(struct dump_figures *f, const struct snapshot *s)
{
	uint64_t from = reach_from(f, s);

	for (size_t i = 0; i < f->nr_rings && i < snapshot__nr_chunks(s); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(s, i);
		uint64_t oldest = UINT64_MAX, first, last;
		bool cut = false;

		for (size_t k = 0; k < snapshot__nr_chunks(s); k++) {
			const struct snapshot_chunk_info *o = snapshot__chunk(s, k);

			/* An overwrite ring: perf's backward ones, an instance's. */
			bool ring = o->backward || (k < f->nr_rings && f->rings[k].instance);

			if (o->cpu == c->cpu && ring && held(f, o, &first, &last) &&
			    first < oldest) {
				oldest = first;
				cut = o->overwritten;
			}
		}
		f->rings[i].reach_ns = oldest < from ? from - oldest : 0;
		f->rings[i].reach_cut = cut;
	}
}

/*
 * A ring that never wrapped lost nothing: a quiet CPU's oldest record may
 * be recent because nothing happened before it.
 */
bool dump_figures__short(const struct dump_figures *f, size_t i)
{
	if (i >= f->nr_rings)
		return false;
	/* A crop asks its own window of the rings: dump_range__held() says which fall short. */
	if (f->range.set)
		return f->rings[i].range_short;
	return f->window_ns && f->rings[i].reach_cut && f->rings[i].reach_ns < f->window_ns;
}
