/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * symbols_object: the function symbols of one object, sorted by address
 * for lookups: a kallsyms text's, or an ELF file's (.symtab, else
 * .dynsym) with its load segments, to turn file offsets into the
 * addresses its symbols use. Of aliases, the name perf report shows.
 * symbols' own part; no I/O.
 */
#ifndef PERFSNAPD_SYMBOLS_OBJECT_H
#define PERFSNAPD_SYMBOLS_OBJECT_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct symbols_sym {
	uint64_t addr, size; /* size 0: up to the next symbol */
	const char *name;
	uint8_t bind; /* STB_LOCAL, STB_GLOBAL or STB_WEAK */
};

struct symbols_load {
	uint64_t offset, vaddr, filesz;
};

struct symbols_object {
	struct symbols_sym *v;
	size_t nr, cap;
	char *names; /* arena the names point into */
	struct symbols_load *loads;
	size_t nr_loads;
	uint64_t start, end; /* kallsyms: the first text symbol to a page past the last */
};

/* "ffffffff81000000 T name\t[module]": text symbols only. Returns 0 or -ENOMEM. */
int symbols_object__parse_kallsyms(struct symbols_object *o, const char *text, size_t size);
/* An ELF object's; what cannot be read is left out. */
void symbols_object__read_elf(struct symbols_object *o, Elf *elf);
void symbols_object__free(struct symbols_object *o);

/* The name of the symbol at @addr (a kernel address, or an ELF object's vaddr); NULL: none. */
const char *symbols_object__name(const struct symbols_object *o, uint64_t addr);
/* The ELF virtual address of file offset @off, through the PT_LOAD that holds it. */
uint64_t symbols_object__vaddr(const struct symbols_object *o, uint64_t off);

#endif
