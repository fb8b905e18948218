// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tracedat_writer at the byte level: the initial header,
 * the chain of sections and their sizes, OPTIONS, the metadata bodies, the
 * ring-buffer pages (page header, record headers, TIME_EXTEND, the large
 * event form, padding, MISSING_EVENTS), zstd blocks and chunks, the state
 * machine, and I/O faults injected by wrapping pwrite() at link time.
 * No tracefs: header_page/header_event and the formats are given.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <zstd.h>

#include "pwrite_inject.h"
#include "tracedat_writer.h"
#include "tracedat_writer-internal.h"

#define PAGE_HDR 16
#define EV_ID	 900

static const char header_page[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
				  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
				  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
				  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";
static const char header_event[] =
	"# compressed entry header\n\ttype_len    :    5 bits\n\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n\ttime_stamp : type == 31\n\tdata max type_len  == 28\n";
/* A made-up event with a fixed field, a __data_loc and a __rel_loc string. */
static const char ev_format[] =
	"name: ev_test\nID: 900\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] name;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__rel_loc char[] rel;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"value=%d\", REC->value\n";
static const char other_format[] =
	"name: other\nID: 901\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char ftrace_format[] =
	"name: function\nID: 1\nformat:\n"
	"\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";

struct section {
	uint16_t id, flags;
	uint32_t desc;
	uint64_t offset, size; /* of the header; size after it */
};

/* A written file taken apart by parse(). */
struct tdat {
	unsigned char *data;
	size_t size;
	size_t hdr_len;
	uint64_t options_offset;
	struct section secs[16];
	size_t nr_secs;
	uint32_t cpucount;
	const char *traceclock, *uname, *version, *clock;
	uint64_t buffer_offset;
	uint32_t page_size;
	uint32_t nr_cpus;
	uint64_t cpu_offset[4], cpu_size[4];
	uint64_t sec_option[32]; /* section offsets named by OPTIONS */
};

static uint32_t word(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t qword(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static uint64_t u64_at(const struct tdat *t, uint64_t off)
{
	uint64_t v;

	assert_true(off + 8 <= t->size);
	memcpy(&v, t->data + off, 8);
	return v;
}

static uint32_t u32_at(const struct tdat *t, uint64_t off)
{
	uint32_t v;

	assert_true(off + 4 <= t->size);
	memcpy(&v, t->data + off, 4);
	return v;
}

static uint16_t u16_at(const struct tdat *t, uint64_t off)
{
	uint16_t v;

	memcpy(&v, t->data + off, 2);
	return v;
}

static const struct section *find_sec(const struct tdat *t, uint16_t id)
{
	for (size_t i = 0; i < t->nr_secs; i++)
		if (t->secs[i].id == id)
			return &t->secs[i];
	fail_msg("no section %u", id);
	return NULL;
}

/* The body of a section, decompressed if needed; malloc'ed. */
static unsigned char *section_body(const struct tdat *t, uint16_t id, size_t *ret_len)
{
	const struct section *s = find_sec(t, id);
	const unsigned char *p = t->data + s->offset + 16;
	unsigned char *out;

	if (!(s->flags & 1)) {
		out = malloc(s->size + 1);
		memcpy(out, p, s->size);
		*ret_len = s->size;
		return out;
	}
	assert_int_equal(u32_at(t, s->offset + 16) + 8, s->size);
	*ret_len = u32_at(t, s->offset + 20);
	out = malloc(*ret_len + 1);
	assert_int_equal(ZSTD_decompress(out, *ret_len, p + 8, s->size - 8), *ret_len);
	return out;
}

static void parse_buffer(struct tdat *t, uint64_t p)
{
	t->buffer_offset = u64_at(t, p);
	assert_string_equal((const char *)t->data + p + 8, "");
	t->clock = (const char *)t->data + p + 9;
	p += 9 + strlen(t->clock) + 1;
	t->page_size = u32_at(t, p);
	t->nr_cpus = u32_at(t, p + 4);
	p += 8;
	assert_true(t->nr_cpus <= 4);
	for (uint32_t i = 0; i < t->nr_cpus; i++, p += 20) {
		assert_int_equal(u32_at(t, p), i);
		t->cpu_offset[i] = u64_at(t, p + 4);
		t->cpu_size[i] = u64_at(t, p + 12);
	}
}

static void parse_options(struct tdat *t)
{
	const struct section *s = find_sec(t, 0);
	uint64_t p = s->offset + 16, end = p + s->size;

	assert_int_equal(s->flags, 0);
	while (p < end) {
		uint16_t id = u16_at(t, p);
		uint32_t len = u32_at(t, p + 2);
		const char *str = (const char *)t->data + p + 6;

		p += 6;
		if (id == 0) {
			assert_int_equal(len, 8);
			assert_int_equal(u64_at(t, p), 0); /* no next OPTIONS */
			assert_int_equal(p + 8, end);
		} else if (id == 3) {
			parse_buffer(t, p);
		} else if (id == 4 || id == 5 || id == 9) {
			assert_int_equal(strlen(str) + 1, len);
			*(id == 4 ? &t->traceclock : id == 5 ? &t->uname : &t->version) = str;
		} else if (id == 8) {
			t->cpucount = u32_at(t, p);
		} else {
			assert_true(id >= 16 && id <= 21 && len == 8);
			t->sec_option[id] = u64_at(t, p);
		}
		p += len;
	}
}

/* Checks the initial header, walks the sections to EOF, reads OPTIONS. */
static void parse(struct tdat *t, int fd, const char *zname)
{
	static const unsigned char magic[] = {
		0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g'
	};
	const char *zver = ZSTD_versionString();
	uint64_t p;
	off_t end = lseek(fd, 0, SEEK_END);

	memset(t, 0, sizeof(*t));
	assert_true(end > 0);
	t->size = (size_t)end;
	t->data = malloc(t->size);
	assert_int_equal(pread(fd, t->data, t->size, 0), (ssize_t)t->size);
	assert_memory_equal(t->data, magic, sizeof(magic));
	assert_memory_equal(t->data + 10, "7\0\0\x08", 4); /* version, LE, long 8 */
	assert_int_equal(u32_at(t, 14), (uint32_t)sysconf(_SC_PAGESIZE));
	assert_string_equal((const char *)t->data + 18, zname);
	p = 18 + strlen(zname) + 1;
	assert_string_equal((const char *)t->data + p, strcmp(zname, "none") ? zver : "");
	p += strlen((const char *)t->data + p) + 1;
	t->options_offset = u64_at(t, p);
	t->hdr_len = p + 8;
	for (p = t->hdr_len; p < t->size; p += 16 + t->secs[t->nr_secs++].size) {
		struct section *s = &t->secs[t->nr_secs];

		assert_true(t->nr_secs < 16 && p + 16 <= t->size);
		*s = (struct section){ u16_at(t, p), u16_at(t, p + 2), u32_at(t, p + 4), p,
				       u64_at(t, p + 8) };
	}
	assert_int_equal(p, t->size); /* sections end exactly at EOF */
	assert_int_equal(find_sec(t, 0)->offset, t->options_offset);
	parse_options(t);
}

static int new_fd(void)
{
	int fd = memfd_create("tracedat", MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static struct tracedat_writer *new_writer(int fd, enum tracedat_compression c)
{
	struct tracedat_params p = {
		.header_page = header_page,
		.header_page_size = sizeof(header_page) - 1,
		.header_event = header_event,
		.header_event_size = sizeof(header_event) - 1,
		.nr_cpus = 2,
		.trace_clock = "perf",
		.compression = c,
	};
	struct tracedat_writer *w = tracedat_writer__new(fd, &p);

	assert_non_null(w);
	assert_int_equal(tracedat_writer__set_uname(w, "Linux unit 6.18.0 x86_64"), 0);
	assert_int_equal(
		tracedat_writer__add_event_format_text(w, "test", ev_format, sizeof(ev_format) - 1),
		0);
	return w;
}

/* An ev_test record of @size bytes (>= 8) with @fill after the header. */
static void event(unsigned char *buf, size_t size, unsigned char fill)
{
	uint16_t type = EV_ID;

	memset(buf, fill, size);
	memcpy(buf, &type, 2);
}

static int reset(void **state)
{
	(void)state;
	pwrite_inject__reset();
	return 0;
}

static void finish(struct tracedat_writer *w)
{
	assert_int_equal(tracedat_writer__finish(w), 0);
	tracedat_writer__delete(w);
}

/* Two events on CPU 1, nothing on CPU 0: the whole file, section by section. */
static void test_layout(void **state)
{
	static const uint16_t ids[] = { 3, 16, 17, 18, 19, 20, 21, 0, 15 };
	static const char *const descs[] = { "buffer flyrecord ", "headers",  "ftrace events",
					     "events format",	  "kallsyms", "printk",
					     "command lines",	  "options",  "strings" };
	unsigned char ev[40];
	const char *strings;
	struct tdat t;
	size_t len;
	int fd = new_fd();
	struct tracedat_writer *w = new_writer(fd, TRACEDAT_COMPRESS_NONE);

	(void)state;
	event(ev, sizeof(ev), 1);
	assert_int_equal(tracedat_writer__begin_cpu(w, 1), 0);
	assert_int_equal(tracedat_writer__add_event(w, 1000, ev, sizeof(ev)), 0);
	assert_int_equal(tracedat_writer__end_cpu(w), 0);
	finish(w);
	parse(&t, fd, "none");
	assert_int_equal(t.nr_secs, 9);
	strings = (const char *)section_body(&t, 15, &len);
	for (size_t i = 0; i < 9; i++) {
		assert_int_equal(t.secs[i].id, ids[i]);
		assert_int_equal(t.secs[i].flags, 0);
		assert_true(t.secs[i].desc < len);
		assert_string_equal(strings + t.secs[i].desc, descs[i]);
		if (ids[i] >= 16)
			assert_int_equal(t.sec_option[ids[i]], t.secs[i].offset);
	}
	free((void *)strings);
	assert_int_equal(t.secs[0].offset, t.hdr_len);
	assert_int_equal(t.buffer_offset, t.secs[0].offset);
	assert_int_equal(t.cpucount, 2);
	assert_string_equal(t.traceclock, "[perf]");
	assert_string_equal(t.clock, "perf");
	assert_string_equal(t.uname, "Linux unit 6.18.0 x86_64");
	assert_string_equal(t.version, "perfsnapd " PERFSNAPD_VERSION);
	assert_int_equal(t.nr_cpus, 2);
	assert_int_equal(t.page_size, sysconf(_SC_PAGESIZE));
	assert_int_equal(t.cpu_size[0], 0);
	assert_int_equal(t.cpu_offset[1] % t.page_size, 0);
	assert_int_equal(t.cpu_size[1], t.page_size);
	/* FLYRECORD ends where CPU 1's page does. */
	assert_int_equal(t.secs[0].offset + 16 + t.secs[0].size, t.cpu_offset[1] + t.page_size);
	free(t.data);
	close(fd);
}

/* Writes a file with extra formats, cmdlines, kallsyms and printk. */
static void write_metadata(struct tdat *t)
{
	int fd = new_fd();
	struct tracedat_writer *w = new_writer(fd, TRACEDAT_COMPRESS_NONE);

	assert_int_equal(tracedat_writer__add_event_format_text(w, "ftrace", ftrace_format,
								sizeof(ftrace_format) - 1),
			 0);
	assert_int_equal(tracedat_writer__add_event_format_text(w, "zz", other_format,
								sizeof(other_format) - 1),
			 0);
	/* Same event again: ignored. */
	assert_int_equal(
		tracedat_writer__add_event_format_text(w, "test", ev_format, sizeof(ev_format) - 1),
		0);
	assert_int_equal(tracedat_writer__add_event_format_text(w, "x", "no name", 7), -EINVAL);
	assert_int_equal(tracedat_writer__add_cmdline(w, 30, "late"), 0);
	assert_int_equal(tracedat_writer__add_cmdline(w, 7, "old"), 0);
	assert_int_equal(tracedat_writer__add_cmdline(w, 7, "new\nline"), 0);
	assert_int_equal(tracedat_writer__add_cmdline(w, 8, ""), -EINVAL);
	assert_int_equal(tracedat_writer__set_kallsyms(w, "ffffffff81000000 T _text\n", 25), 0);
	assert_int_equal(tracedat_writer__set_printk(w, "0x1 : \"x\"\n", 10), 0);
	finish(w);
	parse(t, fd, "none");
	close(fd);
}

/* HEADER_INFO, and formats grouped by system with "ftrace" apart. */
static void test_headers_formats(void **state)
{
	unsigned char *b;
	size_t len, off;
	struct tdat t;

	(void)state;
	write_metadata(&t);
	b = section_body(&t, 16, &len);
	assert_int_equal(len, 12 + 8 + sizeof(header_page) - 1 + 13 + 8 + sizeof(header_event) - 1);
	assert_memory_equal(b, "header_page\0", 12);
	assert_int_equal(qword(b + 12), sizeof(header_page) - 1);
	assert_memory_equal(b + 20, header_page, sizeof(header_page) - 1);
	off = 20 + sizeof(header_page) - 1;
	assert_memory_equal(b + off, "header_event\0", 13);
	assert_memory_equal(b + off + 21, header_event, sizeof(header_event) - 1);
	free(b);

	b = section_body(&t, 17, &len);
	assert_int_equal(len, 4 + 8 + sizeof(ftrace_format) - 1);
	assert_int_equal(word(b), 1);
	free(b);

	b = section_body(&t, 18, &len);
	assert_int_equal(word(b), 2); /* "test", "zz" */
	assert_string_equal((char *)b + 4, "test");
	assert_int_equal(word(b + 9), 1);
	assert_int_equal(qword(b + 13), sizeof(ev_format) - 1);
	off = 21 + sizeof(ev_format) - 1;
	assert_string_equal((char *)b + off, "zz");
	assert_int_equal(len, off + 3 + 4 + 8 + sizeof(other_format) - 1);
	free(b);
	free(t.data);
}

/* KALLSYMS and PRINTK after their u32 size; CMDLINES sorted, later names win. */
static void test_sized_sections(void **state)
{
	unsigned char *b;
	size_t len;
	struct tdat t;

	(void)state;
	write_metadata(&t);
	b = section_body(&t, 19, &len);
	assert_int_equal(len, 4 + 25);
	assert_int_equal(word(b), 25);
	free(b);
	b = section_body(&t, 20, &len);
	assert_int_equal(word(b), 10);
	free(b);
	b = section_body(&t, 21, &len);
	b[len] = '\0';
	assert_int_equal(qword(b), len - 8);
	assert_string_equal((char *)b + 8, "7 new?line\n30 late\n");
	free(b);
	free(t.data);
}

/* Writes the events of CPU 0 and returns the parsed file. */
static void write_cpu0(struct tdat *t, enum tracedat_compression c,
		       void (*feed)(struct tracedat_writer *w))
{
	int fd = new_fd();
	struct tracedat_writer *w = new_writer(fd, c);

	assert_int_equal(tracedat_writer__begin_cpu(w, 0), 0);
	feed(w);
	assert_int_equal(tracedat_writer__end_cpu(w), 0);
	finish(w);
	parse(t, fd, c == TRACEDAT_COMPRESS_NONE ? "none" : "zstd");
	close(fd);
}

static const unsigned char *page(const struct tdat *t, size_t n)
{
	assert_true((n + 1) * t->page_size <= t->cpu_size[0]);
	return t->data + t->cpu_offset[0] + n * t->page_size;
}

#define TS0 5000000000000ull

static void feed_basic(struct tracedat_writer *w)
{
	unsigned char ev[200];

	event(ev, 36, 0xaa);
	assert_int_equal(tracedat_writer__add_event(w, TS0, ev, 36), 0);
	event(ev, 10, 0xbb); /* padded to 12 */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 1000, ev, 10), 0);
	event(ev, 60, 0xcc); /* gap >= 2^27 */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 1000 + (1u << 27) + 5, ev, 60), 0);
	event(ev, 112, 0xdd); /* largest small */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 0x123456789abcull, ev, 112), 0);
	event(ev, 113, 0xee); /* large form */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 0x123456789abcull + 7, ev, 113), 0);
}

