// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_buildids: the build-ids of the objects a snapshot's samples hit
 * (snapshot_objects finds them): the kernel's and its modules' from sysfs,
 * a mapped file's from its record, else read from the file now.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "array_grow.h"
#include "buildid_cache.h"
#include "proc_table.h"
#include "snapshot_buildids.h"
#include "snapshot_objects.h"

#define KERNEL_NAME "[kernel.kallsyms]"

struct kmod {
	char name[64];
	uint64_t start, end;
	bool hit;
};

struct snapshot_buildids {
	struct snapshot_objects *objs;
	struct kmod *mods;
	size_t nr_mods, cap_mods;
	bool kernel_hit, scanned;
	struct snapshot_buildid *out;
	size_t nr_out, cap_out;
	char **names; /* owned names of kernel entries */
	size_t nr_names, cap_names;
};

struct snapshot_buildids *snapshot_buildids__new(void)
{
	struct snapshot_buildids *b = calloc(1, sizeof(*b));

	if (b)
		b->objs = snapshot_objects__new();
	if (b && !b->objs) {
		free(b);
		return NULL;
	}
	return b;
}

void snapshot_buildids__delete(struct snapshot_buildids *b)
{
	if (!b)
		return;
	snapshot_objects__delete(b->objs);
	for (size_t i = 0; i < b->nr_names; i++)
		free(b->names[i]);
	free(b->mods);
	free(b->out);
	free(b->names);
	free(b);
}

int snapshot_buildids__add_record(struct snapshot_buildids *b, const struct perf_event_header *rec,
				  uint64_t sample_type)
{
	return snapshot_objects__add_record(b->objs, rec, sample_type);
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

/* The kernel, or the modules, at the addresses hit. */
static void hit_kernel(struct snapshot_buildids *b)
{
	const struct snapshot_objects_stats *st = snapshot_objects__stats(b->objs);
	size_t nr;
	const uint64_t *ips = snapshot_objects__kernel_ips(b->objs, &nr);

	b->kernel_hit = st->nr_kernel_no_ip > 0;
	for (size_t i = 0; i < nr; i++) {
		size_t m = 0;

		while (m < b->nr_mods && (ips[i] < b->mods[m].start || ips[i] >= b->mods[m].end))
			m++;
		if (m < b->nr_mods)
			b->mods[m].hit = true;
		else
			b->kernel_hit = true;
	}
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

/*
 * A hit object the side-band had no build-id for: the file mapped, if the
 * process still has it, else the file at its path if that is still the one
 * the record names (device and inode): a wrong id is worse than none.
 * Opened as the side-band opens objects (no FIFO, no device, no wait for
 * a writer).
 */
static void read_now(const struct snapshot_object *o, struct elf_buildid *id)
{
	struct proc_table_mapping m = { .pid = o->pid,
					.start = o->start,
					.end = o->end,
					.maj = o->maj,
					.min = o->min,
					.ino = o->has_ino ? o->ino : 0,
					.path = o->path };

	if (buildid_cache__read(NULL, &m, id) < 0)
		id->size = 0;
}

/* Two objects of one path and build-id (one by inode, one by id): listed once. */
static bool listed(const struct snapshot_buildids *b, const char *name,
		   const struct elf_buildid *id)
{
	for (size_t i = 0; i < b->nr_out; i++) {
		const struct snapshot_buildid *o = &b->out[i];

		if (o->misc == PERF_RECORD_MISC_USER && o->id.size == id->size &&
		    !memcmp(o->id.data, id->data, id->size) && !strcmp(o->name, name))
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
	for (size_t i = 0; i < snapshot_objects__nr(b->objs) && r == 0; i++) {
		const struct snapshot_object *o = snapshot_objects__object(b->objs, i);
		struct elf_buildid id = { .size = o->id_size };

		memcpy(id.data, o->id, o->id_size);
		if (!id.size)
			read_now(o, &id);
		if (id.size && !listed(b, o->path, &id))
			r = add_out(b, PERF_RECORD_MISC_USER, o->path, &id);
	}
	return r;
}

/**
 * snapshot_buildids__scan - list the build-ids of the objects a snapshot hits
 * @b: the list, with the records added from outside the snapshot
 * @s: a sealed snapshot
 *
 * Once per @b. Returns 0, -EINVAL the second time, or -errno.
 */
int snapshot_buildids__scan(struct snapshot_buildids *b, const struct snapshot *s)
{
	int r;

	if (!b || b->scanned)
		return -EINVAL;
	b->scanned = true;
	r = snapshot_objects__find(b->objs, s);
	if (r == 0)
		r = read_modules(b);
	if (r < 0)
		return r;
	hit_kernel(b);
	return list_hits(b);
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
