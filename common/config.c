// SPDX-License-Identifier: GPL-2.0-only
/*
 * config: loads perfsnapd.conf with inih and validates every key, collecting
 * all problems as file:line diagnostics instead of stopping at the first.
 * inih reports no line numbers to this build's handler, so lines are fed to
 * it through our own reader, which counts them and spots lines inih would
 * reject or skip silently (syntax errors, unknown sections). Part of common/:
 * never logs.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "config.h"
#include "event_spec.h"

#define DEFAULT_BUFFER_SIZE	(4ull << 20)
#define MAX_BUFFER_SIZE		(1ull << 30)
#define DEFAULT_DIRECTORY	"/var/lib/perfsnapd"
#define CPU_POSSIBLE		"/sys/devices/system/cpu/possible"
#define SPACES			" \t\r\n\v\f"

#define SIZE_ACCEPTED	"a number with optional K, M or G suffix (bytes), e.g. 4M"
#define CPUS_ACCEPTED	"all, or CPU numbers and ranges such as 0-3,8"
#define FORMATS_ACCEPTED "perf.data, trace.dat, or both space-separated"
#define DIR_ACCEPTED	"an absolute path to an existing directory perfsnapd can write"
#define DIR_FIX		"create it or change [snapshot] directory"

enum config_key {
	KEY_EVENTS,
	KEY_BUFFER_SIZE,
	KEY_CPUS,
	KEY_DIRECTORY,
	KEY_FORMATS,
	NR_KEYS
};

struct parse_ctx;

struct key_desc {
	const char *section;
	const char *name;
	bool multiline;		/* indented continuation lines add to the value */
	void (*parse)(struct parse_ctx *ctx, char *value);
};

struct parse_ctx {
	struct perfsnapd_config *cfg;
	struct config_diags *diags;
	const char *tracing_dir;
	FILE *file;
	char *buf;			/* getline() buffer: the current line */
	size_t buf_size;
	const char *text;		/* the current line, stripped */
	int line;
	bool needs_handler;		/* not blank, comment, section or reported */
	bool handled;			/* the handler ran for the current line */
	bool continuation;		/* the current line continues the last key */
	bool have_key;			/* inih's prev_name is set */
	int key;			/* key being continued, -1 if rejected */
	int key_line[NR_KEYS];		/* where each key was set, 0 if not */
	bool key_failed[NR_KEYS];	/* a value of the key was reported bad */
	int err;			/* sticky -ENOMEM or -EIO */
};

static void parse_events(struct parse_ctx *ctx, char *value);
static void parse_buffer_size(struct parse_ctx *ctx, char *value);
static void parse_cpus(struct parse_ctx *ctx, char *value);
static void parse_directory(struct parse_ctx *ctx, char *value);
static void parse_formats(struct parse_ctx *ctx, char *value);

static const struct key_desc keys[NR_KEYS] = {
	[KEY_EVENTS]	  = { "capture", "events", true, parse_events },
	[KEY_BUFFER_SIZE] = { "capture", "buffer_size", false, parse_buffer_size },
	[KEY_CPUS]	  = { "capture", "cpus", false, parse_cpus },
	[KEY_DIRECTORY]	  = { "snapshot", "directory", false, parse_directory },
	[KEY_FORMATS]	  = { "snapshot", "formats", true, parse_formats },
};

static int diags_addv(struct config_diags *diags, const char *file, int line,
		      const char *fmt, va_list ap)
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
int config_diags__add(struct config_diags *diags, const char *file, int line,
		      const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = diags_addv(diags, file, line, fmt, ap);
	va_end(ap);
	return r;
}

