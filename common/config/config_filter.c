// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_filter: a filter as terms and a postfix program. See
 * config_filter.h.
 *
 *	or    := and { "||" and }
 *	and   := unary { "&&" unary }
 *	unary := "!" unary | "(" or ")" | FIELD OP NUMBER
 *
 * && binds tighter than ||, as in C and in the kernel's filters.
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
		    { "&", TRIGGER_OP_AND } };

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(p->s, ops[i].text, strlen(ops[i].text))) {
			p->s += strlen(ops[i].text);
			*op = ops[i].op;
			return 0;
		}
	return -1;
}

/* FIELD OP NUMBER: the next term, and its truth onto the program. */
static int parse_term(struct parser *p)
{
	struct trigger_side *sd = p->side;
	struct trigger_term *t;
	char name[64], *end;
	size_t len;

	if (sd->nr_terms >= TRIGGER_TERMS_MAX)
		return -1;
	t = &sd->terms[sd->nr_terms];
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
	errno = 0;
	t->value = strtoll(p->s, &end, 0);
	if (errno || end == p->s)
		return -1;
	p->s = end;
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
