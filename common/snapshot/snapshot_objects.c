// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_objects: two walks of the records as the rings hold them (no
 * time merge: perf.data's writer runs this, and its time counts): the
 * mappings and forks first, sorted by process, start and time, then
 * every sample's frames (snapshot_callchain), each looked up in the
 * mappings of its process, else of the one it was forked from. An object
 * is made when a mapping of it is first hit. See snapshot_objects.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "array_grow.h"
#include "perf_record.h"
#include "snapshot_callchain.h"
#include "snapshot_index.h"
#include "snapshot_objects.h"
#include "snapshot_tasks.h"

#define NONE	       SIZE_MAX
#define MAX_FORK_DEPTH 8 /* a process looks this far up its ancestors */

struct map {
	uint64_t start, end, time;
	uint64_t max_end; /* of the maps of its process up to this one, in sort order */
	int32_t pid;
	bool file; /* a file's name, not //anon, [vdso], /memfd:... */
	bool has_ino;
	uint8_t id_size;
	uint8_t id[SNAPSHOT_OBJECT_ID_MAX];
	uint32_t maj, min;
	uint64_t ino;
	size_t name; /* in names */
	size_t obj;  /* NONE until hit */
};

struct fork {
	int32_t child, parent;
};

struct snapshot_objects {
	struct map *maps;
	size_t nr_maps, cap_maps;
	struct fork *forks;
	size_t nr_forks, cap_forks;
	char *names; /* the maps' paths, back to back */
	size_t names_len, names_cap;
	struct snapshot_object *v; /* their paths point into names, complete by then */
	size_t nr, cap;
	uint64_t *kips; /* open addressing (0: free), sorted once the walks end */
	size_t nr_kips, cap_kips;
	uint64_t last_kip; /* a tracepoint's samples come in runs of one address */
	struct snapshot_objects_stats stats;
	const struct snapshot *s;
	bool found; /* the first walk is done: no mapping comes any more, samples do */
};

struct snapshot_objects *snapshot_objects__new(void)
{
	return calloc(1, sizeof(struct snapshot_objects));
}

void snapshot_objects__delete(struct snapshot_objects *o)
{
	if (!o)
		return;
	free(o->maps);
	free(o->forks);
	free(o->names);
	free(o->v);
	free(o->kips);
	free(o);
}

/* Names of files, as perf reads them from a build-id cache. */
static bool is_file_name(const char *name)
{
	return name[0] == '/' && strncmp(name, "//anon", 6) && strncmp(name, "/memfd:", 7) &&
	       strncmp(name, "/dev/", 5);
}

static int add_name(struct snapshot_objects *o, const char *name, size_t *ret)
{
	size_t len = strlen(name) + 1;

	while (o->names_len + len > o->names_cap) {
		size_t cap = o->names_cap ? o->names_cap * 2 : 4096;
		char *v = realloc(o->names, cap);

		if (!v)
			return -ENOMEM;
		o->names = v;
		o->names_cap = cap;
	}
	memcpy(o->names + o->names_len, name, len);
	*ret = o->names_len;
	o->names_len += len;
	return 0;
}

