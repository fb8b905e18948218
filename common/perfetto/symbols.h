/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols: names for the instruction pointers of sampled callchains. The
 * kernel's from a kallsyms text; a process's from the executable mappings
 * its MMAP/MMAP2 records announce (fed in time order, so a sample sees the
 * maps of its moment; FORK copies the parent's), looked up in each mapped
 * file's ELF symbol table (.symtab, else .dynsym) through libelf, read
 * once per object. An object with a build-id is looked for first in a
 * symbols_source (a symbol pack, a build-id cache, the daemon's objects
 * kept open); at its path, only a file with that build-id is used, as
 * perf does. A file that is gone, replaced or stripped names nothing. No
 * I/O but reading those files; no logging.
 */
#ifndef PERFSNAPD_SYMBOLS_H
#define PERFSNAPD_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "snapshot_callchain.h"
#include "snapshot_tasks.h"

struct snapshot;
struct symbols;

/* The kernel's object, as perf names it: its key in a symbols_source, its dso. */
#define SYMBOLS_KERNEL_DSO "[kernel.kallsyms]"

struct symbol_info {
	const char *name;	     /* NULL: unknown */
	const char *dso;	     /* path of the mapping ("[kernel.kallsyms]"), NULL: none */
	uint64_t dso_start, dso_end; /* the mapping's addresses */
	uint64_t dso_pgoff;
	uint64_t rel_pc;	 /* ip relative to the mapping's file start */
	const uint8_t *build_id; /* the mapping's file's build-id, build_id_size bytes */
	uint8_t build_id_size;	 /* 0: none known */
};

/*
 * @kallsyms: a /proc/kallsyms text (copied), or NULL to read this
 * machine's. NULL on ENOMEM; unreadable kallsyms just name nothing.
 */
struct symbols *symbols__new(const char *kallsyms, size_t size);

/* An object as the recording names it. */
struct symbols_key {
	const char *path; /* as mapped; "[kernel.kallsyms]": the kernel's kallsyms text */
	const uint8_t *build_id;
	size_t build_id_size; /* 0: none known */
	bool has_ino;	      /* MMAP2's inode form: */
	uint32_t maj, min;
	uint64_t ino;
};

/*
 * Where objects are found before their paths. @open gives the object
 * @key names: a descriptor of a regular file (the symbolizer closes it)
 * and the bytes of it that hold the object. Returns 0, -ENOENT (not
 * there) or -errno.
 */
struct symbols_source {
	int (*open)(void *ctx, const struct symbols_key *key, int *ret_fd, uint64_t *ret_offset,
		    uint64_t *ret_size);
	void *ctx;
};
/*
 * For a writer of @s: @kallsyms if not NULL, else the kallsyms its tracing
 * metadata recorded (a converted perf.data's), else this machine's.
 */
struct symbols *symbols__new_snapshot(const struct snapshot *s, const char *kallsyms, size_t size);
void symbols__delete(struct symbols *s);
/* Objects from @src (copied; its ctx must outlive @s) before their paths; NULL: none. */
void symbols__set_source(struct symbols *s, const struct symbols_source *src);

/*
 * The build-id a recording lists for the file at @path (perf.data's
 * HEADER_BUILD_ID, "[kernel.kallsyms]" for the kernel), for its mappings
 * whose records carry none. Returns 0 or -ENOMEM.
 */
int symbols__add_build_id(struct symbols *s, const char *path, const uint8_t *build_id,
			  size_t build_id_size);
/*
 * A side-band record of an event with @sample_type, in time order: its
 * task's name goes to @tasks (snapshot_tasks__take), a new process's FORK
 * copies its parent's maps, an executable MMAP or MMAP2 adds one. Any
 * other record is ignored. Returns 0 or -ENOMEM.
 */
int symbols__take_record(struct symbols *s, struct snapshot_tasks *tasks,
			 const struct perf_event_header *h, uint64_t sample_type);

/*
 * An executable mapping of @pid, with the build-id of its file if known
 * (@build_id_size bytes, at most SYMBOLS_BUILD_ID_MAX; 0: none). Returns 0
 * or -ENOMEM.
 */
#define SYMBOLS_BUILD_ID_MAX 20
int symbols__add_map(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, const uint8_t *build_id, size_t build_id_size);
/* A new process @child (child != parent) starts with @parent's maps. */
int symbols__fork(struct symbols *s, pid_t child, pid_t parent);

/*
 * Fills @ret for frame @f of @pid: a kernel frame from kallsyms, a user
 * one from @pid's maps; one of a guest, the hypervisor or an unknown
 * context names nothing (this machine's symbols would name it wrongly).
 */
void symbols__resolve(struct symbols *s, pid_t pid, const struct snapshot_frame *f,
		      struct symbol_info *ret);

#endif
