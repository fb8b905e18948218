// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbol_cache: a small table of open objects, looked up by build-id or
 * device and inode, with a use stamp each for least-recently-used
 * eviction. See symbol_cache.h.
 *
 * A linear table: it holds a few hundred entries and is looked up once
 * per executable mmap (a few per exec), and opens only objects it has not
 * seen, so a lookup never waits for a file system.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cleanup.h"
#include "procinfo.h"
#include "symbol_cache.h"

/* Objects remembered beyond those open: also those that could not be. */
#define KNOWN_PER_OPEN 2

struct cached_object {
	struct elf_buildid id; /* size 0: it has none */
	uint32_t maj, min;
	uint64_t ino;
	char *path;
	int fd;	   /* -1: not open (error says why, or evicted) */
	int error; /* why it could not be opened or read */
	uint64_t size;
	uint64_t used; /* LRU stamp; 0: a free slot */
};

struct symbol_cache {
	pthread_mutex_t lock;
	struct cached_object *v;
	unsigned int nr_slots, max_open, nr_open;
	uint64_t clock;
	uint64_t opened, evicted, open_failed;
};

/* The MMAP2 record up to its file name (linux/perf_event.h). */
struct mmap2_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size, reserved_1;
			uint16_t reserved_2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
};

_Static_assert(sizeof(struct mmap2_rec) == 72, "MMAP2 layout");

static unsigned int nofile_quarter(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return UINT32_MAX;
	return rl.rlim_cur / 4 > UINT32_MAX ? UINT32_MAX : (unsigned int)(rl.rlim_cur / 4);
}

struct symbol_cache *symbol_cache__new(unsigned int max_open)
{
	struct symbol_cache *c = calloc(1, sizeof(*c));
	unsigned int quarter = nofile_quarter();

	if (!c)
		return NULL;
	c->max_open = max_open < quarter ? max_open : quarter;
	if (!c->max_open)
		c->max_open = 1;
	c->nr_slots = c->max_open * KNOWN_PER_OPEN;
	c->v = calloc(c->nr_slots, sizeof(*c->v));
	if (!c->v) {
		free(c);
		return NULL;
	}
	for (unsigned int i = 0; i < c->nr_slots; i++)
		c->v[i].fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

static void slot_clear(struct symbol_cache *c, struct cached_object *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		c->nr_open--;
	}
	free(o->path);
	*o = (struct cached_object){ .fd = -1 };
}

void symbol_cache__delete(struct symbol_cache *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->nr_slots; i++)
		slot_clear(c, &c->v[i]);
	free(c->v);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static bool same_id(const struct elf_buildid *a, const struct elf_buildid *b)
{
	return a->size && a->size == b->size && !memcmp(a->data, b->data, a->size);
}

/* Under the lock: the entry of @key, or NULL. */
static struct cached_object *find(struct symbol_cache *c, const struct symbol_cache_key *key)
{
	for (unsigned int i = 0; i < c->nr_slots; i++) {
		struct cached_object *o = &c->v[i];

		if (!o->used)
			continue;
		if (key->id.size ? same_id(&o->id, &key->id) :
				   key->has_ino && o->ino == key->ino && o->maj == key->maj &&
					   o->min == key->min)
			return o;
	}
	return NULL;
}

/* Under the lock: a free slot, else the least recently used one, emptied. */
static struct cached_object *slot_for_new(struct symbol_cache *c)
{
	struct cached_object *lru = NULL;

	for (unsigned int i = 0; i < c->nr_slots; i++) {
		if (!c->v[i].used)
			return &c->v[i];
		if (!lru || c->v[i].used < lru->used)
			lru = &c->v[i];
	}
	if (lru->fd >= 0)
		c->evicted++;
	slot_clear(c, lru);
	return lru;
}

