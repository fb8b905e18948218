// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the paired triggers' user-space logic: pair_table (starts
 * by key, ends taking them, a full table) checked against a plain array
 * under random operations, and log2_hist's buckets and printed lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log2_hist.h"
#include "pair_table.h"

static void test_pairs_by_key(void **state)
{
	struct pair_table t;
	struct pair_start s = { .key = 42, .time = 1000, .cpu = 1, .pid = 7 }, got;

	(void)state;
	assert_int_equal(pair_table__init(&t, 64), 0);
	assert_false(pair_table__end(&t, 42, 2000, &got)); /* no start yet */
	pair_table__start(&t, &s);
	assert_false(pair_table__end(&t, 43, 2000, &got)); /* another key */
	assert_false(pair_table__end(&t, 42, 999, &got));  /* before its start */
	s.time = 1500;					   /* a later start replaces */
	pair_table__start(&t, &s);
	assert_true(pair_table__end(&t, 42, 4500, &got));
	assert_int_equal(got.time, 1500);
	assert_int_equal(got.cpu, 1);
	assert_int_equal(got.pid, 7);
	assert_false(pair_table__end(&t, 42, 5000, &got)); /* taken */
	assert_int_equal(t.nr, 0);
	pair_table__fini(&t);
}

static void test_full_table_drops(void **state)
{
	struct pair_table t;
	struct pair_start s = { 0 }, got;

	(void)state;
	assert_int_equal(pair_table__init(&t, 8), 0);
	for (uint64_t k = 1; k <= 10; k++) {
		s.key = k;
		s.time = k;
		pair_table__start(&t, &s);
	}
	assert_int_equal(t.nr, 7);
	assert_int_equal(t.dropped, 3);
	for (uint64_t k = 1; k <= 7; k++)
		assert_true(pair_table__end(&t, k, 100, &got));
	assert_false(pair_table__end(&t, 8, 100, &got));
	pair_table__fini(&t);
}

/* Random starts and ends over few keys in a small table: collisions and shifts. */
static void test_against_reference(void **state)
{
	enum { KEYS = 40, STEPS = 200000 };
	uint64_t ref[KEYS] = { 0 }; /* start time + 1, 0: none */
	struct pair_table t;
	struct pair_start s = { 0 }, got;

	(void)state;
	srand(36);
	assert_int_equal(pair_table__init(&t, 64), 0);
	for (uint64_t now = 1; now <= STEPS; now++) {
		uint64_t k = (uint64_t)rand() % KEYS;

		if (rand() % 2) {
			s.key = k * 0x10001; /* spread, and collide in the low bits */
			s.time = now;
			pair_table__start(&t, &s);
			ref[k] = now + 1;
		} else {
			bool found = pair_table__end(&t, k * 0x10001, now, &got);

			assert_int_equal(found, ref[k] != 0);
			if (found)
				assert_int_equal(got.time, ref[k] - 1);
			ref[k] = 0;
		}
	}
	assert_int_equal(t.dropped, 0);
	pair_table__fini(&t);
}

static void test_hist_buckets(void **state)
{
	struct log2_hist h = { { 0 } };
	char line[128];
	int n;

	(void)state;
	assert_int_equal(log2_hist__bucket(0), 0);
	assert_int_equal(log2_hist__bucket(1), 0);
	assert_int_equal(log2_hist__bucket(2), 1);
	assert_int_equal(log2_hist__bucket(3), 1);
	assert_int_equal(log2_hist__bucket(2048), 11);
	assert_int_equal(log2_hist__bucket(4095), 11);
	assert_int_equal(log2_hist__bucket(UINT64_MAX), LOG2_HIST_BUCKETS - 1);
	assert_int_equal(log2_hist__line(&h, -1, line, sizeof(line)), 0);
	for (int i = 0; i < 100; i++)
		log2_hist__add_ns(&h, 3000000); /* 3 ms: 2048 -> 4095 us */
	for (int i = 0; i < 50; i++)
		log2_hist__add_ns(&h, 5000); /* 5 us: 4 -> 7 */
	assert_int_equal(log2_hist__total(&h), 150);
	n = log2_hist__line(&h, -1, line, sizeof(line));
	assert_int_equal(n, 11 - 2 + 1);
	assert_non_null(strstr(line, "usecs"));
	log2_hist__line(&h, 0, line, sizeof(line));
	assert_string_equal(line,
			    "         4 -> 7          : 50       |********************            "
			    "        |");
	log2_hist__line(&h, n - 1, line, sizeof(line));
	assert_string_equal(line,
			    "      2048 -> 4095       : 100      |****************************"
			    "************|");
	log2_hist__line(&h, 1, line, sizeof(line));
	assert_non_null(strstr(line, "8 -> 15"));
	assert_non_null(strstr(line, ": 0 "));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pairs_by_key),
		cmocka_unit_test(test_full_table_drops),
		cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_hist_buckets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
