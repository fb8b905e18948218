// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for retention: which names count as snapshots, grouping by
 * stem, the reason from sidecars, the order, and deleting by count and by
 * size (never the newest, never a foreign file), in a temporary directory.
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "retention.h"
#include "test_dir.h"
#include "test_skip.h"

#define F(file) SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_##file)

#define T0	    1700000000
#define SIGNAL_JSON "{\"stem\": \"x\", \"reason\": \"signal\"}"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_retention.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	test_dir__remove(dir);
	return 0;
}

/* Writes @text (or @size zero bytes) to dir/@name with mtime T0 + @age. */
static void make_file(const char *name, const char *text, size_t size, long age)
{
	struct timespec times[2] = { { .tv_sec = T0 + age }, { .tv_sec = T0 + age } };
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	if (text)
		size = strlen(text);
	if (text)
		assert_int_equal(write(fd, text, size), (ssize_t)size);
	else
		assert_int_equal(ftruncate(fd, (off_t)size), 0);
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
}

static bool exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void test_list(void **state)
{
	struct snapshot_entry *v = NULL;
	size_t nr = 99;
	char path[256];

	(void)state;
	assert_int_equal(retention__list(dir, &v, &nr), 0);
	assert_null(v);
	assert_int_equal(nr, 0);

	make_file("h-20240101-000000.000-1.perf.data", NULL, 1000, 10);
	make_file("h-20240101-000000.000-1.json", SIGNAL_JSON, 0, 10);
	/* The symbol pack is the snapshot's: counted, and deleted with it. */
	make_file("h-20240101-000000.000-1.symbols.tar", NULL, 4000, 9);
	make_file("h-20240101-000100.000-2.perf.data", NULL, 2000, 30);
	make_file("h-20240101-000100.000-2.trace.dat", NULL, 3000, 31);
	make_file("h-20240101-000100.000-2.json",
		  "{\"files\": [\"reason\"], \"sub\": {\"reason\": \"nested\"},\n"
		  " \"reason\" :\t\"ctl:disk \\\"full\\\"\\n\\u00e9\\u0001\\/\"}",
		  0, 29);
	make_file("h-20240101-000200.000-3.perf.data", NULL, 500, 20);
	/* Not perfsnapd's, or not finished: never listed. */
	make_file("notes.txt", NULL, 100, 0);
	make_file(".h-20240101-000300.000-4.perf.data.tmp", NULL, 100, 0);
	make_file("h-20240101-000300.000-4.perf.data.tmp", NULL, 100, 0);
	make_file("h-20240101-000300.000-4.perf.data.bak", NULL, 100, 0);
	snprintf(path, sizeof(path), "%s/h-20240101-000400.000-5.perf.data", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/h-20240101-000500.000-6.perf.data", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);

	assert_int_equal(retention__list(dir, &v, &nr), 0);
	assert_int_equal(nr, 3);
	/* Oldest first, by the newest file of each. */
	assert_string_equal(v[0].stem, "h-20240101-000000.000-1");
	assert_int_equal(v[0].files, F(PERFDATA) | F(SYMBOLS) | F(JSON));
	assert_int_equal(v[0].bytes, 1000 + 4000 + strlen(SIGNAL_JSON));
	assert_int_equal(v[0].mtime.tv_sec, T0 + 10);
	assert_string_equal(v[0].reason, "signal");
	assert_string_equal(v[1].stem, "h-20240101-000200.000-3");
	assert_int_equal(v[1].files, F(PERFDATA));
	assert_int_equal(v[1].bytes, 500);
	assert_null(v[1].reason);
	assert_string_equal(v[2].stem, "h-20240101-000100.000-2");
	assert_int_equal(v[2].files, F(PERFDATA) | F(TRACEDAT) | F(JSON));
	assert_int_equal(v[2].mtime.tv_sec, T0 + 31);
	assert_string_equal(v[2].reason, "ctl:disk \"full\"?\xc3\xa9?/");
	retention__free(v, nr);
	retention__free(NULL, 0);

	assert_int_equal(retention__list("/nonexistent/perfsnapd", &v, &nr), -ENOENT);

	/* Deleting the oldest deletes its pack too. */
	assert_int_equal(retention__enforce(dir, 2, 0, &v, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(v[0].stem, "h-20240101-000000.000-1");
	retention__free(v, nr);
	assert_false(exists("h-20240101-000000.000-1.symbols.tar"));
	assert_false(exists("h-20240101-000000.000-1.perf.data"));
}

static char *reason_of(const char *json)
{
	struct snapshot_entry *v = NULL;
	size_t nr = 0;
	char *r;

	make_file("h-20240101-000000.000-1.json", json, 0, 0);
	assert_int_equal(retention__list(dir, &v, &nr), 0);
	assert_int_equal(nr, 1);
	r = v[0].reason;
	v[0].reason = NULL;
	retention__free(v, nr);
	return r;
}

static void test_reason_tolerance(void **state)
{
	char big[RETENTION_MAX_REASON * 2 + 32];
	char *r;

	(void)state;
	assert_null(reason_of(""));
	assert_null(reason_of("not json"));
	assert_null(reason_of("{\"reason\": 42}"));
	assert_null(reason_of("{\"reason\": \"unterminated"));
	assert_null(reason_of("{\"a\": {\"reason\": \"nested\"}}"));
	assert_null(reason_of("{\"a\": \"reason\", \"b\": [\"reason\"]}"));
	assert_null(reason_of("[\"reason\", {\"x\": 1}]"));
	r = reason_of("{\"a\": \"}\\\"{\", \"reason\": \"ok\"}");
	assert_string_equal(r, "ok");
	free(r);
	r = reason_of("{\"reason\":\"\"}");
	assert_string_equal(r, "");
	free(r);
	/* Cut, not refused. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "{\"reason\": \"", 12);
	memcpy(big + sizeof(big) - 3, "\"}", 3);
	r = reason_of(big);
	assert_int_equal(strlen(r), RETENTION_MAX_REASON - 1);
	free(r);
}

static void test_order_same_mtime(void **state)
{
	struct snapshot_entry *v = NULL;
	size_t nr = 0;

	(void)state;
	make_file("h-20240101-000000.000-10.perf.data", NULL, 1, 0);
	make_file("h-20240101-000000.000-9.perf.data", NULL, 1, 0);
	make_file("a-20240101-000000.001-1.perf.data", NULL, 1, 0);
	make_file("z-20231231-235959.999-1.perf.data", NULL, 1, 0);
	assert_int_equal(retention__list(dir, &v, &nr), 0);
	assert_int_equal(nr, 4);
	assert_string_equal(v[0].stem, "z-20231231-235959.999-1");
	assert_string_equal(v[1].stem, "h-20240101-000000.000-9");
	assert_string_equal(v[2].stem, "h-20240101-000000.000-10");
	assert_string_equal(v[3].stem, "a-20240101-000000.001-1");
	retention__free(v, nr);
}

/* Five snapshots of 1000 bytes (perf.data 600, json 400), s1 oldest. */
static void make_five(void)
{
	char name[128], json[401];

	memset(json, ' ', 400);
	json[400] = '\0';
	memcpy(json, "{\"reason\": \"r\"}", 15);
	for (int i = 1; i <= 5; i++) {
		snprintf(name, sizeof(name), "h-20240101-00000%d.000-%d.perf.data", i, i);
		make_file(name, NULL, 600, i * 10);
		snprintf(name, sizeof(name), "h-20240101-00000%d.000-%d.json", i, i);
		make_file(name, json, 0, i * 10);
	}
	make_file("notes.txt", NULL, 100000, 0);
	make_file(".h-20240101-000000.000-0.perf.data.tmp", NULL, 100000, 0);
}

static void test_enforce_count(void **state)
{
	struct snapshot_entry *del = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	assert_int_equal(retention__enforce(dir, 2, 0, &del, &nr), 0);
	assert_int_equal(nr, 3);
	assert_string_equal(del[0].stem, "h-20240101-000001.000-1");
	assert_string_equal(del[1].stem, "h-20240101-000002.000-2");
	assert_string_equal(del[2].stem, "h-20240101-000003.000-3");
	assert_int_equal(del[0].bytes, 1000);
	assert_string_equal(del[0].reason, "r");
	assert_int_equal(del[2].error, 0);
	retention__free(del, nr);
	assert_false(exists("h-20240101-000003.000-3.perf.data"));
	assert_false(exists("h-20240101-000003.000-3.json"));
	assert_true(exists("h-20240101-000004.000-4.perf.data"));
	assert_true(exists("h-20240101-000005.000-5.json"));
	assert_true(exists("notes.txt"));
	assert_true(exists(".h-20240101-000000.000-0.perf.data.tmp"));

	/* Within the limits: nothing to do. */
	assert_int_equal(retention__enforce(dir, 2, 0, &del, &nr), 0);
	assert_null(del);
	assert_int_equal(nr, 0);
	assert_int_equal(retention__enforce(dir, 0, 0, &del, &nr), 0);
	assert_int_equal(nr, 0);
}

static void test_enforce_size(void **state)
{
	struct snapshot_entry *del = NULL, *v = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	/*
	 * Foreign files do not count, a crash's temporary does: 5000 bytes
	 * of snapshots and 100000 of temporary.
	 */
	assert_int_equal(retention__enforce(dir, 10, 102500, &del, &nr), 0);
	assert_int_equal(nr, 3);
	assert_string_equal(del[2].stem, "h-20240101-000003.000-3");
	retention__free(del, nr);
	assert_int_equal(retention__list(dir, &v, &nr), 0);
	assert_int_equal(nr, 2);
	retention__free(v, nr);
	/* Both limits: the tighter one wins. */
	assert_int_equal(retention__enforce(dir, 1, 100000, &del, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(del[0].stem, "h-20240101-000004.000-4");
	retention__free(del, nr);
}

/* s2 and s4 are not yet uploaded. */
static bool held_2_4(void *ctx, const char *stem)
{
	size_t len = strlen(stem);

	(void)ctx;
	return !strcmp(stem + len - 2, "-2") || !strcmp(stem + len - 2, "-4");
}

/* Held snapshots outlive max_snapshots; only max_total_size deletes them, forced. */
static void test_enforce_held(void **state)
{
	struct snapshot_entry *del = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	assert_int_equal(retention__enforce_held(dir, 1, 0, held_2_4, NULL, &del, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(del[0].stem, "h-20240101-000001.000-1");
	assert_string_equal(del[1].stem, "h-20240101-000003.000-3");
	assert_false(del[0].forced);
	assert_false(del[1].forced);
	retention__free(del, nr);
	assert_true(exists("h-20240101-000002.000-2.perf.data"));
	assert_true(exists("h-20240101-000004.000-4.json"));

	/*
	 * 3000 bytes left (2, 4, 5) and the crash's 100000-byte temporary:
	 * a 102000-byte limit forces the oldest held one out.
	 */
	assert_int_equal(retention__enforce_held(dir, 1, 102000, held_2_4, NULL, &del, &nr), 0);
	assert_int_equal(nr, 1);
	assert_string_equal(del[0].stem, "h-20240101-000002.000-2");
	assert_true(del[0].forced);
	retention__free(del, nr);
	assert_true(exists("h-20240101-000004.000-4.perf.data"));
	assert_true(exists("h-20240101-000005.000-5.perf.data"));
}

/* The deleted ones come back oldest first even when held ones were skipped between. */
static void test_enforce_held_order(void **state)
{
	struct snapshot_entry *del = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	assert_int_equal(retention__enforce_held(dir, 0, 1000, held_2_4, NULL, &del, &nr), 0);
	assert_int_equal(nr, 4);
	assert_string_equal(del[0].stem, "h-20240101-000001.000-1");
	assert_string_equal(del[1].stem, "h-20240101-000002.000-2");
	assert_string_equal(del[2].stem, "h-20240101-000003.000-3");
	assert_string_equal(del[3].stem, "h-20240101-000004.000-4");
	assert_false(del[0].forced);
	assert_true(del[1].forced);
	assert_false(del[2].forced);
	assert_true(del[3].forced);
	retention__free(del, nr);
}

static void test_temporaries_count(void **state)
{
	struct snapshot_entry *del = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	/* Without the temporary's 100000 bytes, 5000 would be within 10000. */
	assert_int_equal(retention__enforce(dir, 0, 10000, &del, &nr), 0);
	assert_int_equal(nr, 4);
	retention__free(del, nr);
	assert_true(exists(".h-20240101-000000.000-0.perf.data.tmp"));
}

struct removed_log {
	char names[8][128];
	uint64_t bytes[8];
	int nr;
};

static void on_removed(void *ctx, const char *name, uint64_t bytes, int err)
{
	struct removed_log *l = ctx;

	assert_int_equal(err, 0);
	assert_true(l->nr < 8);
	snprintf(l->names[l->nr], sizeof(l->names[0]), "%s", name);
	l->bytes[l->nr++] = bytes;
}

static void test_remove_temporaries(void **state)
{
	struct removed_log log = { 0 };
	char sub[128];
	uint64_t total = 0;

	(void)state;
	make_five();
	make_file(".h-20240101-000300.000-4.trace.dat.tmp", NULL, 300, 0);
	make_file(".perfsnapd-spill.Xy12zZ", NULL, 7, 0);
	make_file(".notes.txt.tmp", NULL, 5, 0);
	make_file(".perfsnapd-spill.toolong", NULL, 5, 0);
	/* A directory with a temporary's name is not removed, nor what it holds. */
	snprintf(sub, sizeof(sub), "%s/.h-20240101-000400.000-5.json.tmp", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	make_file(".h-20240101-000400.000-5.json.tmp/.h-20240101-000400.000-6.json.tmp", NULL, 1,
		  0);
	assert_int_equal(retention__remove_temporaries(dir, on_removed, &log), 3);
	assert_int_equal(log.nr, 3);
	for (int i = 0; i < log.nr; i++)
		total += log.bytes[i];
	assert_int_equal(total, 100000 + 300 + 7);
	assert_false(exists(".h-20240101-000000.000-0.perf.data.tmp"));
	assert_false(exists(".h-20240101-000300.000-4.trace.dat.tmp"));
	assert_false(exists(".perfsnapd-spill.Xy12zZ"));
	assert_true(exists(".notes.txt.tmp"));
	assert_true(exists(".perfsnapd-spill.toolong"));
	assert_true(exists("notes.txt"));
	assert_true(exists("h-20240101-000001.000-1.perf.data"));
	assert_true(exists(".h-20240101-000400.000-5.json.tmp/.h-20240101-000400.000-6.json.tmp"));
	assert_int_equal(retention__remove_temporaries("/nonexistent/perfsnapd", on_removed, &log),
			 -ENOENT);
}

static void test_newest_kept(void **state)
{
	struct snapshot_entry *del = NULL;
	size_t nr = 0;

	(void)state;
	make_five();
	/* Even when it alone is over the size limit. */
	assert_int_equal(retention__enforce(dir, 0, 10, &del, &nr), 0);
	assert_int_equal(nr, 4);
	retention__free(del, nr);
	assert_true(exists("h-20240101-000005.000-5.perf.data"));
	assert_true(exists("h-20240101-000005.000-5.json"));
	assert_int_equal(retention__enforce(dir, 1, 1, &del, &nr), 0);
	assert_int_equal(nr, 0);
	assert_true(exists("h-20240101-000005.000-5.perf.data"));
	assert_int_equal(retention__enforce("/nonexistent/perfsnapd", 1, 0, &del, &nr), -ENOENT);
}

static void test_enforce_unlink_fails(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	if (geteuid() != 0)
		test_skip("needs root");
	make_five();
	assert_int_equal(chmod(dir, 0755), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct snapshot_entry *del = NULL;
		size_t nr = 0;
		int r;

		/* Can list, cannot delete: stops at the first snapshot. */
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		r = retention__enforce(dir, 2, 0, &del, &nr);
		_exit(r == -EACCES && nr == 1 && del[0].error == -EACCES &&
				      !strcmp(del[0].stem, "h-20240101-000001.000-1") ?
			      0 :
			      1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_true(exists("h-20240101-000001.000-1.perf.data"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reason_tolerance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_order_same_mtime, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enforce_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enforce_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temporaries_count, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newest_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enforce_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enforce_held_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enforce_unlink_fails, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
