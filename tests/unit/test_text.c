// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for text: which byte sequences are UTF-8 (RFC 3629's table,
 * its edges on both sides), and what text__sanitize() leaves of a string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "text.h"

struct utf8_case {
	const char *bytes;
	size_t len; /* what text__utf8_len() says of its start */
};

static const struct utf8_case utf8_cases[] = {
	{ "a", 1 },
	{ "\x7f", 1 }, /* a control character, but UTF-8 */
	{ "\xc2\x80", 2 },
	{ "\xdf\xbf", 2 },
	{ "\xe0\xa0\x80", 3 },
	{ "\xed\x9f\xbf", 3 }, /* U+D7FF, below the surrogates */
	{ "\xee\x80\x80", 3 },
	{ "\xef\xbf\xbd", 3 }, /* U+FFFD */
	{ "\xf0\x90\x80\x80", 4 },
	{ "\xf4\x8f\xbf\xbf", 4 }, /* U+10FFFF */
	{ "\x80", 0 },		   /* a continuation byte alone */
	{ "\xbf", 0 },
	{ "\xc0\x80", 0 }, /* overlong NUL */
	{ "\xc1\xbf", 0 }, /* overlong */
	{ "\xc2", 0 },	   /* cut by the end of the string */
	{ "\xc2!", 0 },
	{ "\xe0\x9f\xbf", 0 },	   /* overlong */
	{ "\xed\xa0\x80", 0 },	   /* U+D800, a surrogate */
	{ "\xe2\x82", 0 },	   /* the euro sign, cut (as a comm cut at 15 bytes) */
	{ "\xf0\x8f\xbf\xbf", 0 }, /* overlong */
	{ "\xf4\x90\x80\x80", 0 }, /* U+110000 */
	{ "\xf5\x80\x80\x80", 0 },
	{ "\xf0\x90\x80", 0 },
	{ "\xff", 0 },
	{ "\xfe", 0 },
};

static void test_utf8_len(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(utf8_cases) / sizeof(utf8_cases[0]); i++) {
		size_t got = text__utf8_len(utf8_cases[i].bytes);

		if (got != utf8_cases[i].len)
			fail_msg("case %zu: length %zu, want %zu", i, got, utf8_cases[i].len);
	}
}

struct sanitize_case {
	const char *in, *out;
	size_t replaced;
};

static const struct sanitize_case sanitize_cases[] = {
	{ "", "", 0 },
	{ "plain reason", "plain reason", 0 },
	{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5",
	  0 },
	{ "bad\xff", "bad?", 1 },
	{ "tab\there\nnew\rline\x1b[31m\x7f", "tab?here?new?line?[31m?", 5 },
	/* Each byte of a broken sequence, and only those. */
	{ "x\xe2\x82y\xc3\xa9", "x??y\xc3\xa9", 2 },
	{ "\xed\xa0\x80", "???", 3 },
	{ "\xc0\xaf", "??", 2 },
};

static void test_sanitize(void **state)
{
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(sanitize_cases) / sizeof(sanitize_cases[0]); i++) {
		const struct sanitize_case *c = &sanitize_cases[i];
		size_t n;

		strcpy(buf, c->in);
		n = text__sanitize(buf);
		if (strcmp(buf, c->out) || n != c->replaced)
			fail_msg("case %zu: '%s' with %zu replaced, want '%s' with %zu", i, buf, n,
				 c->out, c->replaced);
	}
}

/* The end of a verifier's log, on one line, for a diagnostic. */
static void test_last_lines(void **state)
{
	const char *log = "func#0 @0\n0: R1=ctx() R10=fp0\n"
			  "195: (79) r3 = *(u64 *)(r0 +24)\n"
			  "R0 unbounded memory access, make sure to bounds check any such access\n"
			  "processed 649 insns (limit 1000000)\n\n";
	char buf[256], tiny[8];

	(void)state;
	text__last_lines(log, 3, buf, sizeof(buf));
	assert_string_equal(buf, "195: (79) r3 = *(u64 *)(r0 +24) R0 unbounded memory access, "
				 "make sure to bounds check any such access processed 649 insns "
				 "(limit 1000000)");
	text__last_lines(log, 1, buf, sizeof(buf));
	assert_string_equal(buf, "processed 649 insns (limit 1000000)");
	text__last_lines(log, 50, buf, sizeof(buf)); /* fewer lines than asked: all */
	assert_true(!strncmp(buf, "func#0 @0 0: R1=ctx()", 21));
	text__last_lines(log, 1, tiny, sizeof(tiny));
	assert_string_equal(tiny, "process");
	text__last_lines("", 3, buf, sizeof(buf));
	assert_string_equal(buf, "");
	text__last_lines("a\tb", 3, buf, sizeof(buf));
	assert_string_equal(buf, "a b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8_len),
		cmocka_unit_test(test_sanitize),
		cmocka_unit_test(test_last_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
