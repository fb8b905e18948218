// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config_values: each value syntax of perfsnapd.conf on its
 * own (sizes, durations, counts, yes/no, names, CPU lists), its bounds, and
 * that the formatters write what the parsers read back. No files, no root.
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
#include <cmocka.h>

#include "config_value.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define UNTOUCHED     0x5a5a5a5a5a5a5a5aull
#define GIB	      (1ull << 30)
#define TIB	      (1ull << 40)
#define DAY_MS	      (24ull * 3600 * 1000)

struct number_case {
	const char *text;
	int r;
	uint64_t value; /* when r == 0 */
};

/* Runs @cases through @parse with [@min, @max]; failures leave *ret alone. */
static void check_numbers(int (*parse)(const char *s, uint64_t min, uint64_t max, uint64_t *ret),
			  const struct number_case *cases, size_t nr, uint64_t min, uint64_t max)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		uint64_t v = UNTOUCHED;
		int r = parse(cases[i].text, min, max, &v);

		if (r != cases[i].r)
			fail_msg("'%s': returned %d, expected %d", cases[i].text, r, cases[i].r);
		if (r == 0 && v != cases[i].value)
			fail_msg("'%s': got %llu, expected %llu", cases[i].text,
				 (unsigned long long)v, (unsigned long long)cases[i].value);
		if (r != 0 && v != UNTOUCHED)
			fail_msg("'%s': result set on failure", cases[i].text);
	}
}

static void test_size(void **state)
{
	static const struct number_case cases[] = {
		{ "1", 0, 1 },
		{ "5000", 0, 5000 },
		{ "4k", 0, 4096 },
		{ "3K", 0, 3072 },
		{ "12M", 0, 12 << 20 },
		{ "12m", 0, 12 << 20 },
		{ "1G", 0, GIB },
		{ "1024M", 0, GIB },
		{ "007", 0, 7 },
		/* Syntax. */
		{ "", -EINVAL, 0 },
		{ "M", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ " 1", -EINVAL, 0 },
		{ "1 ", -EINVAL, 0 },
		{ "4 M", -EINVAL, 0 },
		{ "4MB", -EINVAL, 0 },
		{ "4Q", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "1.5M", -EINVAL, 0 },
		{ "4KK", -EINVAL, 0 },
		{ "99999999999999999999Q", -EINVAL, 0 },
		/* Bounds: here 1 byte to 1G. */
		{ "0", -ERANGE, 0 },
		{ "0K", -ERANGE, 0 },
		{ "1025M", -ERANGE, 0 },
		{ "2G", -ERANGE, 0 },
		{ "1T", -ERANGE, 0 },
		{ "1073741825", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "17179869184G", -ERANGE, 0 },
		{ "18446744073709551615K", -ERANGE, 0 },
	};

	(void)state;
	check_numbers(config_value__parse_size, cases, ARRAY_SIZE(cases), 1, GIB);
}

