/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * array_grow: room for one more element in an array that doubles as it
 * fills, for the growable arrays of the snapshot and its writers.
 */
#ifndef PERFSNAPD_ARRAY_GROW_H
#define PERFSNAPD_ARRAY_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * Makes room for element @nr of *@arr (of @elem bytes each, *@cap of them
 * allocated): unchanged while @nr < *@cap, else twice the room, or @first
 * elements for an empty array. Returns 0 or -ENOMEM (the array unchanged).
 */
static inline int array__grow(void **arr, size_t *cap, size_t nr, size_t elem, size_t first)
{
	size_t n = *cap ? *cap * 2 : first;
	void *m;

	if (nr < *cap)
		return 0;
	m = realloc(*arr, n * elem);
	if (!m)
		return -ENOMEM;
	*arr = m;
	*cap = n;
	return 0;
}

#endif
