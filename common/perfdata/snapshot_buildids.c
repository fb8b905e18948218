// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_buildids: which objects a snapshot's samples hit. Two walks of
 * the records as the rings hold them (no time merge): the mappings and
 * forks first, sorted by process, then every sample's ip and callchain,
 * each looked up in the mappings of its process (the latest made by the
 * sample's time), else of the process it was forked from.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "array_grow.h"
#include "perf_record.h"
#include "snapshot_buildids.h"
#include "snapshot_index.h"

#define MAX_FORK_DEPTH 8
#define KERNEL_NAME    "[kernel.kallsyms]"
#define DELETED	       " (deleted)"

struct bmap {
	int32_t pid;
	uint32_t maj, min; /* of MMAP2's inode form; ino 0: unknown */
	uint64_t ino;
	uint64_t start, end, time;
	struct elf_buildid id;
	bool hit;
	char *name;
};

struct bfork {
	int32_t child, parent;
};

struct kmod {
	char name[64];
	uint64_t start, end;
	bool hit;
};

struct snapshot_buildids {
	struct bmap *maps;
	size_t nr_maps, cap_maps;
	struct bfork *forks;
	size_t nr_forks, cap_forks;
	struct kmod *mods;
	size_t nr_mods, cap_mods;
	bool kernel_hit, scanned;
	const struct bmap *last; /* the last hit: samples come in runs of one task */
	struct snapshot_buildid *out;
	size_t nr_out, cap_out;
	char **names; /* owned names of kernel entries */
	size_t nr_names, cap_names;
};

struct snapshot_buildids *snapshot_buildids__new(void)
{
	return calloc(1, sizeof(struct snapshot_buildids));
}

void snapshot_buildids__delete(struct snapshot_buildids *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nr_maps; i++)
		free(b->maps[i].name);
	for (size_t i = 0; i < b->nr_names; i++)
		free(b->names[i]);
	free(b->maps);
	free(b->forks);
	free(b->mods);
	free(b->out);
	free(b->names);
	free(b);
}

/* MMAP2 and MMAP up to the name, as the kernel lays them out. */
struct mmap_head {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
};

static int add_mmap(struct snapshot_buildids *b, const struct perf_event_header *rec,
		    uint64_t sample_type)
{
	size_t body = rec->size - perf_record__id_trailer_size(sample_type);
	size_t off = sizeof(struct mmap_head) + (rec->type == PERF_RECORD_MMAP2 ? 32 : 0);
	const uint8_t *p = (const uint8_t *)rec;
	struct mmap_head h;
	struct bmap *m;
	uint32_t prot;
	uint64_t time = 0;
	const char *name, *nul;

	if (rec->size < perf_record__id_trailer_size(sample_type) || body <= off)
		return 0;
	memcpy(&h, rec, sizeof(h));
	if ((rec->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL ||
	    (int32_t)h.pid <= 0)
		return 0;
	if (rec->type == PERF_RECORD_MMAP2) {
		memcpy(&prot, p + sizeof(h) + 24, sizeof(prot));
		if (!(prot & 4 /* PROT_EXEC */))
			return 0;
	} else if (rec->misc & PERF_RECORD_MISC_MMAP_DATA) {
		return 0;
	}
	name = (const char *)p + off;
	nul = memchr(name, '\0', body - off);
	if (!nul || name[0] != '/')
		return 0;
	perf_record__time(rec, sample_type, &time);
	if (array__grow((void **)&b->maps, &b->cap_maps, b->nr_maps, sizeof(*m), 64) < 0)
		return -ENOMEM;
	m = &b->maps[b->nr_maps];
	*m = (struct bmap){ .pid = (int32_t)h.pid,
			    .start = h.start,
			    .end = h.start + h.len,
			    .time = time,
			    .name = strndup(name, (size_t)(nul - name)) };
	if (!m->name)
		return -ENOMEM;
	if (rec->type == PERF_RECORD_MMAP2 && rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		uint8_t size = p[sizeof(h)];

		if (size && size <= ELF_BUILDID_MAX) {
			m->id.size = size;
			memcpy(m->id.data, p + sizeof(h) + 4, size);
		}
	} else if (rec->type == PERF_RECORD_MMAP2) {
		memcpy(&m->maj, p + sizeof(h), 4);
		memcpy(&m->min, p + sizeof(h) + 4, 4);
		memcpy(&m->ino, p + sizeof(h) + 8, 8);
	}
	b->nr_maps++;
	return 0;
}

struct fork_head {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
};

int snapshot_buildids__add_record(struct snapshot_buildids *b, const struct perf_event_header *rec,
				  uint64_t sample_type)
{
	struct fork_head f;

	if (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2)
		return add_mmap(b, rec, sample_type);
	if (rec->type != PERF_RECORD_FORK || rec->size < sizeof(f))
		return 0;
	memcpy(&f, rec, sizeof(f));
	if (f.pid == f.ppid || (int32_t)f.ppid <= 0)
		return 0; /* a thread: the maps are its process's already */
	if (array__grow((void **)&b->forks, &b->cap_forks, b->nr_forks, sizeof(*b->forks), 64) < 0)
		return -ENOMEM;
	b->forks[b->nr_forks++] = (struct bfork){ (int32_t)f.pid, (int32_t)f.ppid };
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct bmap *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct bfork *x = a, *y = b;

	return x->child < y->child ? -1 : x->child > y->child;
}

/* The loaded modules' text ranges; none when /proc/modules hides them. */
static int read_modules(struct snapshot_buildids *b)
{
	char line[512], name[64];
	unsigned long long size, addr;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %llu %*s %*s %*s 0x%llx", name, &size, &addr) != 3 || !addr)
			continue;
		if (array__grow((void **)&b->mods, &b->cap_mods, b->nr_mods, sizeof(*b->mods), 64) <
		    0) {
			fclose(f);
			return -ENOMEM;
		}
		b->mods[b->nr_mods] = (struct kmod){ .start = addr, .end = addr + size };
		snprintf(b->mods[b->nr_mods].name, sizeof(b->mods[0].name), "%s", name);
		b->nr_mods++;
	}
	fclose(f);
	return 0;
}

