// SPDX-License-Identifier: GPL-2.0-only
/*
 * buildid_cache: build-ids of mapped objects, each file read once. See
 * buildid_cache.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>

#include "buildid_cache.h"
#include "elf_buildid.h"
#include "proc_table.h"

#define SLOTS 256

struct slot {
	uint64_t dev, ino; /* ino 0: empty */
	int64_t ctime_sec, ctime_nsec;
	uint64_t size;
	struct elf_buildid id;
};

struct buildid_cache {
	struct slot slots[SLOTS];
};

struct buildid_cache *buildid_cache__new(void)
{
	return calloc(1, sizeof(struct buildid_cache));
}

void buildid_cache__delete(struct buildid_cache *c)
{
	free(c);
}

size_t buildid_cache__bytes(void)
{
	return sizeof(struct buildid_cache);
}

/*
 * The slot of the open file @st: the same inode with the same change time
 * and size is the file read before (a reused inode number has a new ctime).
 */
static struct slot *slot_of(struct buildid_cache *c, const struct stat *st, bool *hit)
{
	uint64_t h = ((uint64_t)st->st_ino * 0x9E3779B97F4A7C15ull) ^ (uint64_t)st->st_dev;
	struct slot *s = &c->slots[(h >> 40) % SLOTS];

	*hit = s->ino == (uint64_t)st->st_ino && s->dev == (uint64_t)st->st_dev &&
	       s->ctime_sec == (int64_t)st->st_ctim.tv_sec &&
	       s->ctime_nsec == (int64_t)st->st_ctim.tv_nsec && s->size == (uint64_t)st->st_size;
	return s;
}

int buildid_cache__read(struct buildid_cache *c, const struct proc_table_mapping *m,
			struct elf_buildid *ret)
{
	struct proc_table_mapping d = *m;
	struct slot *s = NULL;
	struct stat st;
	bool hit = false;
	int fd, r;

	if (!d.ino)
		d.path = NULL;
	fd = proc_table__open_mapping(&d, &st);
	if (fd < 0)
		return fd;
	if (c)
		s = slot_of(c, &st, &hit);
	if (hit) {
		*ret = s->id;
		close(fd);
		return 0;
	}
	r = elf_buildid__read_fd(fd, ret);
	close(fd);
	if (r == 0 && s)
		*s = (struct slot){ .dev = (uint64_t)st.st_dev,
				    .ino = (uint64_t)st.st_ino,
				    .ctime_sec = (int64_t)st.st_ctim.tv_sec,
				    .ctime_nsec = (int64_t)st.st_ctim.tv_nsec,
				    .size = (uint64_t)st.st_size,
				    .id = *ret };
	return r;
}
