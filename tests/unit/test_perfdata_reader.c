// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for perfdata_reader and what it relies on: perf_record's id
 * positions without PERF_SAMPLE_IDENTIFIER, tracing_data__parse(), and the
 * reader itself on perf.data files built here byte by byte (file mode with
 * one id-less event or two PERF_SAMPLE_ID events, pipe mode, a time range,
 * zstd-compressed records) and on broken ones, which must fail with a
 * message and never crash.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include <zstd.h>

#include "perf_record.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "tracing_data.h"

#define TP_ID_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define TP_BARE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define FORMAT	     "name: sched_switch\nID: 316\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\n"

struct buf {
	uint8_t data[16384];
	size_t len;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->len + n <= sizeof(b->data));
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}
static void put_u64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}
static void put_str(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void build_tracing_data(struct buf *b, const char *version)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t byte;

	put(b, magic, sizeof(magic));
	put_str(b, version);
	byte = 0;
	put(b, &byte, 1); /* little-endian */
	byte = 8;
	put(b, &byte, 1); /* long size */
	put_u32(b, 4096);
	put_str(b, "header_page");
	put_u64(b, 5);
	put(b, "page!", 5);
	put_str(b, "header_event");
	put_u64(b, 6);
	put(b, "event!", 6);
	put_u32(b, 0); /* ftrace formats */
	put_u32(b, 1); /* systems */
	put_str(b, "sched");
	put_u32(b, 1);
	put_u64(b, strlen(FORMAT));
	put(b, FORMAT, strlen(FORMAT));
	put_u32(b, 0); /* kallsyms */
	put_u32(b, 3);
	put(b, "pk\n", 3); /* printk formats */
	if (!strcmp(version, "0.6")) {
		put_u64(b, 8);
		put(b, "1 init\n\n", 8);
	}
}

static void test_id_positions(void **state)
{
	uint64_t rec[8] = { 0 }, id = 0;
	struct perf_event_header *h = (void *)rec;

	(void)state;
	assert_int_equal(perf_record__id_pos(TP_ID_TYPE), 3); /* after ip, tid, time */
	assert_int_equal(perf_record__is_pos(TP_ID_TYPE), 2); /* before cpu */
	assert_int_equal(perf_record__id_pos(TP_ID_TYPE | PERF_SAMPLE_IDENTIFIER), 0);
	assert_int_equal(perf_record__is_pos(TP_ID_TYPE | PERF_SAMPLE_IDENTIFIER), 1);
	assert_int_equal(perf_record__id_pos(TP_BARE_TYPE), -1);
	assert_int_equal(perf_record__is_pos(TP_BARE_TYPE), -1);

	h->type = PERF_RECORD_SAMPLE;
	h->size = 8 + 5 * 8;
	rec[4] = 42;
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), 0);
	assert_int_equal(id, 42);
	assert_int_equal(perf_record__id_for(h, TP_BARE_TYPE, &id), -ENODATA);
	h->size = 8 + 3 * 8; /* cut before the id */
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), -EINVAL);

	h->type = PERF_RECORD_COMM;
	h->size = 8 + 6 * 8; /* ... tid, time, id, cpu */
	rec[5] = 77;
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), 0);
	assert_int_equal(id, 77);
}

