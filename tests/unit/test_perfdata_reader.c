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
#include "perfdata_writer.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "test_records.h"
#include "tracing_data.h"

#define TP_ID_TYPE                                                                                \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
	 PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define TP_BARE_TYPE (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)
#define FORMAT	     "name: sched_switch\nID: 316\nformat:\n\tfield:int x;\toffset:0;\tsize:4;\n"

static void build_tracing_data(struct test_records *b, const char *version)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	uint8_t byte;

	test_records__put(b, magic, sizeof(magic));
	test_records__put_str(b, version);
	byte = 0;
	test_records__put(b, &byte, 1); /* little-endian */
	byte = 8;
	test_records__put(b, &byte, 1); /* long size */
	test_records__put_u32(b, 4096);
	test_records__put_str(b, "header_page");
	test_records__put_u64(b, 5);
	test_records__put(b, "page!", 5);
	test_records__put_str(b, "header_event");
	test_records__put_u64(b, 6);
	test_records__put(b, "event!", 6);
	test_records__put_u32(b, 0); /* ftrace formats */
	test_records__put_u32(b, 1); /* systems */
	test_records__put_str(b, "sched");
	test_records__put_u32(b, 1);
	test_records__put_u64(b, strlen(FORMAT));
	test_records__put(b, FORMAT, strlen(FORMAT));
	test_records__put_u32(b, 0); /* kallsyms */
	test_records__put_u32(b, 3);
	test_records__put(b, "pk\n", 3); /* printk formats */
	if (!strcmp(version, "0.6")) {
		test_records__put_u64(b, 8);
		test_records__put(b, "1 init\n\n", 8);
	}
}

static void test_id_positions(void **state)
{
	struct perf_event_header *h;
	struct test_records r;
	uint64_t id = 0;

	(void)state;
	assert_int_equal(perf_record__id_pos(TP_ID_TYPE), 3); /* after ip, tid, time */
	assert_int_equal(perf_record__is_pos(TP_ID_TYPE), 2); /* before cpu */
	assert_int_equal(perf_record__id_pos(TP_ID_TYPE | PERF_SAMPLE_IDENTIFIER), 0);
	assert_int_equal(perf_record__is_pos(TP_ID_TYPE | PERF_SAMPLE_IDENTIFIER), 1);
	assert_int_equal(perf_record__id_pos(TP_BARE_TYPE), -1);
	assert_int_equal(perf_record__is_pos(TP_BARE_TYPE), -1);

	test_records__init(&r, TP_ID_TYPE);
	h = test_records__sample(&r,
				 &(struct test_sample){ .id = 42, .ip = 1, .time = 2, .cpu = 3 });
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), 0);
	assert_int_equal(id, 42);
	assert_int_equal(perf_record__id_for(h, TP_BARE_TYPE, &id), -ENODATA);
	h->size = 8 + 3 * 8; /* cut before the id */
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), -EINVAL);

	/* pid, tid, the name; then tid, time, id, cpu */
	h = test_records__comm(&r,
			       &(struct test_comm){ .comm = "x", .time = 2, .id = 77, .cpu = 3 });
	assert_int_equal(h->size, 8 + 6 * 8);
	assert_int_equal(perf_record__id_for(h, TP_ID_TYPE, &id), 0);
	assert_int_equal(id, 77);
	test_records__fini(&r);
}

static void test_tracing_data_parse(void **state)
{
	struct tracing_data_info info;
	char msg[200];
	struct test_records b = { 0 };

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

	test_records__reset(&b);
	build_tracing_data(&b, "0.5");
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, NULL, 0), 0);
	assert_null(info.cmdlines);
	tracing_data__release(&info);

	test_records__reset(&b);
	build_tracing_data(&b, "0.7");
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)),
			 -EPROTONOSUPPORT);
	test_records__reset(&b);
	build_tracing_data(&b, "0.6");
	b.data[14] = 1; /* big-endian */
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)),
			 -EPROTONOSUPPORT);
	/* A system count no blob could hold is refused before allocating. */
	test_records__reset(&b);
	build_tracing_data(&b, "0.6");
	memset(b.data + 10 + 4 + 2 + 4 + 12 + 8 + 5 + 13 + 8 + 6 + 4, 0xff, 4);
	assert_int_equal(tracing_data__parse(b.data, b.len, &info, msg, sizeof(msg)), -EPROTO);
	test_records__fini(&b);
}

