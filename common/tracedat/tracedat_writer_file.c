// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat_writer_file: the file layer of tracedat_writer. Buffered output
 * through one pwrite() loop, section headers, zstd blocks as trace-cmd 3.1
 * reads them, the initial header, and the sections __finish writes after
 * the FLYRECORD data: HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS,
 * PRINTK, CMDLINES, OPTIONS, then STRINGS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "tracing_formats.h"
#include "tracedat_writer-internal.h"

/* A failed write leaves a file nobody can read: the writer is done. */
static int failed(struct tracedat_writer *w, int err)
{
	if (err)
		w->state = TDW_FAILED;
	return err;
}

/**
 * tracedat_writer__flush - write the output buffer to the file
 * @w: the writer
 *
 * Returns 0 or the -errno of the write (the writer is then failed).
 */
int tracedat_writer__flush(struct tracedat_writer *w)
{
	return failed(w, file_output__flush(&w->out));
}

/**
 * tracedat_writer__append - append to the file through the output buffer
 * @w: the writer
 * @data: the bytes, or NULL for zeros
 * @len: how many
 *
 * Returns 0 or -errno.
 */
int tracedat_writer__append(struct tracedat_writer *w, const void *data, size_t len)
{
	return failed(w, file_output__append(&w->out, data, len));
}

/**
 * tracedat_writer__patch - rewrite bytes already appended
 * @w: the writer
 * @offset: their file offset
 * @data: the new bytes
 * @len: how many
 *
 * For sizes and offsets known only later. Returns 0 or -errno.
 */
int tracedat_writer__patch(struct tracedat_writer *w, uint64_t offset, const void *data, size_t len)
{
	return failed(w, file_output__patch(&w->out, offset, data, len));
}

/**
 * tracedat_writer__pos - the file offset the next appended byte goes to
 * @w: the writer
 *
 * Returns the offset.
 */
uint64_t tracedat_writer__pos(const struct tracedat_writer *w)
{
	return file_output__pos(&w->out);
}

/**
 * tracedat_writer__pad_to_page - append zeros up to the next page boundary of the file
 * @w: the writer
 *
 * Returns 0 or -errno.
 */
int tracedat_writer__pad_to_page(struct tracedat_writer *w)
{
	uint64_t pos = tracedat_writer__pos(w);
	uint64_t aligned = (pos + w->page_size - 1) / w->page_size * w->page_size;

	return tracedat_writer__append(w, NULL, aligned - pos);
}

/* A description for a section header: its offset in STRINGS. */
static int add_string(struct tracedat_writer *w, const char *s, uint32_t *ret_id)
{
	*ret_id = (uint32_t)w->strings.len;
	return byte_buffer__put_str(&w->strings, s);
}

static int put_section_header(struct tracedat_writer *w, uint16_t id, uint16_t flags,
			      uint32_t desc_id, uint64_t size)
{
	unsigned char h[TDW_SECTION_HEADER_SIZE];

	memcpy(h, &id, 2);
	memcpy(h + 2, &flags, 2);
	memcpy(h + 4, &desc_id, 4);
	memcpy(h + 8, &size, 8);
	return tracedat_writer__append(w, h, sizeof(h));
}

/**
 * tracedat_writer__section_header - append a section header
 * @w: the writer
 * @id: the section id
 * @flags: TDW_SEC_FL_COMPRESS or 0
 * @desc: its description, added to STRINGS
 * @size: the bytes after the header (patched later if not yet known)
 *
 * Layout: u16 id, u16 flags, u32 description (STRINGS offset), u64 size.
 * Returns 0 or -errno.
 */
int tracedat_writer__section_header(struct tracedat_writer *w, uint16_t id, uint16_t flags,
				    const char *desc, uint64_t size)
{
	uint32_t desc_id;
	int err = add_string(w, desc, &desc_id);

	return err ? err : put_section_header(w, id, flags, desc_id, size);
}

