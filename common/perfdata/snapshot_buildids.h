/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_buildids: the objects a snapshot's samples hit (snapshot_objects
 * finds them, as for the symbol pack) with their build-ids: the kernel,
 * its modules and each mapped file, as perf's BUILD_ID feature lists
 * them. A file's comes from its mmap record where the side-band gave one;
 * one hit without a build-id is read from its file now, if it is still
 * there; the kernel's and the modules' from sysfs.
 */
#ifndef PERFSNAPD_SNAPSHOT_BUILDIDS_H
#define PERFSNAPD_SNAPSHOT_BUILDIDS_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "elf_buildid.h"
#include "snapshot.h"

struct snapshot_buildid {
	uint16_t misc;	  /* PERF_RECORD_MISC_KERNEL (kernel, modules) or _USER */
	const char *name; /* "[kernel.kallsyms]", "[module]" or the mapped path */
	struct elf_buildid id;
};

struct snapshot_buildids;

/* NULL on ENOMEM. */
struct snapshot_buildids *snapshot_buildids__new(void);
void snapshot_buildids__delete(struct snapshot_buildids *b);

/*
 * A record not in the snapshot (e.g. synthesized from /proc at dump time)
 * laid out for @sample_type: MMAP, MMAP2 and FORK are kept, others skipped.
 * Returns 0, -ENOMEM, or -EBUSY after __scan.
 */
int snapshot_buildids__add_record(struct snapshot_buildids *b, const struct perf_event_header *rec,
				  uint64_t sample_type);

/*
 * Walks @s (sealed): its mappings, then its samples, and lists the
 * objects hit that have a build-id. Once per @b. Returns 0 or -errno.
 */
int snapshot_buildids__scan(struct snapshot_buildids *b, const struct snapshot *s);

size_t snapshot_buildids__nr(const struct snapshot_buildids *b);
const struct snapshot_buildid *snapshot_buildids__entry(const struct snapshot_buildids *b,
							size_t idx);

#endif
