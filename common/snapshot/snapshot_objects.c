// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_objects: one pass over a snapshot in time order: mmap records
 * build each process's list of mappings (newest first, so a later mmap
 * over the same addresses wins), samples look their addresses up in
 * them. See snapshot_objects.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "array_grow.h"
#include "perf_record.h"
#include "snapshot_cursor.h"
#include "snapshot_objects.h"

#define NONE	     SIZE_MAX
#define PARENT_DEPTH 8 /* a process without maps looks this far up its ancestors */
#define CONTEXT_MARKER \
	((uint64_t)-4095) /* PERF_CONTEXT_MAX: callchain entries above are contexts */

struct map {
	uint64_t start, end;
	size_t obj; /* NONE: not a file (anonymous, [vdso], ...) */
	size_t next;
};

struct proc {
	pid_t pid; /* 0: a free slot */
	pid_t ppid;
	size_t maps; /* newest first; NONE: none */
};

struct finder {
	struct snapshot_objects *out;
	size_t cap_objs, cap_kips;
	struct map *maps;
	size_t nr_maps, cap_maps;
	struct proc *procs; /* open addressing, a power of two */
	size_t nr_procs, cap_procs;
	size_t last_obj; /* the object found last: mmaps come in runs of one */
};

static size_t pid_hash(pid_t pid, size_t cap)
{
	return ((uint32_t)pid * 2654435761u) & (cap - 1);
}

static int procs_grow(struct finder *f)
{
	size_t cap = f->cap_procs ? f->cap_procs * 2 : 256;
	struct proc *v = calloc(cap, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->cap_procs; i++) {
		size_t h;

		if (!f->procs[i].pid)
			continue;
		for (h = pid_hash(f->procs[i].pid, cap); v[h].pid; h = (h + 1) & (cap - 1))
			;
		v[h] = f->procs[i];
	}
	free(f->procs);
	f->procs = v;
	f->cap_procs = cap;
	return 0;
}

static struct proc *proc_find(struct finder *f, pid_t pid)
{
	if (!f->cap_procs || pid <= 0)
		return NULL;
	for (size_t h = pid_hash(pid, f->cap_procs); f->procs[h].pid;
	     h = (h + 1) & (f->cap_procs - 1))
		if (f->procs[h].pid == pid)
			return &f->procs[h];
	return NULL;
}

static struct proc *proc_get(struct finder *f, pid_t pid)
{
	struct proc *p = proc_find(f, pid);
	size_t h;

	if (p || pid <= 0)
		return p;
	if ((f->nr_procs + 1) * 2 > f->cap_procs && procs_grow(f) < 0)
		return NULL;
	for (h = pid_hash(pid, f->cap_procs); f->procs[h].pid; h = (h + 1) & (f->cap_procs - 1))
		;
	f->procs[h] = (struct proc){ .pid = pid, .maps = NONE };
	f->nr_procs++;
	return &f->procs[h];
}

static bool same_object(const struct snapshot_object *o, const struct snapshot_object *k)
{
	if (k->id_size)
		return o->id_size == k->id_size && !memcmp(o->id, k->id, k->id_size);
	if (k->has_ino)
		return o->has_ino && o->ino == k->ino && o->maj == k->maj && o->min == k->min;
	return !o->id_size && !o->has_ino && !strcmp(o->path, k->path);
}

/* The index of the object @k describes, added if new; NONE on ENOMEM. */
static size_t object_get(struct finder *f, const struct snapshot_object *k)
{
	struct snapshot_objects *out = f->out;

	if (f->last_obj < out->nr && same_object(&out->v[f->last_obj], k))
		return f->last_obj;
	for (size_t i = 0; i < out->nr; i++)
		if (same_object(&out->v[i], k))
			return f->last_obj = i;
	if (array__grow((void **)&out->v, &f->cap_objs, out->nr, sizeof(*out->v), 32) < 0)
		return NONE;
	out->v[out->nr] = *k;
	out->v[out->nr].path = strdup(k->path);
	if (!out->v[out->nr].path)
		return NONE;
	return f->last_obj = out->nr++;
}

