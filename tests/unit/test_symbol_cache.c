// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for symbol_cache, the process table's build-id reader: an
 * object is opened and read once while it is held (the opens and reads
 * are counted, by wrapping open() and elf_buildid__read_fd() at link
 * time); one rewritten in place is read again; a copy under another inode
 * is opened to check it but not read, nor held twice; one evicted is
 * opened again, not read; a dump gets a descriptor of what is held.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "elf_buildid.h"
#include "proc_table.h"
#include "symbol_cache.h"
#include "test_dir.h"
#include "wrap.h"

int __real_elf_buildid__read_fd(int fd, struct elf_buildid *ret);
int __wrap_elf_buildid__read_fd(int fd, struct elf_buildid *ret);

static int nr_opens, nr_reads;

/* Opens of anything but /proc/self (the test's own bookkeeping). */
int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = flags & O_CREAT ? va_arg(ap, mode_t) : 0;
	va_end(ap);
	nr_opens += strncmp(path, "/proc/self/", 11) != 0;
	return __real_open(path, flags, mode);
}

int __wrap_elf_buildid__read_fd(int fd, struct elf_buildid *ret)
{
	nr_reads++;
	return __real_elf_buildid__read_fd(fd, ret);
}

/* An ELF object of its own, mapped executable by this process. */
struct object {
	char path[128];
	void *addr;
	size_t len;
	struct stat st;
	struct elf_buildid id;
};

struct fixture {
	char dir[64];
	struct symbol_cache *c;
	struct object a, b;
};

static void copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 20, 0)) > 0)
		;
	assert_int_equal(n, 0);
	close(in);
	close(out);
}

static void object_map(struct object *o, const char *from, const char *dir, const char *name)
{
	int fd;

	snprintf(o->path, sizeof(o->path), "%s/%s", dir, name);
	copy_file(from, o->path);
	fd = open(o->path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &o->st), 0);
	assert_int_equal(__real_elf_buildid__read_fd(fd, &o->id), 0);
	o->len = 4096;
	o->addr = mmap(NULL, o->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	assert_true(o->addr != MAP_FAILED);
	close(fd);
}

/* Its mapping's build-id, as the process table asks for it. */
static int ask(struct symbol_cache *c, const struct object *o, struct elf_buildid *ret)
{
	struct proc_table_mapping m = { .pid = getpid(),
					.start = (uintptr_t)o->addr,
					.end = (uintptr_t)o->addr + o->len,
					.maj = major(o->st.st_dev),
					.min = minor(o->st.st_dev),
					.ino = o->st.st_ino,
					.path = o->path };

	nr_opens = nr_reads = 0;
	return symbol_cache__mmap(c, &m, ret);
}

static void expect_id(const struct elf_buildid *got, const struct elf_buildid *want)
{
	assert_int_equal(got->size, want->size);
	assert_memory_equal(got->data, want->data, want->size);
}

/* Asks for @o's build-id: @want, after @opens opens and @reads reads. */
static void expect_ask(struct symbol_cache *c, const struct object *o,
		       const struct elf_buildid *want, int opens, int reads)
{
	struct elf_buildid id;

	assert_int_equal(ask(c, o, &id), 0);
	expect_id(&id, want);
	assert_int_equal(nr_opens, opens);
	assert_int_equal(nr_reads, reads);
}

static uint64_t nr_open(struct symbol_cache *c)
{
	struct symbol_cache_stats st;

	symbol_cache__stats(c, &st);
	return st.nr_open;
}

/* A cache holding at most @max_open, objects a (this test) and b (of @b_from) mapped. */
static int setup_objects(void **state, unsigned int max_open, const char *b_from)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_symbol_cache.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->c = symbol_cache__new(max_open);
	assert_non_null(f->c);
	object_map(&f->a, "/proc/self/exe", f->dir, "a");
	object_map(&f->b, b_from, f->dir, "b");
	*state = f;
	return 0;
}