/* Page header, record headers, TIME_EXTEND split, large form, zero padding. */
static void test_page_records(void **state)
{
	uint64_t big = 0x123456789abcull - 1000 - (1u << 27) - 5;
	const unsigned char *p, *r;
	struct tdat t;

	(void)state;
	write_cpu0(&t, TRACEDAT_COMPRESS_NONE, feed_basic);
	assert_int_equal(t.cpu_size[0], t.page_size);
	p = page(&t, 0);
	assert_int_equal(qword(p), TS0); /* base = first event */
	r = p + PAGE_HDR;
	assert_int_equal(word(r), 9 | 0 << 5); /* 36 bytes, delta 0 */
	assert_int_equal(r[4 + 4], 0xaa);
	r += 40;
	assert_int_equal(word(r), 3 | 1000 << 5);
	assert_memory_equal(r + 4 + 10, "\0\0", 2); /* pad to 4 */
	r += 16;
	assert_int_equal(word(r), 30 | 5 << 5); /* low 27 bits */
	assert_int_equal(word(r + 4), 1);	/* delta >> 27 */
	assert_int_equal(word(r + 8), 15 | 0 << 5);
	r += 8 + 64;
	assert_int_equal(word(r), 30 | (uint32_t)(big & ((1u << 27) - 1)) << 5);
	assert_int_equal(word(r + 4), (uint32_t)(big >> 27));
	assert_int_equal(word(r + 8), 28); /* 112 bytes */
	r += 8 + 116;
	assert_int_equal(word(r), 0 | 7 << 5);	/* type_len 0 */
	assert_int_equal(word(r + 4), 116 + 4); /* data + length word */
	assert_int_equal(r[8], EV_ID & 0xff);
	assert_int_equal(r[8 + 112], 0xee);
	assert_memory_equal(r + 8 + 113, "\0\0\0", 3);
	r += 8 + 116;
	assert_int_equal(qword(p + 8), (uint64_t)(r - p - PAGE_HDR)); /* commit, no flags */
	for (const unsigned char *z = r; z < p + t.page_size; z++)
		assert_int_equal(*z, 0);
	free(t.data);
}

