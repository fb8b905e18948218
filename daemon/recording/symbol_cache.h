/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbol_cache: the executable objects tasks map, kept open from the
 * moment they are mapped, so that a dump can pack one (symbol_pack) even
 * when its file was deleted or replaced since. The process table's
 * build-id reads come here (proc_table__set_build_id_reader()), so that
 * each object is opened and read once for both. Objects are opened as the
 * table opens them (proc_table__open_mapping(): /proc/PID/map_files, the
 * mapped file itself, whatever its path holds now, else by path when the
 * inode still matches), and known by build-id (and device and inode, as
 * MMAP2 records without build-ids name them). At most a fixed number are
 * held; the least recently mapped is closed first. Thread-safe: the loop
 * feeds it, a dump's thread reads it.
 */
#ifndef PERFSNAPD_SYMBOL_CACHE_H
#define PERFSNAPD_SYMBOL_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "elf_buildid.h"

struct proc_table_mapping;
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
/*
 * Another reference (a thread that may outlive its owner's delete); each
 * is let go by symbol_cache__delete(), the last one frees. Returns @c.
 */
struct symbol_cache *symbol_cache__get(struct symbol_cache *c);
void symbol_cache__delete(struct symbol_cache *c);

/*
 * A file mapping (the process table's build-id reader): the build-id of
 * its object, which is opened and kept if it is new (an object is opened
 * and read once while it is held; a copy under another inode, or one
 * evicted, is opened again to check it, not read). Objects that are no
 * files to pack (/memfd:, /dev/) are read and not kept. Returns 0, or
 * the error that kept the object from being opened or read (-ENOENT: no
 * build-id).
 */
int symbol_cache__mmap(struct symbol_cache *c, const struct proc_table_mapping *m,
		       struct elf_buildid *ret_id);

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