static int setup_copies(void **state)
{
	return setup_objects(state, 8, "/proc/self/exe");
}

static int setup_one_held(void **state)
{
	return setup_objects(state, 1, "/bin/true");
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int r;

	munmap(f->a.addr, f->a.len);
	munmap(f->b.addr, f->b.len);
	symbol_cache__delete(f->c);
	r = test_dir__remove(f->dir);
	free(f);
	return r;
}

static void test_opened_once(void **state)
{
	struct fixture *f = *state;
	struct symbol_cache_key key;
	struct elf_buildid id;
	uint64_t size;
	int fd;

	expect_ask(f->c, &f->a, &f->a.id, 1, 1);
	for (int i = 0; i < 3; i++)
		expect_ask(f->c, &f->a, &f->a.id, 0, 0);
	assert_int_equal(nr_open(f->c), 1);
	/* A dump's copy of it: the object held, however its path changed since. */
	assert_int_equal(unlink(f->a.path), 0);
	key = (struct symbol_cache_key){ .has_ino = true,
					 .maj = major(f->a.st.st_dev),
					 .min = minor(f->a.st.st_dev),
					 .ino = f->a.st.st_ino,
					 .path = f->a.path };
	nr_opens = 0;
	assert_int_equal(symbol_cache__open(f->c, &key, &fd, &id, &size), 0);
	assert_int_equal(nr_opens, 0);
	expect_id(&id, &f->a.id);
	assert_int_equal(size, (uint64_t)f->a.st.st_size);
	close(fd);
}

/* The same inode with another object in it (a new change time): read again. */
static void test_rewritten(void **state)
{
	struct fixture *f = *state;
	struct elf_buildid other;

	expect_ask(f->c, &f->a, &f->a.id, 1, 1);
	copy_file("/bin/true", f->a.path);
	assert_int_equal(elf_buildid__read_path(f->a.path, &other), 0);
	assert_true(memcmp(&other, &f->a.id, sizeof(other)));
	expect_ask(f->c, &f->a, &other, 1, 1);
	assert_int_equal(nr_open(f->c), 1);
}

/* A copy (another inode, the same id): checked by an open, not read, not held twice. */
static void test_copy(void **state)
{
	struct fixture *f = *state;

	expect_ask(f->c, &f->a, &f->a.id, 1, 1);
	expect_ask(f->c, &f->b, &f->a.id, 1, 1);
	expect_ask(f->c, &f->b, &f->a.id, 1, 0);
	expect_ask(f->c, &f->b, &f->a.id, 1, 0);
	assert_int_equal(nr_open(f->c), 1);
}

/* Evicted (one held at most): opened again when mapped again, not read. */
static void test_evicted(void **state)
{
	struct fixture *f = *state;

	expect_ask(f->c, &f->a, &f->a.id, 1, 1);
	expect_ask(f->c, &f->b, &f->b.id, 1, 1);
	assert_int_equal(nr_open(f->c), 1);
	expect_ask(f->c, &f->a, &f->a.id, 1, 0);
	assert_int_equal(nr_open(f->c), 1);
}

/* Gone from memory and from its path: nothing to open, nothing remembered. */
static void test_gone(void **state)
{
	struct fixture *f = *state;
	struct elf_buildid id;

	munmap(f->a.addr, f->a.len);
	assert_int_equal(unlink(f->a.path), 0);
	assert_int_equal(ask(f->c, &f->a, &id), -ENOENT);
	assert_int_equal(id.size, 0);
	assert_int_equal(nr_open(f->c), 0);
	f->a.len = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_opened_once, setup_copies, teardown),
		cmocka_unit_test_setup_teardown(test_rewritten, setup_copies, teardown),
		cmocka_unit_test_setup_teardown(test_copy, setup_copies, teardown),
		cmocka_unit_test_setup_teardown(test_evicted, setup_one_held, teardown),
		cmocka_unit_test_setup_teardown(test_gone, setup_copies, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
