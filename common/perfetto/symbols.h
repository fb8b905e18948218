/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols: names for the instruction pointers of sampled callchains. The
 * kernel's from a kallsyms text; a process's from the executable mappings
 * its MMAP/MMAP2 records announce (fed in time order, so a sample sees the
 * maps of its moment; FORK copies the parent's), looked up in each mapped
 * file's ELF symbol table (.symtab, else .dynsym) through libelf, read
 * once per file. A file that is gone or stripped names nothing. No I/O but
 * reading those files; no logging.
 */
#ifndef PERFSNAPD_SYMBOLS_H
#define PERFSNAPD_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbols;

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
void symbols__delete(struct symbols *s);

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

/* Fills @ret for @ip of @pid; @kernel: a kernel address. */
void symbols__resolve(struct symbols *s, pid_t pid, uint64_t ip, bool kernel,
		      struct symbol_info *ret);

#endif
