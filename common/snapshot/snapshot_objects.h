/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_objects: the objects a sealed snapshot's samples hit, each
 * once: every file-backed executable mapping (of its MMAP/MMAP2 records,
 * the synthesized ones included) that a sample's ip or a user callchain
 * entry falls in, and the kernel addresses hit, for a symbol pack. The
 * maps are followed in time order, so a sample sees those of its moment;
 * a process without its own maps uses its parent's (from FORK).
 */
#ifndef PERFSNAPD_SNAPSHOT_OBJECTS_H
#define PERFSNAPD_SNAPSHOT_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot.h"

#define SNAPSHOT_OBJECT_ID_MAX 20

struct snapshot_object {
	char *path;	 /* as the mmap record names it */
	uint8_t id_size; /* 0: the record has no build-id, it names dev and inode */
	uint8_t id[SNAPSHOT_OBJECT_ID_MAX];
	bool has_ino;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t nr_hits; /* sample ips and callchain entries in it */
};

struct snapshot_objects {
	struct snapshot_object *v;
	size_t nr;
	uint64_t *kernel_ips; /* sorted, each once */
	size_t nr_kernel_ips;
	uint64_t nr_kernel_hits;
	uint64_t nr_user_unmapped; /* user addresses in no file-backed mapping */
};

/* After __seal and __add_records. Returns 0 or -errno (-ENOMEM). */
int snapshot_objects__find(const struct snapshot *s, struct snapshot_objects *ret);
void snapshot_objects__fini(struct snapshot_objects *o);

#endif
