// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for log_limit: the first occurrence passes, then one per
 * LOG_LIMIT_EVERY_NS, each saying how many were held back before it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "log.h"

#define SEC 1000000000ull

struct step {
	uint64_t now_ns;
	bool pass;
	uint64_t quiet; /* when it passes */
};

static const struct step steps[] = {
	{ 0, true, 0 }, /* a clock at 0 is still a first time */
	{ 1, false, 0 },	{ 59 * SEC, false, 0 },	 { 60 * SEC, true, 2 },
	{ 61 * SEC, false, 0 }, { 500 * SEC, true, 1 },	 { 560 * SEC - 1, false, 0 },
	{ 560 * SEC, true, 1 }, { 1000 * SEC, true, 0 },
};

static void test_steps(void **state)
{
	struct log_limit l = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint64_t quiet = 12345;
		bool pass = log_limit__pass(&l, steps[i].now_ns, &quiet);

		if (pass != steps[i].pass || (pass && quiet != steps[i].quiet))
			fail_msg("step %zu: %s with %llu held back, want %s with %llu", i,
				 pass ? "passed" : "held", (unsigned long long)quiet,
				 steps[i].pass ? "passed" : "held",
				 (unsigned long long)steps[i].quiet);
	}
}

static void test_note(void **state)
{
	char buf[96];

	(void)state;
	assert_string_equal(log_limit__note(0, buf, sizeof(buf)),
			    " (at most one such line a minute)");
	assert_string_equal(log_limit__note(902, buf, sizeof(buf)),
			    " (902 more since the last such line; at most one a minute)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_note),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
