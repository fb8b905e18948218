// SPDX-License-Identifier: GPL-2.0-only
/* symbols: see symbols.h. */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "file_read.h"
#include "snapshot.h"
#include "symbols.h"
#include "symbols_object.h"
#include "tracing_meta.h"

/* An object read into memory (a member of a pack), and a kallsyms text: at most this. */
#define OBJECT_MAX_BYTES (1ull << 30)

/*
 * A mapped object, its symbols read on first use: one per path, build-id
 * and inode, as a file replaced at its path is another object.
 */
struct dso {
	struct symbols_key key; /* its path and build-id are these: */
	char *path;
	uint8_t build_id[SYMBOLS_BUILD_ID_MAX];
	bool loaded;
	struct symbols_object syms;
};

/* The recording's build-id of a path (symbols__add_build_id), for maps without their own. */
struct path_id {
	char *path;
	uint8_t size;
	uint8_t id[SYMBOLS_BUILD_ID_MAX];
};

struct map {
	uint64_t start, end, pgoff;
	struct dso *dso;
};

struct maps {
	pid_t pid; /* 0: free slot */
	struct map *v;
	size_t nr, cap;
};

struct symbols {
	struct symbols_object kernel;
	bool kernel_loaded;
	uint8_t kernel_build_id_size;
	uint8_t kernel_build_id[SYMBOLS_BUILD_ID_MAX];
	struct dso **dsos;
	size_t nr_dsos, cap_dsos;
	struct path_id *path_ids;
	size_t nr_path_ids;
	struct symbols_source source;
	struct maps *procs; /* open addressing by pid */
	size_t cap_procs, nr_procs;
	struct maps *last; /* the process of the previous lookup */
};

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

