// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing_data: builds perf.data's TRACING_DATA feature from tracefs, and
 * takes such a blob apart again (tracing_data__parse) for a converter.
 *
 * The blob is the one perf's trace-event-read.c parses (version "0.6"):
 * magic, endianness, long and page size, header_page, header_event, no
 * ftrace formats, the event formats grouped by system, an empty kallsyms,
 * printk_formats, and no saved cmdlines. Files are read through libtracefs
 * so a test can point @tracing_dir at a copy. Part of common/: no logging.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "byte_buffer.h"
#include "tracing_formats.h"
#include "tracing_data.h"

/* "\027\010D" then "tracing": perf checks both, in two reads. */
static const char tracing_magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
static const char tracing_version[] = "0.6";

/* One requested tracepoint, split into its system and event names. */
struct tp_name {
	char *system;
	char *event;
	bool done; /* already written with its system */
};

static int read_error(void)
{
	return errno ? -errno : -EIO;
}

/* Appends a tracefs file (relative to the tracing dir) after its u64 size. */
static int put_instance_file(struct byte_buffer *b, struct tracefs_instance *inst, const char *file)
{
	char *text;
	int size = 0, err;

	errno = 0;
	text = tracefs_instance_file_read(inst, file, &size);
	if (!text)
		return read_error();
	err = byte_buffer__put_u64(b, (uint64_t)size);
	if (!err)
		err = byte_buffer__put(b, text, (size_t)size);
	free(text);
	return err;
}

static int put_event_format(struct byte_buffer *b, struct tracefs_instance *inst,
			    const struct tp_name *tp)
{
	char *text;
	int size = 0, err;

	errno = 0;
	text = tracefs_event_file_read(inst, tp->system, tp->event, "format", &size);
	if (!text)
		return read_error();
	err = byte_buffer__put_u64(b, (uint64_t)size);
	if (!err)
		err = byte_buffer__put(b, text, (size_t)size);
	free(text);
	return err;
}

/* printk_formats lets perf print %s pointers of bprintk formats. */
static int put_printk_formats(struct byte_buffer *b, struct tracefs_instance *inst)
{
	char *text;
	int size = 0, err;

	if (!tracefs_file_exists(inst, "printk_formats"))
		return byte_buffer__put_u32(b, 0);
	errno = 0;
	text = tracefs_instance_file_read(inst, "printk_formats", &size);
	if (!text)
		return read_error();
	err = byte_buffer__put_u32(b, (uint32_t)size);
	if (!err)
		err = byte_buffer__put(b, text, (size_t)size);
	free(text);
	return err;
}

static bool valid_name(const char *s, size_t len)
{
	if (!len || memchr(s, '/', len))
		return false;
	if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
		return false;
	return true;
}

static void free_names(struct tp_name *tps, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		free(tps[i].system);
		free(tps[i].event);
	}
	free(tps);
}

/* Splits "system:event"; -EINVAL for anything that is not a tracepoint name. */
static int split_names(const char *const *events, size_t nr, struct tp_name **ret_tps)
{
	struct tp_name *tps = calloc(nr ? nr : 1, sizeof(*tps));
	size_t i;

	if (!tps)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const char *colon = events[i] ? strchr(events[i], ':') : NULL;
		size_t sys_len = colon ? (size_t)(colon - events[i]) : 0;

		if (!colon || !valid_name(events[i], sys_len) ||
		    !valid_name(colon + 1, strlen(colon + 1)) || strchr(colon + 1, ':')) {
			free_names(tps, nr);
			return -EINVAL;
		}
		tps[i].system = strndup(events[i], sys_len);
		tps[i].event = strdup(colon + 1);
		if (!tps[i].system || !tps[i].event) {
			free_names(tps, nr);
			return -ENOMEM;
		}
	}
	*ret_tps = tps;
	return 0;
}

static bool same_tp(const struct tp_name *a, const struct tp_name *b)
{
	return !strcmp(a->system, b->system) && !strcmp(a->event, b->event);
}

