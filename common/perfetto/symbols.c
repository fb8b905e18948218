// SPDX-License-Identifier: GPL-2.0-only
/* symbols: see symbols.h. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "snapshot.h"
#include "symbols.h"
#include "tracing_meta.h"

#define KERNEL_DSO "[kernel.kallsyms]"

struct sym {
	uint64_t addr, size; /* size 0: up to the next symbol */
	const char *name;
	uint8_t bind; /* STB_LOCAL, STB_GLOBAL or STB_WEAK */
};

struct sym_table {
	struct sym *v;
	size_t nr, cap;
	char *names; /* arena the names point into (kallsyms) */
};

/* A mapped file, its symbols read on first use. */
struct dso {
	char *path;
	bool loaded;
	struct sym_table syms;
	struct {
		uint64_t offset, vaddr, filesz;
	} * loads;
	size_t nr_loads;
	/* The recording's for this path (symbols__add_build_id), for maps without their own. */
	uint8_t build_id_size;
	uint8_t build_id[SYMBOLS_BUILD_ID_MAX];
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
	/* Per mapping, not per path: a file replaced at its path has another. */
	uint8_t build_id_size;
	uint8_t build_id[SYMBOLS_BUILD_ID_MAX];
};

struct maps {
	pid_t pid; /* 0: free slot */
	struct map *v;
	size_t nr, cap;
};

struct symbols {
	struct sym_table kernel;
	bool kernel_loaded;
	uint64_t kernel_start, kernel_end;
	uint8_t kernel_build_id_size;
	uint8_t kernel_build_id[SYMBOLS_BUILD_ID_MAX];
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct maps *procs; /* open addressing by pid */
	size_t cap_procs, nr_procs;
	struct maps *last; /* the process of the previous lookup */
};

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

/*
 * By address; of aliases (one address, several names), the one perf
 * report shows sorts last, where sym_find() looks: one with a size, not
 * weak, global, with fewer leading underscores ("read", not "__read"),
 * the longer name; then by name, so the choice never depends on order.
 */
static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
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

static int sym_push(struct sym_table *t, uint64_t addr, uint64_t size, const char *name,
		    uint8_t bind)
{
	if (t->nr == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct sym *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->nr++] = (struct sym){ addr, size, name, bind };
	return 0;
}

static const struct sym *sym_find(const struct sym_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->nr;
	const struct sym *s;

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

static char *read_file(const char *path, size_t *ret_size)
{
	size_t len = 0, cap = 1 << 20;
	char *buf = malloc(cap + 1), *p;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0 || !buf)
		goto fail;
	while ((n = read(fd, buf + len, cap - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		len += (size_t)n;
		if (len == cap) {
			p = realloc(buf, cap * 2 + 1);
			if (!p)
				goto fail;
			buf = p;
			cap *= 2;
		}
	}
	close(fd);
	buf[len] = 0;
	*ret_size = len;
	return buf;
fail:
	if (fd >= 0)
		close(fd);
	free(buf);
	return NULL;
}

/* "ffffffff81000000 T name\t[module]": text symbols only. */
static int parse_kallsyms(struct symbols *s, const char *text, size_t size)
{
	char *p, *end;

	s->kernel.names = malloc(size + 1);
	if (!s->kernel.names)
		return -ENOMEM;
	memcpy(s->kernel.names, text, size);
	s->kernel.names[size] = 0;
	for (p = s->kernel.names, end = p + size; p < end;) {
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
			    sym_push(&s->kernel, addr, 0, name,
				     type == 'w' || type == 'W' ? STB_WEAK :
				     type == 'T'		? STB_GLOBAL :
								  STB_LOCAL))
				return -ENOMEM;
		}
		p = nl + 1;
	}
	if (s->kernel.nr) {
		qsort(s->kernel.v, s->kernel.nr, sizeof(*s->kernel.v), cmp_sym);
		s->kernel_start = s->kernel.v[0].addr;
		s->kernel_end = s->kernel.v[s->kernel.nr - 1].addr + 4096;
	}
	return 0;
}

struct symbols *symbols__new(const char *kallsyms, size_t size)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	if (kallsyms && parse_kallsyms(s, kallsyms, size)) {
		symbols__delete(s);
		return NULL;
	}
	/* This machine's is read at the first kernel address: many traces have none. */
	s->kernel_loaded = kallsyms != NULL;
	return s;
}

