/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buildid_cache: the build-id of a file mapping, read from the object it
 * maps (proc_table__open_mapping()) and kept by the open file's device and
 * inode, checked against its change time and size: each exec maps the same
 * few files (the program, ld.so, libc), and opening one costs far less than
 * reading its note. One user at a time: the process table's own reads, or
 * the daemon's build-id reader thread.
 */
#ifndef PERFSNAPD_BUILDID_CACHE_H
#define PERFSNAPD_BUILDID_CACHE_H

#include <stddef.h>

struct buildid_cache;
struct elf_buildid;
struct proc_table_mapping;

/* NULL on ENOMEM. */
struct buildid_cache *buildid_cache__new(void);
void buildid_cache__delete(struct buildid_cache *c);
/* The heap it holds. */
size_t buildid_cache__bytes(void);

/*
 * The build-id of the object @m maps; @c may be NULL (read, not kept).
 * With no inode in @m, only /proc/PID/map_files is tried: a path alone
 * names whatever file is there now. Returns 0, or -errno as
 * proc_table__open_mapping() and elf_buildid__read_fd().
 */
int buildid_cache__read(struct buildid_cache *c, const struct proc_table_mapping *m,
			struct elf_buildid *ret);

#endif
