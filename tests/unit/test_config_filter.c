// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config_filter: the filters the BPF path runs compile to
 * terms and a postfix program that means what the filter says (evaluated
 * here for every truth of its terms, as paired.bpf.c evaluates it), and
 * the ones it does not run come back -1 for the fallback.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "config_filter.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Fields a to h and id at offsets from 8, common_pid at 4, common_flags at
 * 2; strings comm (char[16]), path (char[64]) and name (__data_loc);
 * cpumask, neither integer nor string.
 */
static int field(void *ctx, const char *name, struct trigger_field *f)
{
	(void)ctx;
	if (!strcmp(name, "cpumask"))
		return -EINVAL;
	if (!strcmp(name, "comm") || !strcmp(name, "path") || !strcmp(name, "name")) {
		f->kind = name[0] == 'n' ? TRIGGER_FIELD_DYNAMIC : TRIGGER_FIELD_CHARS;
		f->offset = 200;
		f->size = name[0] == 'c' ? 16 : name[0] == 'p' ? 64 : 4;
		return 0;
	}
	if (!strcmp(name, "common_pid") || !strcmp(name, "common_flags")) {
		f->offset = name[7] == 'p' ? 4 : 2;
		f->size = name[7] == 'p' ? 4 : 1;
		f->is_signed = name[7] == 'p';
		return 0;
	}
	if (!strcmp(name, "id") || (strlen(name) == 1 && name[0] >= 'a' && name[0] <= 'h')) {
		f->offset = 8 + 8 * (uint32_t)(name[0] == 'i' ? 8 : name[0] - 'a');
		f->size = 8;
		f->is_signed = true;
		return 0;
	}
	return -ENOENT;
}

/* The program over term truths @bits (term i: bit i), as paired.bpf.c runs it. */
static bool run(const struct trigger_side *s, unsigned int bits)
{
	uint64_t stack = 0, top;

	if (!s->nr_prog)
		return true;
	for (int i = 0; i < s->nr_prog; i++) {
		unsigned int op = s->prog[i];

		if (op < TRIGGER_TERMS_MAX) {
			stack = stack << 1 | ((bits >> op) & 1);
			continue;
		}
		if (op == TRIGGER_PROG_NOT) {
			stack ^= 1;
			continue;
		}
		top = stack & 1;
		stack >>= 1;
		if (op == TRIGGER_PROG_AND)
			stack &= ~1ull | top;
		else
			stack |= top;
	}
	return stack & 1;
}

static bool bit(unsigned int bits, int i)
{
	return (bits >> i) & 1;
}

/* Each filter, its terms in order of appearance, and what it means over their truths. */
static bool f_and(unsigned int b)
{
	return bit(b, 0) && bit(b, 1);
}
static bool f_or_in_and(unsigned int b)
{
	return bit(b, 0) && (bit(b, 1) || bit(b, 2));
}
static bool f_precedence(unsigned int b)
{
	return bit(b, 0) || (bit(b, 1) && bit(b, 2));
}
static bool f_not(unsigned int b)
{
	return !bit(b, 0) || bit(b, 1);
}
static bool f_nested(unsigned int b)
{
	return !(bit(b, 0) && !(bit(b, 1) || bit(b, 2))) && bit(b, 3);
}
static bool f_one(unsigned int b)
{
	return bit(b, 0);
}

static void test_compiles(void **state)
{
	static const struct {
		const char *filter;
		int nr_terms;
		bool (*means)(unsigned int bits);
	} cases[] = {
		{ "id == 0 && common_pid == 5", 2, f_and },
		{ "id == 0 && (common_pid == 5 || common_pid == 7)", 3, f_or_in_and },
		{ "a == 1 || b == 2 && c == 3", 3, f_precedence },
		{ "!(a < 0) || a == -4", 2, f_not },
		{ "! ( a>1 && !(b!=2||c&0x10) ) && d >= -0x7f", 4, f_nested },
		{ "  ((a <= 1))  ", 1, f_one },
		{ "a==1&&b==2", 2, f_and },
		{ "comm == \"bash\" && a == 1", 2, f_and },
		{ "a == 1 && (comm ~ \"post*\" || name == 'x y')", 3, f_or_in_and },
		{ "!(comm != bash) || comm~*sh", 2, f_not },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct trigger_side s = { 0 };

		if (config_filter__compile(cases[i].filter, field, NULL, &s) != 0)
			fail_msg("'%s' does not compile", cases[i].filter);
		assert_int_equal(s.nr_terms, cases[i].nr_terms);
		for (unsigned int bits = 0; bits < 1u << s.nr_terms; bits++)
			if (run(&s, bits) != cases[i].means(bits))
				fail_msg("'%s' with terms %#x: %d", cases[i].filter, bits,
					 run(&s, bits));
	}
}