static void diag(struct parse_ctx *ctx, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void diag(struct parse_ctx *ctx, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (ctx->err)
		return;
	va_start(ap, fmt);
	r = diags_addv(ctx->diags, ctx->cfg->path, line, fmt, ap);
	va_end(ap);
	if (r < 0)
		ctx->err = r;
}

static bool known_section(const char *section)
{
	return !strcmp(section, "capture") || !strcmp(section, "snapshot");
}

static int find_key(const char *section, const char *name)
{
	int k;

	for (k = 0; k < NR_KEYS; k++) {
		if (!strcmp(keys[k].section, section) && !strcmp(keys[k].name, name))
			return k;
	}
	return -1;
}

/* "events, buffer_size, cpus" for @section. */
static void key_list(const char *section, char *buf, size_t size)
{
	size_t len = 0;
	int k;

	buf[0] = '\0';
	for (k = 0; k < NR_KEYS && len < size; k++) {
		if (strcmp(keys[k].section, section))
			continue;
		len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", keys[k].name);
	}
}

/*
 * Like inih's find_chars_or_comment(): the first of @chars, or the start of
 * an inline ';' comment (one that follows whitespace), or the end.
 */
static char *find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

/*
 * A copy of @value without an inline comment and surrounding blanks.
 * Debian's inih is built with INI_ALLOW_INLINE_COMMENTS and has already
 * done this; doing it again keeps other builds from leaking "; ..." into
 * values, which never legitimately contain ';'.
 */
static char *clean_value(const char *value)
{
	char *copy = strdup(value);
	char *start;
	char *end;
	char *p;

	if (!copy)
		return NULL;
	for (p = copy; *p; p++) {
		if (*p == ';' && (p == copy || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	}
	start = copy + strspn(copy, SPACES);
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		*--end = '\0';
	memmove(copy, start, strlen(start) + 1);
	return copy;
}

/* Classifies the line in ctx->buf the way inih's parser will see it. */
static void classify_line(struct parse_ctx *ctx)
{
	char *start = ctx->buf;
	char *end;

	if (ctx->line == 1 && !strncmp(start, "\xEF\xBB\xBF", 3))
		start += 3;
	start += strspn(start, SPACES);
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		*--end = '\0';
	ctx->text = start;
	ctx->needs_handler = false;
	if (!*start || *start == ';' || *start == '#')
		return;
	if (start > ctx->buf && ctx->have_key) {
		ctx->continuation = true;
		ctx->needs_handler = true;
		return;
	}
	if (*start != '[') {
		ctx->needs_handler = true;
		return;
	}
	end = find_chars_or_comment(start + 1, "]");
	if (*end != ']') {
		diag(ctx, ctx->line, "syntax error: '%s' has no closing ']': accepted: [capture] or [snapshot]",
		     start);
		return;
	}
	*end = '\0';
	ctx->have_key = false;
	if (!known_section(start + 1))
		diag(ctx, ctx->line, "[%s]: unknown section: accepted: [capture], [snapshot]",
		     start + 1);
}

static void finish_line(struct parse_ctx *ctx)
{
	if (ctx->needs_handler && !ctx->handled)
		diag(ctx, ctx->line, "syntax error: '%s': accepted: key = value, [section], or a ; or # comment",
		     ctx->text);
	ctx->needs_handler = false;
}

/*
 * The ini_reader: hands inih one line at a time, numbering them. inih
 * calls the handler for a line before it asks for the next one, so
 * ctx->line is the handler's line. A line longer than inih's buffer would
 * be split and misparsed, so it is reported and replaced by a blank line.
 */
static char *read_line(char *str, int size, void *stream)
{
	struct parse_ctx *ctx = stream;
	ssize_t n;

	finish_line(ctx);
	errno = 0;
	n = getline(&ctx->buf, &ctx->buf_size, ctx->file);
	if (n < 0) {
		if (!feof(ctx->file) && !ctx->err)
			ctx->err = errno == ENOMEM ? -ENOMEM : -EIO;
		return NULL;
	}
	ctx->line++;
	ctx->handled = false;
	ctx->continuation = false;
	while (n > 0 && (ctx->buf[n - 1] == '\n' || ctx->buf[n - 1] == '\r'))
		ctx->buf[--n] = '\0';
	if (size < 3 || n > size - 3) {
		diag(ctx, ctx->line, "line too long (%zd characters): accepted: at most %d; put more events on indented lines below",
		     n, size - 3);
		ctx->needs_handler = false;
		snprintf(str, size, "\n");
		return str;
	}
	memcpy(str, ctx->buf, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	classify_line(ctx);
	return str;
}

/* The ini_handler: returns nonzero (inih's "success") always; errors are diags. */
static int handle_key(void *user, const char *section, const char *name, const char *value)
{
	struct parse_ctx *ctx = user;
	char *v;
	int k;

	ctx->handled = true;
	ctx->have_key = true;
	if (ctx->err)
		return 1;
	if (ctx->continuation) {
		k = ctx->key;
		if (k < 0)
			return 1;
		if (!keys[k].multiline) {
			diag(ctx, ctx->line, "[%s] %s: value continues on indented line '%s': accepted: one line (only events and formats take several)",
			     keys[k].section, keys[k].name, ctx->text);
			ctx->key_failed[k] = true;
			return 1;
		}
	} else {
		ctx->key = -1;
		if (!*section) {
			diag(ctx, ctx->line, "key '%s' outside a section: accepted: keys under [capture] or [snapshot]",
			     name);
			return 1;
		}
		if (!known_section(section))
			return 1;	/* reported at the section header */
		k = find_key(section, name);
		if (k < 0) {
			char accepted[128];

			key_list(section, accepted, sizeof(accepted));
			diag(ctx, ctx->line, "[%s] %s: unknown key: accepted in [%s]: %s",
			     section, name, section, accepted);
			return 1;
		}
		if (ctx->key_line[k]) {
			diag(ctx, ctx->line, "[%s] %s: set again (first on line %d): accepted: once per file",
			     section, name, ctx->key_line[k]);
			return 1;
		}
		ctx->key_line[k] = ctx->line;
		ctx->key = k;
	}
	v = clean_value(value);
	if (!v) {
		ctx->err = -ENOMEM;
		return 1;
	}
	keys[k].parse(ctx, v);
	free(v);
	return 1;
}

static void parse_events(struct parse_ctx *ctx, char *value)
{
	struct perfsnapd_config *cfg = ctx->cfg;
	char *save = NULL;
	char *token;
	char *msg;

	for (token = strtok_r(value, SPACES, &save); token; token = strtok_r(NULL, SPACES, &save)) {
		int r = event_spec__parse(token, ctx->tracing_dir, ctx->line, &cfg->events,
					  &cfg->nr_events, &msg);
		if (r == -EINVAL) {
			diag(ctx, ctx->line, "[capture] events: %s", msg);
			ctx->key_failed[KEY_EVENTS] = true;
			free(msg);
		} else if (r < 0) {
			ctx->err = r;
			return;
		}
	}
}

/* Parses "4M" into bytes. Returns 0, -EINVAL for syntax, -ERANGE for size. */
static int parse_size(const char *s, uint64_t *ret)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	switch (*end) {
	case 'K': case 'k':
		mult = 1ull << 10;
		end++;
		break;
	case 'M': case 'm':
		mult = 1ull << 20;
		end++;
		break;
	case 'G': case 'g':
		mult = 1ull << 30;
		end++;
		break;
	}
	if (*end)
		return -EINVAL;
	if (errno || v == 0 || v > MAX_BUFFER_SIZE / mult)
		return -ERANGE;
	*ret = v * mult;
	return 0;
}

static void parse_buffer_size(struct parse_ctx *ctx, char *value)
{
	int r = parse_size(value, &ctx->cfg->buffer_size);

	ctx->cfg->config_line_buffer_size = ctx->line;
	if (r == -EINVAL)
		diag(ctx, ctx->line, "[capture] buffer_size: bad size '%s': accepted: " SIZE_ACCEPTED,
		     value);
	else if (r < 0)
		diag(ctx, ctx->line, "[capture] buffer_size: size '%s' out of range: accepted: 1 byte to 1G per CPU, e.g. 4M",
		     value);
	if (r < 0)
		ctx->key_failed[KEY_BUFFER_SIZE] = true;
}

static int parse_cpu_number(const char **s, unsigned int *ret)
{
	const char *p = *s + strspn(*s, " \t");
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || v > INT_MAX)
		return -EINVAL;
	*s = end + strspn(end, " \t");
	*ret = v;
	return 0;
}

/*
 * Takes the next "N" or "N-M" off a CPU list, with its comma. Returns 0 with
 * the range, 1 at the end of the list, -EINVAL on a syntax error.
 */
static int next_cpu_range(const char **s, unsigned int *first, unsigned int *last)
{
	if (!**s)
		return 1;
	if (parse_cpu_number(s, first))
		return -EINVAL;
	*last = *first;
	if (**s == '-') {
		(*s)++;
		if (parse_cpu_number(s, last) || *last < *first)
			return -EINVAL;
	}
	if (**s == ',') {
		(*s)++;
		if (!(*s)[strspn(*s, " \t")])
			return -EINVAL;
	} else if (**s) {
		return -EINVAL;
	}
	return 0;
}

/* Reads CPU_POSSIBLE into a map of @*ret_nr flags. Returns 0 or -errno. */
static int read_possible_cpus(char *text, size_t size, bool **ret_map, unsigned int *ret_nr)
{
	unsigned int first, last, max = 0;
	const char *s;
	bool *map;
	FILE *f;
	int r;

	f = fopen(CPU_POSSIBLE, "re");
	if (!f)
		return -errno;
	if (!fgets(text, size, f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	text[strcspn(text, "\n")] = '\0';
	for (s = text; (r = next_cpu_range(&s, &first, &last)) == 0;)
		max = last > max ? last : max;
	if (r < 0 || s == text)
		return -EINVAL;
	map = calloc(max + 1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (s = text; next_cpu_range(&s, &first, &last) == 0;)
		while (first <= last)
			map[first++] = true;
	*ret_map = map;
	*ret_nr = max + 1;
	return 0;
}

/* Writes @map as "0-3,8". Returns a malloc'ed string or NULL. */
static char *format_cpus(const bool *map, unsigned int nr)
{
	char *buf = NULL;
	size_t size = 0;
	unsigned int i, j;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (i = 0; i < nr; i = j) {
		if (!map[i]) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < nr && map[j]; j++)
			;
		fprintf(f, "%s%u", ftell(f) ? "," : "", i);
		if (j - 1 > i)
			fprintf(f, "-%u", j - 1);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void parse_cpus(struct parse_ctx *ctx, char *value)
{
	unsigned int first, last, nr_possible = 0;
	bool *possible = NULL;
	bool *map = NULL;
	char text[256];
	const char *s;
	int r;

	if (!strcmp(value, "all"))
		return;
	ctx->key_failed[KEY_CPUS] = true;
	for (s = value; (r = next_cpu_range(&s, &first, &last)) == 0;)
		;
	if (r < 0 || s == value) {
		diag(ctx, ctx->line, "[capture] cpus: bad CPU list '%s': accepted: " CPUS_ACCEPTED,
		     value);
		return;
	}
	r = read_possible_cpus(text, sizeof(text), &possible, &nr_possible);
	if (r == -ENOMEM) {
		ctx->err = r;
		return;
	}
	if (r < 0) {
		diag(ctx, ctx->line, "[capture] cpus: cannot read " CPU_POSSIBLE " to check '%s': %s: accepted: all",
		     value, strerror(-r));
		return;
	}
	map = calloc(nr_possible, sizeof(*map));
	if (!map) {
		ctx->err = -ENOMEM;
		goto out;
	}
	for (s = value; next_cpu_range(&s, &first, &last) == 0;) {
		for (; first <= last; first++) {
			if (first >= nr_possible || !possible[first]) {
				diag(ctx, ctx->line, "[capture] cpus: CPU %u in '%s' does not exist: accepted: all, or CPUs in " CPU_POSSIBLE " (%s)",
				     first, value, text);
				goto out;
			}
			map[first] = true;
		}
	}
	ctx->cfg->cpus = format_cpus(map, nr_possible);
	if (!ctx->cfg->cpus)
		ctx->err = -ENOMEM;
	ctx->key_failed[KEY_CPUS] = false;
out:
	free(map);
	free(possible);
}

/* @shown: how to quote the directory in messages. */
static void check_directory(struct parse_ctx *ctx, const char *dir, const char *shown, int line)
{
	struct stat st;

	if (!*dir) {
		diag(ctx, line, "[snapshot] directory: empty: accepted: " DIR_ACCEPTED);
		return;
	}
	if (dir[0] != '/') {
		diag(ctx, line, "[snapshot] directory: %s is not an absolute path: accepted: " DIR_ACCEPTED ", e.g. " DEFAULT_DIRECTORY,
		     shown);
		return;
	}
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			diag(ctx, line, "[snapshot] directory: %s does not exist: " DIR_FIX, shown);
		else
			diag(ctx, line, "[snapshot] directory: %s: %s: " DIR_FIX, shown, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		diag(ctx, line, "[snapshot] directory: %s is not a directory: " DIR_FIX, shown);
		return;
	}
	if (access(dir, W_OK | X_OK))
		diag(ctx, line, "[snapshot] directory: %s is not writable: %s: make it writable for uid %u or change [snapshot] directory",
		     shown, strerror(errno), (unsigned int)geteuid());
}

static void parse_directory(struct parse_ctx *ctx, char *value)
{
	char *shown;

	ctx->cfg->directory = strdup(value);
	if (!ctx->cfg->directory || asprintf(&shown, "'%s'", value) < 0) {
		ctx->err = -ENOMEM;
		return;
	}
	check_directory(ctx, value, shown, ctx->line);
	free(shown);
}

static void parse_formats(struct parse_ctx *ctx, char *value)
{
	char *save = NULL;
	char *token;

	for (token = strtok_r(value, SPACES, &save); token; token = strtok_r(NULL, SPACES, &save)) {
		if (!strcmp(token, "perf.data")) {
			ctx->cfg->formats |= SNAPSHOT_FORMAT_PERFDATA;
		} else if (!strcmp(token, "trace.dat")) {
			ctx->cfg->formats |= SNAPSHOT_FORMAT_TRACEDAT;
		} else {
			diag(ctx, ctx->line, "[snapshot] formats: unknown format '%s': accepted: " FORMATS_ACCEPTED,
			     token);
			ctx->key_failed[KEY_FORMATS] = true;
		}
	}
}

static unsigned int buffer_pages(uint64_t size)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	uint64_t pages = (size + page - 1) / page;
	unsigned int n = 1;

	while (n < pages)
		n <<= 1;
	return n;
}

/* Defaults and checks that need the whole file. */
static void finish_config(struct parse_ctx *ctx)
{
	struct perfsnapd_config *cfg = ctx->cfg;

	if (!cfg->nr_events && !ctx->key_failed[KEY_EVENTS])
		diag(ctx, ctx->key_line[KEY_EVENTS],
		     "[capture] events: no events: accepted: tracepoints such as sched:sched_switch (globs allowed) or software events such as cpu-clock, space-separated");
	if (!ctx->key_line[KEY_BUFFER_SIZE])
		cfg->buffer_size = DEFAULT_BUFFER_SIZE;
	if (cfg->buffer_size)
		cfg->buffer_pages = buffer_pages(cfg->buffer_size);
	if (!ctx->key_line[KEY_DIRECTORY]) {
		cfg->directory = strdup(DEFAULT_DIRECTORY);
		if (!cfg->directory)
			ctx->err = -ENOMEM;
		else
			check_directory(ctx, cfg->directory, "'" DEFAULT_DIRECTORY "' (the default)", 0);
	}
	if (!ctx->key_line[KEY_FORMATS])
		cfg->formats = SNAPSHOT_FORMAT_PERFDATA;
	else if (!cfg->formats && !ctx->key_failed[KEY_FORMATS])
		diag(ctx, ctx->key_line[KEY_FORMATS],
		     "[snapshot] formats: empty: accepted: " FORMATS_ACCEPTED);
}

/* Stable sort of diags [from, nr) by line, with line 0 (whole file) last. */
static void sort_diags(struct config_diags *diags, size_t from)
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

static bool has_diag_at(const struct config_diags *diags, size_t from, int line)
{
	size_t i;

	for (i = from; i < diags->nr; i++) {
		if (diags->items[i].line == line)
			return true;
	}
	return false;
}

/* Opens @path for reading, or adds a line 0 diagnostic. Returns 0 or -errno. */
static int open_config(const char *path, struct config_diags *diags, FILE **ret)
{
	FILE *f = fopen(path, "re");
	struct stat st;
	int r = 0;

	if (!f || fstat(fileno(f), &st))
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	if (!r) {
		*ret = f;
		return 0;
	}
	if (f)
		fclose(f);
	if (config_diags__add(diags, path, 0, "cannot open config file: %s", strerror(-r)))
		return -ENOMEM;
	return r;
}

/* Feeds ctx->file through inih. Returns 0, or -ENOMEM or -EIO. */
static int parse_file(struct parse_ctx *ctx, size_t first_diag)
{
	int r = ini_parse_stream(read_line, ctx, handle_key, ctx);

	finish_line(ctx);
	if (r == -2)
		ctx->err = -ENOMEM;
	else if (r > 0 && !has_diag_at(ctx->diags, first_diag, r))
		diag(ctx, r, "syntax error");	/* a case classify_line() missed */
	if (ctx->err == -EIO && config_diags__add(ctx->diags, ctx->cfg->path, 0,
						  "cannot read config file: %s", strerror(EIO)))
		ctx->err = -ENOMEM;
	return ctx->err;
}

/**
 * config__load - read and validate a perfsnapd.conf
 * @path: config file
 * @tracing_dir: tracefs mount point for tracepoint lookup; NULL for the
 *	system's (found by libtracefs)
 * @ret: set to the new config on success; free with config__delete()
 * @diags: every problem found is appended here ("file:line: message"), so
 *	one run reports them all; the caller prints and clears it
 *
 * Unset keys take their defaults: buffer_size 4M, cpus all, directory
 * /var/lib/perfsnapd (which must then exist), formats perf.data. events
 * has no default.
 *
 * Returns 0, -EINVAL if any diagnostic was added, -errno (also as a line 0
 * diagnostic) if @path cannot be opened or read, or -ENOMEM.
 */
int config__load(const char *path, const char *tracing_dir, struct perfsnapd_config **ret,
		 struct config_diags *diags)
{
	struct parse_ctx ctx = { .diags = diags, .tracing_dir = tracing_dir, .key = -1 };
	size_t first_diag = diags->nr;
	int r;

	ctx.cfg = calloc(1, sizeof(*ctx.cfg));
	if (!ctx.cfg)
		return -ENOMEM;
	ctx.cfg->path = strdup(path);
	r = ctx.cfg->path ? open_config(path, diags, &ctx.file) : -ENOMEM;
	if (r < 0)
		goto out;
	r = parse_file(&ctx, first_diag);
	if (r < 0)
		goto out;
	finish_config(&ctx);
	r = ctx.err;
	if (r < 0)
		goto out;
	sort_diags(diags, first_diag);
	if (diags->nr > first_diag) {
		r = -EINVAL;
		goto out;
	}
	*ret = ctx.cfg;
	ctx.cfg = NULL;
out:
	if (ctx.file)
		fclose(ctx.file);
	free(ctx.buf);
	config__delete(ctx.cfg);
	return r;
}

/**
 * config__delete - free a config
 * @cfg: config from config__load(); NULL is fine
 */
void config__delete(struct perfsnapd_config *cfg)
{
	size_t i;

	if (!cfg)
		return;
	for (i = 0; i < cfg->nr_events; i++)
		event_spec__fini(&cfg->events[i]);
	free(cfg->events);
	free(cfg->path);
	free(cfg->cpus);
	free(cfg->directory);
	free(cfg);
}

/* "4M", "1G", "5000": the largest exact suffix. */
static void format_size(uint64_t size, char *buf, size_t len)
{
	static const char suffix[] = "GMK";
	int shift, i;

	for (i = 0, shift = 30; shift > 0; i++, shift -= 10) {
		if (size && !(size & ((1ull << shift) - 1))) {
			snprintf(buf, len, "%llu%c", (unsigned long long)(size >> shift), suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)size);
}

/**
 * config__print - print the effective configuration
 * @cfg: loaded config
 * @out: stream to print to
 *
 * Prints in config-file syntax, for `perfsnapd --check-config`: events after
 * glob expansion, one per line, each with its terms; defaults spelled out;
 * buffer_size as requested, with a comment when pages rounding changed it.
 * The output loads back into the same configuration.
 */
void config__print(const struct perfsnapd_config *cfg, FILE *out)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	uint64_t rounded = cfg->buffer_pages * page;
	char size[32];
	size_t i;

	fprintf(out, "; effective configuration from %s\n[capture]\nevents =", cfg->path);
	for (i = 0; i < cfg->nr_events; i++) {
		fputs(i ? "\n\t" : " ", out);
		event_spec__print(&cfg->events[i], out);
	}
	format_size(cfg->buffer_size, size, sizeof(size));
	fprintf(out, "\nbuffer_size = %s", size);
	if (rounded != cfg->buffer_size) {
		format_size(rounded, size, sizeof(size));
		fprintf(out, "\t; rounded up to %s per CPU: %u pages of %llu bytes",
			size, cfg->buffer_pages, (unsigned long long)page);
	}
	fprintf(out, "\ncpus = %s\n\n[snapshot]\ndirectory = %s\nformats =%s%s\n",
		cfg->cpus ? cfg->cpus : "all", cfg->directory,
		cfg->formats & SNAPSHOT_FORMAT_PERFDATA ? " perf.data" : "",
		cfg->formats & SNAPSHOT_FORMAT_TRACEDAT ? " trace.dat" : "");
}

/**
 * config_diags__print - print diagnostics, one a line
 * @diags: diagnostics from config__load()
 * @out: stream to print to
 *
 * Prints "file:line: message", or "file: message" for line 0.
 */
void config_diags__print(const struct config_diags *diags, FILE *out)
{
	size_t i;

	for (i = 0; i < diags->nr; i++) {
		const struct config_diag *d = &diags->items[i];

		if (d->line > 0)
			fprintf(out, "%s:%d: %s\n", d->file, d->line, d->message);
		else
			fprintf(out, "%s: %s\n", d->file, d->message);
	}
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
