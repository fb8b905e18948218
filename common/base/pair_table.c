// SPDX-License-Identifier: GPL-2.0-only
/*
 * pair_table: open addressing with linear probing; removal shifts the
 * entries after the hole back, so no tombstones build up under a steady
 * stream of starts and ends. See pair_table.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "pair_table.h"

static size_t hash(uint64_t key, size_t cap)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

int pair_table__init(struct pair_table *t, size_t cap)
{
	t->slots = calloc(cap, sizeof(*t->slots));
	t->used = calloc(cap, sizeof(*t->used));
	t->cap = cap;
	t->nr = 0;
	t->dropped = 0;
	if (!t->slots || !t->used) {
		pair_table__fini(t);
		return -ENOMEM;
	}
	return 0;
}

void pair_table__fini(struct pair_table *t)
{
	free(t->slots);
	free(t->used);
	t->slots = NULL;
	t->used = NULL;
	t->cap = t->nr = 0;
}

static size_t find(const struct pair_table *t, uint64_t key, bool *found)
{
	size_t i = hash(key, t->cap);

	while (t->used[i] && t->slots[i].key != key)
		i = (i + 1) & (t->cap - 1);
	*found = t->used[i];
	return i;
}

void pair_table__start(struct pair_table *t, const struct pair_start *s)
{
	bool found;
	size_t i;

	if (!t->cap)
		return;
	i = find(t, s->key, &found);
	if (!found) {
		/* One slot stays free so that a probe always ends. */
		if (t->nr + 1 >= t->cap) {
			t->dropped++;
			return;
		}
		t->used[i] = true;
		t->nr++;
	}
	t->slots[i] = *s;
}

static void remove_at(struct pair_table *t, size_t hole)
{
	size_t mask = t->cap - 1, i = hole;

	t->used[hole] = false;
	t->nr--;
	for (;;) {
		size_t home;

		i = (i + 1) & mask;
		if (!t->used[i])
			return;
		home = hash(t->slots[i].key, t->cap);
		/* Move it back unless its home lies cyclically in (hole, i]. */
		if (hole <= i ? (home > hole && home <= i) : (home > hole || home <= i))
			continue;
		t->slots[hole] = t->slots[i];
		t->used[hole] = true;
		t->used[i] = false;
		hole = i;
	}
}

bool pair_table__end(struct pair_table *t, uint64_t key, uint64_t time, struct pair_start *ret)
{
	bool found;
	size_t i;

	if (!t->cap)
		return false;
	i = find(t, key, &found);
	if (!found || t->slots[i].time > time)
		return false;
	*ret = t->slots[i];
	remove_at(t, i);
	return true;
}
