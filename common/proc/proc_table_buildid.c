// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table_buildid: the build-id of a mapping the kernel named without
 * one (it gives none when the note's page is not in memory at mmap time,
 * and none in MMAP or /proc). Read when the table takes the mapping, so a
 * file deleted or replaced later is still the one identified.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "elf_buildid.h"
#include "proc_table-internal.h"

#define DELETED " (deleted)"

static bool is_file(const struct pt_mapping *m)
{
	return m->name[0] == '/';
}

static bool deleted(const struct pt_mapping *m)
{
	size_t n = sizeof(DELETED) - 1;

	return m->name_len >= n && !memcmp(m->name + m->name_len - n, DELETED, n);
}

/*
 * map_files names the very file mapped, even one deleted or replaced at its
 * path since; a mapping already gone (the process exited or unmapped it
 * before the ring was drained) leaves the path, unless that is deleted too.
 */
static int read_build_id(pid_t pid, const struct pt_mapping *m, struct elf_buildid *id)
{
	char path[96];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->start, (unsigned long long)(m->start + m->len));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		r = elf_buildid__read_fd(fd, id);
		close(fd);
		return r;
	}
	if (deleted(m))
		return -ENOENT;
	return elf_buildid__read_path(m->name, id);
}

void pt_mapping_build_id(struct proc_table *t, pid_t pid, struct pt_mapping *m)
{
	struct elf_buildid id;

	if (!is_file(m))
		return;
	if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		t->stats.nr_build_ids_kernel++;
		return;
	}
	if (!t->read_build_ids)
		return;
	if (read_build_id(pid, m, &id) < 0 || !id.size) {
		t->stats.nr_build_ids_none++;
		return;
	}
	m->misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memset(m->id, 0, sizeof(m->id));
	m->id[0] = id.size;
	memcpy(m->id + 4, id.data, id.size);
	t->stats.nr_build_ids_read++;
}

/**
 * proc_table__set_read_build_ids - read build-ids the kernel did not give
 * @t: the table
 * @on: read them from now on
 */
void proc_table__set_read_build_ids(struct proc_table *t, bool on)
{
	if (t)
		t->read_build_ids = on;
}
