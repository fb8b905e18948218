// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_changes: what a reload changes, in words an operator recognises
 * from the file: "[snapshot] max_snapshots, [trigger oom] added". Both
 * configurations are printed as `--check-config` prints them (every key,
 * defaults spelled out) and compared key by key, so no key is forgotten
 * when one is added. Part of common/: it only fills the caller's buffer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

/* One "key = value" of the printed configuration, in its section. */
struct printed_key {
	const char *section, *key, *value;
};

struct printed {
	char *text;
	struct printed_key *keys;
	size_t nr;
};

static void printed_free(struct printed *p)
{
	free(p->text);
	free(p->keys);
}

/* Splits config__print()'s text in place; a key not set is its comment. */
static int parse(struct printed *p)
{
	const char *section = NULL;
	size_t cap = 0;

	for (char *line = p->text, *next; line && *line; line = next) {
		struct printed_key *k;
		char *eq;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line == '[') {
			section = line;
			continue;
		}
		if (*line == '\t' && p->nr) { /* events: one per line */
			line[-1] = ' ';
			continue;
		}
		if (!section || !*line)
			continue;
		if (p->nr == cap) {
			struct printed_key *keys;

			cap = cap ? 2 * cap : 64;
			keys = realloc(p->keys, cap * sizeof(*keys));
			if (!keys)
				return -ENOMEM;
			p->keys = keys;
		}
		k = &p->keys[p->nr++];
		k->section = section;
		if (line[0] == ';') { /* "; group is not set: ..." */
			line += strspn(line, "; ");
			k->key = line;
			k->value = "";
			line[strcspn(line, " ")] = '\0';
			continue;
		}
		eq = strstr(line, " = ");
		if (!eq) {
			p->nr--;
			continue;
		}
		*eq = '\0';
		k->key = line;
		k->value = eq + 3;
	}
	return 0;
}

static int print(const struct perfsnapd_config *cfg, struct printed *p)
{
	size_t size = 0;
	FILE *f = open_memstream(&p->text, &size);

	if (!f)
		return -errno;
	config__print(cfg, f);
	if (fclose(f) != 0)
		return -ENOMEM;
	return parse(p);
}

static const struct printed_key *find(const struct printed *p, const char *section, const char *key)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->keys[i].section, section) && !strcmp(p->keys[i].key, key))
			return &p->keys[i];
	return NULL;
}

static bool has_section(const struct printed *p, const char *section)
{
	for (size_t i = 0; i < p->nr; i++)
		if (!strcmp(p->keys[i].section, section))
			return true;
	return false;
}

struct out {
	char *buf;
	size_t size, len;
	int nr;
};

static void add(struct out *o, const char *section, const char *what)
{
	int n;

	if (o->len >= o->size)
		return;
	n = snprintf(o->buf + o->len, o->size - o->len, "%s%s %s", o->nr ? ", " : "", section,
		     what);
	o->len += n > 0 ? (size_t)n : 0;
	o->nr++;
}

/* A [trigger NAME] of @a that @b lacks: "removed" (or "added" with a and b swapped). */
static void whole_sections(const struct printed *a, const struct printed *b, const char *what,
			   struct out *o)
{
	const char *last = NULL;

	for (size_t i = 0; i < a->nr; i++) {
		const char *s = a->keys[i].section;

		if (s == last)
			continue;
		last = s;
		if (!strncmp(s, "[trigger ", 9) && !has_section(b, s))
			add(o, s, what);
	}
}

/**
 * config__changes - what differs between two configurations
 * @old: the running configuration
 * @new: the one a reload loaded
 * @buf: set to "[section] key, [trigger NAME] added, ..." ("" if nothing)
 * @size: its size; a longer list is cut
 *
 * Returns how many keys and triggers differ, or -errno.
 */
int config__changes(const struct perfsnapd_config *old, const struct perfsnapd_config *new,
		    char *buf, size_t size)
{
	struct printed a = { 0 }, b = { 0 };
	struct out o = { buf, size, 0, 0 };
	int r;

	if (size)
		buf[0] = '\0';
	r = print(old, &a);
	if (r == 0)
		r = print(new, &b);
	if (r == 0) {
		for (size_t i = 0; i < b.nr; i++) {
			const struct printed_key *k = &b.keys[i], *was;

			if (!has_section(&a, k->section))
				continue;
			was = find(&a, k->section, k->key);
			if (!was || strcmp(was->value, k->value))
				add(&o, k->section, k->key);
		}
		for (size_t i = 0; i < a.nr; i++)
			if (has_section(&b, a.keys[i].section) &&
			    !find(&b, a.keys[i].section, a.keys[i].key))
				add(&o, a.keys[i].section, a.keys[i].key);
		whole_sections(&b, &a, "added", &o);
		whole_sections(&a, &b, "removed", &o);
		r = o.nr;
	}
	printed_free(&a);
	printed_free(&b);
	return r;
}
