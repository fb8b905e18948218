// SPDX-License-Identifier: GPL-2.0-only
/* elf_symtab: see elf_symtab.h. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <string.h>

#include "elf_symtab.h"

/* What a reader needs to name addresses; the rest is left as NOBITS. */
static bool keep_section(const GElf_Shdr *sh, size_t index, size_t shstrndx)
{
	return index == shstrndx || sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_DYNSYM ||
	       sh->sh_type == SHT_STRTAB || sh->sh_type == SHT_NOTE ||
	       sh->sh_type == SHT_GNU_versym || sh->sh_type == SHT_GNU_verdef ||
	       sh->sh_type == SHT_GNU_verneed;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/*
 * The tables kept need 8 at most; a header may claim anything (2^54 put
 * the next section petabytes out, a sparse copy of that size). Capped so
 * that padding never outgrows the section headers that ask for it.
 */
#define MAX_ALIGN 64

/* Sections in the order of @src, each at the next aligned offset after @off. */
static int copy_sections(Elf *src, Elf *dst, size_t shstrndx, uint64_t *off, bool *has_symtab)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(src, scn))) {
		Elf_Scn *ns = elf_newscn(dst);
		GElf_Shdr sh;
		Elf_Data *d, *nd;

		if (!ns || !gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM)
			*has_symtab = true;
		if (!keep_section(&sh, elf_ndxscn(scn), shstrndx) || sh.sh_type == SHT_NOBITS) {
			/* An unused header's size is nothing (libelf lays it out). */
			if (sh.sh_type != SHT_NULL)
				sh.sh_type = SHT_NOBITS;
			else
				sh.sh_size = 0;
			sh.sh_offset = *off;
		} else {
			d = elf_rawdata(scn, NULL);
			nd = elf_newdata(ns);
			if (!d || !nd)
				return -ENOEXEC;
			*nd = (Elf_Data){ .d_buf = d->d_buf,
					  .d_type = ELF_T_BYTE,
					  .d_size = d->d_size,
					  .d_align = 1,
					  .d_version = EV_CURRENT };
			if (sh.sh_addralign > MAX_ALIGN ||
			    (sh.sh_addralign & (sh.sh_addralign - 1)))
				sh.sh_addralign = MAX_ALIGN;
			*off = align_up(*off, sh.sh_addralign);
			sh.sh_offset = *off;
			sh.sh_size = d->d_size;
			*off += d->d_size;
		}
		if (!gelf_update_shdr(ns, &sh))
			return -ENOEXEC;
	}
	return 0;
}

/* The bytes the kept sections claim, from their headers alone. */
static uint64_t kept_bytes(Elf *src, size_t shstrndx)
{
	Elf_Scn *scn = NULL;
	uint64_t total = 0;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(src, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    keep_section(&sh, elf_ndxscn(scn), shstrndx))
			total += sh.sh_size > UINT64_MAX - total ? UINT64_MAX - total : sh.sh_size;
	return total;
}

static int copy(Elf *src, Elf *dst, uint64_t max_bytes, uint64_t *ret_size)
{
	size_t shstrndx, phnum = 0;
	bool has_symtab = false;
	GElf_Ehdr eh;
	uint64_t off;
	int64_t size;
	int r;

	if (elf_kind(src) != ELF_K_ELF || !gelf_getehdr(src, &eh) ||
	    elf_getshdrstrndx(src, &shstrndx) < 0 || elf_getphdrnum(src, &phnum) < 0 ||
	    !gelf_newehdr(dst, gelf_getclass(src)) || (phnum && !gelf_newphdr(dst, phnum)))
		return -ENOEXEC;
	if (kept_bytes(src, shstrndx) > max_bytes)
		return -EFBIG;
	elf_flagelf(dst, ELF_C_SET, ELF_F_LAYOUT);
	off = gelf_fsize(dst, ELF_T_EHDR, 1, EV_CURRENT) +
	      gelf_fsize(dst, ELF_T_PHDR, phnum, EV_CURRENT);
	r = copy_sections(src, dst, shstrndx, &off, &has_symtab);
	if (r < 0)
		return r;
	if (!has_symtab)
		return -ENOENT;
	eh.e_phoff = phnum ? gelf_fsize(dst, ELF_T_EHDR, 1, EV_CURRENT) : 0;
	eh.e_shoff = align_up(off, 8);
	if (!gelf_update_ehdr(dst, &eh))
		return -ENOEXEC;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(src, (int)i, &ph) || !gelf_update_phdr(dst, (int)i, &ph))
			return -ENOEXEC;
	}
	size = elf_update(dst, ELF_C_WRITE);
	if (size < 0)
		return -ENOEXEC;
	*ret_size = (uint64_t)size;
	return 0;
}

int elf_symtab__copy(int in_fd, int out_fd, uint64_t max_bytes, uint64_t *ret_size)
{
	Elf *src, *dst;
	int r;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	src = elf_begin(in_fd, ELF_C_READ, NULL);
	if (!src)
		return -ENOEXEC;
	dst = elf_begin(out_fd, ELF_C_WRITE, NULL);
	r = dst ? copy(src, dst, max_bytes, ret_size) : -ENOEXEC;
	if (dst)
		elf_end(dst);
	elf_end(src);
	return r;
}
