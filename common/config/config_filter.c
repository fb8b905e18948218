// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_filter: a filter as terms and a postfix program. See
 * config_filter.h.
 *
 *	or    := and { "||" and }
 *	and   := unary { "&&" unary }
 *	unary := "!" unary | "(" or ")" | FIELD OP NUMBER | FIELD SOP STRING
 *
 * && binds tighter than ||, as in C and in the kernel's filters. SOP is
 * ==, != or ~ (a glob: '*' at either end or both, as the kernel's
 * prefix, suffix and substring matches; '?', '[' and '*' inside are left
 * to the kernel). STRING is quoted ("", '') or a bare word.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config_filter.h"

#define SPACES	 " \t"
/* Parentheses and ! nested deeper than this are left to the fallback. */
#define NEST_MAX 16

struct parser {
	const char *s;
	config_filter_field_fn field;
	void *ctx;
	struct trigger_side *side;
	int depth;
};

static void skip_spaces(struct parser *p)
{
	p->s += strspn(p->s, SPACES);
}

static int emit(struct parser *p, int op)
{
	if (p->side->nr_prog >= TRIGGER_PROG_MAX)
		return -1;
	p->side->prog[p->side->nr_prog++] = (uint8_t)op;
	return 0;
}

static int parse_op(struct parser *p, enum trigger_op *op)
{
	static const struct {
		const char *text;
		enum trigger_op op;
	} ops[] = { { "==", TRIGGER_OP_EQ }, { "!=", TRIGGER_OP_NE }, { "<=", TRIGGER_OP_LE },
		    { ">=", TRIGGER_OP_GE }, { "<", TRIGGER_OP_LT },  { ">", TRIGGER_OP_GT },
		    { "&", TRIGGER_OP_AND }, { "~", TRIGGER_OP_GLOB } };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p->s, ops[i].text, strlen(ops[i].text))) {
			p->s += strlen(ops[i].text);
			*op = ops[i].op;
			return 0;
		}
	return -1;
}

/* A glob as the match the program makes: "*abc*" SUBSTR "abc", and so on. */
static int classify_glob(struct trigger_term *t)
{
	size_t len = strlen(t->str);
	bool lead = len && t->str[0] == '*', trail = len > lead && t->str[len - 1] == '*';

	if (strpbrk(t->str, "?[\\"))
		return -1;
	memmove(t->str, t->str + lead, len - lead - trail);
	t->str[len - lead - trail] = '\0';
	if (strchr(t->str, '*'))
		return -1;
	t->op = lead && trail ? TRIGGER_OP_SUBSTR :
		lead	      ? TRIGGER_OP_SUFFIX :
		trail	      ? TRIGGER_OP_PREFIX :
				TRIGGER_OP_EQ;
	return 0;
}

/*
 * STRING after a string field's op. What the program cannot decide from
 * the bytes it reads is left to the kernel: a suffix or substring of a
 * string longer than those.
 */
static int parse_string(struct parser *p, struct trigger_term *t)
{
	char quote = *p->s == '"' || *p->s == '\'' ? *p->s : '\0';
	size_t len;

	if (t->op != TRIGGER_OP_EQ && t->op != TRIGGER_OP_NE && t->op != TRIGGER_OP_GLOB)
		return -1;
	if (quote) {
		const char *end = strchr(++p->s, quote);

		if (!end)
			return -1;
		len = (size_t)(end - p->s);
	} else {
		len = strcspn(p->s, SPACES "()&|!=<>~\"'");
	}
	if (!len || len > TRIGGER_STR_MAX)
		return -1;
	memcpy(t->str, p->s, len);
	t->str[len] = '\0';
	p->s += len + (quote != '\0');
	if (t->op == TRIGGER_OP_GLOB && classify_glob(t) < 0)
		return -1;
	if ((t->op == TRIGGER_OP_SUFFIX || t->op == TRIGGER_OP_SUBSTR) &&
	    (t->field.kind == TRIGGER_FIELD_DYNAMIC || t->field.size > TRIGGER_STR_READ))
		return -1;
	return 0;
}

/* FIELD OP NUMBER or FIELD SOP STRING: the next term, and its truth onto the program. */
static int parse_term(struct parser *p)
{
	struct trigger_side *sd = p->side;
	struct trigger_term *t;
	char name[64], *end;
	size_t len;

	if (sd->nr_terms >= TRIGGER_TERMS_MAX)
		return -1;
	t = &sd->terms[sd->nr_terms];
	memset(t, 0, sizeof(*t));
	len = strspn(p->s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
	if (!len || len >= sizeof(name))
		return -1;
	memcpy(name, p->s, len);
	name[len] = '\0';
	p->s += len;
	skip_spaces(p);
	if (p->field(p->ctx, name, &t->field) < 0 || parse_op(p, &t->op) < 0)
		return -1;
	/* The BPF program sees the record from byte 8 on, but for common_pid. */
	if (t->field.offset < 8 && strcmp(name, "common_pid"))
		return -1;
	t->field.name = NULL;
	skip_spaces(p);
	if (t->field.kind != TRIGGER_FIELD_INT) {
		if (parse_string(p, t) < 0)
			return -1;
	} else {
		errno = 0;
		t->value = strtoll(p->s, &end, 0);
		if (t->op == TRIGGER_OP_GLOB || errno || end == p->s)
			return -1;
		p->s = end;
	}
	skip_spaces(p);
	return emit(p, sd->nr_terms++);
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p)
{
	int r;

	if (++p->depth > NEST_MAX)
		return -1;
	if (*p->s == '!' && p->s[1] != '=') {
		p->s++;
		skip_spaces(p);
		r = parse_unary(p);
		if (r == 0)
			r = emit(p, TRIGGER_PROG_NOT);
	} else if (*p->s == '(') {
		p->s++;
		skip_spaces(p);
		r = parse_or(p);
		if (r == 0 && *p->s != ')')
			r = -1;
		if (r == 0) {
			p->s++;
			skip_spaces(p);
		}
	} else {
		r = parse_term(p);
	}
	p->depth--;
	return r;
}

/* One side of a binary operator, then as many more as follow it. */
static int parse_chain(struct parser *p, const char *text, int op, int (*side)(struct parser *))
{
	int r = side(p);

	while (r == 0 && !strncmp(p->s, text, 2)) {
		p->s += 2;
		skip_spaces(p);
		r = side(p);
		if (r == 0)
			r = emit(p, op);
	}
	return r;
}

static int parse_and(struct parser *p)
{
	return parse_chain(p, "&&", TRIGGER_PROG_AND, parse_unary);
}

static int parse_or(struct parser *p)
{
	return parse_chain(p, "||", TRIGGER_PROG_OR, parse_and);
}

int config_filter__compile(const char *filter, config_filter_field_fn field, void *ctx,
			   struct trigger_side *s)
{
	struct parser p = { .s = filter, .field = field, .ctx = ctx, .side = s };

	s->nr_terms = s->nr_prog = 0;
	skip_spaces(&p);
	if (parse_or(&p) == 0 && !*p.s)
		return 0;
	s->nr_terms = -1;
	s->nr_prog = 0;
	return -1;
}
