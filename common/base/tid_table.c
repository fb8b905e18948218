// SPDX-License-Identifier: GPL-2.0-only
/* tid_table: see tid_table.h. */
#include <stdlib.h>
#include <string.h>

#include "tid_table.h"

static int32_t tid_of(const void *entry)
{
	int32_t tid;

	memcpy(&tid, entry, sizeof(tid));
	return tid;
}

void *tid_table__slot_at(const struct tid_table *t, size_t i)
{
	return (char *)t->v + i * t->elem_size;
}

/* Where @tid is or would go; cap is a power of two and never full. */
static void *slot(const struct tid_table *t, int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (t->cap - 1);
	void *e;

	while (tid_of(e = tid_table__slot_at(t, i)) && tid_of(e) != tid)
		i = (i + 1) & (t->cap - 1);
	return e;
}

void tid_table__fini(struct tid_table *t)
{
	free(t->v);
	*t = (struct tid_table){ .elem_size = t->elem_size };
}

void *tid_table__find(const struct tid_table *t, int32_t tid)
{
	void *e;

	if (!t->cap || tid <= 0)
		return NULL;
	e = slot(t, tid);
	return tid_of(e) ? e : NULL;
}

/* Doubles the table (1024 slots at first), keeping it at most 3/4 full. */
static int grow(struct tid_table *t)
{
	struct tid_table n = { .elem_size = t->elem_size, .cap = t->cap ? t->cap * 2 : 1024 };

	n.v = calloc(n.cap, n.elem_size);
	if (!n.v)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		const void *e = tid_table__slot_at(t, i);

		if (tid_of(e))
			memcpy(slot(&n, tid_of(e)), e, t->elem_size);
	}
	free(t->v);
	t->v = n.v;
	t->cap = n.cap;
	return 0;
}

void *tid_table__get(struct tid_table *t, int32_t tid)
{
	void *e;

	if (tid <= 0 || ((t->nr + 1) * 4 > t->cap * 3 && grow(t) < 0))
		return NULL;
	e = slot(t, tid);
	if (!tid_of(e)) {
		memcpy(e, &tid, sizeof(tid));
		t->nr++;
	}
	return e;
}
