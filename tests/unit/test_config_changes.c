// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config__changes(): what a reload says it changed, key by
 * key and trigger by trigger, and nothing when nothing changed.
 */
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "config.h"
#include "config_test.h"

#define HEAD "[capture]\nevents = sched:sched_switch\n[snapshot]\ndirectory = @DIR@\n"

static const struct perfsnapd_config *load(const char *text)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg = NULL;
	char *path;

	if (load_text(text, &path, &cfg, &d) < 0) {
		dump_diags(&d);
		fail_msg("config refused");
	}
	config_diags__clear(&d);
	free(path);
	return cfg;
}

/* @a reloaded as @b says @want, with @nr changes. */
static void expect_changes(const char *a, const char *b, int nr, const char *want)
{
	const struct perfsnapd_config *old = load(a), *new = load(b);
	char buf[512];

	assert_int_equal(config__changes(old, new, buf, sizeof(buf)), nr);
	assert_string_equal(buf, want);
	config__put(old);
	config__put(new);
}

static void test_nothing(void **state)
{
	(void)state;
	expect_changes(HEAD, HEAD "max_snapshots = 0\n", 0, "");
}

static void test_keys(void **state)
{
	(void)state;
	expect_changes(HEAD, HEAD "max_snapshots = 5\nformats = perf.data trace.dat\n", 2,
		       "[snapshot] formats, [snapshot] max_snapshots");
	expect_changes(HEAD "post_command = /bin/true\n", HEAD, 1, "[snapshot] post_command");
}

static void test_triggers(void **state)
{
	(void)state;
	expect_changes(HEAD "[trigger a]\n", HEAD "[trigger b]\n", 2,
		       "[trigger b] added, [trigger a] removed");
	expect_changes(HEAD "[trigger a]\n", HEAD "[trigger a]\nafter = 2s\n", 1,
		       "[trigger a] after");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_triggers),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
