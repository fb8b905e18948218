/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbol_pack: writes a snapshot's "<stem>.symbols.tar": for every object
 * its samples and callchains hit, the whole ELF file (from symbol_cache,
 * so one deleted since is there too), and the kernel's kallsyms lines of
 * the addresses hit, laid out as perf's build-id cache:
 *
 *   <path>/<build-id>/elf, .build-id/<2 hex>/<rest> -> ../../<path>/<build-id>
 *   [kernel.kallsyms]/<build-id>/kallsyms, and its .build-id link
 *
 * so that `perf --buildid-dir DIR report` names them wherever the archive
 * is extracted to DIR. An object that cannot be packed (unreadable, gone,
 * without a build-id, over the size cap) is left out and counted; only a
 * write error of the archive itself fails.
 */
#ifndef PERFSNAPD_SYMBOL_PACK_H
#define PERFSNAPD_SYMBOL_PACK_H

#include <stdint.h>

struct dump_symbol_figures;
struct snapshot;
struct symbol_cache;

/*
 * The pack's cap, all objects together and each: the executables and
 * libraries of a typical service fit (libc is 2 MiB, a large C++ service
 * binary tens of MiB) while a pack stays within the size of the
 * snapshot's own files; beyond it the largest objects are left out.
 */
#define SYMBOL_PACK_MAX_BYTES (64ull << 20)

struct symbol_pack_params {
	struct symbol_cache *cache; /* NULL: objects are opened by path */
	uint64_t max_bytes;	    /* the cap on the objects' bytes, all and each */
	const char *kallsyms;	    /* NULL: /proc/kallsyms */
	const char *kernel_notes;   /* NULL: /sys/kernel/notes */
};

/*
 * Writes the pack of the sealed, named @s to @fd (at offset 0). Returns 0
 * or -errno of a write to @fd; @ret says what went in and what did not.
 */
int symbol_pack__write(const struct snapshot *s, const struct symbol_pack_params *p, int fd,
		       struct dump_symbol_figures *ret);

#endif
