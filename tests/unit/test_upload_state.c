// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for upload_state: the ".<stem>.upload" files round-trip, are
 * replaced atomically (no temporary left, nor one a crash left), keep an
 * error message on one line, and anything that is not such a file is
 * refused, not half read.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "upload-internal.h"

static char dir[] = "/tmp/test_upload_state.XXXXXX";

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_upload_state.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

static void write_file(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static bool exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_round_trip(void **state)
{
	struct upload_item it = { 0 }, back;

	(void)state;
	snprintf(it.dir, sizeof(it.dir), "%s", dir);
	strcpy(it.stem, "h1-20261201-101500.123-4");
	strcpy(it.key, "fleet/h1/2026-12-01/");
	strcpy(it.files[0], "h1-20261201-101500.123-4.perf.data");
	strcpy(it.files[1], "h1-20261201-101500.123-4.json");
	it.nr_files = 2;
	it.done[0] = true;
	it.state = UPLOAD_FAILING;
	it.attempts = 7;
	it.refusals = 2;
	strcpy(it.error, "HTTP 503 SlowDown:\nsecond line");
	assert_int_equal(upload_state__write(&it, true), 0);
	assert_true(exists(".h1-20261201-101500.123-4.upload"));
	assert_false(exists(".h1-20261201-101500.123-4.upload.tmp"));

	assert_int_equal(upload_state__read(dir, ".h1-20261201-101500.123-4.upload", &back), 0);
	assert_string_equal(back.stem, it.stem);
	assert_string_equal(back.dir, dir);
	assert_string_equal(back.key, it.key);
	assert_int_equal(back.nr_files, 2);
	assert_string_equal(back.files[1], it.files[1]);
	assert_true(back.done[0]);
	assert_false(back.done[1]);
	assert_int_equal(back.state, UPLOAD_FAILING);
	assert_int_equal(back.attempts, 7);
	assert_int_equal(back.refusals, 2);
	/* The newline of the message did not split the file's line. */
	assert_string_equal(back.error, "HTTP 503 SlowDown: second line");

	/* Replaced in place: the newer state wins, over a temporary a crash left. */
	write_file(".h1-20261201-101500.123-4.upload.tmp", "half a state");
	it.state = UPLOAD_UPLOADED;
	it.done[1] = true;
	it.error[0] = '\0';
	assert_int_equal(upload_state__write(&it, false), 0);
	assert_false(exists(".h1-20261201-101500.123-4.upload.tmp"));
	assert_int_equal(upload_state__read(dir, ".h1-20261201-101500.123-4.upload", &back), 0);
	assert_int_equal(back.state, UPLOAD_UPLOADED);
	assert_true(back.done[1]);
	assert_string_equal(back.error, "");

	assert_int_equal(upload_state__remove(&it), 0);
	assert_false(exists(".h1-20261201-101500.123-4.upload"));
	assert_int_equal(upload_state__remove(&it), 0);
}

#define ST(n) "h-20261201-101500.123-" #n

static void test_refused(void **state)
{
	struct upload_item it;

	(void)state;
	/* Not a state file's name, or not a snapshot's stem. */
	assert_int_equal(upload_state__read(dir, ST(1) ".upload", &it), -EINVAL);
	assert_int_equal(upload_state__read(dir, "." ST(1) ".json", &it), -EINVAL);
	assert_int_equal(upload_state__read(dir, ".upload", &it), -EINVAL);
	write_file(".notes.upload", "perfsnapd-upload 1\nstate pending\nfile notes.json 0\n");
	assert_int_equal(upload_state__read(dir, ".notes.upload", &it), -EINVAL);
	assert_int_equal(upload_state__read(dir, "." ST(1) ".upload", &it), -ENOENT);
	/* Wrong magic, no state, no file, a file with a path, a hidden file,
	 * another snapshot's file, a bad state, an empty file. */
	write_file("." ST(2) ".upload",
		   "perfsnapd-upload 2\nstate pending\nfile " ST(2) ".json 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(2) ".upload", &it), -EINVAL);
	write_file("." ST(3) ".upload", "perfsnapd-upload 1\nfile " ST(3) ".json 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(3) ".upload", &it), -EINVAL);
	write_file("." ST(4) ".upload", "perfsnapd-upload 1\nstate pending\n");
	assert_int_equal(upload_state__read(dir, "." ST(4) ".upload", &it), -EINVAL);
	write_file("." ST(5) ".upload",
		   "perfsnapd-upload 1\nstate pending\nfile ../etc/passwd 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(5) ".upload", &it), -EINVAL);
	write_file("." ST(6) ".upload",
		   "perfsnapd-upload 1\nstate pending\nfile ." ST(6) ".upload 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(6) ".upload", &it), -EINVAL);
	write_file("." ST(7) ".upload",
		   "perfsnapd-upload 1\nstate pending\nfile " ST(1) ".json 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(7) ".upload", &it), -EINVAL);
	write_file("." ST(8) ".upload", "perfsnapd-upload 1\nstate bogus\nfile " ST(8) ".json 0\n");
	assert_int_equal(upload_state__read(dir, "." ST(8) ".upload", &it), -EINVAL);
	write_file("." ST(9) ".upload", "");
	assert_int_equal(upload_state__read(dir, "." ST(9) ".upload", &it), -EINVAL);
	/* Unknown lines (a newer perfsnapd's) are skipped. */
	write_file("." ST(10) ".upload",
		   "perfsnapd-upload 1\nstate pending\nnewer thing\nfile " ST(10) ".json 1\n");
	assert_int_equal(upload_state__read(dir, "." ST(10) ".upload", &it), 0);
	assert_int_equal(it.nr_files, 1);
	assert_true(it.done[0]);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(upload_state__name(UPLOAD_NONE), "-");
	assert_string_equal(upload_state__name(UPLOAD_PENDING), "pending");
	assert_string_equal(upload_state__name(UPLOAD_FAILING), "failing");
	assert_string_equal(upload_state__name(UPLOAD_FAILED), "failed");
	assert_string_equal(upload_state__name(UPLOAD_UPLOADED), "uploaded");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
