// SPDX-License-Identifier: GPL-2.0-only
/* symbols_object: see symbols_object.h. */
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols_object.h"

/*
 * A symbol table or its strings larger than this names nothing: more than
 * unstripped binaries of a few hundred MiB have, and what bounds the
 * memory a hostile mapped file can make a writer take.
 */
#define SYMTAB_MAX_BYTES (64ull << 20)

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/*
 * By address; of aliases (one address, several names), the one perf
 * report shows sorts last, where symbols_object__name() looks: one with a size, not
 * weak, global, with fewer leading underscores ("read", not "__read"),
 * the longer name; then by name, so the choice never depends on order.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct symbols_sym *x = a, *y = b;
	size_t ux, uy, lx, ly;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (!x->size != !y->size)
		return x->size ? 1 : -1;
	if ((x->bind == STB_WEAK) != (y->bind == STB_WEAK))
		return x->bind == STB_WEAK ? -1 : 1;
	if ((x->bind == STB_GLOBAL) != (y->bind == STB_GLOBAL))
		return x->bind == STB_GLOBAL ? 1 : -1;
	ux = leading_underscores(x->name);
	uy = leading_underscores(y->name);
	if (ux != uy)
		return ux < uy ? 1 : -1;
	lx = strlen(x->name);
	ly = strlen(y->name);
	if (lx != ly)
		return lx > ly ? 1 : -1;
	return strcmp(y->name, x->name);
}

static int sym_push(struct symbols_object *t, uint64_t addr, uint64_t size, const char *name,
		    uint8_t bind)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct symbols_sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->nr++] = (struct symbols_sym){ addr, size, name, bind };
	return 0;
}

static const struct symbols_sym *sym_find(const struct symbols_object *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;
	const struct symbols_sym *s;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &t->v[lo - 1];
	if (s->size && addr >= s->addr + s->size)
		return NULL;
	return s;
}

int symbols_object__parse_kallsyms(struct symbols_object *o, const char *text, size_t size)
{
	char *p, *end;

	o->names = malloc(size + 1);
	if (!o->names)
		return -ENOMEM;
	memcpy(o->names, text, size);
	o->names[size] = 0;
	for (p = o->names, end = p + size; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *name, *tail;
		uint64_t addr;
		char type;

		if (!nl)
			nl = end;
		*nl = 0;
		addr = strtoull(p, &name, 16);
		if (name[0] == ' ' && name[1] && name[2] == ' ') {
			type = name[1];
			name += 3;
			tail = strpbrk(name, "\t ");
			if (tail)
				*tail = 0;
			if (addr && (type == 't' || type == 'T' || type == 'w' || type == 'W') &&
			    sym_push(o, addr, 0, name,
				     type == 'w' || type == 'W' ? STB_WEAK :
				     type == 'T'		? STB_GLOBAL :
								  STB_LOCAL))
				return -ENOMEM;
		}
		p = nl + 1;
	}
	if (o->nr) {
		qsort(o->v, o->nr, sizeof(*o->v), cmp_sym);
		o->start = o->v[0].addr;
		o->end = o->v[o->nr - 1].addr + 4096;
	}
	return 0;
}

/* Copies the STT_FUNC symbols of one symbol table section into @o. */
static int read_symtab(struct symbols_object *o, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, names = 0, at = 0;
	Elf_Scn *strscn = elf_getscn(elf, sh->sh_link);
	GElf_Shdr strsh;
	Elf_Data *data;
	GElf_Sym sym;

	/* libelf reads a section whole: a sparse file's claims are not read. */
	if (sh->sh_size > SYMTAB_MAX_BYTES || !strscn || !gelf_getshdr(strscn, &strsh) ||
	    strsh.sh_size > SYMTAB_MAX_BYTES)
		return 0;
	data = elf_getdata(scn, NULL);
	if (!data)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		names += strlen(name) + 1;
	}
	o->names = malloc(names + 1);
	if (!o->names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		size_t len;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		len = strlen(name) + 1;
		memcpy(o->names + at, name, len);
		if (sym_push(o, sym.st_value, sym.st_size, o->names + at,
			     (uint8_t)GELF_ST_BIND(sym.st_info)))
			return -ENOMEM;
		at += len;
	}
	return 0;
}

void symbols_object__read_elf(struct symbols_object *o, Elf *elf)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *symtab = NULL;
	GElf_Shdr sh, use_sh;
	size_t nr_ph = 0;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nr_ph))
		return;
	o->loads = calloc(nr_ph ? nr_ph : 1, sizeof(*o->loads));
	for (size_t i = 0; o->loads && i < nr_ph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			o->loads[o->nr_loads++] = (struct symbols_load){ ph.p_offset, ph.p_vaddr,
									 ph.p_filesz };
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
	}
	scn = symtab ? symtab : dynsym;
	if (scn && gelf_getshdr(scn, &use_sh) && !read_symtab(o, elf, scn, &use_sh) && o->nr)
		qsort(o->v, o->nr, sizeof(*o->v), cmp_sym);
}

uint64_t symbols_object__vaddr(const struct symbols_object *o, uint64_t off)
{
	for (size_t i = 0; i < o->nr_loads; i++)
		if (off >= o->loads[i].offset && off < o->loads[i].offset + o->loads[i].filesz)
			return off - o->loads[i].offset + o->loads[i].vaddr;
	return off;
}

const char *symbols_object__name(const struct symbols_object *o, uint64_t addr)
{
	const struct symbols_sym *s = sym_find(o, addr);

	return s ? s->name : NULL;
}

void symbols_object__free(struct symbols_object *o)
{
	free(o->v);
	free(o->names);
	free(o->loads);
	*o = (struct symbols_object){ 0 };
}