static void feed_fill(struct tracedat_writer *w)
{
	unsigned char ev[100];

	event(ev, sizeof(ev), 0x11);
	/* 104-byte records: 39 fill 4056 of 4080 bytes, the 40th opens page 2. */
	for (uint64_t i = 0; i < 45; i++)
		assert_int_equal(tracedat_writer__add_event(w, TS0 + i * 10, ev, sizeof(ev)), 0);
	/* Older than the last one: a new page may go back in time. */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 5, ev, sizeof(ev)), 0);
}

static void test_page_overflow(void **state)
{
	struct tdat t;
	size_t per_page = (sysconf(_SC_PAGESIZE) - PAGE_HDR) / 104;

	(void)state;
	write_cpu0(&t, TRACEDAT_COMPRESS_NONE, feed_fill);
	assert_int_equal(t.cpu_size[0], 3 * t.page_size);
	assert_int_equal(qword(page(&t, 0) + 8), per_page * 104);
	assert_int_equal(qword(page(&t, 1)), TS0 + per_page * 10);
	assert_int_equal(word(page(&t, 1) + PAGE_HDR), 25); /* delta 0 */
	assert_int_equal(qword(page(&t, 1) + 8), (45 - per_page) * 104);
	assert_int_equal(qword(page(&t, 2)), TS0 + 5);
	assert_int_equal(qword(page(&t, 2) + 8), 104);
	free(t.data);
}

