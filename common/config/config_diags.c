// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_diags: the list of "file:line: message" diagnostics that
 * config__load() fills, one per problem, so that one run reports them all.
 * Callers may add their own for problems found later, such as an event that
 * fails to open. Part of common/: collects and prints, never logs.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-internal.h"

/**
 * config_diags__addv - append a diagnostic, va_list version
 * @diags: list to append to
 * @file: config file it concerns
 * @line: line in @file, 0 when not tied to one
 * @fmt: printf format of the message
 * @ap: its arguments
 *
 * Returns 0 or -ENOMEM.
 */
int config_diags__addv(struct config_diags *diags, const char *file, int line, const char *fmt,
		       va_list ap)
{
	struct config_diag *items;
	char *message;
	char *copy;

	if (vasprintf(&message, fmt, ap) < 0)
		return -ENOMEM;
	copy = strdup(file);
	items = realloc(diags->items, (diags->nr + 1) * sizeof(*items));
	if (!copy || !items) {
		if (items)
			diags->items = items;
		free(copy);
		free(message);
		return -ENOMEM;
	}
	diags->items = items;
	items[diags->nr].file = copy;
	items[diags->nr].line = line;
	items[diags->nr].message = message;
	diags->nr++;
	return 0;
}

/**
 * config_diags__add - append a diagnostic
 * @diags: list to append to
 * @file: config file it concerns
 * @line: line in @file, 0 when not tied to one
 * @fmt: printf format of the message, by convention
 *	"[section] key: what is wrong 'value': accepted: ..."
 *
 * For callers that find a problem with a config after config__load(), e.g.
 * an event that fails to open, reported at its event_spec.line.
 *
 * Returns 0 or -ENOMEM.
 */
int config_diags__add(struct config_diags *diags, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = config_diags__addv(diags, file, line, fmt, ap);
	va_end(ap);
	return r;
}

/**
 * config_diags__sort - put diagnostics in file order
 * @diags: list to sort
 * @from: first entry to sort; those before it stay as they are
 *
 * A stable sort by line, with line 0 (the whole file) last.
 */
void config_diags__sort(struct config_diags *diags, size_t from)
{
	size_t i, j;

	for (i = from + 1; i < diags->nr; i++) {
		struct config_diag d = diags->items[i];
		unsigned int key = (unsigned int)d.line - 1;

		for (j = i; j > from && (unsigned int)diags->items[j - 1].line - 1 > key; j--)
			diags->items[j] = diags->items[j - 1];
		diags->items[j] = d;
	}
}

/**
 * config_diags__has_line - whether a line already has a diagnostic
 * @diags: list to look in
 * @from: first entry to look at
 * @line: line to look for
 *
 * Returns true if an entry from @from on is at @line.
 */
bool config_diags__has_line(const struct config_diags *diags, size_t from, int line)
{
	size_t i;

	for (i = from; i < diags->nr; i++) {
		if (diags->items[i].line == line)
			return true;
	}
	return false;
}

/**
 * config_diags__print - print diagnostics, one a line
 * @diags: diagnostics from config__load()
 * @out: stream to print to
 *
 * Prints "file:line: message", or "file: message" for line 0, for the
 * first CONFIG_DIAGS_PRINT_MAX; then "... and N more errors", so that a
 * huge or binary file gives a screenful, not megabytes.
 */
void config_diags__print(const struct config_diags *diags, FILE *out)
{
	size_t i;

	for (i = 0; i < diags->nr && i < CONFIG_DIAGS_PRINT_MAX; i++) {
		const struct config_diag *d = &diags->items[i];

		if (d->line > 0)
			fprintf(out, "%s:%d: %s\n", d->file, d->line, d->message);
		else
			fprintf(out, "%s: %s\n", d->file, d->message);
	}
	if (diags->nr > CONFIG_DIAGS_PRINT_MAX)
		fprintf(out, "... and %zu more errors\n", diags->nr - CONFIG_DIAGS_PRINT_MAX);
}

/**
 * config_diags__clear - free all diagnostics and empty the list
 * @diags: list to clear; may be empty (zero-initialized)
 */
void config_diags__clear(struct config_diags *diags)
{
	size_t i;

	for (i = 0; i < diags->nr; i++) {
		free(diags->items[i].file);
		free(diags->items[i].message);
	}
	free(diags->items);
	diags->items = NULL;
	diags->nr = 0;
}