/**
 * tracedat_writer__compress - build a zstd compression block
 * @w: the writer (its zstd context)
 * @data: the uncompressed bytes
 * @len: how many
 * @out: set to the block
 *
 * The block as trace-cmd reads sections and flyrecord chunks alike: u32
 * compressed size, u32 uncompressed size, one zstd frame.
 * Returns 0, -E2BIG past 4 GiB, -ENOMEM or -EIO.
 */
int tracedat_writer__compress(struct tracedat_writer *w, const void *data, size_t len,
			      struct byte_buffer *out)
{
	size_t bound = ZSTD_compressBound(len), n;
	uint32_t sizes[2];
	int err;

	if (len > UINT32_MAX || bound > UINT32_MAX - 8)
		return -E2BIG;
	out->len = 0;
	err = byte_buffer__put(out, NULL, 8 + bound);
	if (err)
		return err;
	n = ZSTD_compressCCtx(w->zctx, out->data + 8, bound, data, len, TDW_ZSTD_LEVEL);
	if (ZSTD_isError(n))
		return -EIO;
	sizes[0] = (uint32_t)n;
	sizes[1] = (uint32_t)len;
	memcpy(out->data, sizes, sizeof(sizes));
	out->len = 8 + n;
	return 0;
}

/* One whole section; @ret_offset (may be NULL) gets its file offset. */
static int write_section(struct tracedat_writer *w, uint16_t id, uint32_t desc_id, bool compress,
			 const struct byte_buffer *body, uint64_t *ret_offset)
{
	struct byte_buffer z = { 0 };
	const struct byte_buffer *out = body;
	int err = 0;

	compress = compress && w->compression == TRACEDAT_COMPRESS_ZSTD;
	if (compress) {
		err = tracedat_writer__compress(w, body->data, body->len, &z);
		out = &z;
	}
	if (ret_offset)
		*ret_offset = tracedat_writer__pos(w);
	if (!err)
		err = put_section_header(w, id, compress ? TDW_SEC_FL_COMPRESS : 0, desc_id,
					 out->len);
	if (!err)
		err = tracedat_writer__append(w, out->data, out->len);
	byte_buffer__fini(&z);
	return err;
}

/**
 * tracedat_writer__write_initial_header - append the file's initial header
 * @w: the writer, at offset 0
 *
 * Magic, version "7", little endian, long size, page size, compression
 * name and version, and the first OPTIONS offset (patched by
 * tracedat_writer__write_metadata()). Returns 0 or -errno.
 */
int tracedat_writer__write_initial_header(struct tracedat_writer *w)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	bool zstd = w->compression == TRACEDAT_COMPRESS_ZSTD;
	uint8_t endian = 0, long_size = sizeof(long);
	struct byte_buffer h = { 0 };
	int err;

	err = byte_buffer__put(&h, magic, sizeof(magic));
	if (!err)
		err = byte_buffer__put_str(&h, "7");
	if (!err)
		err = byte_buffer__put(&h, &endian, 1);
	if (!err)
		err = byte_buffer__put(&h, &long_size, 1);
	if (!err)
		err = byte_buffer__put_u32(&h, (uint32_t)w->page_size);
	if (!err)
		err = byte_buffer__put_str(&h, zstd ? "zstd" : "none");
	if (!err)
		err = byte_buffer__put_str(&h, zstd ? ZSTD_versionString() : "");
	w->options_ptr = h.len;
	if (!err)
		err = byte_buffer__put_u64(&h, 0);
	if (!err)
		err = tracedat_writer__append(w, h.data, h.len);
	byte_buffer__fini(&h);
	return err;
}

static int header_info(const struct tracedat_writer *w, struct byte_buffer *b)
{
	int err;

	err = byte_buffer__put(b, "header_page", 12);
	if (!err)
		err = byte_buffer__put_u64(b, w->header_page.len);
	if (!err)
		err = byte_buffer__put(b, w->header_page.data, w->header_page.len);
	if (!err)
		err = byte_buffer__put(b, "header_event", 13);
	if (!err)
		err = byte_buffer__put_u64(b, w->header_event.len);
	if (!err)
		err = byte_buffer__put(b, w->header_event.data, w->header_event.len);
	return err;
}

