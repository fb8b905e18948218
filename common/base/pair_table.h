/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pair_table: the user-space pairing of start and end events by key, for
 * paired triggers where the BPF program cannot load. A start stores its
 * time under its key (a later start of the same key replaces it, as the
 * BPF map does); an end takes the start of its key away and gives the
 * duration. The table is fixed in size: a start that finds it full is
 * counted in dropped and not paired.
 */
#ifndef PERFSNAPD_PAIR_TABLE_H
#define PERFSNAPD_PAIR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pair_start {
	uint64_t key;
	uint64_t time;
	int32_t cpu, pid;
};

struct pair_table {
	struct pair_start *slots;
	bool *used;
	size_t cap, nr;
	uint64_t dropped;
};

/* A table of @cap (a power of two) slots. Returns 0 or -ENOMEM. */
int pair_table__init(struct pair_table *t, size_t cap);
void pair_table__fini(struct pair_table *t);
/* A start event. */
void pair_table__start(struct pair_table *t, const struct pair_start *s);
/*
 * An end event of @key at @time: true, with its start in *@ret (removed),
 * if a start of @key at or before @time is waiting.
 */
bool pair_table__end(struct pair_table *t, uint64_t key, uint64_t time, struct pair_start *ret);

#endif
