// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for perfdata_writer under load and faults: many events, short
 * writes, EINTR and ENOSPC injected by wrapping pwrite() at link time, and
 * the zstd-compressed data section read back the way perf reads it.
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>
#include <perf/event.h>
#include "perfdata_compress.h"
#include "perfdata_writer.h"
#include "perfdata_writer_test.h"
#include "test_records.h"

#define MANY_EVENTS 60000
#define MANY_IDS    40000 /* 320 KB of ids: larger than the buffer */

static uint16_t many_size(uint32_t i)
{
	return (uint16_t)(8 + 8 * ((i * 7) % 40));
}

/* Writes many records of varied sizes, zstd @level (0: none); returns the file. */
static struct file write_many(int level)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	uint64_t *ids = malloc(MANY_IDS * sizeof(*ids));
	struct test_records r;
	struct file f;
	uint32_t i;
	int fd = new_fd();

	assert_non_null(ids);
	for (i = 0; i < MANY_IDS; i++)
		ids[i] = 1000 + i;
	tp_attr(&a, 7);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_compression(w, level), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "many:ids", ids, MANY_IDS), 0);
	free(ids);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	test_records__init(&r, 0);
	for (i = 0; i < MANY_EVENTS; i++) {
		test_records__reset(&r);
		test_records__pattern(&r, many_size(i), i, false);
		assert_int_equal(perfdata_writer__write_event(w, (void *)r.data), 0);
	}
	test_records__fini(&r);
	assert_int_equal(perfdata_writer__set_sample_time(w, 1, 2), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	f = read_file(fd);
	assert_int_equal(perfdata_writer__size(w), f.size);
	perfdata_writer__delete(w);
	close(fd);
	return f;
}

static void check_many(const struct file *f)
{
	uint64_t off, total = 0;
	struct test_records r;
	uint32_t i;

	for (i = 0; i < MANY_IDS; i++)
		assert_int_equal(u64_at(f, HEADER_SIZE + ATTR_ENTRY + 8 * i), 1000 + i);
	off = u64_at(f, 40);
	assert_int_equal(off, HEADER_SIZE + ATTR_ENTRY + 8 * MANY_IDS);
	test_records__init(&r, 0);
	for (i = 0; i < MANY_EVENTS; i++) {
		uint16_t size = many_size(i);

		test_records__reset(&r);
		test_records__pattern(&r, size, i, false);
		if (off + size > f->size || memcmp(f->data + off, r.data, size))
			fail_msg("record %u at offset %llu differs", i, (unsigned long long)off);
		off += size;
		total += size;
	}
	test_records__fini(&r);
	assert_true(total > 4 * 256 * 1024);
	assert_int_equal(u64_at(f, 48), total);
}

static void test_many_events(void **state)
{
	struct file f;

	(void)state;
	f = write_many(0);
	check_many(&f);
	/* Writes go out in buffer-sized pieces, not one per record. */
	assert_true(inject.calls <= (int)(f.size / (256 * 1024)) + 3);
	free(f.data);
}

static void test_short_writes_and_eintr(void **state)
{
	struct file ref, f;

	(void)state;
	ref = write_many(0);
	inject.max_len = 4093;
	inject.eintr = 1;
	inject.calls = 0;
	f = write_many(0);
	assert_true(inject.calls > 2 * (int)(ref.size / 4093));
	assert_int_equal(f.size, ref.size);
	assert_memory_equal(f.data, ref.data, ref.size);
	free(ref.data);
	free(f.data);
}

static void test_write_error(void **state)
{
	struct perf_event_attr a;
	const struct perf_event_header *h;
	struct perfdata_writer *w;
	struct test_records r;
	int fd = new_fd(), err = 0, i;

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	inject.fail_errno = ENOSPC;
	inject.fail_after = 1;
	test_records__init(&r, 0);
	h = test_records__pattern(&r, 256, 1, false);
	/* The first flush succeeds, the second fails with the real errno. */
	for (i = 0; i < 10000 && !err; i++)
		err = perfdata_writer__write_event(w, h);
	assert_int_equal(err, -ENOSPC);
	assert_true(i > 1024);
	assert_int_equal(perfdata_writer__write_event(w, h), -EBADFD);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	perfdata_writer__delete(w);
	close(fd);
	test_records__fini(&r);
}

static void test_finish_error(void **state)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	inject.fail_errno = EIO;
	assert_int_equal(perfdata_writer__finish(w), -EIO);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 1, 1), -EBADFD);
	perfdata_writer__delete(w);
	close(fd);
}

