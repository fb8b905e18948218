// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for file_output: random appends, zeros, patches and flushes,
 * direct and through the page cache, must leave exactly the bytes a plain
 * model of the file holds; direct writing is used where the file system
 * takes it (with CI=true it must, as on CI's ext4), never on a device, and
 * the fd gets its flags back. A device that refuses a direct write
 * (EINVAL, injected: this machine's file systems take 4 KiB-aligned ones)
 * turns direct writing off, and the file is the same.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "file_output.h"
#include "pwrite_inject.h"
#include "test_dir.h"
#include "test_skip.h"

#define MODEL_MAX (24u << 20)

static char dir[] = "/var/tmp/test_file_output.XXXXXX";

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int open_scratch(const char *name)
{
	char path[sizeof(dir) + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	return fd;
}

/* Whether this directory's file system takes O_DIRECT at all. */
static bool fs_takes_direct(void)
{
	int fd = open_scratch("probe");
	bool ok = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_DIRECT) == 0;

	close(fd);
	return ok;
}

/* A length that crosses block and buffer boundaries in every way. */
static size_t random_len(void)
{
	switch (rng() % 6) {
	case 0:
		return 1 + rng() % 16;
	case 1:
		return 1 + rng() % 5000;
	case 2:
		return FILE_OUTPUT_DIRECT_ALIGN - 8 + rng() % 16;
	case 3:
		return 1 + rng() % (3 * FILE_OUTPUT_DIRECT_BUF_SIZE);
	case 4:
		return FILE_OUTPUT_BUF_SIZE * (1 + rng() % 4);
	default:
		return 1 + rng() % 100000;
	}
}

static void run_model(bool direct, uint64_t seed)
{
	unsigned char *model = calloc(1, MODEL_MAX), *data = malloc(MODEL_MAX), *back;
	struct file_output o;
	size_t pos = 0;
	struct stat st;
	int fd = open_scratch(direct ? "direct" : "buffered");

	assert_non_null(model);
	assert_non_null(data);
	rng_state = seed;
	for (size_t i = 0; i < MODEL_MAX; i++)
		data[i] = (unsigned char)rng();
	assert_int_equal(file_output__init(&o, fd, direct), 0);
	if (direct && fs_takes_direct())
		assert_true(file_output__is_direct(&o));
	for (int op = 0; op < 400; op++) {
		unsigned int what = (unsigned int)(rng() % 10);
		size_t len = random_len(), from = rng() % (MODEL_MAX / 2);

		if (what < 6 && pos + len <= MODEL_MAX) {
			assert_int_equal(
				file_output__append(&o, data + from % (MODEL_MAX - len), len), 0);
			memcpy(model + pos, data + from % (MODEL_MAX - len), len);
			pos += len;
		} else if (what == 6 && pos + len <= MODEL_MAX) {
			assert_int_equal(file_output__append(&o, NULL, len), 0);
			memset(model + pos, 0, len);
			pos += len;
		} else if (what < 9 && pos) {
			/* A header or a size: often near the end, in the block still buffered. */
			size_t at = what == 7 ? rng() % pos :
						pos - 1 - rng() % (pos < 5000 ? pos : 5000);
			size_t n = 1 + rng() % 64;

			if (n > pos - at)
				n = pos - at;
			assert_int_equal(file_output__patch(&o, at, data + from, n), 0);
			memcpy(model + at, data + from, n);
		} else {
			assert_int_equal(file_output__flush(&o), 0);
		}
		assert_int_equal(file_output__pos(&o), pos);
	}
	assert_int_equal(file_output__flush(&o), 0);
	if (inject.direct_refused)
		assert_false(file_output__is_direct(&o));
	file_output__fini(&o);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, pos);
	back = malloc(pos + 1);
	assert_non_null(back);
	assert_int_equal(pread(fd, back, pos, 0), (ssize_t)pos);
	assert_memory_equal(back, model, pos);
	free(back);
	free(data);
	free(model);
	close(fd);
}

static void test_model_direct(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++)
		run_model(true, seed * 0x9e3779b97f4a7c15ull);
}

static void test_model_buffered(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++)
		run_model(false, seed * 0x9e3779b97f4a7c15ull);
}

/*
 * Direct writes refused after 0, 1, ... of them went through: on the
 * writer's own thread (a tail) or on the output's I/O thread (a full
 * block), the same bytes go through the page cache.
 */
static void test_direct_refused(void **state)
{
	(void)state;
	if (!fs_takes_direct())
		test_skip("the scratch file system does not take O_DIRECT");
	for (int ok = 0; ok < 12; ok += 1 + ok / 2) {
		pwrite_inject__reset();
		inject.refuse_direct = 1;
		inject.direct_ok = ok;
		run_model(true, (uint64_t)(ok + 7) * 0x9e3779b97f4a7c15ull);
		assert_int_equal(inject.direct_refused, 1);
	}
	pwrite_inject__reset();
}

/* CI's file system takes O_DIRECT: there the direct path must be the one tested. */
static void test_direct_where_taken(void **state)
{
	struct file_output o;
	int fd;

	(void)state;
	if (!fs_takes_direct())
		test_skip(
			"the scratch file system does not take O_DIRECT: the direct path is untested");
	fd = open_scratch("taken");
	assert_int_equal(file_output__init(&o, fd, true), 0);
	assert_true(file_output__is_direct(&o));
	assert_true(fcntl(fd, F_GETFL) & O_DIRECT);
	file_output__fini(&o);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(file_output__init(&o, fd, false), 0);
	assert_false(file_output__is_direct(&o));
	file_output__fini(&o);
	close(fd);
}

/* Not a regular file (a character device): never direct, and still written. */
static void test_not_regular(void **state)
{
	unsigned char out[3 * FILE_OUTPUT_DIRECT_ALIGN + 5] = { 1 };
	struct file_output o;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(file_output__init(&o, fd, true), 0);
	assert_false(file_output__is_direct(&o));
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(file_output__append(&o, out, sizeof(out)), 0);
	assert_int_equal(file_output__flush(&o), 0);
	assert_int_equal(file_output__pos(&o), sizeof(out));
	file_output__fini(&o);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_direct),   cmocka_unit_test(test_model_buffered),
		cmocka_unit_test(test_direct_refused), cmocka_unit_test(test_direct_where_taken),
		cmocka_unit_test(test_not_regular),
	};
	int r;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	test_dir__remove(dir);
	return r;
}