/**
 * symbols__new_snapshot - the symbolizer for a writer of a snapshot
 * @s: the snapshot
 * @kallsyms: a kallsyms text over the snapshot's and this machine's, or NULL
 * @size: its size
 *
 * The snapshot's kallsyms is the one its tracing metadata recorded (a
 * converter's input); this machine's may not be the recording one's.
 * Returns the symbolizer, or NULL on ENOMEM.
 */
struct symbols *symbols__new_snapshot(const struct snapshot *s, const char *kallsyms, size_t size)
{
	const struct tracing_meta *tm = snapshot__tracing(s);
	const struct tracing_data_info *t = tm ? tracing_meta__info(tm) : NULL;

	if (kallsyms)
		return symbols__new(kallsyms, size);
	if (t && t->kallsyms_size > 1)
		return symbols__new(t->kallsyms, t->kallsyms_size);
	return symbols__new(NULL, 0);
}

/* /proc/kallsyms, once; unreadable or out of memory: kernel frames stay unnamed. */
static void load_kallsyms(struct symbols *s)
{
	size_t size;
	char *text;

	s->kernel_loaded = true;
	text = read_file("/proc/kallsyms", &size);
	if (text && parse_kallsyms(s, text, size)) {
		free(s->kernel.v);
		free(s->kernel.names);
		s->kernel = (struct sym_table){ 0 };
	}
	free(text);
}

static void dso_free(struct dso *d)
{
	free(d->path);
	free(d->syms.v);
	free(d->syms.names);
	free(d->loads);
	free(d);
}

void symbols__delete(struct symbols *s)
{
	if (!s)
		return;
	free(s->kernel.v);
	free(s->kernel.names);
	for (size_t i = 0; i < s->nr_dsos; i++)
		dso_free(s->dsos[i]);
	free(s->dsos);
	for (size_t i = 0; i < s->cap_procs; i++)
		free(s->procs[i].v);
	free(s->procs);
	free(s);
}

/* Copies the STT_FUNC symbols of one symbol table section into @d. */
static int read_symtab(struct dso *d, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0, names = 0, at = 0;
	GElf_Sym sym;

	if (!data)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *name;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		names += strlen(name) + 1;
	}
	d->syms.names = malloc(names + 1);
	if (!d->syms.names)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *name;
		size_t len;

		if (!gelf_getsym(data, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !(name = elf_strptr(elf, sh->sh_link, sym.st_name)))
			continue;
		len = strlen(name) + 1;
		memcpy(d->syms.names + at, name, len);
		if (sym_push(&d->syms, sym.st_value, sym.st_size, d->syms.names + at,
			     (uint8_t)GELF_ST_BIND(sym.st_info)))
			return -ENOMEM;
		at += len;
	}
	return 0;
}

