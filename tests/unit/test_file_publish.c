// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for file_publish: a set of three files appears whole, and a
 * failure at any step (a close() of the second file, a sync, a name that
 * exists, the directory's sync) or a discarded set leaves nothing in the
 * directory and no open file, with O_TMPFILE and with hidden temporaries
 * (O_TMPFILE refused), with and without RENAME_NOREPLACE; one file written
 * in one call, replacing an old one, with and without syncs; scratch files
 * that never show in the directory. close() is wrapped by
 * tests/lib/close_inject.c; openat, renameat2 and fsync here, all with
 * -Wl,--wrap.
 */
#include <dirent.h>
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "close_inject.h"
#include "tmpfile_inject.h"
#include "file_publish.h"
#include "test_dir.h"
#include "wrap.h"

#define NR 3

static const char *const names[NR] = { "a.data", "a.dat", "a.json" };
static char dir[64];

/* RENAME_NOREPLACE unknown and fsync() failing (O_TMPFILE: tmpfile_inject). */
static bool no_noreplace, fail_dir_sync;
static int fail_file_sync; /* the file sync to fail (1: the first), 0: none */
static int file_syncs;

int __wrap_renameat2(int olddirfd, const char *old, int newdirfd, const char *new,
		     unsigned int flags)
{
	if (no_noreplace && (flags & RENAME_NOREPLACE)) {
		errno = EINVAL;
		return -1;
	}
	return __real_renameat2(olddirfd, old, newdirfd, new, flags);
}

int __wrap_fsync(int fd)
{
	struct stat st;
	bool is_dir = fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);

	if ((is_dir && fail_dir_sync) || (!is_dir && ++file_syncs == fail_file_sync)) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

static int open_fds(void)
{
	return test_dir__count("/proc/self/fd") - 1; /* less opendir's own */
}

static bool exists(const char *name)
{
	struct stat st;

	return fstatat(AT_FDCWD, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static void path_of(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", dir, name);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_file_publish.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	close_inject__reset();
	tmpfile_inject_refuse = no_noreplace = fail_dir_sync = false;
	fail_file_sync = file_syncs = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close_inject__reset();
	return test_dir__remove(dir);
}

/* The three files of a set, each holding its own name; returns the set. */
static struct file_publish *new_set(void)
{
	struct file_publish *set = NULL;

	assert_int_equal(file_publish__new(dir, &set), 0);
	for (int i = 0; i < NR; i++) {
		size_t len = strlen(names[i]);

		assert_int_equal(file_publish__add(set, names[i], NULL, 0640), i);
		assert_int_equal(file_publish__is_named(set, i), tmpfile_inject_refuse);
		assert_int_equal(write(file_publish__fd(set, i), names[i], len), (ssize_t)len);
	}
	return set;
}

/* None of the set's names, no temporary: an empty directory. */
static void assert_nothing_left(void)
{
	char path[128];

	for (int i = 0; i < NR; i++) {
		path_of(path, sizeof(path), names[i]);
		assert_false(exists(path));
	}
	assert_int_equal(test_dir__count(dir), 0);
}

static void check_published(void)
{
	char path[128], buf[64];

	for (int i = 0; i < NR; i++) {
		struct stat st;
		int fd;
		ssize_t n;

		path_of(path, sizeof(path), names[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		n = read(fd, buf, sizeof(buf));
		assert_int_equal(fstat(fd, &st), 0);
		close(fd);
		assert_int_equal(n, (ssize_t)strlen(names[i]));
		assert_memory_equal(buf, names[i], (size_t)n);
		assert_int_equal(st.st_nlink, 1);
	}
	assert_int_equal(test_dir__count(dir), NR);
}

static void publish_all(void)
{
	int fds = open_fds(), failed = 7;
	struct file_publish *set = new_set();

	assert_int_equal(file_publish__sync(set, 1), 0); /* ahead, as threads do */
	assert_int_equal(file_publish__commit(set, &failed), 0);
	assert_int_equal(failed, -1);
	assert_int_equal(file_publish__fd(set, 0), -EBADF);
	file_publish__delete(set);
	check_published();
	assert_int_equal(open_fds(), fds);
	/* Each file synced once (the one synced ahead not again), and closed once. */
	assert_int_equal(file_syncs, NR);
	assert_int_equal(close_inject.calls, NR);
}

static void test_publish_tmpfile(void **state)
{
	(void)state;
	publish_all();
}

static void test_publish_named(void **state)
{
	(void)state;
	tmpfile_inject_refuse = true;
	publish_all();
}

static void test_publish_named_without_noreplace(void **state)
{
	(void)state;
	tmpfile_inject_refuse = no_noreplace = true;
	publish_all();
}

/* The close of file @nth (1: the first) fails: nothing of the set remains. */
static void fail_close(int nth)
{
	int fds = open_fds(), failed = 7;
	struct file_publish *set = new_set();

	close_inject__reset();
	close_inject.fail_errno = EIO;
	close_inject.fail_at = nth;
	assert_int_equal(file_publish__commit(set, &failed), -EIO);
	assert_int_equal(failed, nth - 1);
	/* Closes of the files after it are not failures to report. */
	assert_true(close_inject.calls >= nth);
	file_publish__delete(set);
	close_inject__reset();
	assert_nothing_left();
	assert_int_equal(open_fds(), fds);
}

static void test_close_fails_second_tmpfile(void **state)
{
	(void)state;
	fail_close(2);
}

static void test_close_fails_second_named(void **state)
{
	(void)state;
	tmpfile_inject_refuse = true;
	fail_close(2);
}

static void test_close_fails_each(void **state)
{
	(void)state;
	for (int mode = 0; mode < 3; mode++) {
		tmpfile_inject_refuse = mode > 0;
		no_noreplace = mode > 1;
		for (int nth = 1; nth <= NR; nth++)
			fail_close(nth);
	}
}

static void test_sync_fails(void **state)
{
	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		tmpfile_inject_refuse = mode;
		for (int nth = 1; nth <= NR; nth++) {
			int fds = open_fds(), failed = 7;
			struct file_publish *set = new_set();

			file_syncs = 0;
			fail_file_sync = nth;
			assert_int_equal(file_publish__commit(set, &failed), -EIO);
			assert_int_equal(failed, nth - 1);
			file_publish__delete(set);
			fail_file_sync = 0;
			assert_nothing_left();
			assert_int_equal(open_fds(), fds);
		}
	}
}

static void test_dir_sync_fails(void **state)
{
	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		int fds = open_fds(), failed = 7;
		struct file_publish *set;

		tmpfile_inject_refuse = mode;
		set = new_set();
		fail_dir_sync = true;
		assert_int_equal(file_publish__commit(set, &failed), -EIO);
		assert_int_equal(failed, -1);
		file_publish__delete(set);
		fail_dir_sync = false;
		assert_nothing_left();
		assert_int_equal(open_fds(), fds);
	}
}

/* The last name exists: it is kept as it was, and the first two go again. */
static void test_existing_name_kept(void **state)
{
	char path[128], buf[16];

	(void)state;
	path_of(path, sizeof(path), names[NR - 1]);
	for (int mode = 0; mode < 3; mode++) {
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600), failed = 7;
		struct file_publish *set;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "old", 3), 3);
		assert_int_equal(close(fd), 0);
		tmpfile_inject_refuse = mode > 0;
		no_noreplace = mode > 1;
		set = new_set();
		assert_int_equal(file_publish__commit(set, &failed), -EEXIST);
		assert_int_equal(failed, NR - 1);
		file_publish__delete(set);
		assert_int_equal(test_dir__count(dir), 1);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_int_equal(read(fd, buf, sizeof(buf)), 3);
		assert_memory_equal(buf, "old", 3);
		close(fd);
		assert_int_equal(unlink(path), 0);
	}
}