static int take_mappings(void *ctx, const void *data, size_t len, int cpu)
{
	const struct snapshot *s = ((void **)ctx)[1];
	struct snapshot_buildids *b = ((void **)ctx)[0];
	const struct perf_event_header *h;
	size_t pos = 0;

	(void)cpu;
	while ((h = perf_record__next(data, len, &pos))) {
		const struct snapshot_event *ev;
		uint64_t id;
		int r;

		if (h->type != PERF_RECORD_MMAP && h->type != PERF_RECORD_MMAP2 &&
		    h->type != PERF_RECORD_FORK)
			continue;
		if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(s, id)))
			continue;
		r = snapshot_buildids__add_record(b, h, ev->attr.sample_type);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The mapping of @pid over @ip at @time: the latest made by then, else the first. */
static struct bmap *find_map(struct snapshot_buildids *b, int32_t pid, uint64_t ip, uint64_t time)
{
	struct bmap *best = NULL;
	size_t lo = 0, hi = b->nr_maps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (b->maps[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < b->nr_maps && b->maps[i].pid == pid && b->maps[i].start <= ip;
	     i++) {
		struct bmap *m = &b->maps[i];

		if (ip >= m->end)
			continue;
		if (!best || (m->time <= time && (best->time > time || m->time > best->time)))
			best = m;
	}
	return best;
}

static int32_t parent_of(const struct snapshot_buildids *b, int32_t pid)
{
	struct bfork key = { .child = pid };
	const struct bfork *f = bsearch(&key, b->forks, b->nr_forks, sizeof(key), cmp_fork);

	return f ? f->parent : -1;
}

static void hit_user(struct snapshot_buildids *b, int32_t pid, uint64_t ip, uint64_t time)
{
	const struct bmap *last = b->last;
	struct bmap *m = NULL;

	if (last && last->pid == pid && last->start <= ip && ip < last->end)
		return;
	for (int depth = 0; !m && pid > 0 && depth < MAX_FORK_DEPTH; depth++) {
		m = find_map(b, pid, ip, time);
		if (!m)
			pid = parent_of(b, pid);
	}
	if (m) {
		m->hit = true;
		b->last = m;
	}
}

static void hit_kernel(struct snapshot_buildids *b, uint64_t ip)
{
	for (size_t i = 0; i < b->nr_mods; i++) {
		if (b->mods[i].start <= ip && ip < b->mods[i].end) {
			b->mods[i].hit = true;
			return;
		}
	}
	b->kernel_hit = true;
}

static void hit(struct snapshot_buildids *b, const struct perf_record_info *info, uint16_t cpumode,
		uint64_t ip)
{
	if (cpumode == PERF_RECORD_MISC_KERNEL)
		hit_kernel(b, ip);
	else if (cpumode == PERF_RECORD_MISC_USER)
		hit_user(b, (int32_t)info->pid, ip, info->time);
}

static void take_sample(struct snapshot_buildids *b, const struct perf_event_header *h,
			const struct perf_record_info *info)
{
	uint16_t cpumode = h->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (!info->callchain_nr) {
		hit(b, info, cpumode, info->ip);
		return;
	}
	for (uint64_t i = 0; i < info->callchain_nr; i++) {
		uint64_t ip = info->callchain[i];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			if (ip == (uint64_t)PERF_CONTEXT_KERNEL)
				cpumode = PERF_RECORD_MISC_KERNEL;
			else if (ip == (uint64_t)PERF_CONTEXT_USER)
				cpumode = PERF_RECORD_MISC_USER;
			else
				cpumode = 0; /* hypervisor, guest: not this host's objects */
			continue;
		}
		hit(b, info, cpumode, ip);
	}
}