static int cmp_cmdline(const void *a, const void *b)
{
	const struct tdw_cmdline *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* u64 size, then "pid comm\n" lines like tracefs saved_cmdlines; one per pid. */
static int cmdlines(struct tracedat_writer *w, struct byte_buffer *b)
{
	size_t n = w->nr_cmdlines;
	int err;

	if (n)
		qsort(w->cmdlines, n, sizeof(*w->cmdlines), cmp_cmdline);
	err = byte_buffer__put_u64(b, 0);
	for (size_t i = 0; i < n && !err; i++) {
		char pid[16];

		if (i + 1 < n && w->cmdlines[i + 1].pid == w->cmdlines[i].pid)
			continue;
		snprintf(pid, sizeof(pid), "%d ", (int)w->cmdlines[i].pid);
		err = byte_buffer__put(b, pid, strlen(pid));
		if (!err)
			err = byte_buffer__put(b, w->cmdlines[i].comm, strlen(w->cmdlines[i].comm));
		if (!err)
			err = byte_buffer__put(b, "\n", 1);
	}
	if (!err)
		memcpy(b->data, &(uint64_t){ b->len - 8 }, 8);
	return err;
}

/* A section body: @text after its u32 size (KALLSYMS, PRINTK). */
static int sized_text(const struct byte_buffer *text, struct byte_buffer *b)
{
	int err;

	if (text->len > UINT32_MAX)
		return -E2BIG;
	err = byte_buffer__put_u32(b, (uint32_t)text->len);
	return err ? err : byte_buffer__put(b, text->data, text->len);
}

static int event_formats(const struct tracedat_writer *w, bool ftrace, struct byte_buffer *b)
{
	void *data;
	size_t size;
	int err;

	err = tracing_formats__section(w->formats, ftrace, &data, &size);
	if (err)
		return err;
	byte_buffer__fini(b);
	b->data = data;
	b->len = b->cap = size;
	return 0;
}

/* The six metadata sections, each with the OPTIONS entry pointing at it. */
static int metadata_sections(struct tracedat_writer *w, struct byte_buffer *opts)
{
	static const struct {
		uint16_t id;
		const char *desc;
	} secs[] = {
		{ TDW_SEC_HEADER_INFO, "headers" },
		{ TDW_SEC_FTRACE_EVENTS, "ftrace events" },
		{ TDW_SEC_EVENT_FORMATS, "events format" },
		{ TDW_SEC_KALLSYMS, "kallsyms" },
		{ TDW_SEC_PRINTK, "printk" },
		{ TDW_SEC_CMDLINES, "command lines" },
	};
	struct byte_buffer body = { 0 };
	uint64_t offset;
	uint32_t desc_id;
	int err = 0;

	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]) && !err; i++) {
		body.len = 0;
		switch (secs[i].id) {
		case TDW_SEC_HEADER_INFO:
			err = header_info(w, &body);
			break;
		case TDW_SEC_FTRACE_EVENTS:
		case TDW_SEC_EVENT_FORMATS:
			err = event_formats(w, secs[i].id == TDW_SEC_FTRACE_EVENTS, &body);
			break;
		case TDW_SEC_KALLSYMS:
			err = sized_text(&w->kallsyms, &body);
			break;
		case TDW_SEC_PRINTK:
			err = sized_text(&w->printk, &body);
			break;
		default:
			err = cmdlines(w, &body);
		}
		if (!err)
			err = add_string(w, secs[i].desc, &desc_id);
		if (!err)
			err = write_section(w, secs[i].id, desc_id, true, &body, &offset);
		if (!err)
			err = byte_buffer__put_u16(opts, secs[i].id);
		if (!err)
			err = byte_buffer__put_u32(opts, 8);
		if (!err)
			err = byte_buffer__put_u64(opts, offset);
	}
	byte_buffer__fini(&body);
	return err;
}

