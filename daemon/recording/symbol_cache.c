// SPDX-License-Identifier: GPL-2.0-only
/*
 * symbol_cache: a small table of open objects, looked up by build-id or
 * device and inode, with a use stamp each for least-recently-used
 * eviction. See symbol_cache.h.
 *
 * A linear table: it holds a few hundred entries and is looked up once
 * per executable mmap (a few per exec), for the process table's build-id
 * of it. An object held open is known by an fstat() of its fd; only an
 * inode not held (new, evicted, or a copy of one held) is opened, and
 * only a file not seen before (inode, change time, size) is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "proc_table.h"
#include "symbol_cache.h"

/*
 * Objects remembered beyond those open: those that could not be opened,
 * those evicted, and copies (another inode) of those held.
 */
#define KNOWN_PER_OPEN 2

/* The file an entry read: a rewrite in place changes its change time. */
struct file_stamp {
	uint64_t dev, ino;
	int64_t ctime_sec, ctime_nsec;
	uint64_t size;
};

struct cached_object {
	struct elf_buildid id; /* size 0: none known */
	uint32_t maj, min;     /* as records name it */
	uint64_t ino;
	struct file_stamp file; /* what was read (id.size > 0) */
	int fd;	       /* -1: not open (error says why; 0: evicted, or a copy of one held) */
	int error;     /* why it could not be opened or read */
	uint64_t used; /* LRU stamp; 0: a free slot */
};

struct symbol_cache {
	unsigned int refs; /* atomic */
	pthread_mutex_t lock;
	struct cached_object *v;
	unsigned int nr_slots, max_open, nr_open;
	uint64_t clock;
	uint64_t opened, evicted, open_failed;
};

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
	c->refs = 1;
	pthread_mutex_init(&c->lock, NULL);
	return c;
}

struct symbol_cache *symbol_cache__get(struct symbol_cache *c)
{
	if (c)
		__atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
	return c;
}

static void slot_clear(struct symbol_cache *c, struct cached_object *o)
{
	if (o->fd >= 0) {
		close(o->fd);
		c->nr_open--;
	}
	*o = (struct cached_object){ .fd = -1 };
}

void symbol_cache__delete(struct symbol_cache *c)
{
	if (!c || __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL))
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

static struct file_stamp stamp_of(const struct stat *st)
{
	return (struct file_stamp){ .dev = (uint64_t)st->st_dev,
				    .ino = (uint64_t)st->st_ino,
				    .ctime_sec = (int64_t)st->st_ctim.tv_sec,
				    .ctime_nsec = (int64_t)st->st_ctim.tv_nsec,
				    .size = (uint64_t)st->st_size };
}

static bool same_file(const struct file_stamp *a, const struct stat *st)
{
	struct file_stamp b = stamp_of(st);

	return !memcmp(a, &b, sizeof(b));
}

/*
 * Under the lock: the entry of @key, or NULL; one that holds its object
 * open rather than one that does not (a copy of it, say).
 */
static struct cached_object *find(struct symbol_cache *c, const struct symbol_cache_key *key)
{
	struct cached_object *found = NULL;

	for (unsigned int i = 0; i < c->nr_slots; i++) {
		struct cached_object *o = &c->v[i];

		if (!o->used)
			continue;
		if (key->id.size ? same_id(&o->id, &key->id) :
				   key->has_ino && o->ino == key->ino && o->maj == key->maj &&
					   o->min == key->min) {
			if (o->fd >= 0)
				return o;
			if (!found)
				found = o;
		}
	}
	return found;
}

/* Under the lock: the entry holding open an object with @id, or NULL. */
static struct cached_object *find_held(struct symbol_cache *c, const struct elf_buildid *id)
{
	struct cached_object *o = find(c, &(struct symbol_cache_key){ .id = *id });

	return o && o->fd >= 0 ? o : NULL;
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
	lru->fd = -1; /* evicted: opened again when mapped again, by path for a dump */
	c->nr_open--;
	c->evicted++;
}

/*
 * Under the lock: the entry for @key, whose object is open at @fd (@st),
 * with @id: held open, unless another entry holds the same object (a copy
 * under another inode), then only remembered, so that its next mapping is
 * not read again.
 */
static void hold(struct symbol_cache *c, struct cached_object *o,
		 const struct symbol_cache_key *key, int fd, const struct stat *st,
		 const struct elf_buildid *id)
{
	struct cached_object *held = find_held(c, id);

	if (held) {
		close(fd);
		fd = -1;
		held->used = ++c->clock;
	}
	if (o)
		slot_clear(c, o);
	else
		o = slot_for_new(c);
	if (fd >= 0 && c->nr_open >= c->max_open)
		close_lru(c);
	*o = (struct cached_object){
		.id = *id,
		.maj = key->has_ino ? key->maj : major(st->st_dev),
		.min = key->has_ino ? key->min : minor(st->st_dev),
		.ino = key->has_ino ? key->ino : (uint64_t)st->st_ino,
		.file = stamp_of(st),
		.fd = fd,
		.used = ++c->clock,
	};
	if (fd >= 0) {
		c->nr_open++;
		c->opened++;
	}
}