static int add_map(struct snapshot_objects *o, const struct snapshot_task_record *r)
{
	struct map *m;

	if ((r->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL || r->pid <= 0 ||
	    !(r->prot & PROT_EXEC) || !r->len || r->start + r->len < r->start)
		return 0;
	if (array__grow((void **)&o->maps, &o->cap_maps, o->nr_maps, sizeof(*o->maps), 256) < 0)
		return -ENOMEM;
	m = &o->maps[o->nr_maps];
	*m = (struct map){ .start = r->start,
			   .end = r->start + r->len,
			   .time = r->time,
			   .pid = r->pid,
			   .file = is_file_name(r->filename),
			   .has_ino = r->has_ino,
			   .id_size = r->build_id_size,
			   .maj = r->maj,
			   .min = r->min,
			   .ino = r->ino,
			   .obj = NONE };
	if (r->build_id_size)
		memcpy(m->id, r->build_id, r->build_id_size);
	if (add_name(o, r->filename, &m->name) < 0)
		return -ENOMEM;
	o->nr_maps++;
	return 0;
}

/**
 * snapshot_objects__add_record - a process record from outside the snapshot
 * @o: the finder
 * @rec: the record
 * @sample_type: sample_type of the event whose id it carries
 *
 * An executable MMAP or MMAP2 of a process is a mapping; a FORK of a new
 * process names its parent (a thread has its process's mappings). Returns
 * 0, -ENOMEM, or -EBUSY after snapshot_objects__find().
 */
int snapshot_objects__add_record(struct snapshot_objects *o, const struct perf_event_header *rec,
				 uint64_t sample_type)
{
	struct snapshot_task_record r;

	if (o->found)
		return -EBUSY;
	if (snapshot_tasks__decode(rec, sample_type, &r) < 0)
		return 0;
	if (r.type == PERF_RECORD_MMAP || r.type == PERF_RECORD_MMAP2)
		return add_map(o, &r);
	if (r.type != PERF_RECORD_FORK || r.pid <= 0 || r.ppid <= 0 || r.pid == r.ppid)
		return 0;
	if (array__grow((void **)&o->forks, &o->cap_forks, o->nr_forks, sizeof(*o->forks), 64) < 0)
		return -ENOMEM;
	o->forks[o->nr_forks++] = (struct fork){ r.pid, r.ppid };
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct map *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct fork *x = a, *y = b;

	return x->child < y->child ? -1 : x->child > y->child;
}

static void sort_mappings(struct snapshot_objects *o)
{
	if (o->nr_maps) /* qsort may not take NULL, even for none */
		qsort(o->maps, o->nr_maps, sizeof(*o->maps), cmp_map);
	if (o->nr_forks)
		qsort(o->forks, o->nr_forks, sizeof(*o->forks), cmp_fork);
	/* A lookup walks back from the last start at or below the address while this passes it. */
	for (size_t i = 0; i < o->nr_maps; i++) {
		struct map *m = &o->maps[i];

		m->max_end = m->end;
		if (i && m[-1].pid == m->pid && m[-1].max_end > m->end)
			m->max_end = m[-1].max_end;
	}
}

/* The mapping of @pid over @ip at @time: the latest made by then, else the first. */
static struct map *find_map(struct snapshot_objects *o, int32_t pid, uint64_t ip, uint64_t time)
{
	size_t lo = 0, hi = o->nr_maps;
	struct map *best = NULL;

	/* The first map past (pid, ip): those before it start at or below ip. */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct map *m = &o->maps[mid];

		if (m->pid < pid || (m->pid == pid && m->start <= ip))
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		struct map *m = &o->maps[lo];

		if (m->pid != pid || m->max_end <= ip)
			break;
		if (ip >= m->end)
			continue;
		if (!best || (m->time <= time ? best->time > time || m->time > best->time :
						best->time > time && m->time < best->time))
			best = m;
	}
	return best;
}

static int32_t parent_of(const struct snapshot_objects *o, int32_t pid)
{
	struct fork key = { .child = pid };
	const struct fork *f = o->nr_forks ?
				       bsearch(&key, o->forks, o->nr_forks, sizeof(key), cmp_fork) :
				       NULL;

	return f ? f->parent : -1;
}

static bool same_object(const struct snapshot_objects *o, size_t obj, const struct map *m)
{
	const struct snapshot_object *v = &o->v[obj];

	if (v->id_size != m->id_size || memcmp(v->id, m->id, m->id_size) ||
	    v->has_ino != m->has_ino ||
	    (m->has_ino && (v->ino != m->ino || v->maj != m->maj || v->min != m->min)))
		return false;
	return !strcmp(v->path, o->names + m->name);
}

/* The object of @m, made at its first hit; NONE on ENOMEM. */
static size_t object_of(struct snapshot_objects *o, struct map *m)
{
	struct snapshot_object *v;

	if (m->obj != NONE)
		return m->obj;
	for (size_t i = 0; i < o->nr; i++)
		if (same_object(o, i, m))
			return m->obj = i;
	if (array__grow((void **)&o->v, &o->cap, o->nr, sizeof(*o->v), 32) < 0)
		return NONE;
	v = &o->v[o->nr];
	*v = (struct snapshot_object){ .path = o->names + m->name,
				       .id_size = m->id_size,
				       .has_ino = m->has_ino,
				       .maj = m->maj,
				       .min = m->min,
				       .ino = m->ino,
				       .pid = m->pid,
				       .start = m->start,
				       .end = m->end };
	memcpy(v->id, m->id, m->id_size);
	return m->obj = o->nr++;
}

static int user_hit(struct snapshot_objects *o, int32_t pid, uint64_t ip, uint64_t time)
{
	struct map *m = NULL;
	size_t obj;

	for (int depth = 0; !m && pid > 0 && depth < MAX_FORK_DEPTH; depth++) {
		m = find_map(o, pid, ip, time);
		if (!m)
			pid = parent_of(o, pid);
	}
	if (!m || !m->file) {
		o->stats.nr_user_unmapped++;
		return 0;
	}
	obj = object_of(o, m);
	if (obj == NONE)
		return -ENOMEM;
	o->v[obj].nr_hits++;
	return 0;
}

static size_t kip_slot(const struct snapshot_objects *o, uint64_t ip)
{
	size_t h = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 32) & (o->cap_kips - 1);

	while (o->kips[h] && o->kips[h] != ip)
		h = (h + 1) & (o->cap_kips - 1);
	return h;
}

/* Twice the room (1024 slots at first), keeping the table at most half full. */
static int kips_grow(struct snapshot_objects *o)
{
	struct snapshot_objects n = { .cap_kips = o->cap_kips ? o->cap_kips * 2 : 1024 };

	n.kips = calloc(n.cap_kips, sizeof(*n.kips));
	if (!n.kips)
		return -ENOMEM;
	for (size_t i = 0; i < o->cap_kips; i++)
		if (o->kips[i])
			n.kips[kip_slot(&n, o->kips[i])] = o->kips[i];
	free(o->kips);
	o->kips = n.kips;
	o->cap_kips = n.cap_kips;
	return 0;
}

