/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_objects: the objects a sealed snapshot's samples hit, each
 * once, for everything that names them (the symbol pack, perf.data's
 * BUILD_ID): every file-backed executable mapping (of its MMAP/MMAP2
 * records, those merged in by snapshot__add_records and those added here)
 * that a sample's ip or a user callchain entry falls in, and the kernel
 * addresses hit. A sample sees the mapping of its process made last by
 * its time (else the first made after it: the side-band synthesized at
 * the dump describes earlier samples too), else its parent's (FORK).
 * Part of the snapshot layer: no I/O.
 */
#ifndef PERFSNAPD_SNAPSHOT_OBJECTS_H
#define PERFSNAPD_SNAPSHOT_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot.h"

#define SNAPSHOT_OBJECT_ID_MAX 20

/*
 * One object: a path and what the mmap record says it is. The same path
 * with another build-id or inode (a file replaced) is another object.
 */
struct snapshot_object {
	const char *path; /* as the mmap record names it */
	uint8_t id_size;  /* 0: the record has no build-id (it may name dev and inode) */
	uint8_t id[SNAPSHOT_OBJECT_ID_MAX];
	bool has_ino;
	uint32_t maj, min;
	uint64_t ino;
	uint64_t nr_hits; /* sample ips and callchain entries in it */
	/* A mapping of it that was hit: /proc/<pid>/map_files/<start>-<end> while it lives. */
	pid_t pid;
	uint64_t start, end;
};

struct snapshot_objects_stats {
	uint64_t nr_kernel_hits;   /* kernel ips and callchain entries, and: */
	uint64_t nr_kernel_no_ip;  /* kernel samples that name no address */
	uint64_t nr_user_unmapped; /* user addresses in no file-backed mapping */
};

struct snapshot_objects;

/* NULL on ENOMEM. */
struct snapshot_objects *snapshot_objects__new(void);
void snapshot_objects__delete(struct snapshot_objects *o);
/*
 * Before __find: a record not in the snapshot (e.g. synthesized from /proc
 * at the dump), laid out for @sample_type: MMAP, MMAP2 and FORK are kept,
 * others skipped. Returns 0, -ENOMEM, or -EBUSY after __find.
 */
int snapshot_objects__add_record(struct snapshot_objects *o, const struct perf_event_header *rec,
				 uint64_t sample_type);
/*
 * Walks @s (sealed, after __add_records): its mappings, then its samples.
 * Once per @o. Returns 0, -EBUSY the second time, or -errno.
 */
int snapshot_objects__find(struct snapshot_objects *o, const struct snapshot *s);

/* After __find: the objects hit, valid until __delete. */
size_t snapshot_objects__nr(const struct snapshot_objects *o);
const struct snapshot_object *snapshot_objects__object(const struct snapshot_objects *o,
						       size_t idx);
/* The kernel addresses hit, sorted, each once. */
const uint64_t *snapshot_objects__kernel_ips(const struct snapshot_objects *o, size_t *ret_nr);
const struct snapshot_objects_stats *snapshot_objects__stats(const struct snapshot_objects *o);

#endif
