// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat_writer: streams a trace.dat v7 file (trace-cmd 3.x) to an fd.
 *
 * Layout: the initial header, the FLYRECORD section (each CPU's ring-buffer
 * pages, page aligned, written as events arrive), then, from __finish, the
 * metadata sections, OPTIONS and STRINGS (tracedat_writer_file.c). The
 * sections are contiguous because trace-cmd walks them in a row to find
 * STRINGS. Pages are encoded by tracedat_page.c. Part of common/: no
 * logging, every error is a negative errno.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <tracefs.h>
#include <zstd.h>

#include "tracing_formats.h"
#include "tracedat_page.h"
#include "tracedat_writer-internal.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "trace.dat is written little-endian from host-order perf data");

static int check_state(const struct tracedat_writer *w, enum tdw_state want)
{
	if (!w)
		return -EINVAL;
	return w->state == want ? 0 : -EBADFD;
}

/* Metadata may be added until __finish. */
static int check_meta_state(const struct tracedat_writer *w)
{
	if (!w)
		return -EINVAL;
	return w->state == TDW_OPEN || w->state == TDW_CPU ? 0 : -EBADFD;
}

static int get_instance(struct tracedat_writer *w)
{
	if (w->inst)
		return 0;
	errno = 0;
	w->inst = tracefs_instance_alloc(w->tracing_dir, NULL);
	if (!w->inst)
		return errno == ENOMEM ? -ENOMEM : -ENOENT;
	return 0;
}

/* A tracefs file into @out: an event's format when @event, else @file. */
static int read_tracefs(struct tracedat_writer *w, const char *system, const char *event,
			const char *file, struct byte_buffer *out)
{
	char *text;
	int size = 0, err;

	err = get_instance(w);
	if (err)
		return err;
	errno = 0;
	if (event)
		text = tracefs_event_file_read(w->inst, system, event, "format", &size);
	else
		text = tracefs_instance_file_read(w->inst, file, &size);
	if (!text)
		return errno ? -errno : -EIO;
	err = byte_buffer__set(out, text, (size_t)size);
	free(text);
	return err;
}

/* header_page and header_event, unless the params gave them. */
static int load_headers(struct tracedat_writer *w)
{
	int err;

	if (w->have_headers)
		return 0;
	err = read_tracefs(w, NULL, NULL, "events/header_page", &w->header_page);
	if (!err)
		err = read_tracefs(w, NULL, NULL, "events/header_event", &w->header_event);
	w->have_headers = !err;
	return err;
}

/* printk_formats resolves trace_printk() pointers; optional. */
static int load_printk(struct tracedat_writer *w)
{
	if (w->have_printk)
		return 0;
	w->have_printk = true;
	if (get_instance(w) || !tracefs_file_exists(w->inst, "printk_formats"))
		return 0;
	if (read_tracefs(w, NULL, NULL, "printk_formats", &w->printk) == -ENOMEM)
		return -ENOMEM;
	return 0;
}

static int copy_params(struct tracedat_writer *w, const struct tracedat_params *p)
{
	struct utsname u;
	int err = 0;

	w->tracing_dir = p->tracing_dir ? strdup(p->tracing_dir) : NULL;
	w->trace_clock = strdup(p->trace_clock ? p->trace_clock : "local");
	w->version = strdup("perfsnapd " PERFSNAPD_VERSION);
	if ((p->tracing_dir && !w->tracing_dir) || !w->trace_clock || !w->version)
		return -ENOMEM;
	if (p->header_page && p->header_event) {
		err = byte_buffer__set(&w->header_page, p->header_page, p->header_page_size);
		if (!err)
			err = byte_buffer__set(&w->header_event, p->header_event,
					       p->header_event_size);
		w->have_headers = true;
		/* Metadata from elsewhere: this machine's printk formats don't apply. */
		w->have_printk = true;
	}
	/* UNAME as trace-cmd record words it; optional. */
	if (!err && uname(&u) == 0 &&
	    asprintf(&w->uname, "%s %s %s %s", u.sysname, u.nodename, u.release, u.machine) < 0) {
		w->uname = NULL;
		err = -ENOMEM;
	}
	return err;
}

