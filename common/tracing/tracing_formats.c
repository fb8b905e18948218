// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing_formats: keeps tracepoint format texts for the EVENT_FORMATS
 * section and reads just enough of them (name, ID, field offsets and
 * sizes, dynamic fields) to tell how long an event's record really is:
 * perf pads PERF_SAMPLE_RAW to 8 bytes, the ftrace ring buffer does not.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracing_formats.h"

/* Bit 31 of a dynamic field's offset: __rel_loc (relative to its end). */
#define DYN_REL (1u << 31)

struct format {
	char *system;
	char *name;
	char *text; /* NUL added, not counted in size */
	size_t size;
	unsigned long id;
	size_t fixed_end; /* end of the last fixed field */
	uint32_t *dyn;	  /* offsets of __data_loc/__rel_loc words */
	size_t nr_dyn;
};

struct tracing_formats {
	struct format *formats;
	size_t nr;
	/* common_type (a u16) to index + 1: one lookup per event written. */
	uint32_t *by_id;
	size_t nr_by_id;
};

/**
 * tracing_formats__new - an empty format collection
 *
 * Returns it, or NULL when out of memory.
 */
struct tracing_formats *tracing_formats__new(void)
{
	return calloc(1, sizeof(struct tracing_formats));
}

static void format_free(struct format *fmt)
{
	free(fmt->system);
	free(fmt->name);
	free(fmt->text);
	free(fmt->dyn);
}

/**
 * tracing_formats__delete - free a collection
 * @f: the collection, or NULL
 */
void tracing_formats__delete(struct tracing_formats *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nr; i++)
		format_free(&f->formats[i]);
	free(f->formats);
	free(f->by_id);
	free(f);
}

/* "key: value" at the start of a line; returns the value or NULL. */
static const char *line_value(const char *line, const char *key)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n))
		return NULL;
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	return line;
}

/* One "field:" line: its extent, and whether it is a dynamic field. */
static int parse_field(struct format *fmt, const char *line, const char *eol)
{
	const char *off = strstr(line, "offset:"), *sz;
	unsigned long offset, size;
	uint32_t *dyn;

	if (!off || off > eol || !(sz = strstr(off, "size:")) || sz > eol)
		return 0; /* not a field line we understand: ignore it */
	offset = strtoul(off + 7, NULL, 10);
	size = strtoul(sz + 5, NULL, 10);
	if (offset > 0xffff || size > 0xffff)
		return -EINVAL;
	if (offset + size > fmt->fixed_end)
		fmt->fixed_end = offset + size;
	if (size != 4)
		return 0;
	if (!memmem(line, (size_t)(off - line), "__data_loc", 10) &&
	    !memmem(line, (size_t)(off - line), "__rel_loc", 9))
		return 0;
	dyn = realloc(fmt->dyn, (fmt->nr_dyn + 1) * sizeof(*dyn));
	if (!dyn)
		return -ENOMEM;
	fmt->dyn = dyn;
	dyn[fmt->nr_dyn++] = (uint32_t)offset |
			     (memmem(line, (size_t)(off - line), "__rel_loc", 9) ? DYN_REL : 0);
	return 0;
}

/* Fills name, id and the field extents from fmt->text. */
static int parse_format(struct format *fmt)
{
	const char *line = fmt->text, *v;
	bool have_id = false;
	int err;

	while (*line) {
		const char *eol = strchr(line, '\n');

		if (!eol)
			eol = line + strlen(line);
		while (*line == ' ' || *line == '\t')
			line++;
		if (!fmt->name && (v = line_value(line, "name:"))) {
			fmt->name = strndup(v, (size_t)(eol - v));
			if (!fmt->name)
				return -ENOMEM;
		} else if ((v = line_value(line, "ID:"))) {
			fmt->id = strtoul(v, NULL, 10);
			have_id = true;
		} else if (!strncmp(line, "field:", 6) && (err = parse_field(fmt, line, eol))) {
			return err;
		}
		line = *eol ? eol + 1 : eol;
	}
	return fmt->name && *fmt->name && have_id && fmt->id <= 0xffff ? 0 : -EINVAL;
}

static struct format *find(const struct tracing_formats *f, const char *system, const char *event)
{
	for (size_t i = 0; i < f->nr; i++) {
		if (!strcmp(f->formats[i].system, system) && !strcmp(f->formats[i].name, event))
			return &f->formats[i];
	}
	return NULL;
}

/**
 * tracing_formats__has - whether an event's format is in the collection
 * @f: the collection
 * @system: its system, e.g. "sched"
 * @event: its name, e.g. "sched_switch"
 *
 * Returns true if it was added.
 */
bool tracing_formats__has(const struct tracing_formats *f, const char *system, const char *event)
{
	return find(f, system, event) != NULL;
}

/**
 * tracing_formats__add - add a tracepoint's format file
 * @f: the collection
 * @system: the event's system
 * @text: the text of events/<system>/<event>/format
 * @size: its length
 *
 * A second format for the same system and name is ignored.
 * Returns 0, -EINVAL when the text has no name or ID, or -ENOMEM.
 */