/* The terms themselves: field, operator, value. */
static void test_terms(void **state)
{
	struct trigger_side s = { 0 };
	(void)state;

	assert_int_equal(
		config_filter__compile("id == 0 || common_pid != -0x2 && b & 4", field, NULL, &s),
		0);
	assert_int_equal(s.nr_terms, 3);
	assert_int_equal(s.terms[0].op, TRIGGER_OP_EQ);
	assert_int_equal(s.terms[0].field.offset, 72);
	assert_int_equal(s.terms[1].op, TRIGGER_OP_NE);
	assert_int_equal(s.terms[1].value, -2);
	assert_int_equal(s.terms[1].field.offset, 4);
	assert_int_equal(s.terms[2].op, TRIGGER_OP_AND);
	assert_int_equal(s.terms[2].value, 4);
	assert_null(s.terms[2].field.name);
	assert_int_equal(s.nr_prog, 5);
	assert_int_equal(s.prog[0], 0);
	assert_int_equal(s.prog[3], TRIGGER_PROG_AND);
	assert_int_equal(s.prog[4], TRIGGER_PROG_OR);
}

/* String terms: the glob as the match it is, the string without its '*'. */
static void test_strings(void **state)
{
	static const struct {
		const char *filter;
		enum trigger_op op;
		const char *str;
	} cases[] = {
		{ "comm == \"bash\"", TRIGGER_OP_EQ, "bash" },
		{ "comm != 'a b'", TRIGGER_OP_NE, "a b" },
		{ "comm == x*", TRIGGER_OP_EQ, "x*" }, /* == is exact, as the kernel's */
		{ "comm ~ \"x\"", TRIGGER_OP_EQ, "x" },
		{ "comm ~ \"post*\"", TRIGGER_OP_PREFIX, "post" },
		{ "comm ~ \"*sql\"", TRIGGER_OP_SUFFIX, "sql" },
		{ "comm ~ \"*gres*\"", TRIGGER_OP_SUBSTR, "gres" },
		{ "comm ~ \"*\"", TRIGGER_OP_SUFFIX, "" },
		{ "comm ~ \"0123456789abcdef\"", TRIGGER_OP_EQ, "0123456789abcdef" },
		{ "name ~ \"/usr/*\"", TRIGGER_OP_PREFIX, "/usr/" },
		{ "path == /etc/passwd", TRIGGER_OP_EQ, "/etc/passwd" },
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct trigger_side s = { 0 };

		if (config_filter__compile(cases[i].filter, field, NULL, &s) != 0)
			fail_msg("'%s' does not compile", cases[i].filter);
		assert_int_equal(s.nr_terms, 1);
		assert_int_equal(s.terms[0].op, cases[i].op);
		assert_string_equal(s.terms[0].str, cases[i].str);
	}
}

/* What the program does not run: -1, nr_terms -1, no program. */
static void test_fallback(void **state)
{
	static const char *const filters[] = {
		"cpumask == 1",
		"a ~ \"x*\"",
		"a == \"x\"",
		"comm ==",
		"comm < \"x\"",
		"comm == \"unterminated",
		"comm == \"0123456789abcdefg\"", /* past TRIGGER_STR_MAX */
		"comm ~ \"a*b\"",
		"comm ~ \"a?\"",
		"comm ~ \"[ab]*\"",
		"name ~ \"*.so\"", /* a suffix of a string longer than the bytes read */
		"path ~ \"*x*\"",
		"nosuch == 1",
		"common_flags == 1", /* in the record's first 8 bytes */
		"a == 1 &&",
		"(a == 1",
		"a == 1)",
		"a == 1 || || b == 2",
		"a = 1",
		"a == b",
		"a == 99999999999999999999",
		"a == 1 && b == 2 && c == 3 && d == 4 && e == 5 && f == 6 && g == 7 && h == 8 && id == 9",
		"!!!!!!!!!!!!!!!!!!(a == 1)",
		"",
	};
	(void)state;

	for (size_t i = 0; i < ARRAY_SIZE(filters); i++) {
		struct trigger_side s = { 0 };

		if (config_filter__compile(filters[i], field, NULL, &s) != -1)
			fail_msg("'%s' compiled", filters[i]);
		assert_int_equal(s.nr_terms, -1);
		assert_int_equal(s.nr_prog, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compiles),
		cmocka_unit_test(test_terms),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_fallback),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