/*
 * A sched_switch sample of pid 100, tid 101 as @b's sample_type (TP_ID_TYPE
 * or TP_BARE_TYPE) has it; its raw data are common_type 316, common_pid 101.
 */
static void tp_sample(struct test_records *b, uint64_t id, uint64_t time, uint32_t cpu)
{
	test_records__sample(b, &(struct test_sample){
					.ip = 0xffffffff81000000ull,
					.pid = 100,
					.tid = 101,
					.time = time,
					.id = id,
					.cpu = cpu,
					.period = 1,
					.raw = "\x3c\x01\0\0\x65\0\0\0zzzz",
					.raw_size = 12,
				});
}

static void put_attr(struct test_records *b, uint64_t sample_type, uint64_t ids_offset,
		     uint64_t nr_ids)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.config = 316,
					.sample_type = sample_type,
					.sample_id_all = 1 };

	test_records__put(b, &attr, sizeof(attr));
	test_records__put_u64(b, ids_offset);
	test_records__put_u64(b, nr_ids * 8);
}

/* File mode: header, attrs, ids, data, TRACING_DATA. @two: two PERF_SAMPLE_ID events. */
static void build_file(struct test_records *b, bool two)
{
	struct test_records td = { 0 }, data = { .sample_type = two ? TP_ID_TYPE : TP_BARE_TYPE };
	size_t nr_attrs = two ? 2 : 1, attr_entry = sizeof(struct perf_event_attr) + 16;
	uint64_t attrs_off = 104, ids_off = attrs_off + nr_attrs * attr_entry;
	uint64_t data_off = ids_off + (two ? 16 : 0), td_off;

	build_tracing_data(&td, "0.6");
	tp_sample(&data, 5, 1000, 0);
	tp_sample(&data, 6, 3000, 1);
	tp_sample(&data, 5, 2000, 0);
	td_off = data_off + data.len + 16;

	test_records__reset(b);
	test_records__put(b, "PERFILE2", 8);
	test_records__put_u64(b, 104);
	test_records__put_u64(b, attr_entry);
	test_records__put_u64(b, attrs_off);
	test_records__put_u64(b, nr_attrs * attr_entry);
	test_records__put_u64(b, data_off);
	test_records__put_u64(b, data.len);
	test_records__put_u64(b, 0);
	test_records__put_u64(b, 0);	  /* event_types */
	test_records__put_u64(b, 1 << 1); /* features: TRACING_DATA */
	test_records__put_u64(b, 0);
	test_records__put_u64(b, 0);
	test_records__put_u64(b, 0);
	put_attr(b, two ? TP_ID_TYPE : TP_BARE_TYPE, ids_off, two ? 1 : 0);
	if (two)
		put_attr(b, TP_ID_TYPE, ids_off + 8, 1);
	if (two) {
		test_records__put_u64(b, 5);
		test_records__put_u64(b, 6);
	}
	test_records__put(b, data.data, data.len);
	test_records__put_u64(b, td_off);
	test_records__put_u64(b, td.len);
	test_records__put(b, td.data, td.len);
	test_records__fini(&td);
	test_records__fini(&data);
}

/* @to becomes a copy of @from. */
static void copy_records(struct test_records *to, const struct test_records *from)
{
	test_records__reset(to);
	test_records__put(to, from->data, from->len);
}

static int memfd_of(const struct test_records *b)
{
	int fd = memfd_create("perfdata", 0);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, b->data, b->len), (ssize_t)b->len);
	return fd;
}

/* Reads @b (through a pipe when @pipe_fd) into a sealed snapshot, or returns the error. */
static int read_buf(const struct test_records *b, bool pipe_fd, uint64_t start, uint64_t end,
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
	struct test_records b = { 0 };
	struct perfdata_reader *r;
	struct snapshot *s;

	(void)state;
	build_file(&b, false);
	assert_int_equal(read_buf(&b, false, 0, UINT64_MAX, &s, &r), 0);
	assert_false(perfdata_reader__is_pipe(r));
	assert_int_equal(snapshot__nr_events(s), 1);
	/* No EVENT_DESC: the name comes from the format whose ID is attr.config. */
	assert_string_equal(snapshot__event(s, 0)->name, "sched:sched_switch");
	assert_non_null(perfdata_reader__tracing_data(r));
	check_records(s, 3, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);
	test_records__fini(&b);
}

