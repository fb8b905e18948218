// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ustar: an archive of a directory, files from memory and
 * from a descriptor (one that shrank), a symbolic link and a name longer
 * than the name field is read back by GNU tar (`tar -tvf` lists every
 * member as written, `tar -xf` gives the same bytes), with a pax header
 * for a name or link target too long for ustar's fields; a name longer
 * than PATH_MAX is refused and leaves the archive usable.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_dir.h"
#include "ustar.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_ustar.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return test_dir__remove(dir);
}

/* The output of @cmd (run by the shell), malloc'ed. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = calloc(1, 65536);
	size_t n;

	assert_non_null(p);
	assert_non_null(out);
	n = fread(out, 1, 65535, p);
	out[n] = '\0';
	assert_int_equal(pclose(p), 0);
	return out;
}

/* A file of @len bytes, each its offset mod 251, at @path; its fd. */
static int pattern_file(const char *path, size_t len)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	char *buf = malloc(len);

	assert_true(fd >= 0);
	assert_non_null(buf);
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i % 251);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	free(buf);
	return fd;
}

#define LONG_DIR                                                                                     \
	"usr/lib/x86_64-linux-gnu/a-directory-name-long-enough-that-the-path/takes-the-prefix-field" \
	"/libexample.so.1.2.3"

static void test_read_back(void **state)
{
	char path[128], src[128], cmd[2048], *out;
	struct ustar *t;
	struct stat st;
	int fd, in;

	(void)state;
	snprintf(path, sizeof(path), "%s/a.tar", dir);
	snprintf(src, sizeof(src), "%s/src", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	in = pattern_file(src, 1000000);
	assert_int_equal(ustar__new(fd, 0, &t), 0);

	assert_int_equal(ustar__add_dir(t, LONG_DIR "/0123abcd", 0755), 0);
	assert_true(strlen(LONG_DIR "/0123abcd/elf") > 100);
	assert_int_equal(ustar__add_fd(t, LONG_DIR "/0123abcd/elf", in, 1000000, 0644), 0);
	assert_int_equal(ustar__add_data(t, "k/kallsyms", "ffffffff81000000 T _text\n", 25, 0644),
			 0);
	assert_int_equal(ustar__add_data(t, "empty", "", 0, 0600), 0);
	/* Longer than the linkname field: in a pax header. */
	assert_int_equal(
		ustar__add_symlink(t, ".build-id/01/23abce", "../../" LONG_DIR "/0123abcd"), 0);
	assert_int_equal(ustar__add_symlink(t, ".build-id/01/23abcd", "../../k"), 0);
	/* A file that is shorter than said: padded, so the archive stays whole. */
	assert_int_equal(ustar__add_fd(t, "short", in, 1000100, 0644), -EIO);
	/* No '/' leaves a name of 101 bytes nowhere but a pax header. */
	memset(cmd, 'x', 101);
	cmd[101] = '\0';
	assert_int_equal(ustar__add_data(t, cmd, "", 0, 0644), 0);
	{
		char huge[5000];

		memset(huge, 'y', sizeof(huge) - 1);
		huge[sizeof(huge) - 1] = '\0';
		assert_int_equal(ustar__add_data(t, huge, "", 0, 0644), -ENAMETOOLONG);
	}
	assert_int_equal(ustar__add_data(t, "", "", 0, 0644), -EINVAL);
	assert_int_equal(ustar__finish(t), 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, ustar__bytes(t));
	assert_int_equal(st.st_size % 512, 0);
	assert_int_equal(ustar__member_bytes(1000000), 512 + 1000448);
	ustar__delete(t);
	close(fd);
	close(in);

	snprintf(cmd, sizeof(cmd), "tar -tvf %s 2>&1", path);
	out = run(cmd);
	assert_non_null(strstr(out, "drwxr-xr-x root/root         0 "));
	assert_non_null(strstr(out, " " LONG_DIR "/0123abcd/\n"));
	assert_non_null(strstr(out, "-rw-r--r-- root/root   1000000 "));
	assert_non_null(strstr(out, " " LONG_DIR "/0123abcd/elf\n"));
	assert_non_null(strstr(out, "-rw-r--r-- root/root        25 "));
	assert_non_null(strstr(out, " k/kallsyms\n"));
	assert_non_null(strstr(out, "-rw------- root/root         0 "));
	assert_non_null(strstr(out, "lrwxrwxrwx root/root         0 "));
	assert_non_null(strstr(out, " .build-id/01/23abcd -> ../../k\n"));
	assert_non_null(strstr(out, "-rw-r--r-- root/root   1000100 "));
	assert_non_null(strstr(out, " .build-id/01/23abce -> ../../" LONG_DIR "/0123abcd\n"));
	memset(cmd, 'x', 101);
	cmd[101] = '\0';
	assert_non_null(strstr(out, cmd));
	assert_null(strstr(out, "PaxHeader"));
	assert_null(strstr(out, "yyyy"));
	free(out);

	snprintf(
		cmd, sizeof(cmd),
		"mkdir %s/x && tar -xf %s -C %s/x && cmp %s %s/x/" LONG_DIR "/0123abcd/elf && "
		"cat %s/x/.build-id/01/23abcd/kallsyms && cmp %s %s/x/.build-id/01/23abce/elf && cmp -n 1000000 %s %s/x/short && "
		"test $(stat -c %%s %s/x/short) = 1000100 && echo ok",
		dir, path, dir, src, dir, dir, src, dir, src, dir, dir);
	out = run(cmd);
	assert_string_equal(out, "ffffffff81000000 T _text\nok\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_back, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