struct symbols *symbols__new(const char *kallsyms, size_t size)
{
	struct symbols *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	elf_version(EV_CURRENT);
	if (kallsyms && symbols_object__parse_kallsyms(&s->kernel, kallsyms, size)) {
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

void symbols__set_source(struct symbols *s, const struct symbols_source *src)
{
	s->source = src ? *src : (struct symbols_source){ 0 };
}

/* @size bytes of @fd from @offset, NUL-terminated; NULL on error or past OBJECT_MAX_BYTES. */
static char *read_part(int fd, uint64_t offset, uint64_t size)
{
	char *buf = size <= OBJECT_MAX_BYTES ? malloc(size + 1) : NULL;

	if (buf && file_read__at(fd, offset, buf, size) < 0) {
		free(buf);
		return NULL;
	}
	if (buf)
		buf[size] = '\0';
	return buf;
}

/* The source's kallsyms of the recording's kernel, read whole; NULL if it has none. */
static char *source_kallsyms(struct symbols *s, uint64_t *ret_size)
{
	const struct symbols_key key = { .path = SYMBOLS_KERNEL_DSO,
					 .build_id = s->kernel_build_id,
					 .build_id_size = s->kernel_build_id_size };
	uint64_t offset, size;
	char *buf;
	int fd;

	if (!s->source.open || !key.build_id_size ||
	    s->source.open(s->source.ctx, &key, &fd, &offset, &size) < 0)
		return NULL;
	buf = read_part(fd, offset, size);
	close(fd);
	*ret_size = size;
	return buf;
}

/* Whether the running kernel is the recording's: its kallsyms would name another's wrongly. */
static bool running_kernel(const struct symbols *s)
{
	struct elf_buildid id;

	if (!s->kernel_build_id_size || elf_buildid__read_notes_path("/sys/kernel/notes", &id) < 0)
		return true;
	return id.size == s->kernel_build_id_size && !memcmp(id.data, s->kernel_build_id, id.size);
}

/*
 * The source's kallsyms of the recording's kernel, else /proc/kallsyms if
 * this is that kernel; once. Unreadable or out of memory: kernel frames
 * stay unnamed.
 */
static void load_kallsyms(struct symbols *s)
{
	uint64_t size64 = 0;
	size_t size = 0;
	char *text;

	s->kernel_loaded = true;
	text = source_kallsyms(s, &size64);
	size = (size_t)size64;
	if (!text && running_kernel(s))
		text = read_file("/proc/kallsyms", &size);
	if (text && symbols_object__parse_kallsyms(&s->kernel, text, size))
		symbols_object__free(&s->kernel);
	free(text);
}

static void dso_free(struct dso *d)
{
	free(d->path);
	symbols_object__free(&d->syms);
	free(d);
}

void symbols__delete(struct symbols *s)
{
	if (!s)
		return;
	symbols_object__free(&s->kernel);
	for (size_t i = 0; i < s->nr_dsos; i++)
		dso_free(s->dsos[i]);
	free(s->dsos);
	for (size_t i = 0; i < s->nr_path_ids; i++)
		free(s->path_ids[i].path);
	free(s->path_ids);
	for (size_t i = 0; i < s->cap_procs; i++)
		free(s->procs[i].v);
	free(s->procs);
	free(s);
}

/*
 * The file at @d's path if it is @d's object: a regular file (a path may
 * now be a FIFO or a device: never block on it) with @d's build-id and
 * inode where the recording has them. Not the device: stat()'s differs
 * from the one the kernel records on btrfs subvolumes and overlayfs.
 * Returns the descriptor or -1.
 */
static int open_path(const struct dso *d)
{
	int fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct elf_buildid id;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (d->key.has_ino && st.st_ino != d->key.ino) ||
	    (d->key.build_id_size &&
	     (elf_buildid__read_fd(fd, &id) < 0 || id.size != d->key.build_id_size ||
	      memcmp(id.data, d->build_id, id.size)))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* From the source by build-id, else from the path; what is not found names nothing. */
static void dso_load(struct symbols *s, struct dso *d)
{
	uint64_t offset = 0, size = 0;
	char *image = NULL;
	Elf *elf = NULL;
	int fd = -1;

	d->loaded = true;
	if (s->source.open && (d->key.build_id_size || d->key.has_ino) &&
	    s->source.open(s->source.ctx, &d->key, &fd, &offset, &size) < 0)
		fd = -1;
	/* A member of an archive is read whole; a file of its own, as libelf reads it. */
	if (fd >= 0 && offset) {
		image = read_part(fd, offset, size);
		close(fd);
		fd = -1;
		if (!image)
			return;
		elf = elf_memory(image, size);
	} else {
		if (fd < 0)
			fd = open_path(d);
		if (fd < 0)
			return;
		elf = elf_begin(fd, ELF_C_READ, NULL);
	}
	if (elf) {
		symbols_object__read_elf(&d->syms, elf);
		elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	free(image);
}

static bool same_key(const struct symbols_key *a, const struct symbols_key *b)
{
	return !strcmp(a->path, b->path) && a->build_id_size == b->build_id_size &&
	       (!a->build_id_size || !memcmp(a->build_id, b->build_id, a->build_id_size)) &&
	       a->has_ino == b->has_ino &&
	       (!a->has_ino || (a->maj == b->maj && a->min == b->min && a->ino == b->ino));
}

static struct dso *dso_get(struct symbols *s, const struct symbols_key *key)
{
	struct dso *d, **v;

	for (size_t i = s->nr_dsos; i-- > 0;)
		if (same_key(&s->dsos[i]->key, key))
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
		d->path = strdup(key->path);
	if (!d || !d->path) {
		free(d);
		return NULL;
	}
	d->key = *key;
	d->key.path = d->path;
	d->key.build_id = d->build_id;
	if (key->build_id_size)
		memcpy(d->build_id, key->build_id, key->build_id_size);
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

static struct path_id *path_id_find(struct symbols *s, const char *path)
{
	for (size_t i = 0; i < s->nr_path_ids; i++)
		if (!strcmp(s->path_ids[i].path, path))
			return &s->path_ids[i];
	return NULL;
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
	struct path_id *v, *p;

	if (!build_id_size || build_id_size > SYMBOLS_BUILD_ID_MAX)
		return 0;
	if (!strcmp(path, SYMBOLS_KERNEL_DSO)) {
		s->kernel_build_id_size = (uint8_t)build_id_size;
		memcpy(s->kernel_build_id, build_id, build_id_size);
		return 0;
	}
	p = path_id_find(s, path);
	if (!p) {
		v = realloc(s->path_ids, (s->nr_path_ids + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->path_ids = v;
		p = &v[s->nr_path_ids];
		p->path = strdup(path);
		if (!p->path)
			return -ENOMEM;
		s->nr_path_ids++;
	}
	p->size = (uint8_t)build_id_size;
	memcpy(p->id, build_id, build_id_size);
	return 0;
}

/* A map of the object @key names; a key without a build-id takes its path's. */
static int add_map(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		   struct symbols_key *key)
{
	struct map map = { .start = start, .end = start + len, .pgoff = pgoff };
	struct maps *m;

	if (!len || start + len < start || pid <= 0)
		return 0;
	if (!key->build_id || !key->build_id_size || key->build_id_size > SYMBOLS_BUILD_ID_MAX) {
		const struct path_id *p = path_id_find(s, key->path);

		key->build_id = p ? p->id : NULL;
		key->build_id_size = p ? p->size : 0;
	}
	map.dso = dso_get(s, key);
	if (!map.dso)
		return -ENOMEM;
	m = proc_get(s, pid);
	return m ? maps_insert(m, &map) : -ENOMEM;
}

int symbols__add_map(struct symbols *s, pid_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		     const char *path, const uint8_t *build_id, size_t build_id_size)
{
	struct symbols_key key = { .path = path,
				   .build_id = build_id,
				   .build_id_size = build_id_size };

	return add_map(s, pid, start, len, pgoff, &key);
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
	struct symbols_key key;
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
	key = (struct symbols_key){ .path = rec.filename,
				    .build_id = rec.build_id,
				    .build_id_size = rec.build_id_size,
				    .has_ino = rec.has_ino,
				    .maj = rec.maj,
				    .min = rec.min,
				    .ino = rec.ino };
	return add_map(s, rec.pid, rec.start, rec.len, rec.pgoff, &key);
}

void symbols__resolve(struct symbols *s, pid_t pid, const struct snapshot_frame *f,
		      struct symbol_info *ret)
{
	uint64_t ip = f->ip;
	struct maps *m;

	*ret = (struct symbol_info){ 0 };
	if (f->context == SNAPSHOT_CONTEXT_KERNEL) {
		if (!s->kernel_loaded)
			load_kallsyms(s);
		ret->dso = SYMBOLS_KERNEL_DSO;
		ret->dso_start = s->kernel.start;
		ret->dso_end = s->kernel.end;
		ret->rel_pc = ip >= s->kernel.start ? ip - s->kernel.start : ip;
		ret->name = symbols_object__name(&s->kernel, ip);
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
			ret->build_id = map->dso->build_id;
			ret->build_id_size = (uint8_t)map->dso->key.build_id_size;
			if (!map->dso->loaded)
				dso_load(s, map->dso);
			ret->name = symbols_object__name(
				&map->dso->syms, symbols_object__vaddr(&map->dso->syms, off));
			return;
		}
	}
}
