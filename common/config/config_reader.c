// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_reader: feeds perfsnapd.conf to inih and hands each key's value to
 * its handler in config.c. inih reports no line numbers to this build's
 * handler, so lines are fed to it through our own reader, which counts
 * them and spots lines inih would reject or skip silently (syntax errors,
 * unknown sections); keys outside a section, unknown keys, keys given twice
 * and continued one-line keys are reported here. Part of common/: never logs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "config-internal.h"

#define SPACES " \t\r\n\v\f"

/**
 * config_reader__diag - report a problem with the file being read
 * @p: the parser
 * @line: line of the problem, 0 for the whole file
 * @fmt: printf format of the message: "[section] key: what is wrong
 *	'value': accepted: what would be"
 *
 * Appends to p->diags; on ENOMEM sets p->err, which stops the load.
 */
void config_reader__diag(struct config_reader *p, int line, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (p->err)
		return;
	va_start(ap, fmt);
	r = config_diags__addv(p->diags, p->cfg->path, line, fmt, ap);
	va_end(ap);
	if (r < 0)
		p->err = r;
}

static bool known_section(const char *section)
{
	int k;

	for (k = 0; k < NR_KEYS; k++) {
		if (!strcmp(config_keys[k].section, section))
			return true;
	}
	return false;
}

static int find_key(const char *section, const char *name)
{
	int k;

	for (k = 0; k < NR_KEYS; k++) {
		if (!strcmp(config_keys[k].section, section) && !strcmp(config_keys[k].name, name))
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
		if (strcmp(config_keys[k].section, section))
			continue;
		len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
				config_keys[k].name);
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

/* Classifies the line in p->buf the way inih's parser will see it. */
static void classify_line(struct config_reader *p)
{
	char *start = p->buf;
	char *end;

	if (p->line == 1 && !strncmp(start, "\xEF\xBB\xBF", 3))
		start += 3;
	start += strspn(start, SPACES);
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		*--end = '\0';
	p->text = start;
	p->needs_handler = false;
	if (!*start || *start == ';' || *start == '#')
		return;
	if (start > p->buf && p->have_key) {
		p->continuation = true;
		p->needs_handler = true;
		return;
	}
	if (*start != '[') {
		p->needs_handler = true;
		return;
	}
	end = find_chars_or_comment(start + 1, "]");
	if (*end != ']') {
		config_reader__diag(
			p, p->line,
			"syntax error: '%s' has no closing ']': accepted: " CONFIG_SECTIONS, start);
		return;
	}
	*end = '\0';
	p->have_key = false;
	p->trigger = -1;
	if (config_trigger__is_section(start + 1))
		config_trigger__begin(p, start + 1);
	else if (!known_section(start + 1))
		config_reader__diag(p, p->line, "[%s]: unknown section: accepted: " CONFIG_SECTIONS,
				    start + 1);
}

static void finish_line(struct config_reader *p)
{
	if (p->needs_handler && !p->handled)
		config_reader__diag(
			p, p->line,
			"syntax error: '%s': accepted: key = value, [section], or a ; or # comment",
			p->text);
	p->needs_handler = false;
}

/*
 * A NUL or another control byte but tab in the @n bytes of p->buf: inih
 * and the value parsers would end the line at a NUL and accept what came
 * before it, so the whole line is an error. Returns true if reported.
 */
static bool bad_byte(struct config_reader *p, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = p->buf[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f) {
			config_reader__diag(
				p, p->line,
				"control byte 0x%02x at column %zd: accepted: printable text and tabs (is this a text file?)",
				c, i + 1);
			return true;
		}
	}
	return false;
}

/* Whether @line is a ; or # comment, which may be of any length. */
static bool is_comment(const char *line)
{
	line += strspn(line, SPACES);
	return *line == ';' || *line == '#';
}

/*
 * The ini_reader: hands inih one line at a time, numbering them. inih
 * calls the handler for a line before it asks for the next one, so
 * p->line is the handler's line. A key line longer than inih's buffer
 * would be split and misparsed, so it is reported and replaced by a blank
 * line; comments never reach inih, so they may be of any length.
 */
