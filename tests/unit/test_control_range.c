// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for control_range: the durations, times and sizes of
 * perfsnapctl dump --last/--since/--until/--max-size, the checks that
 * refuse an empty or future window, and the request options perfsnapd
 * reads back. No files, no root.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "control_range.h"

#define SEC 1000000000ll

static void test_duration(void **state)
{
	static const struct {
		const char *text;
		uint64_t ns; /* 0: refused */
	} cases[] = {
		{ "2s", 2 * SEC },
		{ "1.5s", 1500000000 },
		{ "500ms", 500000000 },
		{ "1m", 60 * SEC },
		{ "1h", 3600 * SEC },
		{ "250us", 250000 },
		{ "7ns", 7 },
		{ "0.001s", 1000000 },
		{ "0", 0 },
		{ "0s", 0 },
		{ "2", 0 },
		{ "s", 0 },
		{ "-2s", 0 },
		{ "2 s", 0 },
		{ "2S", 0 },
		{ "1.s", 0 },
		{ "2sec", 0 },
		{ "", 0 },
		{ "99999999999999999999s", 0 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 42;
		char err[CONTROL_RANGE_ERROR_MAX] = "";
		int r = control_range__parse_duration(cases[i].text, &v, err, sizeof(err));

		if (cases[i].ns) {
			assert_int_equal(r, 0);
			assert_int_equal(v, cases[i].ns);
		} else {
			assert_int_equal(r, -EINVAL);
			assert_int_equal(v, 42);
			assert_true(err[0]);
		}
	}
}

static void test_time_relative(void **state)
{
	struct control_time t;
	char err[CONTROL_RANGE_ERROR_MAX] = "";

	(void)state;
	assert_int_equal(control_range__parse_time("-5s", &t, err, sizeof(err)), 0);
	assert_true(t.set && t.relative);
	assert_int_equal(t.ns, -5 * SEC);
	assert_int_equal(control_range__parse_time("-0.25s", &t, err, sizeof(err)), 0);
	assert_int_equal(t.ns, -250000000);
	assert_int_equal(control_range__parse_time("+5s", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "future"));
	assert_int_equal(control_range__parse_time("-0s", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_time("-x", &t, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_time("5s", &t, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ISO 8601"));
}

static void test_time_iso(void **state)
{
	/* 2026-12-05T21:40:00Z */
	const int64_t base = 1796506800ll * SEC;
	static const struct {
		const char *text;
		int64_t off; /* from base */
	} good[] = {
		{ "2026-12-05T21:40:00Z", 0 },
		{ "2026-12-05t21:40:00z", 0 },
		{ "2026-12-05T21:40:00.5Z", SEC / 2 },
		{ "2026-12-05T21:40:00,123456789Z", 123456789 },
		{ "2026-12-05T22:40:00+01:00", 0 },
		{ "2026-12-05T22:40:00+0100", 0 },
		{ "2026-12-05T22:40:00+01", 0 },
		{ "2026-12-05T16:10:00-05:30", 0 },
		{ "2026-12-05 21:40:00.250Z", SEC / 4 },
	};
	static const char *const bad[] = {
		"2026-12-05",
		"2026-12-05T21:40Z",
		"2026-13-05T21:40:00Z",
		"2026-12-05T25:40:00Z",
		"2026-12-05T21:40:00+1",
		"2026-12-05T21:40:00.Z",
		"2026-12-05T21:40:00Q",
		"2026-12-05T21:40:00+01:0",
		"2026-12-05T21:40:00.1234567890Z",
		/* Past int64 nanoseconds (2262): refused, not wrapped (issue 53). */
		"2262-04-12T00:00:00Z",
		"9999-12-31T23:59:59Z",
		"yesterday",
		"",
	};
	struct control_time t;
	char err[CONTROL_RANGE_ERROR_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		t = (struct control_time){ 0 };
		assert_int_equal(control_range__parse_time(good[i].text, &t, err, sizeof(err)), 0);
		assert_true(t.set && !t.relative);
		assert_int_equal(t.ns, base + good[i].off);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		t = (struct control_time){ 0 };
		err[0] = '\0';
		assert_int_equal(control_range__parse_time(bad[i], &t, err, sizeof(err)), -EINVAL);
		assert_false(t.set);
		assert_true(err[0]);
	}
	/* No zone: local time, as ISO 8601 says. */
	setenv("TZ", "UTC+2", 1);
	tzset();
	assert_int_equal(control_range__parse_time("2026-12-05T19:40:00", &t, err, sizeof(err)), 0);
	assert_int_equal(t.ns, base);
	unsetenv("TZ");
	tzset();
}

static void test_size(void **state)
{
	uint64_t v = 0;
	char err[CONTROL_RANGE_ERROR_MAX];

	(void)state;
	assert_int_equal(control_range__parse_size("50M", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 50ull << 20);
	assert_int_equal(control_range__parse_size("4096", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(control_range__parse_size("1G", &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(control_range__parse_size("0", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_size("0M", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_size("-1M", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_size("1.5M", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_size("5Q", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(control_range__parse_size("99999999999T", &v, err, sizeof(err)), -EINVAL);
	assert_int_equal(v, 1ull << 30);
}

static void test_check(void **state)
{
	const int64_t now = 1796506800ll * SEC;
	char err[CONTROL_RANGE_ERROR_MAX];
	struct control_range w = { .since = { .set = true, .relative = true, .ns = -2 * SEC } };

	(void)state;
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), 0);
	/* --since after --until, mixed relative and absolute */
	w.until = (struct control_time){ .set = true, .ns = now - 3 * SEC };
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--since is not before --until"));
	/* equal: empty */
	w.until = (struct control_time){ .set = true, .relative = true, .ns = -2 * SEC };
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), -EINVAL);
	/* a start in the future */
	w = (struct control_range){ .since = { .set = true, .ns = now + SEC } };
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not in the past"));
	/* an end in the future is now */
	w = (struct control_range){ .since = { .set = true, .ns = now - SEC },
				    .until = { .set = true, .ns = now + SEC } };
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), 0);
	/* only a size */
	w = (struct control_range){ .max_size = 1 << 20 };
	assert_int_equal(control_range__check(&w, now, err, sizeof(err)), 0);
}

static void test_wire(void **state)
{
	struct control_range w = {
		.since = { .set = true, .ns = 1796506800ll * SEC },
		.until = { .set = true, .relative = true, .ns = -SEC },
		.max_size = 50 << 20,
	};
	struct control_range back;
	char buf[CONTROL_RANGE_WIRE_MAX], line[256], err[CONTROL_RANGE_ERROR_MAX];
	const char *rest = NULL;

	(void)state;
	control_range__format(&w, buf, sizeof(buf));
	assert_string_equal(buf,
			    "--since=@1796506800000000000 --until=-1000000000 --max-size=52428800");
	snprintf(line, sizeof(line), "%s -- --my reason", buf);
	assert_int_equal(control_range__parse_options(line, &back, &rest, err, sizeof(err)), 0);
	assert_memory_equal(&back, &w, sizeof(w));
	assert_string_equal(rest, "--my reason");
	/* A plain reason stays a reason. */
	assert_int_equal(control_range__parse_options("my reason", &back, &rest, err, sizeof(err)),
			 0);
	assert_false(control_range__is_set(&back));
	assert_string_equal(rest, "my reason");
	w = (struct control_range){ 0 };
	control_range__format(&w, buf, sizeof(buf));
	assert_string_equal(buf, "");
	assert_int_equal(control_range__parse_options("--since=5", &back, &rest, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(
		control_range__parse_options("--since=@-5", &back, &rest, err, sizeof(err)),
		-EINVAL);
	assert_int_equal(
		control_range__parse_options("--max-size=0", &back, &rest, err, sizeof(err)),
		-EINVAL);
	assert_int_equal(
		control_range__parse_options("--last=2s x", &back, &rest, err, sizeof(err)),
		-EINVAL);
	assert_non_null(strstr(err, "unknown dump option '--last=2s'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration), cmocka_unit_test(test_time_relative),
		cmocka_unit_test(test_time_iso), cmocka_unit_test(test_size),
		cmocka_unit_test(test_check),	 cmocka_unit_test(test_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
