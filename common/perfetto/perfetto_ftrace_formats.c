// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfetto_ftrace_formats: the capture's tracepoint formats, checked
 * against what the kernel writes before libtraceevent parses them.
 */
#include <errno.h>
#include <event-parse.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto_ftrace_formats.h"

static bool digits(const char **p, const char *end)
{
	const char *q = *p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q == *p)
		return false;
	*p = q;
	return true;
}

static bool take(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(end - *p) < n || memcmp(*p, word, n))
		return false;
	*p += n;
	return true;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;", DECL of what kernels write there: [A-Za-z0-9_ *[]]. */
static bool field_line(const char *p, const char *end)
{
	const char *decl = p + 7;

	if (!take(&p, end, "\tfield:"))
		return false;
	while (p < end && *p != ';' &&
	       ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		(*p && strchr("_ *[]", *p))))
		p++;
	return p > decl && take(&p, end, ";\toffset:") && digits(&p, end) &&
	       take(&p, end, ";\tsize:") && digits(&p, end) && take(&p, end, ";\tsigned:") &&
	       digits(&p, end) && take(&p, end, ";") && p == end;
}

/*
 * Whether the lines before "print fmt:" are what the kernel writes (name,
 * ID, format, field lines). libtraceevent 1.7 leaks on some malformed
 * field lines, so a damaged format never reaches it: its events are left
 * undecoded and counted.
 */
static bool well_formed(const char *text, size_t size)
{
	const char *p = text, *end = text + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *q = p;

		if (!nl)
			nl = end;
		if (take(&q, nl, "print fmt:"))
			return true;
		if (!(nl == p || take(&q, nl, "format:") || field_line(p, nl) ||
		      (take(&q, nl, "ID: ") && digits(&q, nl) && q == nl) ||
		      (take(&q, nl, "name: ") && q < nl)))
			return false;
		p = nl + 1;
	}
	return true;
}

/*
 * Only the fields are needed, never the print format: it goes to
 * libtraceevent as an empty one, which also keeps a damaged one (a field
 * it names that the event lacks crashes libtraceevent 1.7) out of it.
 */
int perfetto_ftrace__add_format(struct tep_handle *tep, const char *system, const char *text,
				size_t size)
{
	static const char empty_print[] = "print fmt: \"\"\n";
	const char *print = NULL;
	size_t keep = size;
	char *copy;
	int r = 0;

	for (size_t i = 0; i + 10 <= size && !print; i++)
		if ((i == 0 || text[i - 1] == '\n') && !memcmp(text + i, "print fmt:", 10))
			print = text + i;
	if (print)
		keep = (size_t)(print - text);
	if (!well_formed(text, keep))
		return 0;
	copy = malloc(keep + sizeof(empty_print));
	if (!copy)
		return -ENOMEM;
	memcpy(copy, text, keep);
	memcpy(copy + keep, empty_print, sizeof(empty_print));
	/* A format libtraceevent cannot parse leaves its events undecoded (counted). */
	if (tep_parse_event(tep, copy, keep + sizeof(empty_print) - 1, system) ==
	    TEP_ERRNO__MEM_ALLOC_FAILED)
		r = -ENOMEM;
	free(copy);
	return r;
}