static int take_samples(void *ctx, const void *data, size_t len, int cpu)
{
	const struct snapshot *s = ((void **)ctx)[1];
	struct snapshot_buildids *b = ((void **)ctx)[0];
	const struct perf_event_header *h;
	size_t pos = 0;

	(void)cpu;
	while ((h = perf_record__next(data, len, &pos))) {
		const struct snapshot_event *ev;
		struct perf_record_info info;
		uint64_t id;

		if (h->type != PERF_RECORD_SAMPLE || perf_record__id(h, &id) < 0 ||
		    !(ev = snapshot__event_by_id(s, id)))
			continue;
		/*
		 * A kernel sample without a callchain where no module is loaded
		 * can hit only the kernel: most of a tracepoint snapshot, and
		 * not parsing it keeps the scan off the perf.data's write time.
		 */
		if (!b->nr_mods && !(ev->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
		    (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL) {
			b->kernel_hit = true;
			continue;
		}
		/* One the parser cannot read names nothing, as in perf. */
		if (perf_record__parse_sample(h, ev->attr.sample_type, &info) == 0)
			take_sample(b, h, &info);
	}
	return 0;
}

static int add_out(struct snapshot_buildids *b, uint16_t misc, const char *name,
		   const struct elf_buildid *id)
{
	if (array__grow((void **)&b->out, &b->cap_out, b->nr_out, sizeof(*b->out), 16) < 0)
		return -ENOMEM;
	b->out[b->nr_out++] = (struct snapshot_buildid){ .misc = misc, .name = name, .id = *id };
	return 0;
}

static int add_kernel_out(struct snapshot_buildids *b, const char *name, const char *notes)
{
	struct elf_buildid id;
	char *copy;

	if (elf_buildid__read_notes_path(notes, &id) < 0)
		return 0; /* no sysfs, or a kernel built without the note */
	if (array__grow((void **)&b->names, &b->cap_names, b->nr_names, sizeof(*b->names), 8) < 0)
		return -ENOMEM;
	copy = strdup(name);
	if (!copy)
		return -ENOMEM;
	b->names[b->nr_names++] = copy;
	return add_out(b, PERF_RECORD_MISC_KERNEL, copy, &id);
}

static bool deleted(const char *name)
{
	size_t n = strlen(name), d = sizeof(DELETED) - 1;

	return n >= d && !strcmp(name + n - d, DELETED);
}

/*
 * A hit mapping the side-band had no build-id for: the file mapped, if the
 * process still has it, else the file at its path if that is still the one
 * the record names (device and inode): a wrong id is worse than none.
 */
static void read_now(struct bmap *m)
{
	char path[96];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)m->pid,
		 m->start, m->end);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && m->ino && !deleted(m->name)) {
		fd = open(m->name, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != m->ino ||
				major(st.st_dev) != m->maj || minor(st.st_dev) != m->min)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		elf_buildid__read_fd(fd, &m->id);
		close(fd);
	}
}

static bool listed(const struct snapshot_buildids *b, const struct bmap *m)
{
	for (size_t i = 0; i < b->nr_out; i++) {
		const struct snapshot_buildid *o = &b->out[i];

		if (o->misc == PERF_RECORD_MISC_USER && o->id.size == m->id.size &&
		    !memcmp(o->id.data, m->id.data, m->id.size) && !strcmp(o->name, m->name))
			return true;
	}
	return false;
}

static int list_hits(struct snapshot_buildids *b)
{
	char name[80], notes[160];
	int r = 0;

	if (b->kernel_hit)
		r = add_kernel_out(b, KERNEL_NAME, "/sys/kernel/notes");
	for (size_t i = 0; i < b->nr_mods && r == 0; i++) {
		if (!b->mods[i].hit)
			continue;
		snprintf(name, sizeof(name), "[%s]", b->mods[i].name);
		snprintf(notes, sizeof(notes), "/sys/module/%s/notes/.note.gnu.build-id",
			 b->mods[i].name);
		r = add_kernel_out(b, name, notes);
	}
	for (size_t i = 0; i < b->nr_maps && r == 0; i++) {
		struct bmap *m = &b->maps[i];

		if (!m->hit)
			continue;
		if (!m->id.size)
			read_now(m);
		if (m->id.size && !listed(b, m))
			r = add_out(b, PERF_RECORD_MISC_USER, m->name, &m->id);
	}
	return r;
}

int snapshot_buildids__scan(struct snapshot_buildids *b, const struct snapshot *s)
{
	void *ctx[2] = { b, (void *)s };
	int r;

	if (!b || b->scanned)
		return -EINVAL;
	b->scanned = true;
	r = snapshot_index__for_each_run(s, take_mappings, ctx);
	if (r < 0)
		return r;
	if (b->nr_maps) /* qsort may not take NULL, even for none */
		qsort(b->maps, b->nr_maps, sizeof(*b->maps), cmp_map);
	if (b->nr_forks)
		qsort(b->forks, b->nr_forks, sizeof(*b->forks), cmp_fork);
	r = read_modules(b);
	if (r < 0)
		return r;
	r = snapshot_index__for_each_run(s, take_samples, ctx);
	return r < 0 ? r : list_hits(b);
}

size_t snapshot_buildids__nr(const struct snapshot_buildids *b)
{
	return b->nr_out;
}

const struct snapshot_buildid *snapshot_buildids__entry(const struct snapshot_buildids *b,
							size_t idx)
{
	return idx < b->nr_out ? &b->out[idx] : NULL;
}