/* Under the lock: closes the least recently used open object. */
static void close_lru(struct symbol_cache *c)
{
	struct cached_object *lru = NULL;

	for (unsigned int i = 0; i < c->nr_slots; i++)
		if (c->v[i].fd >= 0 && (!lru || c->v[i].used < lru->used))
			lru = &c->v[i];
	if (!lru)
		return;
	close(lru->fd);
	lru->fd = -1;
	lru->error = -ENOENT; /* evicted: opened by path again if still there */
	c->nr_open--;
	c->evicted++;
}

/*
 * The mapped object: its /proc/PID/map_files entry, else @path if it is
 * the same inode. Returns the fd or -errno.
 */
static int open_mapped(pid_t pid, uint64_t start, uint64_t end, const char *path, bool has_ino,
		       uint32_t maj, uint32_t min, uint64_t ino, struct stat *st)
{
	char mf[96];
	int fd, err;

	if (pid > 0) {
		snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", (int)pid,
			 (unsigned long long)start, (unsigned long long)end);
		fd = open(mf, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && fstat(fd, st) == 0)
			return fd;
		if (fd >= 0)
			close(fd);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		err = S_ISREG(st->st_mode) ? -errno : -ENOEXEC;
		close(fd);
		return err;
	}
	if (has_ino &&
	    (st->st_ino != ino || major(st->st_dev) != maj || minor(st->st_dev) != min)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/*
 * Under the lock: adds the object mapped at @start..@end of @pid (from
 * @path) to the table, open if it can be. Known already: only its stamp.
 */
static void add_object(struct symbol_cache *c, const struct symbol_cache_key *key, pid_t pid,
		       uint64_t start, uint64_t end)
{
	struct cached_object *o = find(c, key);
	struct elf_buildid id = { 0 };
	struct stat st;
	int fd, r;

	if (o) {
		o->used = ++c->clock;
		return;
	}
	fd = open_mapped(pid, start, end, key->path, key->has_ino, key->maj, key->min, key->ino,
			 &st);
	r = fd < 0 ? fd : elf_buildid__read_fd(fd, &id);
	if (fd >= 0 && r == 0 && key->id.size && !same_id(&id, &key->id))
		r = -ESTALE;
	if (r < 0) {
		c->open_failed++;
		if (fd >= 0)
			close(fd);
		fd = -1;
		/* Only a refusal is worth remembering: the dump counts it. */
		if (r != -EACCES && r != -EPERM)
			return;
	}
	if (fd >= 0) {
		struct cached_object *dup = find(c, &(struct symbol_cache_key){ .id = id });

		/* The same object under another inode (a copy): one is enough. */
		if (dup) {
			close(fd);
			dup->used = ++c->clock;
			return;
		}
	}
	o = slot_for_new(c);
	if (fd >= 0 && c->nr_open >= c->max_open)
		close_lru(c);
	*o = (struct cached_object){
		.id = id,
		.maj = fd >= 0 ? major(st.st_dev) : key->maj,
		.min = fd >= 0 ? minor(st.st_dev) : key->min,
		.ino = fd >= 0 ? st.st_ino : key->ino,
		.path = strdup(key->path),
		.fd = fd,
		.error = r,
		.size = fd >= 0 ? (uint64_t)st.st_size : 0,
		.used = ++c->clock,
	};
	if (fd >= 0) {
		c->nr_open++;
		c->opened++;
	}
}

/* Names that are files: not [vdso], //anon, /memfd:... (deleted) or empty. */
static bool is_file_name(const char *name)
{
	return name[0] == '/' && strncmp(name, "//anon", 6) && strncmp(name, "/memfd:", 7) &&
	       strncmp(name, "/dev/", 5);
}

void symbol_cache__mmap(struct symbol_cache *c, const struct perf_event_header *rec)
{
	struct mmap2_rec m;
	struct symbol_cache_key key = { 0 };
	const char *name;
	size_t max;

	if (rec->type != PERF_RECORD_MMAP2 || rec->size <= sizeof(m))
		return;
	memcpy(&m, rec, sizeof(m));
	if (!(m.prot & PROT_EXEC))
		return;
	name = (const char *)rec + sizeof(m);
	max = rec->size - sizeof(m);
	if (!memchr(name, '\0', max) || !is_file_name(name))
		return;
	key.path = name;
	if (rec->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
		key.id.size = m.build_id_size <= ELF_BUILDID_MAX ? m.build_id_size : 0;
		memcpy(key.id.data, m.build_id, key.id.size);
	} else {
		key.has_ino = true;
		key.maj = m.maj;
		key.min = m.min;
		key.ino = m.ino;
	}
	pthread_mutex_lock(&c->lock);
	add_object(c, &key, (pid_t)m.pid, m.start, m.start + m.len);
	pthread_mutex_unlock(&c->lock);
}

struct seed_ctx {
	struct symbol_cache *c;
	pid_t pid;
};

static int seed_map(void *ctx, const struct procinfo_map *pm)
{
	struct seed_ctx *s = ctx;
	struct symbol_cache_key key = {
		.has_ino = true, .maj = pm->maj, .min = pm->min, .ino = pm->ino, .path = pm->name
	};

	if (!is_file_name(pm->name) || !pm->ino)
		return 0;
	pthread_mutex_lock(&s->c->lock);
	add_object(s->c, &key, s->pid, pm->start, pm->end);
	pthread_mutex_unlock(&s->c->lock);
	return 0;
}

int symbol_cache__seed_from_proc(struct symbol_cache *c)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		struct seed_ctx s = { .c = c, .pid = (pid_t)pid };

		if (*end || pid <= 0)
			continue;
		/* A process gone meanwhile has nothing to add. */
		(void)procinfo__for_each_exec_map(s.pid, seed_map, &s);
	}
	closedir(d);
	return 0;
}