/* -ENOENT for an unknown event, -EACCES without permission to read tracefs. */
static int check_format(struct tracefs_instance *inst, const struct tp_name *tp)
{
	char *path = tracefs_event_get_file(inst, tp->system, tp->event, "format");
	int err = 0;

	if (!path)
		return -ENOMEM;
	if (access(path, R_OK))
		err = -errno;
	tracefs_put_tracing_file(path);
	return err;
}

/* Marks duplicates done and checks every event has a readable format. */
static int check_events(struct tracefs_instance *inst, struct tp_name *tps, size_t nr)
{
	size_t i, j;
	int err;

	for (i = 0; i < nr; i++) {
		for (j = 0; j < i; j++) {
			if (same_tp(&tps[i], &tps[j]))
				tps[i].done = true;
		}
		err = check_format(inst, &tps[i]);
		if (err)
			return err;
	}
	return 0;
}

/* One system: its name, the event count, and each event's format file. */
static int put_system(struct byte_buffer *b, struct tracefs_instance *inst, struct tp_name *tps,
		      size_t nr, size_t first)
{
	uint32_t count = 0;
	size_t i;
	int err;

	for (i = first; i < nr; i++)
		count += !tps[i].done && !strcmp(tps[i].system, tps[first].system);
	err = byte_buffer__put_str(b, tps[first].system);
	if (!err)
		err = byte_buffer__put_u32(b, count);
	for (i = first; !err && i < nr; i++) {
		if (tps[i].done || strcmp(tps[i].system, tps[first].system))
			continue;
		err = put_event_format(b, inst, &tps[i]);
		tps[i].done = true;
	}
	return err;
}

static int put_systems(struct byte_buffer *b, struct tracefs_instance *inst, struct tp_name *tps,
		       size_t nr)
{
	uint32_t nr_systems = 0;
	size_t i, j;
	int err;

	for (i = 0; i < nr; i++) {
		bool seen = tps[i].done;

		for (j = 0; !seen && j < i; j++)
			seen = !strcmp(tps[i].system, tps[j].system);
		nr_systems += !seen;
	}
	err = byte_buffer__put_u32(b, nr_systems);
	for (i = 0; !err && i < nr; i++) {
		if (!tps[i].done)
			err = put_system(b, inst, tps, nr, i);
	}
	return err;
}

static int put_preamble(struct byte_buffer *b, struct tracefs_instance *inst)
{
	uint8_t big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	uint8_t long_size = sizeof(long);
	long page_size = sysconf(_SC_PAGESIZE);
	int err;

	if (page_size <= 0)
		return -EINVAL;
	err = byte_buffer__put(b, tracing_magic, sizeof(tracing_magic));
	if (!err)
		err = byte_buffer__put_str(b, tracing_version);
	if (!err)
		err = byte_buffer__put(b, &big_endian, 1);
	if (!err)
		err = byte_buffer__put(b, &long_size, 1);
	if (!err)
		err = byte_buffer__put_u32(b, (uint32_t)page_size);
	if (!err)
		err = byte_buffer__put(b, "header_page", sizeof("header_page"));
	if (!err)
		err = put_instance_file(b, inst, "events/header_page");
	if (!err)
		err = byte_buffer__put(b, "header_event", sizeof("header_event"));
	if (!err)
		err = put_instance_file(b, inst, "events/header_event");
	return err;
}

static int build(struct byte_buffer *b, struct tracefs_instance *inst, struct tp_name *tps,
		 size_t nr)
{
	int err;

	err = check_events(inst, tps, nr);
	if (!err)
		err = put_preamble(b, inst);
	if (!err)
		err = byte_buffer__put_u32(b, 0); /* ftrace format files */
	if (!err)
		err = put_systems(b, inst, tps, nr);
	if (!err)
		err = byte_buffer__put_u32(b, 0); /* kallsyms: perf resolves on its own */
	if (!err)
		err = put_printk_formats(b, inst);
	if (!err)
		err = byte_buffer__put_u64(b, 0); /* saved cmdlines */
	return err;
}