/* Under the lock: remembers that @key's object may not be opened: the dump counts it. */
static void refused(struct symbol_cache *c, const struct symbol_cache_key *key, int error)
{
	struct cached_object *o = slot_for_new(c);

	*o = (struct cached_object){
		.maj = key->maj,
		.min = key->min,
		.ino = key->ino,
		.fd = -1,
		.error = error,
		.used = ++c->clock,
	};
}

/*
 * Under the lock: the build-id of the object @m maps, which @key names;
 * opened (and held) unless held already, and read unless that very file
 * was read before.
 */
static int take_object(struct symbol_cache *c, const struct symbol_cache_key *key,
		       const struct proc_table_mapping *m, struct elf_buildid *ret_id)
{
	struct cached_object *o = find(c, key);
	struct elf_buildid id = { 0 };
	struct stat st;
	int fd, r;

	if (o && o->fd >= 0) {
		if (fstat(o->fd, &st) == 0 && same_file(&o->file, &st)) {
			o->used = ++c->clock;
			*ret_id = o->id;
			return 0;
		}
		/* Rewritten in place since: what it holds now is another object. */
		slot_clear(c, o);
		o = NULL;
	}
	if (o && o->error) {
		o->used = ++c->clock;
		return o->error;
	}
	fd = proc_table__open_mapping(m, &st);
	if (fd >= 0 && o && o->id.size && same_file(&o->file, &st)) {
		id = o->id; /* evicted, or a copy: the file read before */
		r = 0;
	} else {
		r = fd < 0 ? fd : elf_buildid__read_fd(fd, &id);
	}
	if (r < 0) {
		c->open_failed++;
		if (fd >= 0)
			close(fd);
		if (!o && (r == -EACCES || r == -EPERM))
			refused(c, key, r);
		return r;
	}
	hold(c, o, key, fd, &st, &id);
	*ret_id = id;
	return 0;
}

/* Names that are files: not [vdso], //anon, /memfd:... (deleted) or empty. */
static bool is_file_name(const char *name)
{
	return name[0] == '/' && strncmp(name, "//anon", 6) && strncmp(name, "/memfd:", 7) &&
	       strncmp(name, "/dev/", 5);
}

/**
 * symbol_cache__mmap - the build-id of a mapped object, kept open if new
 * @c: the cache
 * @m: the mapping, as the process table has it (a proc_table_build_id_fn)
 * @ret_id: its build-id (size 0 on error)
 *
 * Returns 0 or -errno (-ENOENT: gone, or no build-id).
 */
int symbol_cache__mmap(struct symbol_cache *c, const struct proc_table_mapping *m,
		       struct elf_buildid *ret_id)
{
	struct symbol_cache_key key = {
		.has_ino = m->ino != 0, .maj = m->maj, .min = m->min, .ino = m->ino, .path = m->path
	};
	struct proc_table_mapping open_as = *m;
	struct stat st;
	int fd, r;

	memset(ret_id, 0, sizeof(*ret_id));
	/* With no inode to check the path against, nothing here checks it. */
	if (!m->ino)
		open_as.path = NULL;
	if (!m->path || !is_file_name(m->path)) {
		/* Not kept (no file to pack), but its id is still worth having. */
		fd = proc_table__open_mapping(&open_as, &st);
		if (fd < 0)
			return fd;
		r = elf_buildid__read_fd(fd, ret_id);
		close(fd);
		return r;
	}
	pthread_mutex_lock(&c->lock);
	r = take_object(c, &key, &open_as, ret_id);
	pthread_mutex_unlock(&c->lock);
	return r;
}

int symbol_cache__open(struct symbol_cache *c, const struct symbol_cache_key *key, int *ret_fd,
		       struct elf_buildid *ret_id, uint64_t *ret_size)
{
	struct proc_table_mapping by_path = { .maj = key->maj,
					      .min = key->min,
					      .ino = key->has_ino ? key->ino : 0,
					      .path = key->path };
	struct cached_object *o, *held;
	struct stat st;
	int fd, r;

	*ret_fd = -1;
	if (!c)
		goto by_path;
	pthread_mutex_lock(&c->lock);
	o = find(c, key);
	/* A copy: the object is the one held under the other inode. */
	held = o && o->fd < 0 && o->id.size ? find_held(c, &o->id) : NULL;
	if (held)
		o = held;
	if (o && o->fd >= 0) {
		fd = fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
		r = fd < 0 ? -errno : 0;
		*ret_id = o->id;
		*ret_size = o->file.size;
		o->used = ++c->clock;
		pthread_mutex_unlock(&c->lock);
		*ret_fd = fd;
		return r;
	}
	r = o ? o->error : 0;
	pthread_mutex_unlock(&c->lock);
	if (r < 0)
		return r;
by_path:
	/* Not held: the file at its path, if it is still that one. */
	if (!by_path.ino && !key->id.size)
		return -ENOENT;
	fd = proc_table__open_mapping(&by_path, &st);
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