static void feed_lost(struct tracedat_writer *w)
{
	unsigned char ev[20];

	event(ev, sizeof(ev), 0x22);
	assert_int_equal(tracedat_writer__add_lost(w, 5), 0); /* before the first event */
	assert_int_equal(tracedat_writer__add_event(w, TS0, ev, sizeof(ev)), 0);
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 1, ev, sizeof(ev)), 0);
	assert_int_equal(tracedat_writer__add_lost(w, 40), 0);
	assert_int_equal(tracedat_writer__add_lost(w, 2), 0);
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 2, ev, sizeof(ev)), 0);
	assert_int_equal(tracedat_writer__add_lost(w, 0), 0); /* count unknown */
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 3, ev, sizeof(ev)), 0);
	assert_int_equal(tracedat_writer__add_lost(w, 9), 0); /* after the last: dropped */
}

static void test_missing_events(void **state)
{
	const uint64_t both = 1ull << 31 | 1ull << 30;
	struct tdat t;

	(void)state;
	write_cpu0(&t, TRACEDAT_COMPRESS_NONE, feed_lost);
	assert_int_equal(t.cpu_size[0], 3 * t.page_size);
	assert_int_equal(qword(page(&t, 0) + 8), both | 48);
	assert_int_equal(qword(page(&t, 0) + PAGE_HDR + 48), 5); /* count after records */
	assert_int_equal(qword(page(&t, 1)), TS0 + 2);
	assert_int_equal(qword(page(&t, 1) + 8), both | 24);
	assert_int_equal(qword(page(&t, 1) + PAGE_HDR + 24), 42);
	assert_int_equal(qword(page(&t, 2) + 8), 1ull << 31 | 24); /* flag only */
	assert_int_equal(qword(page(&t, 2) + PAGE_HDR + 24), 0);
	free(t.data);
}