static int init_writer(struct tracedat_writer *w, const struct tracedat_params *p)
{
	long page_size = sysconf(_SC_PAGESIZE);
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	int err;

	w->page_size = page_size >= 4096 ? (size_t)page_size : 4096;
	w->nr_cpus = p->nr_cpus > 0 ? p->nr_cpus : (cpus > 0 ? (int)cpus : 1);
	w->compression = p->compression;
	w->cpus = calloc((size_t)w->nr_cpus, sizeof(*w->cpus));
	w->page = tracedat_page__new(w->page_size);
	w->formats = tracing_formats__new();
	if (!w->cpus || !w->page || !w->formats)
		return -ENOMEM;
	if (w->compression == TRACEDAT_COMPRESS_ZSTD && !(w->zctx = ZSTD_createCCtx()))
		return -ENOMEM;
	err = copy_params(w, p);
	if (!err)
		err = tracedat_writer__write_initial_header(w);
	return err;
}

/**
 * tracedat_writer__new - start a trace.dat file
 * @fd: a regular file open for writing (not O_APPEND), normally empty; the
 *      writer writes from offset 0 with pwrite() and never closes it
 * @params: metadata sources, CPU count, clock and compression; copied.
 *          nr_cpus <= 0 means the CPUs configured on this machine, a NULL
 *          trace_clock "local".
 *
 * The page size is this machine's (at least 4096). Nothing reaches @fd
 * before the output buffer fills or __finish. Returns the writer, or NULL
 * when memory ran out, @params is NULL or its compression is unknown.
 */
struct tracedat_writer *tracedat_writer__new(int fd, const struct tracedat_params *params)
{
	struct tracedat_writer *w;

	if (!params || (params->compression != TRACEDAT_COMPRESS_NONE &&
			params->compression != TRACEDAT_COMPRESS_ZSTD))
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->state = TDW_OPEN;
	w->cpu = -1;
	if (file_output__init(&w->out, fd, true) || init_writer(w, params)) {
		tracedat_writer__delete(w);
		return NULL;
	}
	return w;
}

/**
 * tracedat_writer__delete - free a writer
 * @w: the writer, or NULL
 *
 * Buffered bytes not yet written are dropped; the fd stays open (the
 * caller unlinks an unfinished file).
 */
void tracedat_writer__delete(struct tracedat_writer *w)
{
	if (!w)
		return;
	tracing_formats__delete(w->formats);
	for (size_t i = 0; i < w->nr_cmdlines; i++)
		free(w->cmdlines[i].comm);
	free(w->cmdlines);
	byte_buffer__fini(&w->header_page);
	byte_buffer__fini(&w->header_event);
	byte_buffer__fini(&w->kallsyms);
	byte_buffer__fini(&w->printk);
	byte_buffer__fini(&w->strings);
	byte_buffer__fini(&w->chunk);
	tracedat_page__delete(w->page);
	ZSTD_freeCCtx(w->zctx);
	if (w->inst)
		tracefs_instance_free(w->inst);
	free(w->tracing_dir);
	free(w->trace_clock);
	free(w->uname);
	free(w->version);
	free(w->cpus);
	file_output__fini(&w->out);
	free(w);
}

/**
 * tracedat_writer__add_event_format - add a tracepoint's format from tracefs
 * @w: the writer, before __finish
 * @name: "system:event"
 *
 * Formats are grouped by system in EVENT_FORMATS; adding one twice is
 * harmless. Also reads header_page and header_event now, unless the params
 * gave them. Returns 0, -EINVAL for a malformed name, -ENOENT for an
 * unknown event or tracefs not found, -EACCES, -ENOMEM, or -EBADFD.
 */
int tracedat_writer__add_event_format(struct tracedat_writer *w, const char *name)
{
	const char *colon = name ? strchr(name, ':') : NULL;
	struct byte_buffer text = { 0 };
	char *system;
	int err = check_meta_state(w);

	if (err)
		return err;
	if (!colon || colon == name || !colon[1] || strchr(colon + 1, ':') || strchr(name, '/') ||
	    name[0] == '.' || colon[1] == '.')
		return -EINVAL;
	system = strndup(name, (size_t)(colon - name));
	if (!system)
		return -ENOMEM;
	err = load_headers(w);
	if (!err && !tracing_formats__has(w->formats, system, colon + 1)) {
		err = read_tracefs(w, system, colon + 1, NULL, &text);
		if (!err)
			err = tracing_formats__add(w->formats, system, (char *)text.data, text.len);
	}
	byte_buffer__fini(&text);
	free(system);
	return err;
}

