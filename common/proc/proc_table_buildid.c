// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table_buildid: the build-id of a mapping the kernel named without
 * one (it gives none when the note's page is not in memory at mmap time,
 * and none in MMAP or /proc). Read when the table takes the mapping, so a
 * file deleted or replaced later is still the one identified; by the
 * table, or by the reader the daemon gives it (its symbol cache, which
 * keeps the objects it opens: one open and one read per object).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include <linux/perf_event.h>

#include "buildid_cache.h"
#include "buildid_recent.h"
#include "elf_buildid.h"
#include "proc_table-internal.h"

#define DELETED " (deleted)"

static bool is_file(const struct pt_mapping *m)
{
	return m->name[0] == '/';
}

static bool deleted(const char *path)
{
	size_t len = strlen(path), n = sizeof(DELETED) - 1;

	return len >= n && !memcmp(path + len - n, DELETED, n);
}

/**
 * proc_table__open_mapping - open the object a mapping maps
 * @m: the mapping
 * @ret_st: the open file's stat
 *
 * One way for the table and for the daemon's symbol cache, so that both
 * open objects alike: read-only, without blocking on a FIFO or taking a
 * terminal, and nothing that is not a regular file (libelf would read a
 * device without end). A mapping already gone (the process exited or
 * unmapped it before the ring was drained) leaves the path.
 *
 * Returns the fd, -ESTALE, -ENOEXEC or -errno.
 */