/**
 * tracing_data__build - build the TRACING_DATA blob for some tracepoints
 * @tracing_dir: tracefs mount point, or NULL for the system's
 * @events: tracepoint names, "system:event"; duplicates are written once
 * @nr_events: number of @events
 * @ret_data: set to the malloc'ed blob on success
 * @ret_size: set to its size on success
 *
 * Systems appear in the order their first event is given. printk_formats
 * is included when readable. Returns 0, -EINVAL for a malformed name,
 * -ENOENT if the tracing dir or an event does not exist, -EACCES if
 * tracefs is not readable, -ENOMEM, or the -errno of a failed read.
 */
int tracing_data__build(const char *tracing_dir, const char *const *events, size_t nr_events,
			void **ret_data, size_t *ret_size)
{
	struct tracefs_instance *inst;
	struct tp_name *tps = NULL;
	struct byte_buffer b = { 0 };
	int err;

	if ((nr_events && !events) || !ret_data || !ret_size)
		return -EINVAL;
	err = split_names(events, nr_events, &tps);
	if (err)
		return err;
	errno = 0;
	inst = tracefs_instance_alloc(tracing_dir, NULL);
	if (!inst) {
		err = errno == ENOMEM ? -ENOMEM : -ENOENT;
		goto out_names;
	}
	err = build(&b, inst, tps, nr_events);
	tracefs_instance_free(inst);
	if (err) {
		free(b.data);
		goto out_names;
	}
	*ret_data = b.data;
	*ret_size = b.len;
out_names:
	free_names(tps, nr_events);
	return err;
}

