// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for what config_reader makes of hostile or odd input: NUL and
 * other control bytes, comments longer than inih's line buffer, key lines
 * over the documented limit, and a file with thousands of errors, whose
 * printed report is bounded. Uses only software events, so no tracefs.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "config.h"

static char tmpdir[] = "/tmp/test_config_input.XXXXXX";
static char path[sizeof(tmpdir) + 16];

/*
 * Writes @size bytes of @text (NULs included) to tmpdir/in.conf, each
 * "@DIR@" as tmpdir (a directory only we may write), and loads it.
 */
static int load(const char *text, size_t size, const struct perfsnapd_config **cfg,
		struct config_diags *d)
{
	FILE *f = fopen(path, "w");
	const char *at;

	assert_non_null(f);
	while ((at = memmem(text, size, "@DIR@", 5))) {
		assert_int_equal(fwrite(text, 1, (size_t)(at - text), f), (size_t)(at - text));
		fputs(tmpdir, f);
		size -= (size_t)(at - text) + 5;
		text = at + 5;
	}
	assert_int_equal(fwrite(text, 1, size, f), size);
	assert_int_equal(fclose(f), 0);
	*cfg = NULL;
	return config__load(path, NULL, cfg, d);
}

#define LOAD(lit, cfg, d) load(lit, sizeof(lit) - 1, cfg, d)

static bool has_diag(const struct config_diags *d, int line, const char *needle)
{
	for (size_t i = 0; i < d->nr; i++)
		if (d->items[i].line == line && strstr(d->items[i].message, needle))
			return true;
	return false;
}

/* A file with a NUL byte: refused, with a diagnostic at @line holding @needle. */
struct nul_case {
	const char *text;
	size_t size; /* of text, its NULs included */
	int line;
	const char *needle;
};

#define NUL_CASE(lit, line, needle)                \
	{                                          \
		lit, sizeof(lit) - 1, line, needle \
	}

static const struct nul_case nul_cases[] = {
	/* Before the fix these loaded as "cpu-clock" and "8M". */
	NUL_CASE("[capture]\nevents = cpu-clock\0 bogus:x\n[snapshot]\ndirectory = @DIR@\n", 2,
		 "control byte 0x00 at column 19"),
	NUL_CASE(
		"[capture]\nevents = cpu-clock\nbuffer_size = 8M\0Q\n[snapshot]\ndirectory = @DIR@\n",
		3, "control byte 0x00"),
	/* In a comment too: a NUL means this is not the text file it seems. */
	NUL_CASE("; a\0b\n[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n", 1,
		 "control byte 0x00"),
};

static void test_nul_byte_is_an_error(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;

	(void)state;
	for (size_t i = 0; i < sizeof(nul_cases) / sizeof(nul_cases[0]); i++) {
		const struct nul_case *c = &nul_cases[i];

		assert_int_equal(load(c->text, c->size, &cfg, &d), -EINVAL);
		assert_null(cfg);
		if (!has_diag(&d, c->line, c->needle))
			fail_msg("case %zu: no diagnostic at line %d holding '%s'", i, c->line,
				 c->needle);
		config_diags__clear(&d);
	}
}

static void test_control_bytes(void **state)
{
	static const char bytes[] = { 0x01, 0x08, 0x0b, 0x0c, 0x1b, 0x7f, '\r' };
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char text[128];

	(void)state;
	for (size_t i = 0; i < sizeof(bytes); i++) {
		int n = snprintf(text, sizeof(text),
				 "[capture]\nevents = cpu-clock\ncpus = %c0\n[snapshot]\n"
				 "directory = @DIR@\n",
				 bytes[i]);
		char needle[32];

		assert_int_equal(load(text, n, &cfg, &d), -EINVAL);
		snprintf(needle, sizeof(needle), "control byte 0x%02x", (unsigned char)bytes[i]);
		assert_true(has_diag(&d, 3, needle));
		config_diags__clear(&d);
	}
	/* Tabs, CRLF line ends and UTF-8 are text. */
	assert_int_equal(LOAD("\xEF\xBB\xBF[capture]\r\nevents =\tcpu-clock\t; caf\xC3\xA9\r\n"
			      "[snapshot]\r\ndirectory = @DIR@\r\n",
			      &cfg, &d),
			 0);
	assert_int_equal(d.nr, 0);
	config__put(cfg);
}

static void test_long_comment(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *text, *c = malloc(5001);

	(void)state;
	assert_non_null(c);
	memset(c, 'x', 5000);
	c[5000] = '\0';
	assert_true(asprintf(&text,
			     "; %s\n[capture]\n# %s\nevents = cpu-clock\n\t; %s\n"
			     "[snapshot]\ndirectory = @DIR@\n",
			     c, c, c) > 0);
	assert_int_equal(load(text, strlen(text), &cfg, &d), 0);
	assert_int_equal(d.nr, 0);
	assert_int_equal(cfg->nr_events, 1);
	config__put(cfg);
	free(text);

	/* A key line still has its limit, and says so. */
	c[CONFIG_LINE_MAX + 1 - strlen("events = cpu-clock ")] = '\0';
	assert_true(asprintf(&text,
			     "[capture]\nevents = cpu-clock %s\n[snapshot]\ndirectory = @DIR@\n",
			     c) > 0);
	assert_int_equal(load(text, strlen(text), &cfg, &d), -EINVAL);
	assert_true(has_diag(&d, 2, "line too long"));
	config_diags__clear(&d);
	free(text);
	c[CONFIG_LINE_MAX - strlen("events = cpu-clock ")] = '\0';
	assert_true(asprintf(&text,
			     "[capture]\nevents = cpu-clock %s\n[snapshot]\ndirectory = @DIR@\n",
			     c) > 0);
	assert_int_equal(load(text, strlen(text), &cfg, &d), -EINVAL);
	assert_false(has_diag(&d, 2, "line too long"));
	assert_true(has_diag(&d, 2, "unknown event"));
	config_diags__clear(&d);
	free(text);
	free(c);
}

static void test_error_output_bounded(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *out = NULL, *text = NULL, *last;
	size_t out_size = 0, text_size = 0, lines = 0;
	FILE *f = open_memstream(&text, &text_size);

	(void)state;
	assert_non_null(f);
	fputs("[capture]\nevents = cpu-clock\n", f);
	for (int i = 0; i < 5000; i++)
		fprintf(f, "bogus%d = 1\n", i);
	fclose(f);
	assert_int_equal(load(text, text_size, &cfg, &d), -EINVAL);
	assert_true(d.nr >= 5000);

	f = open_memstream(&out, &out_size);
	config_diags__print(&d, f);
	fclose(f);
	for (char *p = out; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, CONFIG_DIAGS_PRINT_MAX + 1);
	last = strrchr(out, '\n');
	*last = '\0';
	last = strrchr(out, '\n') + 1;
	assert_int_equal(strncmp(last, "... and ", 8), 0);
	assert_int_equal(strtoul(last + 8, NULL, 10), d.nr - CONFIG_DIAGS_PRINT_MAX);
	assert_non_null(strstr(last, " more errors"));
	config_diags__clear(&d);
	free(out);
	free(text);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/in.conf", tmpdir);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nul_byte_is_an_error),
		cmocka_unit_test(test_control_bytes),
		cmocka_unit_test(test_long_comment),
		cmocka_unit_test(test_error_output_bounded),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