/**
 * tracedat_writer__add_event_format_text - add a tracepoint's format text
 * @w: the writer, before __finish
 * @system: the event's system, e.g. "sched"
 * @format: the text of its tracefs format file (name, ID, fields, print fmt)
 * @size: its length
 *
 * For a converter whose input carries its own formats; a second format for
 * the same event is ignored. Returns 0, -EINVAL when the text has no name
 * or ID, -ENOMEM, or -EBADFD.
 */
int tracedat_writer__add_event_format_text(struct tracedat_writer *w, const char *system,
					   const char *format, size_t size)
{
	int err = check_meta_state(w);

	return err ? err : tracing_formats__add(w->formats, system, format, size);
}

/**
 * tracedat_writer__add_cmdline - name a task in CMDLINES
 * @w: the writer, before __finish
 * @pid: the task's id, as in common_pid (the kernel's tid)
 * @comm: its name; a newline in it becomes '?'
 *
 * When a pid is named twice the later name wins. Returns 0, -EINVAL for an
 * empty name (which would end trace-cmd's parsing), -ENOMEM, or -EBADFD.
 */
int tracedat_writer__add_cmdline(struct tracedat_writer *w, pid_t pid, const char *comm)
{
	struct tdw_cmdline *c;
	int err = check_meta_state(w);

	if (err)
		return err;
	if (!comm || !*comm)
		return -EINVAL;
	if (w->nr_cmdlines == w->cap_cmdlines) {
		size_t cap = w->cap_cmdlines ? w->cap_cmdlines * 2 : 256;

		c = realloc(w->cmdlines, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		w->cmdlines = c;
		w->cap_cmdlines = cap;
	}
	c = &w->cmdlines[w->nr_cmdlines];
	c->comm = strdup(comm);
	if (!c->comm)
		return -ENOMEM;
	for (char *p = c->comm; (p = strchr(p, '\n'));)
		*p = '?';
	c->pid = pid;
	c->seq = w->nr_cmdlines++;
	return 0;
}

static int set_string(struct tracedat_writer *w, char **field, const char *s)
{
	int err = check_meta_state(w);
	char *copy;

	if (err)
		return err;
	copy = s ? strdup(s) : NULL;
	if (s && !copy)
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

/**
 * tracedat_writer__set_uname - set the UNAME option
 * @w: the writer, before __finish
 * @uname: e.g. "Linux host 6.18.0 x86_64", or NULL for none; copied
 *
 * The default is this machine's. Returns 0, -ENOMEM or -EBADFD.
 */
int tracedat_writer__set_uname(struct tracedat_writer *w, const char *uname)
{
	return set_string(w, w ? &w->uname : NULL, uname);
}

/**
 * tracedat_writer__set_kallsyms - set the KALLSYMS section
 * @w: the writer, before __finish
 * @text: /proc/kallsyms text (may be NULL with @size 0); copied
 * @size: its length
 *
 * Empty by default. Returns 0, -ENOMEM or -EBADFD.
 */
int tracedat_writer__set_kallsyms(struct tracedat_writer *w, const char *text, size_t size)
{
	int err = check_meta_state(w);

	return err ? err : byte_buffer__set(&w->kallsyms, text, size);
}

/**
 * tracedat_writer__set_printk - set the PRINTK section
 * @w: the writer, before __finish
 * @text: printk_formats text (may be NULL with @size 0); copied
 * @size: its length
 *
 * By default tracefs' printk_formats is used, unless the params gave
 * header_page and header_event (metadata from another machine): then it is
 * empty. Returns 0, -ENOMEM or -EBADFD.
 */
int tracedat_writer__set_printk(struct tracedat_writer *w, const char *text, size_t size)
{
	int err = check_meta_state(w);

	if (err)
		return err;
	w->have_printk = true;
	return byte_buffer__set(&w->printk, text, size);
}

/* The first page of a CPU: page-aligned offset, and a chunk count placeholder. */
static int start_cpu_data(struct tracedat_writer *w)
{
	int err = tracedat_writer__pad_to_page(w);

	if (err)
		return err;
	w->cpus[w->cpu].offset = tracedat_writer__pos(w);
	w->cpu_started = true;
	w->nr_chunks = 0;
	w->chunk.len = 0;
	if (w->compression == TRACEDAT_COMPRESS_ZSTD)
		err = tracedat_writer__append(w, &(uint32_t){ 0 }, sizeof(uint32_t));
	return err;
}

static int flush_chunk(struct tracedat_writer *w)
{
	struct byte_buffer z = { 0 };
	int err;

	if (!w->chunk.len)
		return 0;
	err = tracedat_writer__compress(w, w->chunk.data, w->chunk.len, &z);
	if (!err)
		err = tracedat_writer__append(w, z.data, z.len);
	byte_buffer__fini(&z);
	w->chunk.len = 0;
	w->nr_chunks++;
	return err;
}

/* Seals the current page and sends it to the file or the chunk. */
static int emit_page(struct tracedat_writer *w)
{
	const void *page = tracedat_page__seal(w->page);
	int err = 0;

	w->page_started = false;
	if (!w->cpu_started && (err = start_cpu_data(w)))
		return err;
	if (w->compression != TRACEDAT_COMPRESS_ZSTD)
		return tracedat_writer__append(w, page, w->page_size);
	err = byte_buffer__put(&w->chunk, page, w->page_size);
	if (!err && w->chunk.len >= TDW_PAGES_PER_CHUNK * w->page_size)
		err = flush_chunk(w);
	return err;
}

/**
 * tracedat_writer__begin_cpu - start the events of one CPU
 * @w: the writer, with no CPU open
 * @cpu: 0 .. nr_cpus-1, each at most once, in any order
 *
 * The FLYRECORD section starts with the first CPU. Returns 0, -EINVAL for
 * a CPU out of range, -EEXIST for one already written, -EBADFD, or the
 * -errno of reading header_page from tracefs or of a write.
 */
int tracedat_writer__begin_cpu(struct tracedat_writer *w, int cpu)
{
	int err = check_state(w, TDW_OPEN);

	if (err)
		return err;
	if (cpu < 0 || cpu >= w->nr_cpus)
		return -EINVAL;
	if (w->cpus[cpu].done)
		return -EEXIST;
	/* Fail before any page goes out if the metadata cannot be had. */
	err = load_headers(w);
	if (!err && !w->fly_offset) {
		w->fly_offset = tracedat_writer__pos(w);
		err = tracedat_writer__section_header(
			w, TDW_OPT_BUFFER,
			w->compression == TRACEDAT_COMPRESS_ZSTD ? TDW_SEC_FL_COMPRESS : 0,
			"buffer flyrecord ", 0);
	}
	if (err)
		return err;
	w->cpu = cpu;
	w->cpu_started = false;
	w->page_started = false;
	w->pending_missed = false;
	w->pending_lost = 0;
	w->state = TDW_CPU;
	return 0;
}

/* A new page for an event at @ts, carrying the pending lost events. */
static void new_page(struct tracedat_writer *w, uint64_t ts)
{
	tracedat_page__start(w->page, ts, w->pending_missed, w->pending_lost);
	w->page_started = true;
	w->pending_missed = false;
	w->pending_lost = 0;
}

/**
 * tracedat_writer__add_event - append an event to the current CPU
 * @w: the writer, inside __begin_cpu
 * @ts: its time stamp in ns of the trace clock; ascending (an older one
 *      starts a new page, whose base may go back in time)
 * @data: the raw tracepoint record, common_type first
 * @size: its length in bytes (see tracedat_writer__event_size())
 *
 * Returns 0, -EINVAL for an empty event, -E2BIG for one larger than a page
 * can hold, -EBADFD, or the -errno of a write.
 */
int tracedat_writer__add_event(struct tracedat_writer *w, uint64_t ts, const void *data,
			       size_t size)
{
	int err = check_state(w, TDW_CPU);

	if (err)
		return err;
	if (!data || !size)
		return -EINVAL;
	if (size > tracedat_page__max_payload(w->page_size))
		return -E2BIG;
	/* Lost events mark the start of a page, so they begin a fresh one. */
	if (w->page_started && w->pending_missed && !tracedat_page__empty(w->page) &&
	    (err = emit_page(w)))
		return err;
	if (!w->page_started || w->pending_missed)
		new_page(w, ts);
	err = tracedat_page__add(w->page, ts, data, size);
	if (err == -ENOSPC || err == -ERANGE) {
		err = tracedat_page__empty(w->page) ? 0 : emit_page(w);
		if (err)
			return err;
		new_page(w, ts);
		err = tracedat_page__add(w->page, ts, data, size);
	}
	return err;
}

/**
 * tracedat_writer__add_lost - record events lost on the current CPU
 * @w: the writer, inside __begin_cpu
 * @count: how many; 0 if unknown (trace-cmd then says "[EVENTS DROPPED]")
 *
 * The next event starts a new page with MISSING_EVENTS set and the count
 * stored after its records. Counts before the same event add up. Lost
 * events after the CPU's last event cannot be shown and are dropped.
 * Returns 0 or -EBADFD.
 */
int tracedat_writer__add_lost(struct tracedat_writer *w, uint64_t count)
{
	int err = check_state(w, TDW_CPU);

	if (err)
		return err;
	if (w->pending_missed && !w->pending_lost)
		return 0; /* already unknown: stays unknown */
	if (w->pending_missed && !count)
		w->pending_lost = 0;
	else
		w->pending_lost = w->pending_lost + count < w->pending_lost ?
					  UINT64_MAX :
					  w->pending_lost + count;
	w->pending_missed = true;
	return 0;
}

/**
 * tracedat_writer__end_cpu - finish the current CPU
 * @w: the writer, inside __begin_cpu
 *
 * Writes its last page (and chunk). Returns 0, -EBADFD, or -errno.
 */
int tracedat_writer__end_cpu(struct tracedat_writer *w)
{
	struct tdw_cpu *c;
	int err = check_state(w, TDW_CPU);

	if (err)
		return err;
	c = &w->cpus[w->cpu];
	if (w->page_started && !tracedat_page__empty(w->page))
		err = emit_page(w);
	if (!err && w->cpu_started && w->compression == TRACEDAT_COMPRESS_ZSTD) {
		err = flush_chunk(w);
		if (!err)
			err = tracedat_writer__patch(w, c->offset, &w->nr_chunks,
						     sizeof(w->nr_chunks));
	}
	if (err)
		return err;
	c->size = w->cpu_started ? tracedat_writer__pos(w) - c->offset : 0;
	c->done = true;
	w->cpu = -1;
	w->state = TDW_OPEN;
	return 0;
}

/**
 * tracedat_writer__finish - complete the file
 * @w: the writer, with no CPU open
 *
 * Closes FLYRECORD (CPUs never begun are empty) and writes the metadata
 * sections, OPTIONS and STRINGS, then flushes. Returns 0, -EBADFD, or the
 * -errno of reading tracefs or of a write; the file is unusable then.
 */
int tracedat_writer__finish(struct tracedat_writer *w)
{
	uint64_t size;
	int err = check_state(w, TDW_OPEN);

	if (err)
		return err;
	err = load_headers(w);
	if (!err)
		err = load_printk(w);
	if (!err && !w->fly_offset) {
		w->fly_offset = tracedat_writer__pos(w);
		err = tracedat_writer__section_header(w, TDW_OPT_BUFFER, 0, "buffer flyrecord ", 0);
	}
	if (err)
		return err;
	size = tracedat_writer__pos(w) - w->fly_offset - TDW_SECTION_HEADER_SIZE;
	err = tracedat_writer__patch(w, w->fly_offset + 8, &size, sizeof(size));
	if (!err)
		err = tracedat_writer__write_metadata(w);
	if (err) {
		w->state = TDW_FAILED;
		return err;
	}
	w->state = TDW_DONE;
	return 0;
}

/**
 * tracedat_writer__size - bytes in the file so far
 * @w: the writer
 *
 * After __finish, the size of the file. Returns the byte count.
 */
uint64_t tracedat_writer__size(const struct tracedat_writer *w)
{
	return w ? tracedat_writer__pos(w) : 0;
}

/**
 * tracedat_writer__event_size - the length ftrace would store for an event
 * @w: the writer, with the event's format added
 * @data: the raw event, common_type first
 * @size: its length as perf gives it (raw_size, padded to 8 with its u32)
 *
 * Trims perf's padding using the format: the end of the last fixed field
 * or dynamic array, never more than @size. Unknown types keep @size.
 * Returns the length to pass to __add_event.
 */
size_t tracedat_writer__event_size(const struct tracedat_writer *w, const void *data, size_t size)
{
	return w && data ? tracing_formats__event_size(w->formats, data, size) : size;
}