int proc_table__open_mapping(const struct proc_table_mapping *m, struct stat *ret_st)
{
	char path[96];
	bool by_path = false;
	int fd = -1, err;

	if (m->pid > 0) {
		snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", (int)m->pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	}
	if (fd < 0) {
		if (!m->path || deleted(m->path))
			return -ENOENT;
		fd = open(m->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0)
			return -errno;
		by_path = true;
	}
	err = fstat(fd, ret_st) < 0 ? -errno : 0;
	if (err == 0 && !S_ISREG(ret_st->st_mode))
		err = -ENOEXEC;
	if (err == 0 && by_path && m->ino &&
	    (ret_st->st_ino != m->ino || major(ret_st->st_dev) != m->maj ||
	     minor(ret_st->st_dev) != m->min))
		err = -ESTALE;
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

static int read_build_id(struct proc_table *t, pid_t pid, struct pt_mapping *m,
			 struct elf_buildid *id)
{
	struct proc_table_mapping d = { .pid = pid, .start = m->start, .end = m->start + m->len };
	int r;

	memcpy(&d.maj, m->id, 4);
	memcpy(&d.min, m->id + 4, 4);
	memcpy(&d.ino, m->id + 8, 8);
	d.path = m->name;
	if (t->queue) {
		m->refs++;
		r = t->queue(t->queue_ctx, &d, m);
		if (r == 0) {
			t->stats.nr_build_ids_waiting++;
			return -EINPROGRESS;
		}
		m->refs--;
		return r;
	}
	if (t->reader)
		return t->reader(t->reader_ctx, &d, id);
	return buildid_cache__read(t->bid_cache, &d, id);
}

/*
 * Coarse: read at each mapping, and a tick's error is nothing against the
 * trust of a second (the precise clock is dear on this kind of guest).
 */
static uint64_t coarse_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Device, inode and generation as the record gave them; no inode, no key. */
static bool keyed(const struct pt_mapping *m)
{
	uint64_t ino;

	memcpy(&ino, m->id + 8, 8);
	return ino != 0;
}

static void remember(struct proc_table *t, const struct pt_mapping *m, const struct elf_buildid *id)
{
	if (t->recent && id->size && keyed(m))
		buildid_recent__add(t->recent, m->id, coarse_now(), id);
}

/* The build-id form of MMAP2, in place of the device and inode. */
static void set_build_id(struct proc_table *t, struct pt_mapping *m, const struct elf_buildid *id)
{
	m->misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	memset(m->id, 0, sizeof(m->id));
	m->id[0] = id->size;
	memcpy(m->id + 4, id->data, id->size);
	t->stats.nr_build_ids_read++;
}

/*
 * A copy of @m on no task, queued only so that its id's trust is renewed
 * before it lapses (buildid_recent.h). Read at once, the table's own
 * reads never wait for one another: nothing to renew ahead.
 */
static void renew(struct proc_table *t, pid_t pid, const struct pt_mapping *m)
{
	struct pt_mapping *copy;
	struct elf_buildid unused;

	if (!t->queue || !(copy = proc_table__mapping_new(t, m->name, m->name_len)))
		return;
	copy->misc = PT_MAPPING_RENEW;
	copy->start = m->start;
	copy->len = m->len;
	copy->pgoff = m->pgoff;
	memcpy(copy->id, m->id, sizeof(copy->id));
	(void)read_build_id(t, pid, copy, &unused);
	proc_table__mapping_put(t, copy);
}

void proc_table__mapping_build_id(struct proc_table *t, pid_t pid, struct pt_mapping *m)
{
	struct elf_buildid id;
	bool stale;
	int r;

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
	if (t->recent && keyed(m) &&
	    buildid_recent__find(t->recent, m->id, coarse_now(), &id, &stale) == 0) {
		if (stale)
			renew(t, pid, m);
		set_build_id(t, m, &id);
		return;
	}
	r = read_build_id(t, pid, m, &id);
	if (r == -EINPROGRESS)
		return;
	if (r < 0 || !id.size) {
		t->stats.nr_build_ids_none++;
		return;
	}
	remember(t, m, &id);
	set_build_id(t, m, &id);
}

/**
 * proc_table__build_id_done - a queued build-id read answered
 * @t: the table that queued it
 * @m: the mapping it queued
 * @err: 0, or why there is no build-id
 * @id: the build-id, with @err 0
 *
 * Under the same lock as the table's other calls: records emitted before
 * this name the mapping by its device and inode, those after by its id.
 */
void proc_table__build_id_done(struct proc_table *t, struct pt_mapping *m, int err,
			       const struct elf_buildid *id)
{
	t->stats.nr_build_ids_waiting--;
	if (m->misc & PT_MAPPING_RENEW) {
		if (err == 0)
			remember(t, m, id);
	} else if (err < 0 || !id->size) {
		t->stats.nr_build_ids_none++;
	} else {
		remember(t, m, id);
		set_build_id(t, m, id);
	}
	proc_table__mapping_put(t, m);
}

/* The table's own cache of ids read, while it reads them itself. */
static void fit_bid_cache(struct proc_table *t)
{
	bool want = t->read_build_ids && !t->reader && !t->queue;

	if (!want && t->bid_cache) {
		buildid_cache__delete(t->bid_cache);
		t->bid_cache = NULL;
		t->stats.bytes -= buildid_cache__bytes();
	}
	/* Without its cache the table still reads, only more often. */
	if (want && !t->bid_cache) {
		t->bid_cache = buildid_cache__new();
		if (t->bid_cache)
			t->stats.bytes += buildid_cache__bytes();
	}
	/* Whoever reads, ids just read stand for their inode a while. */
	if (!t->read_build_ids && t->recent) {
		buildid_recent__delete(t->recent);
		t->recent = NULL;
		t->stats.bytes -= buildid_recent__bytes();
	}
	if (t->read_build_ids && !t->recent) {
		t->recent = buildid_recent__new();
		if (t->recent)
			t->stats.bytes += buildid_recent__bytes();
	}
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
	fit_bid_cache(t);
}

/**
 * proc_table__set_build_id_reader - let another read the build-ids
 * @t: the table
 * @fn: asked for each build-id the table would read, or NULL
 * @ctx: its first argument
 *
 * The reader gets the mapping with its path and inode as the record gave
 * them; it opens the object (proc_table__open_mapping() opens it as the
 * table would) or knows it already.
 */
void proc_table__set_build_id_reader(struct proc_table *t, proc_table_build_id_fn fn, void *ctx)
{
	if (!t)
		return;
	t->reader = fn;
	t->reader_ctx = ctx;
	fit_bid_cache(t);
}

/**
 * proc_table__set_build_id_queue - have the build-ids read elsewhere
 * @t: the table
 * @fn: given each build-id the table would read, or NULL
 * @ctx: its first argument
 */
void proc_table__set_build_id_queue(struct proc_table *t, proc_table_build_id_queue_fn fn,
				    void *ctx)
{
	if (!t)
		return;
	t->queue = fn;
	t->queue_ctx = ctx;
	fit_bid_cache(t);
}
