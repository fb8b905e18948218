// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracing_data: builds perf.data's TRACING_DATA feature from tracefs.
 *
 * The blob is the one perf's trace-event-read.c parses (version "0.6"):
 * magic, endianness, long and page size, header_page, header_event, no
 * ftrace formats, the event formats grouped by system, an empty kallsyms,
 * printk_formats, and no saved cmdlines. Files are read through libtracefs
 * so a test can point @tracing_dir at a copy. Part of common/: no logging.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "tracing_data.h"

/* "\027\010D" then "tracing": perf checks both, in two reads. */
static const char tracing_magic[10] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
static const char tracing_version[] = "0.6";

struct blob {
	unsigned char *data;
	size_t len;
	size_t cap;
};

/* One requested tracepoint, split into its system and event names. */
struct tp_name {
	char *system;
	char *event;
	bool done;		/* already written with its system */
};

static int blob_put(struct blob *b, const void *data, size_t len)
{
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap - b->len < len) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	return 0;
}

static int blob_put_u32(struct blob *b, uint32_t v)
{
	return blob_put(b, &v, sizeof(v));
}

static int blob_put_u64(struct blob *b, uint64_t v)
{
	return blob_put(b, &v, sizeof(v));
}

/* A string with its NUL, as perf's read_string() expects. */
static int blob_put_str(struct blob *b, const char *s)
{
	return blob_put(b, s, strlen(s) + 1);
}

static int read_error(void)
{
	return errno ? -errno : -EIO;
}

/* Appends a tracefs file (relative to the tracing dir) after its u64 size. */
static int put_instance_file(struct blob *b, struct tracefs_instance *inst, const char *file)
{
	char *text;
	int size = 0, err;

	errno = 0;
	text = tracefs_instance_file_read(inst, file, &size);
	if (!text)
		return read_error();
	err = blob_put_u64(b, (uint64_t)size);
	if (!err)
		err = blob_put(b, text, (size_t)size);
	free(text);
	return err;
}

static int put_event_format(struct blob *b, struct tracefs_instance *inst,
			    const struct tp_name *tp)
{
	char *text;
	int size = 0, err;

	errno = 0;
	text = tracefs_event_file_read(inst, tp->system, tp->event, "format", &size);
	if (!text)
		return read_error();
	err = blob_put_u64(b, (uint64_t)size);
	if (!err)
		err = blob_put(b, text, (size_t)size);
	free(text);
	return err;
}

/* printk_formats lets perf print %s pointers of bprintk formats. */
static int put_printk_formats(struct blob *b, struct tracefs_instance *inst)
{
	char *text;
	int size = 0, err;

	if (!tracefs_file_exists(inst, "printk_formats"))
		return blob_put_u32(b, 0);
	errno = 0;
	text = tracefs_instance_file_read(inst, "printk_formats", &size);
	if (!text)
		return read_error();
	err = blob_put_u32(b, (uint32_t)size);
	if (!err)
		err = blob_put(b, text, (size_t)size);
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
static int put_system(struct blob *b, struct tracefs_instance *inst, struct tp_name *tps,
		      size_t nr, size_t first)
{
	uint32_t count = 0;
	size_t i;
	int err;

	for (i = first; i < nr; i++)
		count += !tps[i].done && !strcmp(tps[i].system, tps[first].system);
	err = blob_put_str(b, tps[first].system);
	if (!err)
		err = blob_put_u32(b, count);
	for (i = first; !err && i < nr; i++) {
		if (tps[i].done || strcmp(tps[i].system, tps[first].system))
			continue;
		err = put_event_format(b, inst, &tps[i]);
		tps[i].done = true;
	}
	return err;
}

static int put_systems(struct blob *b, struct tracefs_instance *inst, struct tp_name *tps,
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
	err = blob_put_u32(b, nr_systems);
	for (i = 0; !err && i < nr; i++) {
		if (!tps[i].done)
			err = put_system(b, inst, tps, nr, i);
	}
	return err;
}

static int put_preamble(struct blob *b, struct tracefs_instance *inst)
{
	uint8_t big_endian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	uint8_t long_size = sizeof(long);
	long page_size = sysconf(_SC_PAGESIZE);
	int err;

	if (page_size <= 0)
		return -EINVAL;
	err = blob_put(b, tracing_magic, sizeof(tracing_magic));
	if (!err)
		err = blob_put_str(b, tracing_version);
	if (!err)
		err = blob_put(b, &big_endian, 1);
	if (!err)
		err = blob_put(b, &long_size, 1);
	if (!err)
		err = blob_put_u32(b, (uint32_t)page_size);
	if (!err)
		err = blob_put(b, "header_page", sizeof("header_page"));
	if (!err)
		err = put_instance_file(b, inst, "events/header_page");
	if (!err)
		err = blob_put(b, "header_event", sizeof("header_event"));
	if (!err)
		err = put_instance_file(b, inst, "events/header_event");
	return err;
}

static int build(struct blob *b, struct tracefs_instance *inst, struct tp_name *tps, size_t nr)
{
	int err;

	err = check_events(inst, tps, nr);
	if (!err)
		err = put_preamble(b, inst);
	if (!err)
		err = blob_put_u32(b, 0);	/* ftrace format files */
	if (!err)
		err = put_systems(b, inst, tps, nr);
	if (!err)
		err = blob_put_u32(b, 0);	/* kallsyms: perf resolves on its own */
	if (!err)
		err = put_printk_formats(b, inst);
	if (!err)
		err = blob_put_u64(b, 0);	/* saved cmdlines */
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
	struct blob b = { 0 };
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