/* Names of files, as perf reads them from a build-id cache. */
static bool is_file_name(const char *name)
{
	return name[0] == '/' && strncmp(name, "//anon", 6) && strncmp(name, "/memfd:", 7) &&
	       strncmp(name, "/dev/", 5);
}

static int add_map(struct finder *f, pid_t pid, uint64_t start, uint64_t len,
		   const struct snapshot_object *k)
{
	struct proc *p = proc_get(f, pid);
	size_t obj = NONE;

	if (pid <= 0)
		return 0;
	if (!p)
		return -ENOMEM;
	if (is_file_name(k->path)) {
		obj = object_get(f, k);
		if (obj == NONE)
			return -ENOMEM;
	}
	if (array__grow((void **)&f->maps, &f->cap_maps, f->nr_maps, sizeof(*f->maps), 256) < 0)
		return -ENOMEM;
	/* proc_get() may have moved the table: find it again. */
	p = proc_find(f, pid);
	f->maps[f->nr_maps] = (struct map){
		.start = start, .end = start + len, .obj = obj, .next = p->maps
	};
	p->maps = f->nr_maps++;
	return 0;
}

/* A record's NUL-terminated name at @off of its body, or NULL. */
static const char *record_name(const struct perf_event_header *h, size_t off)
{
	size_t body = h->size - sizeof(*h);
	const char *name = (const char *)(h + 1) + off;

	return body > off && memchr(name, '\0', body - off) ? name : NULL;
}

static int take_mmap(struct finder *f, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct snapshot_object k = { 0 };
	uint32_t ids[2], prot;
	uint64_t addr[2];

	if (h->type == PERF_RECORD_MMAP) {
		if (h->misc & PERF_RECORD_MISC_MMAP_DATA || !(k.path = (char *)record_name(h, 32)))
			return 0;
	} else {
		if (!(k.path = (char *)record_name(h, 64)))
			return 0;
		memcpy(&prot, p + 56, 4);
		if (!(prot & 4)) /* PROT_EXEC */
			return 0;
		if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			k.id_size = p[32] <= SNAPSHOT_OBJECT_ID_MAX ? p[32] : 0;
			memcpy(k.id, p + 36, k.id_size);
		} else {
			k.has_ino = true;
			memcpy(&k.maj, p + 32, 4);
			memcpy(&k.min, p + 36, 4);
			memcpy(&k.ino, p + 40, 8);
		}
	}
	memcpy(ids, p, 8);
	memcpy(addr, p + 8, 16);
	return add_map(f, (pid_t)ids[0], addr[0], addr[1], &k);
}

static void take_fork(struct finder *f, const struct perf_event_header *h)
{
	int32_t ids[4]; /* pid, ppid, tid, ptid */
	struct proc *p;

	if (h->size < sizeof(*h) + 16)
		return;
	memcpy(ids, h + 1, 16);
	/* A new process (a thread shares its process's maps). */
	if (ids[0] == ids[1] || ids[0] != ids[2] || ids[1] <= 0)
		return;
	p = proc_get(f, ids[0]);
	if (p)
		p->ppid = ids[1];
}

static int kernel_hit(struct finder *f, uint64_t ip)
{
	struct snapshot_objects *out = f->out;

	out->nr_kernel_hits++;
	if (array__grow((void **)&out->kernel_ips, &f->cap_kips, out->nr_kernel_ips,
			sizeof(*out->kernel_ips), 1024) < 0)
		return -ENOMEM;
	out->kernel_ips[out->nr_kernel_ips++] = ip;
	return 0;
}