int tracing_formats__add(struct tracing_formats *f, const char *system, const char *text,
			 size_t size)
{
	struct format fmt = { .size = size }, *formats;
	int err;

	if (!system || !*system || !text || !size)
		return -EINVAL;
	fmt.system = strdup(system);
	fmt.text = malloc(size + 1);
	if (!fmt.system || !fmt.text) {
		err = -ENOMEM;
		goto out_free;
	}
	memcpy(fmt.text, text, size);
	fmt.text[size] = '\0';
	err = parse_format(&fmt);
	if (err)
		goto out_free;
	if (find(f, fmt.system, fmt.name))
		goto out_free;
	/* parse_format() took only IDs up to 0xffff, common_type's range. */
	if (fmt.id >= f->nr_by_id) {
		uint32_t *m = realloc(f->by_id, (fmt.id + 1) * sizeof(*m));

		if (!m) {
			err = -ENOMEM;
			goto out_free;
		}
		memset(m + f->nr_by_id, 0, (fmt.id + 1 - f->nr_by_id) * sizeof(*m));
		f->by_id = m;
		f->nr_by_id = fmt.id + 1;
	}
	formats = realloc(f->formats, (f->nr + 1) * sizeof(*formats));
	if (!formats) {
		err = -ENOMEM;
		goto out_free;
	}
	f->formats = formats;
	f->formats[f->nr++] = fmt;
	/* The first format of an ID wins, as the search this replaced found it. */
	if (!f->by_id[fmt.id])
		f->by_id[fmt.id] = (uint32_t)f->nr;
	return 0;
out_free:
	format_free(&fmt);
	return err;
}

/**
 * tracing_formats__event_size - the length of an event as ftrace stores it
 * @f: the collection
 * @data: the raw event, common_type first
 * @size: its length as given (perf's raw_size, padded)
 *
 * The end of the last fixed field or of the furthest dynamic array,
 * whichever is larger, but never more than @size. An event whose type is
 * not in the collection keeps @size. Returns the length in bytes.
 */
size_t tracing_formats__event_size(const struct tracing_formats *f, const void *data, size_t size)
{
	const unsigned char *p = data;
	const struct format *fmt = NULL;
	uint16_t type;
	size_t end;

	if (size < sizeof(type))
		return size;
	memcpy(&type, p, sizeof(type));
	if (type < f->nr_by_id && f->by_id[type])
		fmt = &f->formats[f->by_id[type] - 1];
	if (!fmt)
		return size;
	end = fmt->fixed_end;
	for (size_t i = 0; i < fmt->nr_dyn; i++) {
		size_t off = fmt->dyn[i] & ~DYN_REL, start;
		uint32_t loc;

		if (off + sizeof(loc) > size)
			continue;
		memcpy(&loc, p + off, sizeof(loc));
		/* Low 16 bits: offset (from the record, or the field's end), high: length. */
		start = (loc & 0xffff) + (fmt->dyn[i] & DYN_REL ? off + sizeof(loc) : 0);
		if (start + (loc >> 16) > end)
			end = start + (loc >> 16);
	}
	return end && end < size ? end : size;
}

struct out {
	unsigned char *data;
	size_t len;
};

/* Both passes of __section: @o->data NULL only counts. */
static void put(struct out *o, const void *data, size_t len)
{
	if (o->data)
		memcpy(o->data + o->len, data, len);
	o->len += len;
}

static bool first_of_system(const struct tracing_formats *f, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (!strcmp(f->formats[j].system, f->formats[i].system))
			return false;
	return true;
}

static bool is_ftrace(const struct format *fmt)
{
	return !strcmp(fmt->system, "ftrace");
}

/* One system's formats: (u64 size, text) each. */
static void put_system(const struct tracing_formats *f, const char *sys, struct out *o)
{
	for (size_t j = 0; j < f->nr; j++) {
		uint64_t size = f->formats[j].size;

		if (strcmp(f->formats[j].system, sys))
			continue;
		put(o, &size, sizeof(size));
		put(o, f->formats[j].text, f->formats[j].size);
	}
}

/*
 * EVENT_FORMATS: u32 systems, then per system its name, u32 count and
 * formats. FTRACE_EVENTS (@ftrace): u32 count and the "ftrace" formats.
 */
static void serialize(const struct tracing_formats *f, bool ftrace, struct out *o)
{
	uint32_t n = 0;

	for (size_t i = 0; i < f->nr; i++)
		if (is_ftrace(&f->formats[i]) == ftrace)
			n += ftrace ? 1 : first_of_system(f, i);
	put(o, &n, sizeof(n));
	if (ftrace) {
		put_system(f, "ftrace", o);
		return;
	}
	for (size_t i = 0; i < f->nr; i++) {
		const char *sys = f->formats[i].system;
		uint32_t count = 0;

		if (is_ftrace(&f->formats[i]) || !first_of_system(f, i))
			continue;
		for (size_t j = i; j < f->nr; j++)
			count += !strcmp(f->formats[j].system, sys);
		put(o, sys, strlen(sys) + 1);
		put(o, &count, sizeof(count));
		put_system(f, sys, o);
	}
}

/**
 * tracing_formats__section - the body of EVENT_FORMATS or FTRACE_EVENTS
 * @f: the collection
 * @ftrace: true for FTRACE_EVENTS (the "ftrace" system), false for the rest
 * @ret_data: set to a malloc'ed buffer on success
 * @ret_size: set to its length on success
 *
 * Systems come in the order their first event was added.
 * Returns 0 or -ENOMEM.
 */
int tracing_formats__section(const struct tracing_formats *f, bool ftrace, void **ret_data,
			     size_t *ret_size)
{
	struct out o = { 0 };

	serialize(f, ftrace, &o);
	o.data = malloc(o.len);
	if (!o.data)
		return -ENOMEM;
	o.len = 0;
	serialize(f, ftrace, &o);
	*ret_data = o.data;
	*ret_size = o.len;
	return 0;
}
