/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbol_cache: the executable objects tasks map, kept open from the
 * moment they are mapped, so that a dump can pack one (symbol_pack) even
 * when its file was deleted or replaced since. Objects are opened through
 * /proc/PID/map_files (the mapped file itself, whatever its path holds
 * now), else by path when the inode still matches, and known by build-id
 * (and device and inode, as MMAP2 records without build-ids name them).
 * At most a fixed number are held; the least recently mapped is closed
 * first. Thread-safe: the loop feeds it, a dump's thread reads it.
 */
#ifndef PERFSNAPD_SYMBOL_CACHE_H
#define PERFSNAPD_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/perf_event.h>

#include "elf_buildid.h"

struct symbol_cache;

/*
 * Objects held open: the executables and libraries of a busy host's
 * services, and under a quarter of the usual 1024 descriptors.
 */
#define SYMBOL_CACHE_MAX_OPEN 256

/* An object as a snapshot's mmap records name it. */
struct symbol_cache_key {
	struct elf_buildid id; /* size 0: not in the record */
	bool has_ino;
	uint32_t maj, min;
	uint64_t ino;
	const char *path;
};

struct symbol_cache_stats {
	uint64_t nr_objects, nr_open, max_open;
	uint64_t nr_opened, nr_evicted, nr_open_failed;
};

/*
 * At most @max_open objects open (fewer when RLIMIT_NOFILE is low: a
 * quarter of it). NULL on ENOMEM.
 */
struct symbol_cache *symbol_cache__new(unsigned int max_open);
void symbol_cache__delete(struct symbol_cache *c);

/* A side-band MMAP2 record (others are ignored): opens its object if new. */
void symbol_cache__mmap(struct symbol_cache *c, const struct perf_event_header *rec);

/* Every executable mapping of every process /proc lists now. Returns 0 or -errno. */
int symbol_cache__seed_from_proc(struct symbol_cache *c);

/*
 * The object @key names (@c may be NULL: by path only): a new descriptor of it (the caller closes it),
 * its build-id and size. Not held, it is opened by path now if the file
 * there is the one (inode, or build-id) the key names. Returns 0, -ENOENT
 * (not known and not there), -ESTALE (the path holds another file now),
 * -ENODATA (no build-id), the error that kept it from being opened (e.g.
 * -EACCES), or -errno.
 */
int symbol_cache__open(struct symbol_cache *c, const struct symbol_cache_key *key, int *ret_fd,
		       struct elf_buildid *ret_id, uint64_t *ret_size);

void symbol_cache__stats(struct symbol_cache *c, struct symbol_cache_stats *ret);

#endif
