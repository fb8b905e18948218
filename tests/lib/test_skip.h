/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_skip: cmocka's skip(), with the reason printed, and a failure under
 * CI=true (.ci/run): where CI runs, every test has what it needs, and a
 * skip there would pass for a test that ran. Include after <cmocka.h>.
 */
#ifndef PERFSNAPD_TEST_SKIP_H
#define PERFSNAPD_TEST_SKIP_H

#include <stdlib.h>
#include <string.h>

#define test_skip(why)                                                \
	do {                                                          \
		const char *ci_ = getenv("CI");                       \
		if (ci_ && !strcmp(ci_, "true"))                      \
			fail_msg("skipped under CI=true: %s", (why)); \
		print_message("skipped: %s\n", (why));                \
		skip();                                               \
	} while (0)

#endif
