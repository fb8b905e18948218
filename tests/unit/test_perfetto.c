// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the Perfetto layer's pieces: protobuf wire encoding (pb),
 * interning (intern) and the compressed output stream (pftrace_out). The
 * whole writer is checked against Perfetto's schema by the integration
 * tests (protoc --decode).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <cmocka.h>

#include "intern.h"
#include "pb.h"
#include "pftrace_out.h"

static void test_varints(void **state)
{
	struct pb_buf b = { 0 };
	static const uint8_t want[] = {
		0x08, 0x00,	  /* field 1: 0 */
		0x10, 0xac, 0x02, /* field 2: 300 */
		0xf8, 0x01, 0x7f, /* field 31: 127 */
		0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, /* 3: -1 */
		0x22, 0x02, 'h',  'i', /* field 4: "hi" */
	};

	(void)state;
	pb__varint(&b, 1, 0);
	pb__varint(&b, 2, 300);
	pb__varint(&b, 31, 127);
	pb__varint(&b, 3, (uint64_t)(int64_t)-1);
	pb__str(&b, 4, "hi");
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, sizeof(want));
	assert_memory_equal(b.data, want, sizeof(want));
	assert_int_equal(pb__varint_size(127), 1);
	assert_int_equal(pb__varint_size(128), 2);
	assert_int_equal(pb__varint_size(UINT64_MAX), 10);
	pb_buf__fini(&b);
}

/* A nested length is a 4-byte varint: 3 continued bytes and a last one. */
static void test_nested(void **state)
{
	struct pb_buf b = { 0 };
	pb_nested outer, inner;
	char big[200];

	(void)state;
	memset(big, 'x', sizeof(big));
	outer = pb__begin(&b, 1);
	inner = pb__begin(&b, 2);
	pb__bytes(&b, 3, big, sizeof(big)); /* 1 + 2 + 200 bytes */
	pb__end(&b, inner);
	pb__end(&b, outer);
	assert_int_equal(b.err, 0);
	assert_int_equal(b.len, 1 + 4 + 1 + 4 + 203);
	/* outer: 4 + 1 + 203 = 208 = 0xd0 -> d0 81 80 00 */
	assert_int_equal(b.data[0], 0x0a);
	assert_int_equal(b.data[1], 0xd0);
	assert_int_equal(b.data[2], 0x81);
	assert_int_equal(b.data[3], 0x80);
	assert_int_equal(b.data[4], 0x00);
	/* inner: 203 = 0xcb -> cb 81 80 00 */
	assert_int_equal(b.data[5], 0x12);
	assert_int_equal(b.data[6], 0xcb);
	assert_int_equal(b.data[7], 0x81);
	assert_int_equal(b.data[9], 0x00);
	pb_buf__reset(&b);
	assert_int_equal(b.len, 0);
	pb_buf__fini(&b);
}

static void test_intern(void **state)
{
	struct intern_table t = { 0 };
	char key[32];
	bool is_new;

	(void)state;
	assert_int_equal(intern_table__get(&t, "a", 1, &is_new), 1);
	assert_true(is_new);
	assert_int_equal(intern_table__get(&t, "ab", 2, &is_new), 2);
	assert_true(is_new);
	assert_int_equal(intern_table__get(&t, "a", 1, &is_new), 1);
	assert_false(is_new);
	assert_int_equal(intern_table__get(&t, "", 0, &is_new), 3);
	/* Many keys: growth keeps every iid. */
	for (int i = 0; i < 5000; i++) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(intern_table__get(&t, key, strlen(key), &is_new), 4 + i);
		assert_true(is_new);
	}
	for (int i = 0; i < 5000; i += 7) {
		snprintf(key, sizeof(key), "key%d", i);
		assert_int_equal(intern_table__get(&t, key, strlen(key), &is_new), 4 + i);
		assert_false(is_new);
	}
	intern_table__fini(&t);
}

/* Packets through each compression, read back: Trace.packet fields of the same bytes. */
static void roundtrip(enum pftrace_compression c)
{
	size_t n = 3000, plain_len = 0, got_len;
	int fd = memfd_create("pftrace", 0);
	uint8_t *plain = malloc(n * 104), *file, *got;
	struct pftrace_out *o;
	off_t size;

	assert_true(fd >= 0 && plain);
	o = pftrace_out__new(fd, c);
	assert_non_null(o);
	for (size_t i = 0; i < n; i++) {
		uint8_t pkt[100];

		memset(pkt, (int)i, sizeof(pkt));
		assert_int_equal(pftrace_out__packet(o, pkt, sizeof(pkt)), 0);
		plain[plain_len++] = 0x0a;
		plain[plain_len++] = 100;
		memcpy(plain + plain_len, pkt, sizeof(pkt));
		plain_len += sizeof(pkt);
	}
	assert_int_equal(pftrace_out__finish(o), 0);
	size = lseek(fd, 0, SEEK_END);
	assert_int_equal((uint64_t)size, pftrace_out__bytes(o));
	pftrace_out__delete(o);
	file = malloc((size_t)size);
	got = malloc(plain_len + 1);
	assert_int_equal(pread(fd, file, (size_t)size, 0), size);
	if (c == PFTRACE_COMPRESS_NONE) {
		memcpy(got, file, (size_t)size);
		got_len = (size_t)size;
	} else if (c == PFTRACE_COMPRESS_ZSTD) {
		got_len = ZSTD_decompress(got, plain_len + 1, file, (size_t)size);
		assert_false(ZSTD_isError(got_len));
	} else {
		z_stream z = { .next_in = file,
			       .avail_in = (uInt)size,
			       .next_out = got,
			       .avail_out = (uInt)plain_len + 1 };

		assert_int_equal(file[0], 0x1f); /* gzip magic */
		assert_int_equal(file[1], 0x8b);
		assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
		assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
		got_len = z.total_out;
		inflateEnd(&z);
	}
	assert_int_equal(got_len, plain_len);
	assert_memory_equal(got, plain, plain_len);
	free(plain);
	free(file);
	free(got);
	close(fd);
}

static void test_out_plain(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_NONE);
}

static void test_out_gzip(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_GZIP);
}

static void test_out_zstd(void **state)
{
	(void)state;
	roundtrip(PFTRACE_COMPRESS_ZSTD);
}

/* A write error (a read-only fd) comes back as -errno, not silently. */
static void test_out_error(void **state)
{
	int fd = memfd_create("ro", 0), ro;
	struct pftrace_out *o;
	char path[64], pkt[4096] = { 0 };
	int r = 0;

	(void)state;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ro = open(path, O_RDONLY);
	assert_true(ro >= 0);
	o = pftrace_out__new(ro, PFTRACE_COMPRESS_NONE);
	for (int i = 0; i < 100 && !r; i++)
		r = pftrace_out__packet(o, pkt, sizeof(pkt));
	if (!r)
		r = pftrace_out__finish(o);
	assert_int_equal(r, -EBADF);
	pftrace_out__delete(o);
	close(ro);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),	  cmocka_unit_test(test_nested),
		cmocka_unit_test(test_intern),	  cmocka_unit_test(test_out_plain),
		cmocka_unit_test(test_out_gzip),  cmocka_unit_test(test_out_zstd),
		cmocka_unit_test(test_out_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