static void dso_load(struct dso *d)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *symtab = NULL;
	GElf_Shdr sh, use_sh;
	size_t nr_ph = 0;
	struct stat st;
	Elf *elf = NULL;
	int fd;

	d->loaded = true;
	/* A path may now be a FIFO or a device: never block on it, read regular files only. */
	fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nr_ph))
		goto out;
	d->loads = calloc(nr_ph ? nr_ph : 1, sizeof(*d->loads));
	for (size_t i = 0; d->loads && i < nr_ph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			d->loads[d->nr_loads++] = (typeof(*d->loads)){ ph.p_offset, ph.p_vaddr,
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
	if (scn && gelf_getshdr(scn, &use_sh) && !read_symtab(d, elf, scn, &use_sh) && d->syms.nr)
		qsort(d->syms.v, d->syms.nr, sizeof(*d->syms.v), cmp_sym);
out:
	if (elf)
		elf_end(elf);
	close(fd);
}

static struct dso *dso_get(struct symbols *s, const char *path)
{
	struct dso *d, **v;

	for (size_t i = s->nr_dsos; i-- > 0;)
		if (!strcmp(s->dsos[i]->path, path))
			return s->dsos[i];
	if (s->nr_dsos == s->cap_dsos) {
		size_t cap = s->cap_dsos ? s->cap_dsos * 2 : 64;

		v = realloc(s->dsos, cap * sizeof(*v));
		if (!v)
			return NULL;
		s->dsos = v;
		s->cap_dsos = cap;
	}
	d = calloc(1, sizeof(*d));
	if (d)
		d->path = strdup(path);
	if (!d || !d->path) {
		free(d);
		return NULL;
	}
	s->dsos[s->nr_dsos++] = d;
	return d;
}

static struct maps *proc_slot(const struct symbols *s, pid_t pid)
{
	size_t i = ((uint32_t)pid * 2654435761u) & (s->cap_procs - 1);

	while (s->procs[i].pid && s->procs[i].pid != pid)
		i = (i + 1) & (s->cap_procs - 1);
	return &s->procs[i];
}

static struct maps *proc_find(struct symbols *s, pid_t pid)
{
	struct maps *m;

	if (s->last && s->last->pid == pid)
		return s->last;
	if (!s->cap_procs)
		return NULL;
	m = proc_slot(s, pid);
	if (!m->pid)
		return NULL;
	s->last = m;
	return m;
}

static struct maps *proc_get(struct symbols *s, pid_t pid)
{
	struct maps *m;

	if ((s->nr_procs + 1) * 4 > s->cap_procs * 3) {
		struct symbols n = { .cap_procs = s->cap_procs ? s->cap_procs * 2 : 256 };

		n.procs = calloc(n.cap_procs, sizeof(*n.procs));
		if (!n.procs)
			return NULL;
		for (size_t i = 0; i < s->cap_procs; i++)
			if (s->procs[i].pid)
				*proc_slot(&n, s->procs[i].pid) = s->procs[i];
		free(s->procs);
		s->procs = n.procs;
		s->cap_procs = n.cap_procs;
		s->last = NULL;
	}
	m = proc_slot(s, pid);
	if (!m->pid) {
		m->pid = pid;
		s->nr_procs++;
	}
	return m;
}

/* Inserts @map, dropping what it overlaps (a new mapping replaces an old one). */
static int maps_insert(struct maps *m, const struct map *map)
{
	size_t w = 0, at;

	for (size_t i = 0; i < m->nr; i++)
		if (m->v[i].end <= map->start || m->v[i].start >= map->end)
			m->v[w++] = m->v[i];
	m->nr = w;
	if (m->nr == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct map *v = realloc(m->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		m->v = v;
		m->cap = cap;
	}
	for (at = m->nr; at > 0 && m->v[at - 1].start > map->start; at--)
		m->v[at] = m->v[at - 1];
	m->v[at] = *map;
	m->nr++;
	return 0;
}

/**
 * symbols__add_build_id - the build-id a recording lists for a path
 * @s: the symbolizer
 * @path: the file's path, or "[kernel.kallsyms]"
 * @build_id: its build-id
 * @build_id_size: its size; 0 or past SYMBOLS_BUILD_ID_MAX: none (ignored)
 *
 * Only a mapping whose record has no build-id takes it: the build-id of
 * a mapping is its own, as a file replaced at its path has another.
 * Returns 0 or -ENOMEM.
 */
int symbols__add_build_id(struct symbols *s, const char *path, const uint8_t *build_id,
			  size_t build_id_size)
{
	struct dso *d;

	if (!build_id_size || build_id_size > SYMBOLS_BUILD_ID_MAX)
		return 0;
	if (!strcmp(path, KERNEL_DSO)) {
		s->kernel_build_id_size = (uint8_t)build_id_size;
		memcpy(s->kernel_build_id, build_id, build_id_size);
		return 0;
	}
	d = dso_get(s, path);
	if (!d)
		return -ENOMEM;
	d->build_id_size = (uint8_t)build_id_size;
	memcpy(d->build_id, build_id, build_id_size);
	return 0;
}

int symbols__add_map(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, const uint8_t *build_id, size_t build_id_size)
{
	struct map map = { .start = start, .end = start + len, .pgoff = pgoff };
	struct maps *m;

	if (!len || start + len < start || pid <= 0)
		return 0;
	map.dso = dso_get(s, path);
	if (!map.dso)
		return -ENOMEM;
	if (!build_id || !build_id_size || build_id_size > SYMBOLS_BUILD_ID_MAX) {
		build_id = map.dso->build_id;
		build_id_size = map.dso->build_id_size;
	}
	map.build_id_size = (uint8_t)build_id_size;
	memcpy(map.build_id, build_id, build_id_size);
	m = proc_get(s, pid);
	return m ? maps_insert(m, &map) : -ENOMEM;
}

int symbols__fork(struct symbols *s, pid_t child, pid_t parent)
{
	struct maps *p = proc_find(s, parent), *c;
	struct map *v;

	if (!p || child == parent || child <= 0)
		return 0;
	v = malloc((p->nr ? p->nr : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, p->v, p->nr * sizeof(*v));
	c = proc_get(s, child); /* may move p */
	if (!c) {
		free(v);
		return -ENOMEM;
	}
	p = proc_find(s, parent);
	free(c->v);
	c->v = v;
	c->cap = p->nr ? p->nr : 1;
	c->nr = p->nr;
	return 0;
}

/**
 * symbols__take_record - follow a side-band record
 * @s: the symbolizer
 * @tasks: the names of the tasks, for the writer (NULL: none)
 * @h: the record, in time order
 * @sample_type: sample_type of the event whose id it carries
 *
 * Decodes @h once for both: a COMM or FORK names a task in @tasks; a FORK
 * of a new process copies its parent's maps (a thread shares its
 * process's); an MMAP or MMAP2 with PROT_EXEC adds a map, with the
 * build-id of its record, else of its path. Returns 0 or -ENOMEM.
 */
int symbols__take_record(struct symbols *s, struct snapshot_tasks *tasks,
			 const struct perf_event_header *h, uint64_t sample_type)
{
	struct snapshot_task_record rec;
	int r;

	if (snapshot_tasks__decode(h, sample_type, &rec) < 0)
		return 0;
	r = tasks ? snapshot_tasks__take(tasks, &rec) : 0;
	if (r)
		return r;
	if (rec.type == PERF_RECORD_FORK)
		return rec.pid != rec.ppid ? symbols__fork(s, rec.pid, rec.ppid) : 0;
	if ((rec.type != PERF_RECORD_MMAP && rec.type != PERF_RECORD_MMAP2) ||
	    !(rec.prot & PROT_EXEC))
		return 0;
	return symbols__add_map(s, rec.pid, rec.start, rec.len, rec.pgoff, rec.filename,
				rec.build_id, rec.build_id_size);
}

/* The ELF virtual address of file offset @off, through the PT_LOAD that holds it. */
static uint64_t file_to_vaddr(const struct dso *d, uint64_t off)
{
	for (size_t i = 0; i < d->nr_loads; i++)
		if (off >= d->loads[i].offset && off < d->loads[i].offset + d->loads[i].filesz)
			return off - d->loads[i].offset + d->loads[i].vaddr;
	return off;
}

void symbols__resolve(struct symbols *s, pid_t pid, const struct snapshot_frame *f,
		      struct symbol_info *ret)
{
	uint64_t ip = f->ip;
	const struct sym *sym;
	struct maps *m;

	*ret = (struct symbol_info){ 0 };
	if (f->context == SNAPSHOT_CONTEXT_KERNEL) {
		if (!s->kernel_loaded)
			load_kallsyms(s);
		sym = sym_find(&s->kernel, ip);
		ret->dso = KERNEL_DSO;
		ret->dso_start = s->kernel_start;
		ret->dso_end = s->kernel_end;
		ret->rel_pc = ip >= s->kernel_start ? ip - s->kernel_start : ip;
		ret->name = sym ? sym->name : NULL;
		ret->build_id = s->kernel_build_id;
		ret->build_id_size = s->kernel_build_id_size;
		return;
	}
	if (f->context != SNAPSHOT_CONTEXT_USER)
		return;
	m = proc_find(s, pid);
	for (size_t lo = 0, hi = m ? m->nr : 0; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map *map = &m->v[mid];
		uint64_t off;

		if (ip < map->start) {
			hi = mid;
		} else if (ip >= map->end) {
			lo = mid + 1;
		} else {
			off = ip - map->start + map->pgoff;
			ret->dso = map->dso->path;
			ret->dso_start = map->start;
			ret->dso_end = map->end;
			ret->dso_pgoff = map->pgoff;
			ret->rel_pc = off;
			ret->build_id = map->build_id;
			ret->build_id_size = map->build_id_size;
			if (!map->dso->loaded)
				dso_load(map->dso);
			sym = sym_find(&map->dso->syms, file_to_vaddr(map->dso, off));
			ret->name = sym ? sym->name : NULL;
			return;
		}
	}
}