/* An error before publishing: deleting the set discards everything. */
static void test_discard(void **state)
{
	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		int fds = open_fds();

		tmpfile_inject_refuse = mode;
		file_publish__delete(new_set());
		assert_nothing_left();
		assert_int_equal(open_fds(), fds);
	}
	file_publish__delete(NULL);
}

static void test_bad_names(void **state)
{
	static const char *const bad[] = { "", ".", "..", "a/b", "/a" };
	struct file_publish *set = NULL;
	char path[128], name[NAME_MAX + 2];

	(void)state;
	assert_int_equal(file_publish__new(dir, &set), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(file_publish__add(set, bad[i], NULL, 0600), -EINVAL);
		assert_int_equal(file_publish__add(set, "ok", bad[i], 0600), -EINVAL);
	}
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_int_equal(file_publish__add(set, name, NULL, 0600), -ENAMETOOLONG);
	/* ".<name>.tmp" would be too long for a name of NAME_MAX. */
	name[NAME_MAX] = '\0';
	assert_int_equal(file_publish__add(set, name, NULL, 0600), -ENAMETOOLONG);
	assert_int_equal(file_publish__fd(set, 0), -EBADF);
	assert_int_equal(file_publish__sync(set, 0), -EINVAL);
	file_publish__delete(set);
	assert_int_equal(test_dir__count(dir), 0);
	path_of(path, sizeof(path), "missing");
	assert_int_equal(file_publish__new(path, &set), -ENOENT);
}