static void user_hit(struct finder *f, pid_t pid, uint64_t ip)
{
	struct proc *p = proc_find(f, pid);

	for (int depth = 0; p && depth < PARENT_DEPTH; depth++) {
		for (size_t m = p->maps; m != NONE; m = f->maps[m].next) {
			if (ip < f->maps[m].start || ip >= f->maps[m].end)
				continue;
			if (f->maps[m].obj == NONE)
				break;
			f->out->v[f->maps[m].obj].nr_hits++;
			return;
		}
		if (p->maps != NONE)
			break;
		p = proc_find(f, p->ppid);
	}
	f->out->nr_user_unmapped++;
}

static int hit(struct finder *f, pid_t pid, uint64_t ip, bool kernel)
{
	if (kernel)
		return kernel_hit(f, ip);
	user_hit(f, pid, ip);
	return 0;
}

static int take_sample(struct finder *f, const struct perf_event_header *h,
		       const struct snapshot_event *ev)
{
	unsigned int mode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	bool kernel = mode == PERF_RECORD_MISC_KERNEL;
	struct perf_record_info info;
	int r = 0;

	if (!ev || perf_record__parse_sample(h, ev->attr.sample_type, &info) < 0)
		return 0;
	if (mode != PERF_RECORD_MISC_KERNEL && mode != PERF_RECORD_MISC_USER)
		return 0;
	if (!info.callchain_nr) {
		if (ev->attr.sample_type & PERF_SAMPLE_IP)
			r = hit(f, (pid_t)info.pid, info.ip, kernel);
		return r;
	}
	for (uint64_t i = 0; i < info.callchain_nr && r == 0; i++) {
		uint64_t ip = info.callchain[i];

		if (ip >= CONTEXT_MARKER) {
			if (ip == PERF_CONTEXT_KERNEL || ip == PERF_CONTEXT_USER)
				kernel = ip == PERF_CONTEXT_KERNEL;
			else /* hypervisor, guest: not this machine's objects */
				break;
			continue;
		}
		r = hit(f, (pid_t)info.pid, ip, kernel);
	}
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void kernel_ips_unique(struct snapshot_objects *out)
{
	size_t n = 0;

	if (!out->nr_kernel_ips)
		return;
	qsort(out->kernel_ips, out->nr_kernel_ips, sizeof(*out->kernel_ips), cmp_u64);
	for (size_t i = 0; i < out->nr_kernel_ips; i++)
		if (!n || out->kernel_ips[i] != out->kernel_ips[n - 1])
			out->kernel_ips[n++] = out->kernel_ips[i];
	out->nr_kernel_ips = n;
}

/* The objects no address fell in are no hit: dropped. */
static void drop_unhit(struct snapshot_objects *out)
{
	size_t n = 0;

	for (size_t i = 0; i < out->nr; i++) {
		if (out->v[i].nr_hits)
			out->v[n++] = out->v[i];
		else
			free(out->v[i].path);
	}
	out->nr = n;
}

int snapshot_objects__find(const struct snapshot *s, struct snapshot_objects *ret)
{
	struct finder f = { .out = ret, .last_obj = NONE };
	struct snapshot_cursor *cur;
	const struct perf_event_header *h;
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	cur = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	if (!cur)
		return -ENOMEM;
	while (r == 0 && (h = snapshot_cursor__next(cur, NULL))) {
		switch (h->type) {
		case PERF_RECORD_MMAP:
		case PERF_RECORD_MMAP2:
			r = take_mmap(&f, h);
			break;
		case PERF_RECORD_FORK:
			take_fork(&f, h);
			break;
		case PERF_RECORD_SAMPLE:
			r = take_sample(&f, h, snapshot_cursor__event(cur));
			break;
		default: /* names nothing an object is found by */
			break;
		}
	}
	snapshot_cursor__delete(cur);
	free(f.maps);
	free(f.procs);
	if (r < 0) {
		snapshot_objects__fini(ret);
		return r;
	}
	kernel_ips_unique(ret);
	drop_unhit(ret);
	return 0;
}

void snapshot_objects__fini(struct snapshot_objects *o)
{
	for (size_t i = 0; i < o->nr; i++)
		free(o->v[i].path);
	free(o->v);
	free(o->kernel_ips);
	memset(o, 0, sizeof(*o));
}