static void feed_many(struct tracedat_writer *w)
{
	unsigned char ev[64];

	for (uint64_t i = 0; i < 20000; i++) {
		event(ev, sizeof(ev), (unsigned char)(i % 3));
		assert_int_equal(tracedat_writer__add_event(w, TS0 + i * 1000, ev, sizeof(ev)), 0);
	}
}

/* Decompresses CPU 0's chunks: u32 count, then (u32 zsize, u32 size, frame) each. */
static unsigned char *cpu0_pages(const struct tdat *t, size_t *ret_len)
{
	uint64_t p = t->cpu_offset[0], end = p + t->cpu_size[0];
	uint32_t count = u32_at(t, p);
	unsigned char *out = NULL;
	size_t len = 0;

	p += 4;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t zsize = u32_at(t, p), size = u32_at(t, p + 4);

		assert_int_equal(size % t->page_size, 0);
		assert_true(size <= TDW_PAGES_PER_CHUNK * t->page_size);
		out = realloc(out, len + size);
		assert_int_equal(ZSTD_decompress(out + len, size, t->data + p + 8, zsize), size);
		len += size;
		p += 8 + zsize;
	}
	assert_int_equal(p, end);
	*ret_len = len;
	return out;
}

/* zstd: same bytes once decompressed, sections flagged, chunks of TDW_PAGES_PER_CHUNK pages. */
static void test_zstd(void **state)
{
	struct tdat none, z;
	unsigned char *a, *b;
	size_t alen, blen;

	(void)state;
	write_cpu0(&none, TRACEDAT_COMPRESS_NONE, feed_many);
	write_cpu0(&z, TRACEDAT_COMPRESS_ZSTD, feed_many);
	assert_true(z.size * 4 < none.size);
	for (size_t i = 0; i < z.nr_secs; i++)
		assert_int_equal(z.secs[i].flags, z.secs[i].id == 0 ? 0 : 1);
	for (uint16_t id = 16; id <= 21; id++) {
		a = section_body(&none, id, &alen);
		b = section_body(&z, id, &blen);
		assert_int_equal(alen, blen);
		assert_memory_equal(a, b, alen);
		free(a);
		free(b);
	}
	assert_int_equal(z.cpu_offset[0] % z.page_size, 0);
	a = cpu0_pages(&z, &alen);
	assert_int_equal(alen, none.cpu_size[0]);
	assert_true(alen > TDW_PAGES_PER_CHUNK * none.page_size); /* at least 2 chunks */
	assert_memory_equal(a, none.data + none.cpu_offset[0], alen);
	free(a);
	free(none.data);
	free(z.data);
}

