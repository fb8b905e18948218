// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ustar_reader: members of an archive ustar.c wrote and of
 * one GNU tar wrote (long names both ways) are found with the right bytes,
 * through a symbolic link to a directory as a build-id cache has them and
 * through a hard link; a later member of one name wins, as with tar -x.
 * Hostile archives are refused or answered without harm: a bad checksum,
 * a member past the end, a link loop, a link out of the archive, a
 * directory looked up as a file, a file that is not tar at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_dir.h"
#include "ustar.h"
#include "ustar_reader.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_ustar_reader.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_dir__remove(dir);
}

/* @name's @len bytes at @fd, as the reader finds them, compared with @want. */
static void assert_member(const struct ustar_reader *t, int fd, const char *name, const char *want)
{
	uint64_t off = 0, size = 0;
	char buf[256];

	assert_int_equal(ustar_reader__find(t, name, &off, &size), 0);
	assert_int_equal(size, strlen(want));
	assert_true(size < sizeof(buf));
	assert_int_equal(pread(fd, buf, size, (off_t)off), (ssize_t)size);
	assert_memory_equal(buf, want, size);
}

static int open_archive(const char *name)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	return fd;
}

/* A build-id cache as symbol_pack writes one, with a name past the ustar fields. */
static int write_pack(void)
{
	char long_dir[400];
	struct ustar *t;
	int fd = open_archive("pack.tar");

	memset(long_dir, 'd', sizeof(long_dir) - 1);
	long_dir[sizeof(long_dir) - 1] = '\0';
	memcpy(long_dir + 100, "/", 1);
	assert_int_equal(ustar__new(fd, 0, &t), 0);
	assert_int_equal(ustar__add_dir(t, "usr/bin/x", 0755), 0);
	assert_int_equal(ustar__add_data(t, "usr/bin/x/abcdef/elf", "first", 5, 0644), 0);
	assert_int_equal(ustar__add_symlink(t, ".build-id/ab/cdef", "../../usr/bin/x/abcdef"), 0);
	assert_int_equal(ustar__add_data(t, "usr/bin/x/abcdef/elf", "second", 6, 0644), 0);
	assert_int_equal(ustar__add_data(t, long_dir, "long", 4, 0644), 0);
	assert_int_equal(ustar__add_symlink(t, "loop/a", "b"), 0);
	assert_int_equal(ustar__add_symlink(t, "loop/b", "a"), 0);
	assert_int_equal(ustar__add_symlink(t, "out", "../../etc"), 0);
	assert_int_equal(ustar__add_symlink(t, "abs", "/etc"), 0);
	assert_int_equal(ustar__finish(t), 0);
	ustar__delete(t);
	return fd;
}

static void test_pack(void **state)
{
	struct ustar_reader *t;
	uint64_t off, size;
	char long_dir[400];
	int fd = write_pack();

	(void)state;
	memset(long_dir, 'd', sizeof(long_dir) - 1);
	long_dir[sizeof(long_dir) - 1] = '\0';
	memcpy(long_dir + 100, "/", 1);
	assert_int_equal(ustar_reader__open(fd, &t), 0);
	/* The later of two members of one name, also through the directory link. */
	assert_member(t, fd, "usr/bin/x/abcdef/elf", "second");
	assert_member(t, fd, ".build-id/ab/cdef/elf", "second");
	assert_member(t, fd, "./.build-id/ab//cdef/./elf", "second");
	assert_member(t, fd, long_dir, "long");
	assert_int_equal(ustar_reader__find(t, ".build-id/ab/cdef/debug", &off, &size), -ENOENT);
	assert_int_equal(ustar_reader__find(t, "usr/bin/x", &off, &size), -ENOENT);
	assert_int_equal(ustar_reader__find(t, "loop/a", &off, &size), -ELOOP);
	assert_int_equal(ustar_reader__find(t, "out/passwd", &off, &size), -EINVAL);
	assert_int_equal(ustar_reader__find(t, "abs/passwd", &off, &size), -EINVAL);
	assert_int_equal(ustar_reader__find(t, "../x", &off, &size), -EINVAL);
	ustar_reader__delete(t);
	close(fd);
}

/* GNU tar's own archive: its long names (GNU 'L'), a hard link, a symbolic one. */
static void test_gnu_tar(void **state)
{
	char cmd[1024], long_name[300], path[600];
	struct ustar_reader *t;
	int fd;

	(void)state;
	/* Two components of 149 bytes: past ustar's 100 and 155, within NAME_MAX. */
	memset(long_name, 'n', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	long_name[149] = '/';
	snprintf(
		cmd, sizeof(cmd),
		"cd %s && mkdir -p src/a/%.149s && echo -n hello >src/a/f && "
		"ln src/a/f src/a/hard && ln -s a src/link && echo -n deep >src/a/%s && "
		"tar --format=gnu -cf gnu.tar -C src . && tar --format=posix -cf posix.tar -C src .",
		dir, long_name, long_name);
	assert_int_equal(system(cmd), 0);
	for (int i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, i ? "posix.tar" : "gnu.tar");
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(ustar_reader__open(fd, &t), 0);
		assert_member(t, fd, "a/f", "hello");
		assert_member(t, fd, "a/hard", "hello");
		assert_member(t, fd, "link/f", "hello");
		snprintf(path, sizeof(path), "link/%s", long_name);
		assert_member(t, fd, path, "deep");
		ustar_reader__delete(t);
		close(fd);
	}
}

static void test_damaged(void **state)
{
	struct ustar_reader *t = NULL;
	unsigned char block[512];
	struct stat st;
	int fd = write_pack();

	(void)state;
	/* A flipped byte in the first header: its checksum fails. */
	assert_int_equal(pread(fd, block, 512, 0), 512);
	block[0] ^= 1;
	assert_int_equal(pwrite(fd, block, 512, 0), 512);
	assert_int_equal(ustar_reader__open(fd, &t), -EINVAL);
	block[0] ^= 1;
	assert_int_equal(pwrite(fd, block, 512, 0), 512);
	/* Cut in a member's data: refused, not read past the end. */
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(ftruncate(fd, 512 * 2 + 3), 0);
	assert_int_equal(ustar_reader__open(fd, &t), -EINVAL);
	/* Cut in a header. */
	assert_int_equal(ftruncate(fd, 512 * 3 + 100), 0);
	assert_int_equal(ustar_reader__open(fd, &t), -EINVAL);
	/* Not tar at all. */
	assert_int_equal(ftruncate(fd, 0), 0);
	memset(block, 'x', sizeof(block));
	assert_int_equal(pwrite(fd, block, 512, 0), 512);
	assert_int_equal(pwrite(fd, block, 512, 512), 512);
	assert_int_equal(ustar_reader__open(fd, &t), -EINVAL);
	assert_int_equal(ftruncate(fd, 10), 0);
	assert_int_equal(ustar_reader__open(fd, &t), -EINVAL);
	assert_null(t);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gnu_tar, setup, teardown),
		cmocka_unit_test_setup_teardown(test_damaged, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
