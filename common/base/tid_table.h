/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tid_table: an open-addressed table of fixed-size entries keyed by tid,
 * for writers that keep a little per task. Each entry starts with an
 * int32_t tid; 0 marks a free slot, so tids must be positive.
 */
#ifndef PERFSNAPD_TID_TABLE_H
#define PERFSNAPD_TID_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct tid_table {
	void *v;	  /* cap entries of elem_size bytes */
	size_t elem_size; /* at least sizeof(int32_t) */
	size_t cap, nr;
};

/* A table starts as { .elem_size = N } (nothing allocated); __fini empties it. */
void tid_table__fini(struct tid_table *t);
/* The entry of @tid, or NULL (also for tid <= 0). */
void *tid_table__find(const struct tid_table *t, int32_t tid);
/* The entry of @tid (> 0), added zeroed but for its tid if new; NULL on ENOMEM. */
void *tid_table__get(struct tid_table *t, int32_t tid);
/* Slot @i (< cap) for walking the table: its tid is 0 when free. */
void *tid_table__slot_at(const struct tid_table *t, size_t i);

#endif