int symbol_cache__open(struct symbol_cache *c, const struct symbol_cache_key *key, int *ret_fd,
		       struct elf_buildid *ret_id, uint64_t *ret_size)
{
	struct cached_object *o;
	struct stat st;
	int fd, r;

	*ret_fd = -1;
	if (!c)
		goto by_path;
	pthread_mutex_lock(&c->lock);
	o = find(c, key);
	if (o && o->fd >= 0) {
		fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
		r = fd < 0 ? -errno : 0;
		*ret_id = o->id;
		*ret_size = o->size;
		o->used = ++c->clock;
		pthread_mutex_unlock(&c->lock);
		*ret_fd = fd;
		return r;
	}
	r = o && o->error != -ENOENT ? o->error : 0;
	pthread_mutex_unlock(&c->lock);
	if (r < 0)
		return r;
by_path:
	/* Not held: the file at its path, if it is still that one. */
	fd = open_mapped(0, 0, 0, key->path, key->has_ino, key->maj, key->min, key->ino, &st);
	if (fd < 0)
		return fd;
	r = elf_buildid__read_fd(fd, ret_id);
	if (r == 0 && key->id.size && !same_id(ret_id, &key->id))
		r = -ESTALE;
	if (r < 0) {
		close(fd);
		return r == -ENOENT ? -ENODATA : r;
	}
	*ret_size = (uint64_t)st.st_size;
	*ret_fd = fd;
	return 0;
}

void symbol_cache__stats(struct symbol_cache *c, struct symbol_cache_stats *ret)
{
	pthread_mutex_lock(&c->lock);
	*ret = (struct symbol_cache_stats){ .nr_open = c->nr_open,
					    .max_open = c->max_open,
					    .nr_opened = c->opened,
					    .nr_evicted = c->evicted,
					    .nr_open_failed = c->open_failed };
	for (unsigned int i = 0; i < c->nr_slots; i++)
		ret->nr_objects += c->v[i].used != 0;
	pthread_mutex_unlock(&c->lock);
}
