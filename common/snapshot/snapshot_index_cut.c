// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_index_cut: the size cut of a windowed snapshot. The seal walks
 * the window's records once more before it indexes them, and the newest
 * that fit the size asked for, with what naming their tasks adds, set
 * where the window starts. See snapshot__set_window().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "array_grow.h"
#include "cleanup.h"
#include "perf_record.h"
#include "snapshot_index-internal.h"

/* A record of the window, for the size cut. */
struct sized {
	uint64_t time;
	uint64_t size;
	struct snapshot_task task; /* a sample's; tid 0 for other records */
};

static int cmp_sized_newest(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	return x->time > y->time ? -1 : x->time < y->time;
}

/*
 * A record's size in the perf.data: a compact record gains a u64 for each
 * field added back (snapshot__widen), so the size a dump was asked for
 * holds for the widest file.
 */
static size_t written_size(const struct snapshot_event *ev, const struct perf_event_header *h)
{
	uint64_t added = ev && h->type == PERF_RECORD_SAMPLE ?
				 snapshot_sample__file_type(ev) & ~ev->attr.sample_type :
				 0;

	return h->size + 8 * (size_t)__builtin_popcountll(added);
}

static int cmp_tid(const void *a, const void *b)
{
	const struct snapshot_task *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* What naming the tasks of the newest @n records adds (s->naming_cost). */
static int naming_bytes(const struct snapshot *s, const struct sized *v, size_t n, uint64_t *ret)
{
	_cleanup_free_ struct snapshot_task *t = calloc(n ? n : 1, sizeof(*t));
	size_t nr = 0, out = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (v[i].task.tid > 0)
			t[nr++] = v[i].task;
	if (nr)
		qsort(t, nr, sizeof(*t), cmp_tid);
	for (size_t i = 0; i < nr; i++)
		if (!out || t[out - 1].tid != t[i].tid)
			t[out++] = t[i];
	*ret = n ? s->naming_cost(s->naming_ctx, t, out, v[n - 1].time, v[0].time) : 0;
	return 0;
}

/* Moves a cut at @k back past the records of the same time as the first left out. */
static size_t whole_times(const struct sized *v, size_t n, size_t k)
{
	while (k < n && k > 0 && v[k - 1].time == v[k].time)
		k--;
	return k;
}

/* How many of the newest records (@v sorted so) fit in @budget bytes. */
static size_t newest_within(const struct sized *v, size_t n, uint64_t budget)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n && sum + v[i].size <= budget; i++)
		sum += v[i].size;
	return whole_times(v, n, i);
}

/* Whether the newest @k records and what naming their tasks adds fit in s->window_max_bytes. */
static int fits(const struct snapshot *s, const struct sized *v, size_t k, uint64_t *ret_naming,
		bool *ret)
{
	uint64_t sum = 0;
	int r;

	for (size_t i = 0; i < k; i++)
		sum += v[i].size;
	*ret_naming = 0;
	if (k && (r = naming_bytes(s, v, k, ret_naming)) < 0)
		return r;
	*ret = sum + *ret_naming <= s->window_max_bytes;
	return 0;
}

/*
 * The first time to keep so that the rings' records in the window from
 * then on, and what naming their tasks adds (s->naming_cost), add up to
 * s->window_max_bytes at most: one more walk of the records, only for a
 * dump that asked for a size. Fewer records name fewer tasks: the most
 * records that fit without the naming bound the cut, the same less the
 * naming they would need is the first guess, and halving the gap between
 * a cut that fits and one that does not finds the rest, to within 1% of
 * the records. Where a load's tasks make even a guess's naming outweigh
 * the size, the halving still finds the newest records that fit.
 */
int snapshot_index__size_cut(const struct snapshot *s, size_t nr, uint64_t *ret_from)
{
	_cleanup_free_ struct sized *v = NULL;
	uint64_t max = s->window_max_bytes, naming = 0;
	size_t n = 0, cap = 0, keep, hi;
	bool ok;
	int r;

	*ret_from = s->window_from;
	for (size_t i = 0; i < nr; i++) {
		const struct chunk *c = &s->chunks[i];
		struct event_cache cache = { 0 };
		const struct perf_event_header *h;
		struct record_key k;
		size_t pos = 0;
		const uint8_t *base;

		if (!c->len)
			continue;
		base = snapshot__chunk_base(s, c);
		while ((h = perf_record__next(base, c->len, &pos))) {
			struct snapshot_task task = { 0 };

			if (snapshot_index__record_key(s, c, h, &cache, &k) != 0)
				continue;
			if (array__grow((void **)&v, &cap, n, sizeof(*v), 4096) < 0)
				return -ENOMEM;
			if (h->type == PERF_RECORD_SAMPLE)
				snapshot_index__sample_task(k.ev, h, &k.rec, &task.pid, &task.tid);
			v[n++] = (struct sized){ .time = k.rec.time,
						 .size = written_size(k.ev, h),
						 .task = task };
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_sized_newest);
	keep = hi = newest_within(v, n, max);
	if (s->naming_cost && keep) {
		if ((r = fits(s, v, hi, &naming, &ok)) < 0)
			return r;
		if (!ok) {
			/* The first guess, then halving; nothing always fits. */
			size_t lo = 0, mid = newest_within(v, n, naming < max ? max - naming : 0);

			for (;;) {
				if ((r = fits(s, v, mid, &naming, &ok)) < 0)
					return r;
				if (ok)
					lo = mid;
				else
					hi = mid;
				if (hi - lo <= 1 || hi - lo <= hi / 100)
					break;
				mid = whole_times(v, n, lo + (hi - lo) / 2);
				if (mid <= lo)
					break;
			}
			keep = lo;
		}
	}
	if (keep < n)
		*ret_from = v[keep].time + 1;
	return 0;
}
