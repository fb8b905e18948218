// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for snapshot_name: stems made and read back, file names and
 * paths per format, the formats table, and what is not a snapshot's name.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "snapshot_name.h"

#define NOT_A_SNAPSHOT SNAPSHOT_NR_FILES

static void expect_name(const char *name, enum snapshot_file file, size_t stem_len)
{
	struct snapshot_name n = { .stem_len = 12345 };

	if (file == NOT_A_SNAPSHOT) {
		assert_int_equal(snapshot_name__parse(name, &n), -EINVAL);
		assert_int_equal(n.stem_len, 12345);
		return;
	}
	assert_int_equal(snapshot_name__parse(name, &n), 0);
	assert_int_equal(n.file, file);
	assert_int_equal(n.stem_len, stem_len);
}

static void test_parse_name(void **state)
{
	(void)state;
	expect_name("host-20240101-120000.123-1.perf.data", SNAPSHOT_FILE_PERFDATA, 26);
	expect_name("host-20240101-120000.123-1.trace.dat", SNAPSHOT_FILE_TRACEDAT, 26);
	expect_name("host-20240101-120000.123-1.json", SNAPSHOT_FILE_JSON, 26);
	expect_name("host-20240101-120000.123-1.pb.gz", SNAPSHOT_FILE_PPROF, 26);
	/* Hosts may hold dashes and dots; sequence numbers grow. */
	expect_name("web-01.example.com-20241231-235959.999-123456.perf.data",
		    SNAPSHOT_FILE_PERFDATA, 45);
	expect_name("h-20240229-000060.000-18446744073709551615.json", SNAPSHOT_FILE_JSON, 42);

	expect_name(".host-20240101-120000.123-1.perf.data.tmp", NOT_A_SNAPSHOT, 0);
	expect_name(".host-20240101-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123-1.perf.data.tmp", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123-1.perf.data~", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123-1.perfdata", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123-.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.123-1x.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("-20240101-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("20240101-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-2024011-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-120000.1234-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20241301-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101-250000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("host-20240101_120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("my host-20240101-120000.123-1.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("h-20240101-120000.123-123456789012345678901.perf.data", NOT_A_SNAPSHOT, 0);
	expect_name("perf.data", NOT_A_SNAPSHOT, 0);
	expect_name(".json", NOT_A_SNAPSHOT, 0);
	expect_name("", NOT_A_SNAPSHOT, 0);
}

/* make_stem, then parse back: host, sequence, every file of the stem. */
static void test_make_stem(void **state)
{
	struct timespec when = { .tv_sec = 1700000000, .tv_nsec = 987654321 };
	char stem[256], file[NAME_MAX + 1], path[64];
	struct snapshot_name n;
	struct tm tm;
	char expect[64];

	(void)state;
	assert_int_equal(snapshot_name__make_stem(stem, sizeof(stem), "web-01.example", &when, 42),
			 0);
	localtime_r(&when.tv_sec, &tm);
	strftime(expect, sizeof(expect), "web-01.example-%Y%m%d-%H%M%S.987-42", &tm);
	assert_string_equal(stem, expect);
	assert_int_equal(snapshot_name__parse_stem(stem, strlen(stem), &n), 0);
	assert_int_equal(n.host_len, strlen("web-01.example"));
	assert_int_equal(n.seq, 42);
	for (int f = 0; f < SNAPSHOT_NR_FILES; f++) {
		assert_int_equal(snapshot_name__file(file, sizeof(file), stem, f), 0);
		assert_int_equal(snapshot_name__parse(file, &n), 0);
		assert_int_equal(n.file, f);
		assert_int_equal(n.stem_len, strlen(stem));
	}
	assert_int_equal(
		snapshot_name__path(path, sizeof(path), "/var/lib/x", "s", SNAPSHOT_FILE_TRACEDAT),
		0);
	assert_string_equal(path, "/var/lib/x/s.trace.dat");
	assert_int_equal(snapshot_name__path(path, 10, "/var/lib/x", "s", SNAPSHOT_FILE_TRACEDAT),
			 -ENAMETOOLONG);
	assert_int_equal(snapshot_name__path(path, sizeof(path), "/d", "s", SNAPSHOT_NR_FILES),
			 -EINVAL);
	assert_int_equal(snapshot_name__make_stem(stem, 20, "host", &when, 1), -ENAMETOOLONG);
	/* Host names that would not read back. */
	assert_int_equal(snapshot_name__make_stem(stem, sizeof(stem), "", &when, 1), -EINVAL);
	assert_int_equal(snapshot_name__make_stem(stem, sizeof(stem), "my host", &when, 1),
			 -EINVAL);
	assert_int_equal(snapshot_name__make_stem(stem, sizeof(stem), ".hidden", &when, 1),
			 -EINVAL);
	assert_int_equal(snapshot_name__make_stem(stem, sizeof(stem), "a/b", &when, 1), -EINVAL);
}

/* One table: format names, suffixes, the sidecar last and no format. */
static void test_formats(void **state)
{
	(void)state;
	assert_int_equal(snapshot_name__format_of("perf.data"), SNAPSHOT_FILE_PERFDATA);
	assert_int_equal(snapshot_name__format_of("trace.dat"), SNAPSHOT_FILE_TRACEDAT);
	assert_int_equal(snapshot_name__format_of("pprof"), SNAPSHOT_FILE_PPROF);
	assert_string_equal(snapshot_name__suffix(SNAPSHOT_FILE_PPROF), ".pb.gz");
	assert_int_equal(snapshot_name__format_of("json"), -EINVAL);
	assert_int_equal(snapshot_name__format_of(".perf.data"), -EINVAL);
	assert_string_equal(snapshot_name__suffix(SNAPSHOT_FILE_PERFDATA), ".perf.data");
	assert_string_equal(snapshot_name__suffix(SNAPSHOT_FILE_JSON), ".json");
	assert_null(snapshot_name__format(SNAPSHOT_FILE_JSON));
	/* The symbol pack is a file of the snapshot, not a format. */
	assert_string_equal(snapshot_name__suffix(SNAPSHOT_FILE_SYMBOLS), ".symbols.tar");
	assert_null(snapshot_name__format(SNAPSHOT_FILE_SYMBOLS));
	assert_int_equal(snapshot_name__format_of("symbols"), -EINVAL);
	assert_null(snapshot_name__suffix(SNAPSHOT_NR_FILES));
	for (int f = 0; f < SNAPSHOT_NR_FILES; f++) {
		const char *fmt = snapshot_name__format(f);

		assert_non_null(snapshot_name__suffix(f));
		assert_true(fmt || f == SNAPSHOT_FILE_JSON || f == SNAPSHOT_FILE_SYMBOLS);
		if (fmt)
			assert_int_equal(snapshot_name__format_of(fmt), f);
	}
}

static void test_is_temporary(void **state)
{
	(void)state;
	assert_true(snapshot_name__is_temporary(".host-20240101-120000.123-1.perf.data.tmp"));
	assert_true(snapshot_name__is_temporary(".host-20240101-120000.123-1.trace.dat.tmp"));
	assert_true(snapshot_name__is_temporary(".host-20240101-120000.123-1.json.tmp"));
	assert_true(snapshot_name__is_temporary(".perfsnapd-spill.a1B2c3"));
	assert_true(snapshot_name__is_temporary(".host-20240101-120000.123-1.upload.tmp"));
	assert_false(snapshot_name__is_temporary(".host-20240101-120000.123-1.upload"));
	assert_false(snapshot_name__is_temporary(".notes.upload.tmp"));
	assert_false(snapshot_name__is_temporary(".upload.tmp"));
	assert_false(snapshot_name__is_temporary("host-20240101-120000.123-1.perf.data.tmp"));
	assert_false(snapshot_name__is_temporary(".host-20240101-120000.123-1.perf.data"));
	assert_false(snapshot_name__is_temporary(".notes.tmp"));
	assert_false(snapshot_name__is_temporary(".tmp"));
	assert_false(snapshot_name__is_temporary("..tmp"));
	assert_false(snapshot_name__is_temporary(".perfsnapd-spill.a1B2c"));
	assert_false(snapshot_name__is_temporary(".perfsnapd-spill.a1B2c3d"));
	assert_false(snapshot_name__is_temporary(".perfsnapd-spill.a1/2c3"));
	assert_false(snapshot_name__is_temporary(".perfsnapd-spill."));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_name),
		cmocka_unit_test(test_make_stem),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_is_temporary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