/* BUILD_ID entries as perfdata_writer writes them come back as written. */
static void test_build_ids(void **state)
{
	static const uint8_t kernel_id[20] = { 0x32, 0xa7, 0xf3, 0xba, 0xce, 0xe6, 0xbf,
					       0x69, 0xda, 0x94, 0xf4, 0x97, 0xa8, 0xa0,
					       0x76, 0x48, 0x3b, 0xae, 0xa2, 0x0e };
	static const uint8_t md5_id[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	struct perf_event_attr attr = { .size = sizeof(attr),
					.type = PERF_TYPE_SOFTWARE,
					.config = PERF_COUNT_SW_CPU_CLOCK,
					.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME,
					.sample_id_all = 1 };
	/* A path longer than perf's 64-byte name alignment. */
	static const char long_path[] = "/opt/a/rather/long/directory/name/that/goes/past/sixty-"
					"four/bytes/libx.so";
	uint64_t id = 42, sample[3] = { 0, 42, 1000 };
	struct perf_event_header *h = (void *)sample;
	const struct perfdata_build_id *b;
	struct perfdata_writer *w;
	struct perfdata_reader *r;
	struct snapshot *s;
	int fd = memfd_create("buildids", 0);

	(void)state;
	assert_true(fd >= 0);
	*h = (struct perf_event_header){ .type = PERF_RECORD_SAMPLE,
					 .misc = PERF_RECORD_MISC_USER,
					 .size = sizeof(sample) };
	w = perfdata_writer__new(fd);
	assert_non_null(w);
	assert_int_equal(perfdata_writer__add_attr(w, &attr, "cpu-clock", &id, 1), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__write_event(w, h), 0);
	assert_int_equal(perfdata_writer__add_build_id(w, -1, PERF_RECORD_MISC_KERNEL, kernel_id,
						       20, "[kernel.kallsyms]"),
			 0);
	assert_int_equal(
		perfdata_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, md5_id, 16, long_path),
		0);
	assert_int_equal(perfdata_writer__add_build_id(w, -1, PERF_RECORD_MISC_USER, md5_id, 21,
						       "/too/long/an/id"),
			 -EINVAL);
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);

	s = snapshot__new();
	assert_non_null(s);
	assert_int_equal(snapshot__open_spill(s, "/tmp"), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	r = perfdata_reader__new(fd);
	assert_non_null(r);
	assert_int_equal(perfdata_reader__read(r, s), 0);
	assert_int_equal(perfdata_reader__nr_build_ids(r), 2);
	b = perfdata_reader__build_id(r, 0);
	assert_int_equal(b->pid, -1);
	assert_int_equal(b->misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(b->size, 20);
	assert_memory_equal(b->id, kernel_id, 20);
	assert_string_equal(b->name, "[kernel.kallsyms]");
	b = perfdata_reader__build_id(r, 1);
	assert_int_equal(b->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(b->size, 16);
	assert_memory_equal(b->id, md5_id, 16);
	assert_string_equal(b->name, long_path);
	assert_null(perfdata_reader__build_id(r, 2));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	close(fd);
}

static void test_file_two_id_events_time_range(void **state)
{
	static const uint64_t times[] = { 2000, 3000 };
	struct test_records b = { 0 };
	struct perfdata_reader *r;
	struct snapshot *s;

	(void)state;
	build_file(&b, true);
	assert_int_equal(read_buf(&b, false, 1500, 3000, &s, &r), 0);
	assert_int_equal(snapshot__nr_events(s), 2);
	check_records(s, 2, times);
	assert_int_equal(perfdata_reader__stats(r)->nr_out_of_range, 1);
	/* Ids 5 and 6 stay with their own events. */
	assert_ptr_equal(snapshot__event_by_id(s, 5), snapshot__event(s, 0));
	assert_ptr_equal(snapshot__event_by_id(s, 6), snapshot__event(s, 1));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	test_records__fini(&b);
}

/* A pipe stream: header, one TP_ID_TYPE attr with id 9, the tracing data. */
static void build_pipe_start(struct test_records *b)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.config = 316,
					.sample_type = TP_ID_TYPE,
					.sample_id_all = 1 };
	struct test_records td = { 0 };
	size_t pad;

	build_tracing_data(&td, "0.6");
	pad = (8 - td.len % 8) % 8;
	test_records__reset(b);
	b->sample_type = TP_ID_TYPE;
	test_records__put(b, "PERFILE2", 8);
	test_records__put_u64(b, 16);
	test_records__begin(b, 64, 0); /* HEADER_ATTR */
	test_records__put(b, &attr, sizeof(attr));
	test_records__put_u64(b, 9); /* its id */
	test_records__end(b);
	test_records__begin(b, 66, 0); /* HEADER_TRACING_DATA: its size, then the data */
	test_records__put_u32(b, (uint32_t)(td.len + pad));
	test_records__put_u32(b, 0);
	test_records__end(b);
	test_records__put(b, td.data, td.len);
	test_records__put(b, "\0\0\0\0\0\0\0", pad);
	test_records__fini(&td);
}