static void test_states(void **state)
{
	unsigned char ev[16];
	int fd = new_fd();
	struct tracedat_writer *w = new_writer(fd, TRACEDAT_COMPRESS_NONE);

	(void)state;
	event(ev, sizeof(ev), 0);
	assert_int_equal(tracedat_writer__add_event(w, 1, ev, sizeof(ev)), -EBADFD);
	assert_int_equal(tracedat_writer__add_lost(w, 1), -EBADFD);
	assert_int_equal(tracedat_writer__end_cpu(w), -EBADFD);
	assert_int_equal(tracedat_writer__begin_cpu(w, 2), -EINVAL);
	assert_int_equal(tracedat_writer__begin_cpu(w, -1), -EINVAL);
	assert_int_equal(tracedat_writer__begin_cpu(w, 0), 0);
	assert_int_equal(tracedat_writer__begin_cpu(w, 1), -EBADFD);
	assert_int_equal(tracedat_writer__finish(w), -EBADFD);
	assert_int_equal(tracedat_writer__add_event(w, 1, ev, 0), -EINVAL);
	assert_int_equal(tracedat_writer__add_event(w, 1, ev, 5000), -E2BIG);
	assert_int_equal(tracedat_writer__end_cpu(w), 0);
	assert_int_equal(tracedat_writer__begin_cpu(w, 0), -EEXIST);
	assert_int_equal(tracedat_writer__add_event_format(w, "nocolon"), -EINVAL);
	assert_int_equal(tracedat_writer__add_event_format(w, "../x:y"), -EINVAL);
	assert_int_equal(tracedat_writer__finish(w), 0);
	assert_int_equal(tracedat_writer__finish(w), -EBADFD);
	assert_int_equal(tracedat_writer__add_cmdline(w, 1, "x"), -EBADFD);
	assert_int_equal(tracedat_writer__begin_cpu(NULL, 0), -EINVAL);
	tracedat_writer__delete(w);
	tracedat_writer__delete(NULL);
	close(fd);
}