static void test_tracing_data_parse(void **state)
{
	struct tracing_data_info info;
	char msg[200];
	struct buf b = { .len = 0 };

	(void)state;
	build_tracing_data(&b, "0.6");
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)), 0);
	assert_string_equal(info.version, "0.6");
	assert_int_equal(info.page_size, 4096);
	assert_int_equal(info.long_size, 8);
	assert_int_equal(info.header_page_size, 5);
	assert_memory_equal(info.header_page, "page!", 5);
	assert_int_equal(info.header_event_size, 6);
	assert_int_equal(info.nr_events, 1);
	assert_string_equal(info.events[0].system, "sched");
	assert_int_equal(info.events[0].size, strlen(FORMAT));
	assert_int_equal(info.events[0].id, 316);
	assert_int_equal(info.events[0].name_len, strlen("sched_switch"));
	assert_memory_equal(info.events[0].name, "sched_switch", info.events[0].name_len);
	assert_ptr_equal(tracing_data__find_id(&info, 316), &info.events[0]);
	assert_null(tracing_data__find_id(&info, 317));
	assert_int_equal(info.printk_size, 3);
	assert_int_equal(info.cmdlines_size, 8);
	assert_int_equal(info.size, b.len);
	tracing_data__release(&info);

	/* Every cut is refused with a message, never read past. */
	for (size_t len = 0; len < b.len; len++) {
		uint8_t *copy = malloc(len ? len : 1);

		memcpy(copy, b.data, len);
		msg[0] = '\0';
		assert_int_equal(tracing_data__parse(copy, len, &info, msg, sizeof(msg)), -EPROTO);
		assert_non_null(strstr(msg, "tracing data offset"));
		free(copy);
	}

	b.len = 0;
	build_tracing_data(&b, "0.5");
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, NULL, 0), 0);
	assert_null(info.cmdlines);
	tracing_data__release(&info);

	b.len = 0;
	build_tracing_data(&b, "0.7");
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)),
			 -EPROTONOSUPPORT);
	b.len = 0;
	build_tracing_data(&b, "0.6");
	b.data[14] = 1; /* big-endian */
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)),
			 -EPROTONOSUPPORT);
	/* A system count no blob could hold is refused before allocating. */
	b.len = 0;
	build_tracing_data(&b, "0.6");
	memset(b.data + 10 + 4 + 2 + 4 + 12 + 8 + 5 + 13 + 8 + 6 + 4, 0xff, 4);
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)), -EPROTO);
}

/* A tracepoint sample for TP_ID_TYPE (@with_id) or TP_BARE_TYPE. */
static void put_sample(struct buf *b, bool with_id, uint64_t id, uint64_t time, uint32_t cpu)
{
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE,
				       .size = with_id ? 8 + 6 * 8 + 16 : 8 + 2 * 8 + 16 };

	put(b, &h, sizeof(h));
	if (with_id)
		put_u64(b, 0xffffffff81000000ull); /* ip */
	put_u32(b, 100);
	put_u32(b, 101); /* pid, tid */
	put_u64(b, time);
	if (with_id) {
		put_u64(b, id);
		put_u32(b, cpu);
		put_u32(b, 0);
		put_u64(b, 1); /* period */
	}
	put_u32(b, 12); /* raw: common_type 316, common_pid 101 */
	put(b, "\x3c\x01\0\0\x65\0\0\0zzzz", 12);
}

static void put_attr(struct buf *b, uint64_t sample_type, uint64_t ids_offset, uint64_t nr_ids)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.config = 316,
					.sample_type = sample_type,
					.sample_id_all = 1 };

	put(b, &attr, sizeof(attr));
	put_u64(b, ids_offset);
	put_u64(b, nr_ids * 8);
}

/* File mode: header, attrs, ids, data, TRACING_DATA. @two: two PERF_SAMPLE_ID events. */
static void build_file(struct buf *b, bool two)
{
	struct buf td = { .len = 0 }, data = { .len = 0 };
	size_t nr_attrs = two ? 2 : 1, attr_entry = sizeof(struct perf_event_attr) + 16;
	uint64_t attrs_off = 104, ids_off = attrs_off + nr_attrs * attr_entry;
	uint64_t data_off = ids_off + (two ? 16 : 0), td_off;

	build_tracing_data(&td, "0.6");
	put_sample(&data, two, 5, 1000, 0);
	put_sample(&data, two, 6, 3000, 1);
	put_sample(&data, two, 5, 2000, 0);
	td_off = data_off + data.len + 16;

	b->len = 0;
	put(b, "PERFILE2", 8);
	put_u64(b, 104);
	put_u64(b, attr_entry);
	put_u64(b, attrs_off);
	put_u64(b, nr_attrs * attr_entry);
	put_u64(b, data_off);
	put_u64(b, data.len);
	put_u64(b, 0);
	put_u64(b, 0);	    /* event_types */
	put_u64(b, 1 << 1); /* features: TRACING_DATA */
	put_u64(b, 0);
	put_u64(b, 0);
	put_u64(b, 0);
	put_attr(b, two ? TP_ID_TYPE : TP_BARE_TYPE, ids_off, two ? 1 : 0);
	if (two)
		put_attr(b, TP_ID_TYPE, ids_off + 8, 1);
	if (two) {
		put_u64(b, 5);
		put_u64(b, 6);
	}
	put(b, data.data, data.len);
	put_u64(b, td_off);
	put_u64(b, td.len);
	put(b, td.data, td.len);
}

