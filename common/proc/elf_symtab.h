/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_symtab: a copy of an ELF object with only what names its addresses:
 * the ELF and program headers as they are, every section header, and the
 * bytes of the symbol tables, string tables and notes (the build-id);
 * the other sections become SHT_NOBITS, as in a separate debug file. perf
 * reads its symbols and maps them through the program headers, which
 * still describe the original. For objects too big to pack whole.
 */
#ifndef PERFSNAPD_ELF_SYMTAB_H
#define PERFSNAPD_ELF_SYMTAB_H

#include <stdint.h>

/*
 * Writes the copy of the object open at @in_fd to @out_fd (from offset 0)
 * if its sections take at most @max_bytes, checked before any is read.
 * The object is read, not mapped: a file cut short while it is copied
 * is an error, not a SIGBUS. Returns 0 and its size in *@ret_size,
 * -EFBIG past @max_bytes, -ENOEXEC when @in_fd is not ELF or libelf cannot
 * lay the copy out, -ENOENT without a symbol table, or -errno.
 */
int elf_symtab__copy(int in_fd, int out_fd, uint64_t max_bytes, uint64_t *ret_size);

#endif
