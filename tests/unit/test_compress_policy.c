// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for compress_policy (compression = auto): uncompressed until
 * measured, zstd tried only when writing got dear, the cheaper mode once
 * both are measured, and a stale measurement taken anew.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compress_policy.h"

#define MS  1000000ull
#define MIB (1024ull * 1024)

static bool choose(const struct compress_policy *p, uint64_t now, char *why)
{
	return compress_policy__choose(p, now, why, 160);
}

static void test_first_dump_uncompressed(void **state)
{
	struct compress_policy p = { 0 };
	char why[160];

	(void)state;
	assert_false(choose(&p, 1000 * MS, why));
	assert_non_null(strstr(why, "no recent uncompressed dump"));
}

static void test_dear_writing_tries_zstd(void **state)
{
	struct compress_policy p = { 0 };
	char why[160];

	(void)state;
	/* 64 MiB of records in 60 ms: cheap, stays uncompressed. */
	compress_policy__record(&p, false, 60 * MS, 64 * MIB, 1000 * MS);
	assert_false(choose(&p, 1001 * MS, why));
	/* In 200 ms: dearer than zstd usually is, so zstd is tried. */
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 2000 * MS);
	assert_true(choose(&p, 2001 * MS, why));
	assert_non_null(strstr(why, "zstd usually"));
}

static void test_cheaper_mode_wins(void **state)
{
	struct compress_policy p = { 0 };
	char why[160];

	(void)state;
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, 1000 * MS);
	compress_policy__record(&p, true, 90 * MS, 64 * MIB, 2000 * MS);
	assert_true(choose(&p, 2001 * MS, why));
	assert_non_null(strstr(why, "with zstd"));
	/* The disk got quick again: the next uncompressed dump says so. */
	compress_policy__record(&p, false, 40 * MS, 64 * MIB, 3000 * MS);
	assert_false(choose(&p, 3001 * MS, why));
	/* zstd measured dearer than uncompressed: stays off. */
	compress_policy__record(&p, true, 150 * MS, 64 * MIB, 4000 * MS);
	compress_policy__record(&p, false, 100 * MS, 64 * MIB, 4100 * MS);
	assert_false(choose(&p, 4101 * MS, why));
}

static void test_stale_measurement_taken_anew(void **state)
{
	struct compress_policy p = { 0 };
	char why[160];
	uint64_t t = 1000 * MS;

	(void)state;
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, t);
	compress_policy__record(&p, true, 90 * MS, 64 * MIB, t + 10 * MS);
	assert_true(choose(&p, t + COMPRESS_POLICY_VALID_NS, why));
	/* The uncompressed figure is too old: one uncompressed dump measures again. */
	assert_false(choose(&p, t + COMPRESS_POLICY_VALID_NS + 1, why));
	/* A stale zstd figure falls back to the usual cost. */
	compress_policy__record(&p, false, 200 * MS, 64 * MIB, t + 2 * COMPRESS_POLICY_VALID_NS);
	assert_true(choose(&p, t + 2 * COMPRESS_POLICY_VALID_NS + 1, why));
	assert_non_null(strstr(why, "zstd usually"));
}

static void test_tiny_dumps_ignored(void **state)
{
	struct compress_policy p = { 0 };
	char why[160];

	(void)state;
	/* Slow per byte, but 64 KiB says nothing about a full dump. */
	compress_policy__record(&p, false, 50 * MS, 64 * 1024, 1000 * MS);
	assert_false(choose(&p, 1001 * MS, why));
	assert_non_null(strstr(why, "no recent uncompressed dump"));
}

static void test_dump_cost(void **state)
{
	const uint64_t cost[] = { 74 * MS, 40 * MS };
	struct compress_policy p = { 0 };
	char why[160];

	(void)state;
	/* A CPU per file: the one synced last held the dump up. */
	assert_int_equal(compress_policy__dump_cost(cost, 2, 0, 2), 74 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, 2, 1, 8), 40 * MS);
	/* One CPU: they took turns, the stage lasted both. */
	assert_int_equal(compress_policy__dump_cost(cost, 2, 0, 1), 114 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, 2, 1, 1), 114 * MS);
	/* Unknown CPUs (0) and one file: the slowest alone. */
	assert_int_equal(compress_policy__dump_cost(cost, 2, 0, 0), 74 * MS);
	assert_int_equal(compress_policy__dump_cost(cost, 1, 0, 1), 74 * MS);
	/* Three files on two CPUs: at least half their sum. */
	assert_int_equal(compress_policy__dump_cost((const uint64_t[]){ 10 * MS, 50 * MS, 60 * MS },
						    3, 0, 2),
			 60 * MS);
	/*
	 * The quiet benchmark's case: 64 MiB of records whose perf.data took
	 * 74 ms and trace.dat 40 ms uncompressed on one CPU. The slowest file
	 * alone looked cheaper than zstd usually is; both together do not.
	 */
	compress_policy__record(&p, false, compress_policy__dump_cost(cost, 2, 0, 2), 64 * MIB,
				1000 * MS);
	assert_false(choose(&p, 1001 * MS, why));
	compress_policy__record(&p, false, compress_policy__dump_cost(cost, 2, 0, 1), 64 * MIB,
				2000 * MS);
	assert_true(choose(&p, 2001 * MS, why));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_dump_uncompressed),
		cmocka_unit_test(test_dear_writing_tries_zstd),
		cmocka_unit_test(test_cheaper_mode_wins),
		cmocka_unit_test(test_stale_measurement_taken_anew),
		cmocka_unit_test(test_tiny_dumps_ignored),
		cmocka_unit_test(test_dump_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