static int memfd_of(const struct buf *b)
{
	int fd = memfd_create("perfdata", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	return fd;
}

/* Reads @b (through a pipe when @pipe_fd) into a sealed snapshot, or returns the error. */
static int read_buf(const struct buf *b, bool pipe_fd, uint64_t start, uint64_t end,
		    struct snapshot **ret_s, struct perfdata_reader **ret_r)
{
	struct snapshot *s = snapshot__new();
	struct perfdata_reader *r;
	int fd, p[2], err;

	assert_non_null(s);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	if (pipe_fd) {
		assert_int_equal(pipe(p), 0);
		assert_int_equal(write(p[1], b->data, b->len), (ssize_t)b->len);
		close(p[1]);
		fd = p[0];
	} else {
		fd = memfd_of(b);
	}
	r = perfdata_reader__new(fd);
	assert_non_null(r);
	assert_int_equal(perfdata_reader__set_time_range(r, start, end), 0);
	err = perfdata_reader__read(r, s);
	if (!err)
		assert_int_equal(snapshot__seal(s), 0);
	close(fd);
	*ret_s = s;
	*ret_r = r;
	return err;
}

static void check_records(const struct snapshot *s, size_t want, const uint64_t *times)
{
	struct snapshot_cursor *c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);

	assert_non_null(c);
	assert_int_equal(snapshot__nr_records(s), want);
	for (size_t i = 0; i < want; i++) {
		const struct perf_event_header *h = snapshot_cursor__next(c, NULL);
		const struct snapshot_event *ev;
		struct perf_record_info info;
		uint64_t id;

		assert_int_equal(perf_record__id(h, &id), 0);
		ev = snapshot__event_by_id(s, id);
		assert_non_null(ev);
		assert_true(ev->attr.sample_type & PERF_SAMPLE_IDENTIFIER);
		assert_int_equal(perf_record__parse_sample(h, ev->attr.sample_type, &info), 0);
		assert_int_equal(info.time, times[i]);
		assert_int_equal(info.tid, 101);
		assert_int_equal(info.raw_size, 12);
		assert_memory_equal(info.raw, "\x3c\x01\0\0", 4);
	}
	assert_null(snapshot_cursor__next(c, NULL));
	snapshot_cursor__delete(c);
}

static void test_file_one_bare_event(void **state)
{
	static const uint64_t times[] = { 1000, 2000, 3000 };
	struct perfdata_reader *r;
	struct snapshot *s;
	struct buf *b = malloc(sizeof(*b));

	(void)state;
	build_file(b, false);
	assert_int_equal(read_buf(b, false, 0, UINT64_MAX, &s, &r), 0);
	assert_false(perfdata_reader__is_pipe(r));
	assert_int_equal(snapshot__nr_events(s), 1);
	/* No EVENT_DESC: the name comes from the format whose ID is attr.config. */
	assert_string_equal(snapshot__event(s, 0)->name, "sched:sched_switch");
	assert_non_null(perfdata_reader__tracing_data(r));
	check_records(s, 3, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);
	free(b);
}

static void test_file_two_id_events_time_range(void **state)
{
	static const uint64_t times[] = { 2000, 3000 };
	struct perfdata_reader *r;
	struct snapshot *s;
	struct buf *b = malloc(sizeof(*b));

	(void)state;
	build_file(b, true);
	assert_int_equal(read_buf(b, false, 1500, 3000, &s, &r), 0);
	assert_int_equal(snapshot__nr_events(s), 2);
	check_records(s, 2, times);
	assert_int_equal(perfdata_reader__stats(r)->nr_out_of_range, 1);
	/* Ids 5 and 6 stay with their own events. */
	assert_ptr_equal(snapshot__event_by_id(s, 5), snapshot__event(s, 0));
	assert_ptr_equal(snapshot__event_by_id(s, 6), snapshot__event(s, 1));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	free(b);
}