static char *read_line(char *str, int size, void *stream)
{
	struct config_reader *p = stream;
	ssize_t n;

	finish_line(p);
	errno = 0;
	n = getline(&p->buf, &p->buf_size, p->file);
	if (n < 0) {
		if (!feof(p->file) && !p->err)
			p->err = errno == ENOMEM ? -ENOMEM : -EIO;
		return NULL;
	}
	/* The file was regular and small when opened, but may have grown since. */
	p->bytes += (size_t)n;
	if (p->bytes > CONFIG_FILE_MAX) {
		if (!p->err)
			p->err = -EFBIG;
		return NULL;
	}
	p->line++;
	p->handled = false;
	p->continuation = false;
	while (n > 0 && (p->buf[n - 1] == '\n' || p->buf[n - 1] == '\r'))
		p->buf[--n] = '\0';
	if (bad_byte(p, n) || is_comment(p->buf)) {
		/* inih would stop at a NUL; a comment may be longer than its buffer. */
		p->needs_handler = false;
		p->text = p->buf;
		snprintf(str, size, "\n");
		return str;
	}
	if (n > CONFIG_LINE_MAX || size < 3 || n > size - 3) {
		config_reader__diag(
			p, p->line,
			"line too long (%zd characters): accepted: at most %d; put more events on indented lines below",
			n, size < 3 || size - 3 < CONFIG_LINE_MAX ? size - 3 : CONFIG_LINE_MAX);
		p->needs_handler = false;
		snprintf(str, size, "\n");
		return str;
	}
	memcpy(str, p->buf, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	classify_line(p);
	return str;
}

/* The ini_handler: returns nonzero (inih's "success") always; errors are diags. */
static int handle_key(void *user, const char *section, const char *name, const char *value)
{
	struct config_reader *p = user;
	char *v;
	int k;

	p->handled = true;
	p->have_key = true;
	if (p->err)
		return 1;
	if (config_trigger__is_section(section)) {
		char *tv;

		if (p->continuation) {
			config_reader__diag(
				p, p->line,
				"[%s]: value continues on indented line '%s': accepted: one line per key",
				section, p->text);
			return 1;
		}
		tv = clean_value(value);
		if (!tv) {
			p->err = -ENOMEM;
			return 1;
		}
		config_trigger__set_key(p, name, tv);
		free(tv);
		return 1;
	}
	if (p->continuation) {
		k = p->key;
		if (k < 0)
			return 1;
		if (!config_keys[k].multiline) {
			config_reader__diag(
				p, p->line,
				"[%s] %s: value continues on indented line '%s': accepted: one line (only events and formats take several)",
				config_keys[k].section, config_keys[k].name, p->text);
			p->key_failed[k] = true;
			return 1;
		}
	} else {
		p->key = -1;
		if (!*section) {
			config_reader__diag(
				p, p->line,
				"key '%s' outside a section: accepted: keys under " CONFIG_SECTIONS,
				name);
			return 1;
		}
		if (!known_section(section))
			return 1; /* reported at the section header */
		k = find_key(section, name);
		if (k < 0) {
			char accepted[256];

			key_list(section, accepted, sizeof(accepted));
			config_reader__diag(p, p->line,
					    "[%s] %s: unknown key: accepted in [%s]: %s", section,
					    name, section, accepted);
			return 1;
		}
		if (p->key_line[k]) {
			config_reader__diag(
				p, p->line,
				"[%s] %s: set again (first on line %d): accepted: once per file",
				section, name, p->key_line[k]);
			return 1;
		}
		p->key_line[k] = p->line;
		p->key = k;
	}
	v = clean_value(value);
	if (!v) {
		p->err = -ENOMEM;
		return 1;
	}
	config__set_key(p, k, v);
	free(v);
	return 1;
}

#define NOT_A_CONFIG_FIX "give --config the path of a perfsnapd.conf(5) file"

/*
 * Opens @path for reading, or adds a line 0 diagnostic. Only a regular
 * file of at most CONFIG_FILE_MAX bytes is read: a FIFO would stall the
 * loop until someone writes to it, a device could be read without end.
 * Returns 0 or -errno.
 */
static int open_config(const char *path, struct config_diags *diags, FILE **ret)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	FILE *f = NULL;
	int r = 0, e;

	if (fd < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else if (S_ISDIR(st.st_mode))
		r = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if (st.st_size > CONFIG_FILE_MAX)
		r = -EFBIG;
	else if (!(f = fdopen(fd, "re")))
		r = -errno;
	if (!r) {
		*ret = f;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	if (r == -EINVAL)
		e = config_diags__add(diags, path, 0,
				      "cannot read config file: it is %s, not a regular file: %s",
				      S_ISFIFO(st.st_mode) ? "a FIFO" :
				      S_ISSOCK(st.st_mode) ? "a socket" :
							     "a device",
				      NOT_A_CONFIG_FIX);
	else if (r == -EFBIG)
		e = config_diags__add(diags, path, 0,
				      "cannot read config file: %lld bytes, over %d: %s",
				      (long long)st.st_size, CONFIG_FILE_MAX, NOT_A_CONFIG_FIX);
	else
		e = config_diags__add(diags, path, 0, "cannot open config file: %s", strerror(-r));
	return e < 0 ? e : r;
}

/**
 * config_reader__read - read p->cfg->path and run each key's handler
 * @p: the parser, with cfg (and its path), diags and tracing_dir set
 * @first_diag: the first entry of p->diags that this load added
 *
 * Problems with the contents become diagnostics, and reading goes on.
 *
 * Returns 0, or -errno (also as a line 0 diagnostic) if the file cannot be
 * opened or read, or -ENOMEM.
 */
int config_reader__read(struct config_reader *p, size_t first_diag)
{
	int r;

	r = open_config(p->cfg->path, p->diags, &p->file);
	if (r < 0)
		return r;
	r = ini_parse_stream(read_line, p, handle_key, p);
	finish_line(p);
	if (r == -2)
		p->err = -ENOMEM;
	else if (r > 0 && !config_diags__has_line(p->diags, first_diag, r))
		config_reader__diag(p, r, "syntax error"); /* a case classify_line() missed */
	if (p->err == -EIO && config_diags__add(p->diags, p->cfg->path, 0,
						"cannot read config file: %s", strerror(EIO)))
		p->err = -ENOMEM;
	if (p->err == -EFBIG &&
	    config_diags__add(p->diags, p->cfg->path, 0,
			      "cannot read config file: it grew over %d bytes: %s", CONFIG_FILE_MAX,
			      NOT_A_CONFIG_FIX))
		p->err = -ENOMEM;
	fclose(p->file);
	p->file = NULL;
	free(p->buf);
	p->buf = NULL;
	return p->err;
}