/* Reading side: a cursor over a blob that reports where it went wrong. */
struct parser {
	const unsigned char *base;
	size_t size;
	size_t pos;
	char *errbuf;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
parse_error(struct parser *p, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errbuf || !p->errlen)
		return err;
	n = snprintf(p->errbuf, p->errlen, "tracing data offset %zu: ", p->pos);
	if (n >= 0 && (size_t)n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->errbuf + n, p->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int take_span(struct parser *p, uint64_t n, const char *what, const char **ret)
{
	if (n > p->size - p->pos)
		return parse_error(p, -EPROTO, "%s of %llu bytes runs past the end (%zu left)",
				   what, (unsigned long long)n, p->size - p->pos);
	*ret = (const char *)p->base + p->pos;
	p->pos += (size_t)n;
	return 0;
}

static int take_u8(struct parser *p, const char *what, uint8_t *ret)
{
	const char *s = NULL;
	int err = take_span(p, 1, what, &s);

	if (!err)
		*ret = (uint8_t)s[0];
	return err;
}

static int take_u32(struct parser *p, const char *what, uint32_t *ret)
{
	const char *s = NULL;
	int err = take_span(p, 4, what, &s);

	if (!err)
		memcpy(ret, s, 4);
	return err;
}

static int take_u64(struct parser *p, const char *what, uint64_t *ret)
{
	const char *s = NULL;
	int err = take_span(p, 8, what, &s);

	if (!err)
		memcpy(ret, s, 8);
	return err;
}

/* A NUL-terminated string of at most @max bytes before the NUL. */
static int take_string(struct parser *p, size_t max, const char *what, const char **ret)
{
	size_t left = p->size - p->pos;
	const unsigned char *nul = memchr(p->base + p->pos, 0, left < max + 1 ? left : max + 1);

	if (!nul)
		return parse_error(p, -EPROTO, "%s is not a string of at most %zu bytes", what,
				   max);
	*ret = (const char *)p->base + p->pos;
	p->pos = (size_t)(nul - p->base) + 1;
	return 0;
}

/* A u32 or u64 size, then that many bytes. */
static int take_sized(struct parser *p, int width, const char *what, const char **ret,
		      size_t *ret_size)
{
	uint64_t n = 0;
	uint32_t n32;
	int err;

	if (width == 4) {
		err = take_u32(p, what, &n32);
		n = n32;
	} else {
		err = take_u64(p, what, &n);
	}
	if (!err)
		err = take_span(p, n, what, ret);
	if (!err)
		*ret_size = (size_t)n;
	return err;
}

/* The value of the line starting with @key in @f's text, or NULL. */
static const char *format_line(const struct tracing_data_format *f, const char *key,
			       size_t *ret_len)
{
	size_t klen = strlen(key), pos = 0;

	while (pos < f->size) {
		const char *line = f->text + pos;
		const char *nl = memchr(line, '\n', f->size - pos);
		size_t len = nl ? (size_t)(nl - line) : f->size - pos;

		if (len >= klen && !memcmp(line, key, klen)) {
			*ret_len = len - klen;
			return line + klen;
		}
		pos += len + 1;
	}
	return NULL;
}

static void format_identify(struct tracing_data_format *f)
{
	const char *v;
	size_t len;

	f->id = -1;
	f->name = format_line(f, "name: ", &f->name_len);
	v = format_line(f, "ID: ", &len);
	if (v && len && len < 19) {
		int64_t id = 0;
		size_t i;

		for (i = 0; i < len && v[i] >= '0' && v[i] <= '9'; i++)
			id = id * 10 + (v[i] - '0');
		if (i == len)
			f->id = id;
	}
}

/* @count format files after their u64 sizes, all of @system, appended to *@arr. */
static int take_formats(struct parser *p, const char *system, uint32_t count,
			struct tracing_data_format **arr, size_t *nr)
{
	struct tracing_formats *check;
	struct tracing_data_format *n;
	int err = 0;

	/* Each needs its 8-byte size at least: refuse absurd counts before allocating. */
	if (count > (p->size - p->pos) / 8)
		return parse_error(p, -EPROTO, "%u format files cannot fit in %zu bytes", count,
				   p->size - p->pos);
	if (!count)
		return 0;
	n = realloc(*arr, (*nr + count) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	*arr = n;
	/* The trace.dat writer's own parser: what it would refuse, refuse here. */
	check = tracing_formats__new();
	if (!check)
		return -ENOMEM;
	for (uint32_t i = 0; i < count && !err; i++) {
		struct tracing_data_format *f = &n[*nr];
		size_t at = p->pos;

		memset(f, 0, sizeof(*f));
		f->system = system;
		err = take_sized(p, 8, "format file", &f->text, &f->size);
		if (err)
			break;
		err = tracing_formats__add(check, system, f->text, f->size);
		if (err == -EINVAL) {
			p->pos = at;
			err = parse_error(
				p, -EPROTO,
				"format file %u of system '%s' is damaged: accepted: a "
				"name:, an ID: up to 65535, field offsets and sizes up to 65535",
				i + 1, system);
			break;
		}
		format_identify(f);
		(*nr)++;
	}
	tracing_formats__delete(check);
	return err;
}

static int parse_preamble(struct parser *p, struct tracing_data_info *info)
{
	const char *s = NULL;
	uint8_t big_endian, long_size;
	int err;

	err = take_span(p, sizeof(tracing_magic), "magic", &s);
	if (err)
		return err;
	if (memcmp(s, tracing_magic, sizeof(tracing_magic))) {
		p->pos = 0;
		return parse_error(p, -EPROTO, "not tracing data (bad magic)");
	}
	err = take_string(p, sizeof(info->version) - 1, "version", &s);
	if (err)
		return err;
	if (strcmp(s, "0.5") && strcmp(s, "0.6"))
		return parse_error(p, -EPROTONOSUPPORT, "version '%.7s' is not 0.5 or 0.6", s);
	strcpy(info->version, s);
	err = take_u8(p, "endianness", &big_endian);
	if (!err && big_endian != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
		return parse_error(p, -EPROTONOSUPPORT, "recorded with the other byte order");
	if (!err)
		err = take_u8(p, "long size", &long_size);
	if (!err && long_size != 4 && long_size != 8)
		return parse_error(p, -EPROTO, "long size %u is not 4 or 8", long_size);
	info->long_size = long_size;
	if (!err)
		err = take_u32(p, "page size", &info->page_size);
	if (!err && !info->page_size)
		return parse_error(p, -EPROTO, "page size is 0");
	return err;
}

static int parse_headers(struct parser *p, struct tracing_data_info *info)
{
	const char *s = NULL;
	int err;

	err = take_span(p, sizeof("header_page"), "header_page tag", &s);
	if (!err && memcmp(s, "header_page", sizeof("header_page")))
		return parse_error(p, -EPROTO, "no header_page tag");
	if (!err)
		err = take_sized(p, 8, "header_page", &info->header_page, &info->header_page_size);
	if (!err)
		err = take_span(p, sizeof("header_event"), "header_event tag", &s);
	if (!err && memcmp(s, "header_event", sizeof("header_event")))
		return parse_error(p, -EPROTO, "no header_event tag");
	if (!err)
		err = take_sized(p, 8, "header_event", &info->header_event,
				 &info->header_event_size);
	return err;
}

static int parse_systems(struct parser *p, struct tracing_data_info *info)
{
	uint32_t count, systems;
	const char *system = NULL;
	int err;

	err = take_u32(p, "ftrace format count", &count);
	if (!err)
		err = take_formats(p, "ftrace", count, &info->ftrace, &info->nr_ftrace);
	if (!err)
		err = take_u32(p, "system count", &systems);
	for (uint32_t i = 0; !err && i < systems; i++) {
		err = take_string(p, 255, "system name", &system);
		if (!err && !valid_name(system, strlen(system)))
			return parse_error(p, -EPROTO, "bad system name '%s'", system);
		if (!err)
			err = take_u32(p, "event count", &count);
		if (!err)
			err = take_formats(p, system, count, &info->events, &info->nr_events);
	}
	return err;
}

/**
 * tracing_data__parse - take a TRACING_DATA blob apart
 * @data: the blob (perf.data's TRACING_DATA feature or pipe record payload)
 * @size: its size; bytes after the last section are ignored (padding)
 * @ret: filled on success with pointers into @data and malloc'ed arrays
 *	 (free them with tracing_data__release())
 * @errbuf: where a message saying what is wrong and at which offset goes, or NULL
 * @errlen: its size
 *
 * Returns 0, -EPROTO for a malformed blob, -EPROTONOSUPPORT for a version
 * other than 0.5/0.6 or the other byte order, or -ENOMEM.
 */
int tracing_data__parse(const void *data, size_t size, struct tracing_data_info *ret, char *errbuf,
			size_t errlen)
{
	struct parser p = {
		.base = data, .size = data ? size : 0, .errbuf = errbuf, .errlen = errlen
	};
	struct tracing_data_info info = { 0 };
	int err;

	if (errbuf && errlen)
		errbuf[0] = '\0';
	err = parse_preamble(&p, &info);
	if (!err)
		err = parse_headers(&p, &info);
	if (!err)
		err = parse_systems(&p, &info);
	if (!err)
		err = take_sized(&p, 4, "kallsyms", &info.kallsyms, &info.kallsyms_size);
	if (!err)
		err = take_sized(&p, 4, "printk formats", &info.printk, &info.printk_size);
	if (!err && !strcmp(info.version, "0.6"))
		err = take_sized(&p, 8, "saved cmdlines", &info.cmdlines, &info.cmdlines_size);
	if (err) {
		tracing_data__release(&info);
		return err;
	}
	info.size = p.pos;
	*ret = info;
	return 0;
}

/**
 * tracing_data__release - free what tracing_data__parse() allocated
 * @info: a parsed or zeroed info; its arrays are freed and it is zeroed
 */
void tracing_data__release(struct tracing_data_info *info)
{
	if (!info)
		return;
	free(info->ftrace);
	free(info->events);
	memset(info, 0, sizeof(*info));
}

/**
 * tracing_data__find_id - find an event format by tracepoint id
 * @info: a parsed blob
 * @id: the id (a tracepoint's perf_event_attr.config)
 *
 * Returns the format or NULL.
 */
const struct tracing_data_format *tracing_data__find_id(const struct tracing_data_info *info,
							uint64_t id)
{
	for (size_t i = 0; i < info->nr_events; i++)
		if (info->events[i].id >= 0 && (uint64_t)info->events[i].id == id)
			return &info->events[i];
	return NULL;
}