static void test_pipe_mode(void **state)
{
	static const uint64_t times[] = { 1000, 2000 };
	struct buf td = { .len = 0 };
	struct perfdata_reader *r;
	struct snapshot *s;
	struct buf *b = malloc(sizeof(*b));
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.config = 316,
					.sample_type = TP_ID_TYPE,
					.sample_id_all = 1 };
	struct perf_event_header h;
	uint32_t pad;

	(void)state;
	build_tracing_data(&td, "0.6");
	pad = (uint32_t)((8 - td.len % 8) % 8);
	b->len = 0;
	put(b, "PERFILE2", 8);
	put_u64(b, 16);
	h = (struct perf_event_header){ .type = 64, .size = sizeof(h) + sizeof(attr) + 8 };
	put(b, &h, sizeof(h));
	put(b, &attr, sizeof(attr));
	put_u64(b, 9); /* its id */
	h = (struct perf_event_header){ .type = 66, .size = 16 };
	put(b, &h, sizeof(h));
	put_u32(b, (uint32_t)td.len + pad);
	put_u32(b, 0);
	put(b, td.data, td.len);
	put(b, "\0\0\0\0\0\0\0", pad);
	put_sample(b, true, 9, 2000, 1);
	put_sample(b, true, 9, 1000, 0);
	h = (struct perf_event_header){ .type = 68, .size = 8 }; /* FINISHED_ROUND */
	put(b, &h, sizeof(h));
	h = (struct perf_event_header){ .type = 78, .size = 8 + 16 + 8 }; /* EVENT_UPDATE */
	put(b, &h, sizeof(h));
	put_u64(b, 2); /* NAME */
	put_u64(b, 9);
	put(b, "my:name", 8);

	assert_int_equal(read_buf(b, true, 0, UINT64_MAX, &s, &r), 0);
	assert_true(perfdata_reader__is_pipe(r));
	assert_string_equal(snapshot__event(s, 0)->name, "my:name");
	check_records(s, 2, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* The same stream from a file is read the same way. */
	assert_int_equal(read_buf(b, false, 0, UINT64_MAX, &s, &r), 0);
	assert_true(perfdata_reader__is_pipe(r));
	check_records(s, 2, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* Cut inside the last record: an error naming its offset. */
	b->len -= 4;
	assert_int_equal(read_buf(b, true, 0, UINT64_MAX, &s, &r), -EPROTO);
	assert_non_null(strstr(perfdata_reader__error(r), "truncated"));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	free(b);
}

/* A pipe stream: header, one TP_ID_TYPE attr with id 9, the tracing data. */
static void build_pipe_start(struct buf *b)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.config = 316,
					.sample_type = TP_ID_TYPE,
					.sample_id_all = 1 };
	struct buf td = { .len = 0 };
	struct perf_event_header h = { .type = 64, .size = sizeof(h) + sizeof(attr) + 8 };
	uint32_t pad;

	build_tracing_data(&td, "0.6");
	pad = (uint32_t)((8 - td.len % 8) % 8);
	b->len = 0;
	put(b, "PERFILE2", 8);
	put_u64(b, 16);
	put(b, &h, sizeof(h));
	put(b, &attr, sizeof(attr));
	put_u64(b, 9);
	h = (struct perf_event_header){ .type = 66, .size = 16 };
	put(b, &h, sizeof(h));
	put_u32(b, (uint32_t)td.len + pad);
	put_u32(b, 0);
	put(b, td.data, td.len);
	put(b, "\0\0\0\0\0\0\0", pad);
}

