/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * intern: the interning tables of a Perfetto packet sequence: a byte
 * string key (a function name, a frame's fields, a callstack's frame ids)
 * maps to the iid it was first given, counting from 1. The memory of a
 * trace writer is these tables: one entry and one copy of each distinct
 * key, however long the trace.
 */
#ifndef PERFSNAPD_INTERN_H
#define PERFSNAPD_INTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct intern_table {
	struct intern_slot *slots;
	size_t cap, nr; /* cap: a power of two */
	uint8_t *keys;	/* every key, back to back */
	size_t keys_len, keys_cap;
};

void intern_table__fini(struct intern_table *t);

/*
 * The iid of @key, *@is_new telling whether it was just added (the caller
 * then emits its definition). Returns the iid (>= 1) or 0 on ENOMEM.
 */
uint64_t intern_table__get(struct intern_table *t, const void *key, size_t len, bool *is_new);

#endif
