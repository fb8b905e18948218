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
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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
 * The file at @m's path only if it is the one mapped: same device and
 * inode as the record says. A path may name another file by now (replaced,
 * or the process ran in another mount namespace), and a wrong id is worse
 * than none.
 */
static int open_path_if_same(const struct pt_mapping *m, struct stat *st)
{
	uint32_t maj, min;
	uint64_t ino;
	int fd;

	memcpy(&maj, m->id, 4);
	memcpy(&min, m->id + 4, 4);
	memcpy(&ino, m->id + 8, 8);
	if (deleted(m) || !ino)
		return -ENOENT;
	fd = open(m->name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || st->st_ino != ino || major(st->st_dev) != maj ||
	    minor(st->st_dev) != min) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * map_files names the very file mapped, even one deleted or replaced at its
 * path since; a mapping already gone (the process exited or unmapped it
 * before the ring was drained) leaves the path, if it still names that file.
 */
static int open_mapped(pid_t pid, const struct pt_mapping *m, struct stat *st)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)pid,
		 (unsigned long long)m->start, (unsigned long long)(m->start + m->len));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_path_if_same(m, st);
	if (fstat(fd, st) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * The slot of the open file @st: the same inode with the same change time
 * and size is the file read before (a reused inode number has a new ctime).
 */
static struct pt_bid_cache *cache_slot(struct proc_table *t, const struct stat *st, bool *hit)
{
	uint64_t h = ((uint64_t)st->st_ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t)st->st_dev;
	struct pt_bid_cache *c = &t->bid_cache[(h >> 40) % PT_BID_CACHE];

	*hit = c->ino == (uint64_t)st->st_ino && c->dev == (uint64_t)st->st_dev &&
	       c->ctime_sec == (int64_t)st->st_ctim.tv_sec &&
	       c->ctime_nsec == (int64_t)st->st_ctim.tv_nsec && c->size == (uint64_t)st->st_size;
	return c;
}

static int read_build_id(struct proc_table *t, pid_t pid, const struct pt_mapping *m,
			 struct elf_buildid *id)
{
	struct pt_bid_cache *c = NULL;
	struct stat st;
	bool hit = false;
	int fd = open_mapped(pid, m, &st), r;

	if (fd < 0)
		return fd;
	if (t->bid_cache)
		c = cache_slot(t, &st, &hit);
	if (hit) {
		*id = c->id;
		close(fd);
		return 0;
	}
	r = elf_buildid__read_fd(fd, id);
	close(fd);
	if (r == 0 && c)
		*c = (struct pt_bid_cache){ .dev = (uint64_t)st.st_dev,
					    .ino = (uint64_t)st.st_ino,
					    .ctime_sec = (int64_t)st.st_ctim.tv_sec,
					    .ctime_nsec = (int64_t)st.st_ctim.tv_nsec,
					    .size = (uint64_t)st.st_size,
					    .id = *id };
	return r;
}

void proc_table__mapping_build_id(struct proc_table *t, pid_t pid, struct pt_mapping *m)
{
	struct elf_buildid id;

	if (!is_file(m))
		return;
	if (!t->read_build_ids) {
		/* Paths only; an id the kernel gave (asked by another tool) goes too. */
		if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
			memset(m->id, 0, sizeof(m->id));
		}
		return;
	}
	if (m->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		if (m->id[0]) {
			t->stats.nr_build_ids_kernel++;
			return;
		}
		/* The build-id form with no id: neither it nor the inode is known. */
		m->misc &= (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID;
		memset(m->id, 0, sizeof(m->id));
	}
	if (read_build_id(t, pid, m, &id) < 0 || !id.size) {
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
	if (!t)
		return;
	t->read_build_ids = on;
	/* Without its cache the table still reads, only more often. */
	if (on && !t->bid_cache) {
		t->bid_cache = calloc(PT_BID_CACHE, sizeof(*t->bid_cache));
		if (t->bid_cache)
			t->stats.bytes += PT_BID_CACHE * sizeof(*t->bid_cache);
	}
}