/* A hidden name that exists is never reused. */
static void test_temp_name_taken(void **state)
{
	struct file_publish *set = NULL;
	char path[128];
	int fd;

	(void)state;
	tmpfile_inject_refuse = true;
	path_of(path, sizeof(path), ".mine.tmp");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(file_publish__new(dir, &set), 0);
	assert_int_equal(file_publish__add(set, "x", ".mine.tmp", 0600), -EEXIST);
	assert_int_equal(file_publish__add(set, "x", ".other.tmp", 0600), 0);
	path_of(path, sizeof(path), ".other.tmp");
	assert_true(exists(path));
	file_publish__delete(set);
	assert_false(exists(path));
	assert_int_equal(test_dir__count(dir), 1); /* .mine.tmp, not ours */
}

/* What the file @name holds is @text. */
static void expect_text(const char *name, const char *text)
{
	char path[128], buf[64];
	ssize_t n;
	int fd;

	path_of(path, sizeof(path), name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	assert_int_equal(n, (ssize_t)strlen(text));
	assert_memory_equal(buf, text, strlen(text));
}

/* One file in one call: never over another name, unless it replaces it. */
static void test_write_file(void **state)
{
	char path[128];
	int fd;

	(void)state;
	assert_int_equal(file_publish__write_file(dir, "s", ".s.tmp", 0600, 0, "old", 3), 0);
	assert_int_equal(file_syncs, 1);
	assert_int_equal(file_publish__write_file(dir, "s", ".s.tmp", 0600, 0, "new", 3), -EEXIST);
	expect_text("s", "old");
	/* A temporary a crash left is the caller's too, when replacing. */
	path_of(path, sizeof(path), ".s.tmp");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(
		file_publish__write_file(dir, "s", ".s.tmp", 0600, FILE_PUBLISH_REPLACE, "new", 3),
		0);
	expect_text("s", "new");
	assert_int_equal(file_syncs, 3);
	assert_int_equal(test_dir__count(dir), 1);
}

/* Without syncs: neither the file's nor the directory's (which would fail here). */
static void test_write_file_no_sync(void **state)
{
	(void)state;
	fail_dir_sync = true;
	assert_int_equal(file_publish__write_file(dir, "s", NULL, 0600,
						  FILE_PUBLISH_REPLACE | FILE_PUBLISH_NO_SYNC,
						  "one", 3),
			 0);
	assert_int_equal(file_publish__write_file(dir, "s", NULL, 0600,
						  FILE_PUBLISH_REPLACE | FILE_PUBLISH_NO_SYNC,
						  "two", 3),
			 0);
	assert_int_equal(file_syncs, 0);
	expect_text("s", "two");
	/* With them, the failure is said; the new file has replaced the old one already. */
	assert_int_equal(
		file_publish__write_file(dir, "s", NULL, 0600, FILE_PUBLISH_REPLACE, "three", 5),
		-EIO);
	expect_text("s", "three");
	assert_int_equal(test_dir__count(dir), 1);
}

/* A scratch file is never seen in the directory, with O_TMPFILE or without. */
static void test_scratch(void **state)
{
	char buf[4];

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		int fds = open_fds(), fd;

		tmpfile_inject_refuse = mode;
		fd = file_publish__scratch(dir, ".spill.XXXXXX");
		assert_true(fd >= 0);
		assert_int_equal(test_dir__count(dir), 0);
		assert_int_equal(pwrite(fd, "abc", 3, 0), 3);
		assert_int_equal(pread(fd, buf, 3, 0), 3);
		assert_memory_equal(buf, "abc", 3);
		close(fd);
		assert_int_equal(open_fds(), fds);
	}
	assert_int_equal(file_publish__scratch("/nonexistent", ".spill.XXXXXX"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_publish_tmpfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publish_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_publish_named_without_noreplace, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_second_tmpfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_second_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_each, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dir_sync_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_name_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_discard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temp_name_taken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file_no_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scratch, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