/* perf's 8-byte padding is trimmed to the fields and dynamic arrays. */
static void test_event_size(void **state)
{
	unsigned char ev[64] = { 0 };
	uint32_t loc;
	uint16_t type = 901;
	int fd = new_fd();
	struct tracedat_writer *w = new_writer(fd, TRACEDAT_COMPRESS_NONE);

	(void)state;
	event(ev, sizeof(ev), 0);
	loc = 20 | 5u << 16; /* name: 20..25 */
	memcpy(ev + 12, &loc, 4);
	loc = 0;
	memcpy(ev + 16, &loc, 4);
	assert_int_equal(tracedat_writer__event_size(w, ev, 28), 25);
	loc = 12 | 9u << 16; /* rel: 20+12 .. 41 */
	memcpy(ev + 16, &loc, 4);
	assert_int_equal(tracedat_writer__event_size(w, ev, 44), 41);
	assert_int_equal(tracedat_writer__event_size(w, ev, 30), 30); /* never more */
	memcpy(ev, &type, 2);					      /* format unknown */
	assert_int_equal(tracedat_writer__event_size(w, ev, 44), 44);
	finish(w);
	close(fd);
}

static void feed_big(struct tracedat_writer *w)
{
	unsigned char ev[64];

	event(ev, sizeof(ev), 0x77);
	for (uint64_t i = 0; i < 10000; i++) /* > 256 KiB: several flushes */
		assert_int_equal(tracedat_writer__add_event(w, TS0 + i, ev, sizeof(ev)), 0);
}

/* Short writes and EINTR give the same bytes; ENOSPC fails and sticks. */
static void test_io_faults(void **state)
{
	struct tdat clean, faulty;
	unsigned char ev[64];
	int fd = new_fd();
	struct tracedat_writer *w;

	(void)state;
	write_cpu0(&clean, TRACEDAT_COMPRESS_NONE, feed_big);
	inject.max_len = 1000;
	inject.eintr = 1;
	write_cpu0(&faulty, TRACEDAT_COMPRESS_NONE, feed_big);
	reset(NULL);
	assert_int_equal(clean.size, faulty.size);
	assert_memory_equal(clean.data, faulty.data, clean.size);
	free(clean.data);
	free(faulty.data);

	w = new_writer(fd, TRACEDAT_COMPRESS_NONE);
	inject.fail_errno = ENOSPC;
	assert_int_equal(tracedat_writer__begin_cpu(w, 0), 0);
	event(ev, sizeof(ev), 0);
	for (uint64_t i = 0; i < 10000; i++) {
		int r = tracedat_writer__add_event(w, TS0 + i, ev, sizeof(ev));

		if (r) {
			assert_int_equal(r, -ENOSPC);
			break;
		}
	}
	assert_int_equal(tracedat_writer__add_event(w, TS0 + 20000, ev, sizeof(ev)), -EBADFD);
	assert_int_equal(tracedat_writer__finish(w), -EBADFD);
	tracedat_writer__delete(w);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_layout, reset, reset),
		cmocka_unit_test_setup_teardown(test_headers_formats, reset, reset),
		cmocka_unit_test_setup_teardown(test_sized_sections, reset, reset),
		cmocka_unit_test_setup_teardown(test_page_records, reset, reset),
		cmocka_unit_test_setup_teardown(test_page_overflow, reset, reset),
		cmocka_unit_test_setup_teardown(test_missing_events, reset, reset),
		cmocka_unit_test_setup_teardown(test_zstd, reset, reset),
		cmocka_unit_test_setup_teardown(test_states, reset, reset),
		cmocka_unit_test_setup_teardown(test_event_size, reset, reset),
		cmocka_unit_test_setup_teardown(test_io_faults, reset, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