/*
 * Decompresses every COMPRESSED record of @f's data section as perf does:
 * one zstd stream for the file, an output buffer of mmap_len per record.
 * Each must yield whole records. Returns them (*@ret_len bytes) and sets
 * *@ret_out to the bytes of the COMPRESSED records.
 */
static unsigned char *decompress_data(const struct file *f, uint32_t mmap_len, size_t *ret_len,
				      uint64_t *ret_out)
{
	uint64_t off = u64_at(f, 40), end = off + u64_at(f, 48);
	ZSTD_DStream *ds = ZSTD_createDStream();
	unsigned char *all = NULL;
	size_t len = 0;

	assert_non_null(ds);
	*ret_out = 0;
	while (off < end) {
		struct perf_event_header h, *r;
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t pos;

		memcpy(&h, f->data + off, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_COMPRESSED);
		assert_true(h.size > sizeof(h) && off + h.size <= end);
		all = realloc(all, len + mmap_len);
		assert_non_null(all);
		in = (ZSTD_inBuffer){ f->data + off + sizeof(h), h.size - sizeof(h), 0 };
		out = (ZSTD_outBuffer){ all + len, mmap_len, 0 };
		while (in.pos < in.size)
			assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &out, &in)));
		assert_true(out.pos > 0);
		for (pos = 0; pos < out.pos; pos += r->size) {
			r = (void *)(all + len + pos);
			assert_true(pos + sizeof(*r) <= out.pos && r->size >= sizeof(*r));
		}
		assert_int_equal(pos, out.pos);
		len += out.pos;
		off += h.size;
		*ret_out += h.size;
	}
	ZSTD_freeDStream(ds);
	*ret_len = len;
	return all;
}

static void test_compressed_data(void **state)
{
	struct file plain = write_many(0), z = write_many(3);
	uint64_t plain_data = u64_at(&plain, 48), table, off, out;
	unsigned char *records;
	size_t len;

	(void)state;
	/* Same attrs and ids; the data section is COMPRESSED records only. */
	assert_int_equal(u64_at(&z, 40), u64_at(&plain, 40));
	assert_memory_equal(z.data + HEADER_SIZE, plain.data + HEADER_SIZE,
			    u64_at(&z, 40) - HEADER_SIZE);
	records = decompress_data(&z, PERFDATA_COMPRESS_CHUNK, &len, &out);
	assert_int_equal(len, plain_data);
	assert_memory_equal(records, plain.data + u64_at(&plain, 40), len);
	assert_true(out * 4 < plain_data);
	free(records);

	/* EVENT_DESC, SAMPLE_TIME, then COMPRESSED (bit 27) last. */
	assert_int_equal(u64_at(&z, 72), u64_at(&plain, 72) | 1ull << 27);
	table = u64_at(&z, 40) + u64_at(&z, 48);
	off = u64_at(&z, table + 2 * 16);
	assert_int_equal(u64_at(&z, table + 2 * 16 + 8), 20);
	assert_int_equal(off + 20, z.size);
	assert_int_equal(u32_at(&z, off), 0);	  /* version: perf record writes 0 */
	assert_int_equal(u32_at(&z, off + 4), 1); /* type: zstd */
	assert_int_equal(u32_at(&z, off + 8), 3); /* level */
	assert_int_equal(u32_at(&z, off + 12), (plain_data + out / 2) / out);
	assert_int_equal(u32_at(&z, off + 16), 63 * 1024); /* mmap_len */
	free(plain.data);
	free(z.data);
}

static void test_compression_args(void **state)
{
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct perf_event_attr a;
	struct perfdata_writer *w;
	struct file f;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_compression(NULL, 1), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, -1), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, 23), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, 22), 0);
	assert_int_equal(perfdata_writer__set_compression(w, 0), 0); /* off again */
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__set_compression(w, 1), -EBADFD);
	assert_int_equal(perfdata_writer__write_event(w, &fin), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);
	f = read_file(fd);
	assert_int_equal(u64_at(&f, 48), 8);
	assert_int_equal(u64_at(&f, 72), 1ull << PERFDATA_FEAT_EVENT_DESC);
	free(f.data);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_many_events, reset_inject),
		cmocka_unit_test_setup(test_short_writes_and_eintr, reset_inject),
		cmocka_unit_test_setup(test_write_error, reset_inject),
		cmocka_unit_test_setup(test_finish_error, reset_inject),
		cmocka_unit_test_setup(test_compressed_data, reset_inject),
		cmocka_unit_test_setup(test_compression_args, reset_inject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