static void test_size_bounds(void **state)
{
	static const struct number_case zero_to_tib[] = {
		{ "0", 0, 0 },	      { "1T", 0, TIB },	       { "1t", 0, TIB },
		{ "1024G", 0, TIB },  { "1025G", -ERANGE, 0 }, { "2T", -ERANGE, 0 },
		{ "1P", -EINVAL, 0 },
	};
	static const struct number_case exact[] = {
		{ "4K", 0, 4096 },
		{ "4095", -ERANGE, 0 },
		{ "4097", -ERANGE, 0 },
	};
	uint64_t v = 0;

	(void)state;
	check_numbers(config_value__parse_size, zero_to_tib, ARRAY_SIZE(zero_to_tib), 0, TIB);
	check_numbers(config_value__parse_size, exact, ARRAY_SIZE(exact), 4096, 4096);
	assert_int_equal(config_value__parse_size("16E", 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(config_value__parse_size("16383T", 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 16383 * TIB);
	assert_int_equal(config_value__parse_size("16777216T", 0, UINT64_MAX, &v), -ERANGE);
}

static void test_duration(void **state)
{
	static const struct number_case cases[] = {
		{ "0", 0, 0 },
		{ "0ms", 0, 0 },
		{ "0s", 0, 0 },
		{ "0h", 0, 0 },
		{ "1ms", 0, 1 },
		{ "500ms", 0, 500 },
		{ "5s", 0, 5000 },
		{ "2m", 0, 120000 },
		{ "1h", 0, 3600000 },
		{ "24h", 0, DAY_MS },
		{ "1440m", 0, DAY_MS },
		{ "86400000ms", 0, DAY_MS },
		/* A unit is needed, in lower case, right after the digits. */
		{ "5", -EINVAL, 0 },
		{ "60", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "ms", -EINVAL, 0 },
		{ "5S", -EINVAL, 0 },
		{ "5M", -EINVAL, 0 },
		{ "5H", -EINVAL, 0 },
		{ "5 s", -EINVAL, 0 },
		{ " 5s", -EINVAL, 0 },
		{ "5s ", -EINVAL, 0 },
		{ "5sec", -EINVAL, 0 },
		{ "5min", -EINVAL, 0 },
		{ "5us", -EINVAL, 0 },
		{ "5d", -EINVAL, 0 },
		{ "1.5s", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "+1s", -EINVAL, 0 },
		{ "1m30s", -EINVAL, 0 },
		{ "00", 0, 0 },
		{ "99999999999999999999", -EINVAL, 0 },
		/* Bounds: here 0 to 24h. */
		{ "25h", -ERANGE, 0 },
		{ "1441m", -ERANGE, 0 },
		{ "86400001ms", -ERANGE, 0 },
		{ "99999999999999999999h", -ERANGE, 0 },
		{ "18446744073709551615h", -ERANGE, 0 },
	};
	static const struct number_case positive[] = {
		{ "0", -ERANGE, 0 },
		{ "0s", -ERANGE, 0 },
		{ "1ms", 0, 1 },
		{ "60s", 0, 60000 },
	};

	(void)state;
	check_numbers(config_value__parse_duration, cases, ARRAY_SIZE(cases), 0, DAY_MS);
	check_numbers(config_value__parse_duration, positive, ARRAY_SIZE(positive), 1, DAY_MS);
}

static void test_count(void **state)
{
	static const struct number_case cases[] = {
		{ "64", 0, 64 },
		{ "65536", 0, 65536 },
		{ "16777216", 0, 16777216 },
		{ "0064", 0, 64 },
		{ "", -EINVAL, 0 },
		{ "-64", -EINVAL, 0 },
		{ "+64", -EINVAL, 0 },
		{ " 64", -EINVAL, 0 },
		{ "64 ", -EINVAL, 0 },
		{ "64k", -EINVAL, 0 },
		{ "1e6", -EINVAL, 0 },
		{ "0x40", -EINVAL, 0 },
		{ "lots", -EINVAL, 0 },
		{ "0", -ERANGE, 0 },
		{ "63", -ERANGE, 0 },
		{ "16777217", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
	};
	static const struct number_case from_zero[] = {
		{ "0", 0, 0 },
		{ "3600", 0, 3600 },
		{ "3601", -ERANGE, 0 },
	};

	(void)state;
	check_numbers(config_value__parse_count, cases, ARRAY_SIZE(cases), 64, 16777216);
	check_numbers(config_value__parse_count, from_zero, ARRAY_SIZE(from_zero), 0, 3600);
}

static void test_bool(void **state)
{
	static const char *const bad[] = { "",	"Yes", "YES", "no ", "true", "false",
					   "1", "0",   "on",  "off", "y",    "n" };
	bool v = false;
	size_t i;

	(void)state;
	assert_int_equal(config_value__parse_bool("yes", &v), 0);
	assert_true(v);
	assert_int_equal(config_value__parse_bool("no", &v), 0);
	assert_false(v);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = true;
		if (config_value__parse_bool(bad[i], &v) != -EINVAL)
			fail_msg("'%s' accepted as yes/no", bad[i]);
		assert_true(v);
	}
}

static void test_name(void **state)
{
	static const char *const names[] = { "perf", "monotonic", "boottime", "realtime", NULL };
	static const char *const bad[] = { "", "Perf", "mono", "perfx", " perf", "boot" };
	unsigned int i, v;

	(void)state;
	for (i = 0; names[i]; i++) {
		v = 99;
		assert_int_equal(config_value__parse_name(names[i], names, &v), 0);
		assert_int_equal(v, i);
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 99;
		assert_int_equal(config_value__parse_name(bad[i], names, &v), -EINVAL);
		assert_int_equal(v, 99);
	}
}

static void test_cpu_list_syntax(void **state)
{
	static const char *const good[] = { "0",     "0-3", "0-3,8",	 "0, 1 ,2",
					    "3,0-2", "1-1", "2147483647" };
	static const char *const bad[] = { "",	 "all", "none", "0-", "-1",    "3-1",	    "0,,1",
					   "0,", "1 2", "0x1",	",0", "0-1-2", "2147483648" };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (config_value__check_cpu_list(good[i]))
			fail_msg("'%s' rejected", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (config_value__check_cpu_list(bad[i]) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
}

static void test_cpu_list_map(void **state)
{
	unsigned int nr = 0;
	bool *map = NULL;

	(void)state;
	assert_int_equal(config_value__parse_cpu_list("0-2,5", &map, &nr), 0);
	assert_int_equal(nr, 6);
	assert_true(map[0] && map[1] && map[2] && !map[3] && !map[4] && map[5]);
	free(map);

	map = NULL;
	assert_int_equal(config_value__parse_cpu_list("0-1,x", &map, &nr), -EINVAL);
	assert_int_equal(config_value__parse_cpu_list("", &map, &nr), -EINVAL);
	/* Not a CPU count anyone has: refused before allocating for it. */
	assert_int_equal(config_value__parse_cpu_list("0-2147483647", &map, &nr), -ERANGE);
	assert_null(map);
}

static void test_normalize_cpus(void **state)
{
	static const struct {
		const char *text, *normal;
	} cases[] = {
		{ "0", "0" },	  { "3,0-2, 1", "0-3" }, { "0, 0-0,0", "0" },
		{ "5,1", "1,5" }, { "8,4-5", "4-5,8" },	 { "0-5,8", "0-5,8" },
	};
	unsigned int nr = 0, bad;
	bool *possible = NULL;
	char *text;
	size_t i;

	(void)state;
	/* CPUs 6 and 7 do not exist (offline or absent). */
	assert_int_equal(config_value__parse_cpu_list("0-5,8", &possible, &nr), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		text = NULL;
		assert_int_equal(
			config_value__normalize_cpus(cases[i].text, possible, nr, &text, &bad), 0);
		assert_string_equal(text, cases[i].normal);
		free(text);
	}
	text = NULL;
	bad = 0;
	assert_int_equal(config_value__normalize_cpus("0-8", possible, nr, &text, &bad), -ERANGE);
	assert_int_equal(bad, 6);
	assert_int_equal(config_value__normalize_cpus("0,65535", possible, nr, &text, &bad),
			 -ERANGE);
	assert_int_equal(bad, 65535);
	assert_int_equal(config_value__normalize_cpus("0-", possible, nr, &text, &bad), -EINVAL);
	assert_null(text);
	free(possible);
}

static void test_format(void **state)
{
	static const struct {
		uint64_t v;
		const char *size, *duration;
	} cases[] = {
		{ 0, "0", "0" },
		{ 1, "1", "1ms" },
		{ 500, "500", "500ms" },
		{ 1000, "1000", "1s" },
		{ 1024, "1K", "1024ms" },
		{ 1536, "1536", "1536ms" },
		{ 60000, "60000", "1m" },
		{ 90000, "90000", "90s" },
		{ 3600000, "3600000", "1h" },
		{ 5400000, "5400000", "90m" },
		{ 4096, "4K", "4096ms" },
		{ 1 << 20, "1M", "1048576ms" },
		{ 3 * GIB, "3G", "3221225472ms" },
		{ TIB, "1T", "1099511627776ms" },
		{ 1536 * GIB, "1536G", "1649267441664ms" },
		{ UINT64_MAX, "18446744073709551615", "18446744073709551615ms" },
	};
	char buf[CONFIG_VALUE_FORMAT_MAX];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		config_value__format_size(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].size);
		config_value__format_duration(cases[i].v, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].duration);
	}
}

/* What is formatted parses back to the same value. */
static void test_format_round_trip(void **state)
{
	static const uint64_t values[] = { 0,	  1,	 999,	  1000,	   1024,    4096, 5000,
					   60000, 61000, 3600000, 1 << 20, 3 * GIB, TIB,  DAY_MS };
	char buf[CONFIG_VALUE_FORMAT_MAX];
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(values); i++) {
		config_value__format_size(values[i], buf, sizeof(buf));
		assert_int_equal(config_value__parse_size(buf, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, values[i]);
		config_value__format_duration(values[i], buf, sizeof(buf));
		assert_int_equal(config_value__parse_duration(buf, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, values[i]);
	}
}

static void test_join_names(void **state)
{
	static const char *const names[] = { "none", "zstd", NULL };
	static const char *const none[] = { NULL };
	char buf[64], tiny[6];

	(void)state;
	config_value__join_names(names, buf, sizeof(buf));
	assert_string_equal(buf, "none, zstd");
	config_value__join_names(none, buf, sizeof(buf));
	assert_string_equal(buf, "");
	/* Cut short, still a string. */
	config_value__join_names(names, tiny, sizeof(tiny));
	assert_string_equal(tiny, "none,");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_size_bounds),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_cpu_list_syntax),
		cmocka_unit_test(test_cpu_list_map),
		cmocka_unit_test(test_normalize_cpus),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_join_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