/* A kernel address, each kept once: most repeat. */
static int kernel_hit(struct snapshot_objects *o, uint64_t ip)
{
	size_t h;

	o->stats.nr_kernel_hits++;
	if (!ip || ip == o->last_kip) /* 0: no symbol's, and it marks a free slot */
		return 0;
	o->last_kip = ip;
	if ((o->nr_kips + 1) * 2 > o->cap_kips && kips_grow(o) < 0)
		return -ENOMEM;
	h = kip_slot(o, ip);
	if (!o->kips[h]) {
		o->kips[h] = ip;
		o->nr_kips++;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The table as a sorted array. */
static void kips_sort(struct snapshot_objects *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->cap_kips; i++)
		if (o->kips[i])
			o->kips[n++] = o->kips[i];
	o->nr_kips = n;
	if (n)
		qsort(o->kips, n, sizeof(*o->kips), cmp_u64);
}

/*
 * A kernel sample without a callchain can hit only the kernel, at its ip
 * (right after the identifier): most of a tracepoint snapshot, read
 * without parsing, which keeps the walk off perf.data's write time.
 */
static int kernel_sample(struct snapshot_objects *o, const struct perf_event_header *h,
			 uint64_t sample_type)
{
	size_t at = sizeof(*h) + (sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0);
	uint64_t ip;

	if (!(sample_type & PERF_SAMPLE_IP) || h->size < at + sizeof(ip)) {
		o->stats.nr_kernel_hits++;
		o->stats.nr_kernel_no_ip++;
		return 0;
	}
	memcpy(&ip, (const uint8_t *)h + at, sizeof(ip));
	return kernel_hit(o, ip);
}

static int take_sample(struct snapshot_objects *o, const struct perf_event_header *h,
		       uint64_t sample_type)
{
	struct perf_record_info info;
	struct snapshot_callchain c;
	struct snapshot_frame f;
	int r = 0;

	if (!(sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL)
		return kernel_sample(o, h, sample_type);
	/* One the parser cannot read names nothing, as in perf. */
	if (perf_record__parse_sample(h, sample_type, &info) < 0)
		return 0;
	snapshot_callchain__begin(&c, &info, sample_type, h->misc);
	while (r == 0 && snapshot_callchain__next(&c, &f)) {
		/* Guest, hypervisor, unknown: not this machine's objects. */
		if (f.context == SNAPSHOT_CONTEXT_KERNEL)
			r = kernel_hit(o, f.ip);
		else if (f.context == SNAPSHOT_CONTEXT_USER)
			r = user_hit(o, (int32_t)info.pid, f.ip, info.time);
	}
	return r;
}

/* A run's mappings and forks (the first walk), or its samples (the second). */
static int take_run(void *ctx, const void *data, size_t len, int cpu)
{
	struct snapshot_objects *o = ctx;
	const struct perf_event_header *h;
	size_t pos = 0;

	(void)cpu;
	while ((h = perf_record__next(data, len, &pos))) {
		bool sample = h->type == PERF_RECORD_SAMPLE;
		const struct snapshot_event *ev;
		uint64_t id;
		int r;

		if (o->found ? !sample :
			       h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2 &&
				       h->type != PERF_RECORD_FORK)
			continue;
		if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(o->s, id)))
			continue;
		r = sample ? take_sample(o, h, ev->attr.sample_type) :
			     snapshot_objects__add_record(o, h, ev->attr.sample_type);
		if (r < 0)
			return r;
	}
	return 0;
}

/**
 * snapshot_objects__find - find the objects a snapshot's samples hit
 * @o: the finder, with the records added from outside the snapshot
 * @s: a sealed snapshot
 *
 * Returns 0, -EBUSY if @o has found already, -ENOMEM, or the snapshot's
 * -errno.
 */
int snapshot_objects__find(struct snapshot_objects *o, const struct snapshot *s)
{
	int r;

	if (o->found)
		return -EBUSY;
	o->s = s;
	r = snapshot_index__for_each_run(s, take_run, o);
	/* No name moves from here on: the objects' paths point at them. */
	o->found = true;
	if (r < 0)
		return r;
	sort_mappings(o);
	r = snapshot_index__for_each_run(s, take_run, o);
	if (r < 0)
		return r;
	kips_sort(o);
	return 0;
}

size_t snapshot_objects__nr(const struct snapshot_objects *o)
{
	return o->nr;
}

const struct snapshot_object *snapshot_objects__object(const struct snapshot_objects *o, size_t idx)
{
	return idx < o->nr ? &o->v[idx] : NULL;
}

const uint64_t *snapshot_objects__kernel_ips(const struct snapshot_objects *o, size_t *ret_nr)
{
	*ret_nr = o->nr_kips;
	return o->kips;
}

const struct snapshot_objects_stats *snapshot_objects__stats(const struct snapshot_objects *o)
{
	return &o->stats;
}