static void test_pipe_mode(void **state)
{
	static const uint64_t times[] = { 1000, 2000 };
	static const char name[64] = "/usr/lib/libfoo.so"; /* NUL-padded to 64, as perf */
	struct test_records b = { 0 };
	struct perfdata_reader *r;
	struct snapshot *s;

	(void)state;
	build_pipe_start(&b);
	tp_sample(&b, 9, 2000, 1);
	tp_sample(&b, 9, 1000, 0);
	test_records__begin(&b, 68, 0); /* FINISHED_ROUND */
	test_records__end(&b);
	test_records__begin(&b, 78, 0); /* EVENT_UPDATE */
	test_records__put_u64(&b, 2);	/* NAME */
	test_records__put_u64(&b, 9);
	test_records__put_str(&b, "my:name");
	assert_int_equal(test_records__end(&b)->size, 8 + 16 + 8);
	/* HEADER_BUILD_ID (perf inject -b), as perf before 5.11: no size, 16 bytes + zeros. */
	test_records__begin(&b, 67, PERF_RECORD_MISC_USER);
	test_records__put_u32(&b, (uint32_t)-1);
	test_records__put(&b, "0123456789abcdef\0\0\0\0", 20);
	test_records__put_u32(&b, 0);
	test_records__put(&b, name, sizeof(name));
	test_records__end(&b);

	assert_int_equal(read_buf(&b, true, 0, UINT64_MAX, &s, &r), 0);
	assert_true(perfdata_reader__is_pipe(r));
	assert_string_equal(snapshot__event(s, 0)->name, "my:name");
	assert_int_equal(perfdata_reader__nr_build_ids(r), 1);
	assert_int_equal(perfdata_reader__build_id(r, 0)->size, 16);
	assert_int_equal(perfdata_reader__build_id(r, 0)->misc, PERF_RECORD_MISC_USER);
	assert_memory_equal(perfdata_reader__build_id(r, 0)->id, "0123456789abcdef", 16);
	assert_string_equal(perfdata_reader__build_id(r, 0)->name, "/usr/lib/libfoo.so");
	check_records(s, 2, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* The same stream from a file is read the same way. */
	assert_int_equal(read_buf(&b, false, 0, UINT64_MAX, &s, &r), 0);
	assert_true(perfdata_reader__is_pipe(r));
	check_records(s, 2, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* Cut inside the last record: an error naming its offset. */
	b.len -= 4;
	assert_int_equal(read_buf(&b, true, 0, UINT64_MAX, &s, &r), -EPROTO);
	assert_non_null(strstr(perfdata_reader__error(r), "truncated"));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	test_records__fini(&b);
}

/* Samples zstd-compressed into two COMPRESSED records, one split across both. */
static void test_compressed(void **state)
{
	static const uint64_t times[] = { 1000, 2000, 3000 };
	struct test_records b = { 0 }, plain = { .sample_type = TP_ID_TYPE };
	struct perfdata_reader *r;
	uint8_t packed[4096];
	struct snapshot *s;
	size_t cut, n;

	(void)state;
	tp_sample(&plain, 9, 3000, 0);
	tp_sample(&plain, 9, 1000, 0);
	tp_sample(&plain, 9, 2000, 1);
	n = ZSTD_compress(packed, sizeof(packed), plain.data, plain.len, 3);
	assert_false(ZSTD_isError(n));
	cut = n / 2;
	build_pipe_start(&b);
	for (int i = 0; i < 2; i++) {
		size_t len = i ? n - cut : cut;

		test_records__begin(&b, 83, 0); /* COMPRESSED2: size, data, padding */
		test_records__put_u64(&b, len);
		test_records__put(&b, packed + (i ? cut : 0), len);
		assert_int_equal(test_records__end(&b)->size, 16 + (len + 7) / 8 * 8);
	}
	assert_int_equal(read_buf(&b, true, 0, UINT64_MAX, &s, &r), 0);
	check_records(s, 3, times);
	perfdata_reader__delete(r);
	snapshot__delete(s);

	/* Compressed data that stops inside its third record. */
	n = ZSTD_compress(packed, sizeof(packed), plain.data, plain.len - 20, 3);
	assert_false(ZSTD_isError(n));
	build_pipe_start(&b);
	{
		/* COMPRESSED: data to the end, its size not padded to 8 as perf writes it. */
		struct perf_event_header h = { .type = 81, .size = (uint16_t)(8 + n) };

		test_records__put(&b, &h, sizeof(h));
		test_records__put(&b, packed, n);
	}
	assert_int_equal(read_buf(&b, true, 0, UINT64_MAX, &s, &r), -EPROTO);
	assert_non_null(strstr(perfdata_reader__error(r), "compressed data"));
	perfdata_reader__delete(r);
	snapshot__delete(s);
	test_records__fini(&b);
	test_records__fini(&plain);
}

static void expect_error(const struct test_records *b, bool pipe_fd, int want, const char *text)
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
	struct test_records b = { 0 }, good = { 0 };
	struct perfdata_reader *r;
	struct snapshot *s;

	(void)state;
	build_file(&good, true);
	expect_error(&b, false, -ENODATA, "empty input");
	copy_records(&b, &good);
	memcpy(b.data, "2ELIFREP", 8);
	expect_error(&b, false, -EPROTONOSUPPORT, "big-endian");
	memcpy(b.data, "PERFFILE", 8);
	expect_error(&b, false, -EPROTONOSUPPORT, "version 1");
	memcpy(b.data, "NOTPERF!", 8);
	expect_error(&b, false, -EPROTO, "bad magic");
	/* A CPU count nothing could allocate for is refused. */
	build_pipe_start(&b);
	test_records__begin(&b, 80, 0); /* HEADER_FEATURE */
	test_records__put_u64(&b, 7);	/* HEADER_NRCPUS */
	test_records__put_u32(&b, 2);
	test_records__put_u32(&b, 855834624);
	test_records__end(&b);
	expect_error(&b, true, -EPROTO, "NRCPUS");
	copy_records(&b, &good);
	expect_error(&b, true, -EPROTONOSUPPORT, "cannot be read from a pipe");
	b.len = 600;
	expect_error(&b, false, -EPROTO, "truncated?");
	copy_records(&b, &good);
	b.data[16] = 3; /* attr_size */
	expect_error(&b, false, -EPROTO, "attr entry size");
	copy_records(&b, &good);
	b.data[54] = 0x7f; /* data size */
	expect_error(&b, false, -EPROTO, "data section");

	/* Every cut and every flipped byte: a result or an error with a message. */
	for (size_t len = 0; len < good.len; len += 7) {
		copy_records(&b, &good);
		b.len = len;
		if (read_buf(&b, false, 0, UINT64_MAX, &s, &r))
			assert_true(perfdata_reader__error(r)[0] != '\0');
		perfdata_reader__delete(r);
		snapshot__delete(s);
	}
	for (size_t off = 0; off < good.len; off += 3) {
		copy_records(&b, &good);
		b.data[off] ^= 0xa5;
		if (read_buf(&b, false, 0, UINT64_MAX, &s, &r))
			assert_true(perfdata_reader__error(r)[0] != '\0');
		perfdata_reader__delete(r);
		snapshot__delete(s);
	}
	test_records__fini(&b);
	test_records__fini(&good);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_id_positions),
		cmocka_unit_test(test_tracing_data_parse),
		cmocka_unit_test(test_file_one_bare_event),
		cmocka_unit_test(test_build_ids),
		cmocka_unit_test(test_file_two_id_events_time_range),
		cmocka_unit_test(test_pipe_mode),
		cmocka_unit_test(test_compressed),
		cmocka_unit_test(test_broken_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