/* Samples zstd-compressed into two COMPRESSED records, one split across both. */
static void test_compressed(void **state)
{
	static const uint64_t times[] = { 1000, 2000, 3000 };
	struct buf *b = malloc(sizeof(*b)), *plain = malloc(sizeof(*plain));
	uint8_t packed[4096];
	struct perfdata_reader *r;
	struct snapshot *s;
	size_t cut, n;

	(void)state;
	plain->len = 0;
	put_sample(plain, true, 9, 3000, 0);
	put_sample(plain, true, 9, 1000, 0);
	put_sample(plain, true, 9, 2000, 1);
	n = ZSTD_compress(packed, sizeof(packed), plain->data, plain->len, 3);
	assert_false(ZSTD_isError(n));
	cut = n / 2;
	build_pipe_start(b);
	for (int i = 0; i < 2; i++) {
		size_t len = i ? n - cut : cut, pad = (8 - len % 8) % 8;
		struct perf_event_header h = { .type = 83, .size = (uint16_t)(16 + len + pad) };

		put(b, &h, sizeof(h)); /* COMPRESSED2: size, data, padding */
		put_u64(b, len);
		put(b, packed + (i ? cut : 0), len);
		put(b, "\0\0\0\0\0\0\0", pad);
	}
	assert_int_equal(read_buf(b, true, 0, UINT64_MAX, &s, &r), 0);
	check_records(s, 3, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* Compressed data that stops inside its third record. */
	n = ZSTD_compress(packed, sizeof(packed), plain->data, plain->len - 20, 3);
	assert_false(ZSTD_isError(n));
	build_pipe_start(b);
	{
		struct perf_event_header h = { .type = 81, .size = (uint16_t)(8 + n) };

		put(b, &h, sizeof(h)); /* COMPRESSED: data to the end */
		put(b, packed, n);
	}
	assert_int_equal(read_buf(b, true, 0, UINT64_MAX, &s, &r), -EPROTO);
	assert_non_null(strstr(perfdata_reader__error(r), "compressed data"));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	free(b);
	free(plain);
}

static void expect_error(const struct buf *b, bool pipe_fd, int want, const char *text)
{
	struct perfdata_reader *r;
	struct snapshot *s;

	int err = read_buf(b, pipe_fd, 0, UINT64_MAX, &s, &r);

	if (err != want || !strstr(perfdata_reader__error(r), text))
		fail_msg("got %d '%s', want %d with '%s'", err, perfdata_reader__error(r), want,
			 text);
	perfdata_reader__delete(r);
	snapshot__delete(s);
}

static void test_broken_inputs(void **state)
{
	struct buf *b = malloc(sizeof(*b)), *good = malloc(sizeof(*good));
	struct perfdata_reader *r;
	struct snapshot *s;

	(void)state;
	build_file(good, true);
	b->len = 0;
	expect_error(b, false, -ENODATA, "empty input");
	*b = *good;
	memcpy(b->data, "2ELIFREP", 8);
	expect_error(b, false, -EPROTONOSUPPORT, "big-endian");
	memcpy(b->data, "PERFFILE", 8);
	expect_error(b, false, -EPROTONOSUPPORT, "version 1");
	memcpy(b->data, "NOTPERF!", 8);
	expect_error(b, false, -EPROTO, "bad magic");
	/* A CPU count nothing could allocate for is refused. */
	build_pipe_start(b);
	{
		struct perf_event_header h = { .type = 80, .size = 8 + 8 + 8 };

		put(b, &h, sizeof(h));
		put_u64(b, 7); /* HEADER_NRCPUS */
		put_u32(b, 2);
		put_u32(b, 855834624);
	}
	expect_error(b, true, -EPROTO, "NRCPUS");
	*b = *good;
	expect_error(b, true, -EPROTONOSUPPORT, "cannot be read from a pipe");
	b->len = 600;
	expect_error(b, false, -EPROTO, "truncated?");
	*b = *good;
	b->data[16] = 3; /* attr_size */
	expect_error(b, false, -EPROTO, "attr entry size");
	*b = *good;
	b->data[54] = 0x7f; /* data size */
	expect_error(b, false, -EPROTO, "data section");

	/* Every cut and every flipped byte: a result or an error with a message. */
	for (size_t len = 0; len < good->len; len += 7) {
		*b = *good;
		b->len = len;
		if (read_buf(b, false, 0, UINT64_MAX, &s, &r))
			assert_true(perfdata_reader__error(r)[0] != '\0');
		perfdata_reader__delete(r);
		snapshot__delete(s);
	}
	for (size_t off = 0; off < good->len; off += 3) {
		*b = *good;
		b->data[off] ^= 0xa5;
		if (read_buf(b, false, 0, UINT64_MAX, &s, &r))
			assert_true(perfdata_reader__error(r)[0] != '\0');
		perfdata_reader__delete(r);
		snapshot__delete(s);
	}
	free(b);
	free(good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_positions),
		cmocka_unit_test(test_tracing_data_parse),
		cmocka_unit_test(test_file_one_bare_event),
		cmocka_unit_test(test_file_two_id_events_time_range),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_broken_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