static int option(struct byte_buffer *opts, uint16_t id, const void *data, size_t len)
{
	int err = byte_buffer__put_u16(opts, id);

	if (!err)
		err = byte_buffer__put_u32(opts, (uint32_t)len);
	return err ? err : byte_buffer__put(opts, data, len);
}

static int string_option(struct byte_buffer *opts, uint16_t id, const char *s)
{
	return s ? option(opts, id, s, strlen(s) + 1) : 0;
}

/* BUFFER: section offset, name "", clock, page size, then each CPU's data. */
static int buffer_option(struct tracedat_writer *w, struct byte_buffer *opts)
{
	struct byte_buffer b = { 0 };
	int err;

	err = byte_buffer__put_u64(&b, w->fly_offset);
	if (!err)
		err = byte_buffer__put_str(&b, "");
	if (!err)
		err = byte_buffer__put_str(&b, w->trace_clock);
	if (!err)
		err = byte_buffer__put_u32(&b, (uint32_t)w->page_size);
	if (!err)
		err = byte_buffer__put_u32(&b, (uint32_t)w->nr_cpus);
	for (int cpu = 0; cpu < w->nr_cpus && !err; cpu++) {
		err = byte_buffer__put_u32(&b, (uint32_t)cpu);
		if (!err)
			err = byte_buffer__put_u64(&b, w->cpus[cpu].offset);
		if (!err)
			err = byte_buffer__put_u64(&b, w->cpus[cpu].size);
	}
	if (!err)
		err = option(opts, TDW_OPT_BUFFER, b.data, b.len);
	byte_buffer__fini(&b);
	return err;
}

/* The rest of OPTIONS, in the order trace-cmd record adds them. */
static int more_options(struct tracedat_writer *w, struct byte_buffer *opts)
{
	uint32_t cpus = (uint32_t)w->nr_cpus;
	char clock[256];
	int err;

	/* trace-cmd keeps the trace_clock file; the reader wants "[clock]". */
	snprintf(clock, sizeof(clock), "[%s]", w->trace_clock);
	err = string_option(opts, TDW_OPT_TRACECLOCK, clock);
	if (!err)
		err = string_option(opts, TDW_OPT_UNAME, w->uname);
	if (!err)
		err = string_option(opts, TDW_OPT_VERSION, w->version);
	if (!err)
		err = option(opts, TDW_OPT_CPUCOUNT, &cpus, sizeof(cpus));
	if (!err)
		err = buffer_option(w, opts);
	if (!err)
		err = option(opts, TDW_OPT_DONE, &(uint64_t){ 0 }, 8);
	return err;
}

/**
 * tracedat_writer__write_metadata - write everything after the FLYRECORD section
 * @w: the writer, its CPU data complete
 *
 * Writes the metadata sections, one OPTIONS section (never compressed, as
 * with trace-cmd) and STRINGS last, since every section before it adds
 * its description; then points the initial header at OPTIONS.
 * Returns 0 or -errno.
 */
int tracedat_writer__write_metadata(struct tracedat_writer *w)
{
	struct byte_buffer opts = { 0 };
	uint64_t options_offset;
	uint32_t desc_id;
	int err;

	err = metadata_sections(w, &opts);
	if (!err)
		err = more_options(w, &opts);
	if (!err)
		err = add_string(w, "options", &desc_id);
	if (!err)
		err = write_section(w, TDW_OPT_DONE, desc_id, false, &opts, &options_offset);
	byte_buffer__fini(&opts);
	/* STRINGS holds its own description too. */
	if (!err)
		err = add_string(w, "strings", &desc_id);
	if (!err)
		err = write_section(w, TDW_SEC_STRINGS, desc_id, true, &w->strings, NULL);
	if (!err)
		err = tracedat_writer__flush(w);
	if (!err)
		err = tracedat_writer__patch(w, w->options_ptr, &options_offset,
					     sizeof(options_offset));
	return err;
}
