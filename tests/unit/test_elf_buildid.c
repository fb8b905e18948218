// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for elf_buildid: the test binary's own id against the note as
 * binutils reads it, and the errors for a file that is not ELF or has no id.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_buildid.h"
#include "test_elf.h"
#include "test_skip.h"

/* What `readelf -n` says /proc/self/exe's build-id is (hex, or ""). */
static void readelf_build_id(char *buf, size_t size)
{
	char exe[4096], cmd[4200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	assert_true(n > 0);
	exe[n] = '\0';
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' | sed -n 's/.*Build ID: *//p'", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	if (!fgets(buf, (int)size, f))
		buf[0] = '\0';
	pclose(f);
	buf[strcspn(buf, "\n")] = '\0';
}

static void reads_own_build_id(void **state)
{
	char want[128], got[2 * ELF_BUILDID_MAX + 1];
	struct elf_buildid id;

	(void)state;
	readelf_build_id(want, sizeof(want));
	if (!want[0])
		test_skip("the test binary is linked without --build-id");
	assert_int_equal(elf_buildid__read_path("/proc/self/exe", &id), 0);
	elf_buildid__hex(&id, got);
	assert_string_equal(got, want);
}

static void not_elf(void **state)
{
	char path[] = "/tmp/elf_buildid-XXXXXX";
	struct elf_buildid id;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	assert_int_equal(elf_buildid__read_fd(fd, &id), -ENOEXEC);
	assert_int_equal(id.size, 0);
	close(fd);
	unlink(path);
	assert_int_equal(elf_buildid__read_path(path, &id), -ENOENT);
}

static void no_note(void **state)
{
	char path[] = "/tmp/elf_buildid-XXXXXX", cmd[128];
	struct elf_buildid id;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* An object with no program headers and no note section. */
	snprintf(cmd, sizeof(cmd), "echo 'int x;' | cc -x c -c -o %s - 2>/dev/null", path);
	if (system(cmd) != 0) {
		unlink(path);
		test_skip("cc cannot build an object file");
	}
	assert_int_equal(elf_buildid__read_path(path, &id), -ENOENT);
	unlink(path);
}

/*
 * A sparse 1 GiB "ELF" whose three PT_NOTE and one SHT_NOTE claim 1 GiB
 * each (issue 53: perfsnapd's RSS went to 3.1 GB): no build-id, read in
 * a few MiB, without reading the gigabyte.
 */
static void huge_notes(void **state)
{
	char path[] = "/tmp/elf_buildid-XXXXXX";
	const uint64_t claim = 1ull << 30;
	Elf64_Ehdr eh = {
		TEST_ELF64_EXEC,
		.e_phoff = sizeof(Elf64_Ehdr),
		.e_shoff = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr),
		.e_phentsize = sizeof(Elf64_Phdr),
		.e_phnum = 3,
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 2,
	};
	Elf64_Phdr ph = { .p_type = PT_NOTE, .p_offset = 4096, .p_filesz = claim, .p_align = 4 };
	Elf64_Shdr sh[2] = {
		{ 0 },
		{ .sh_type = SHT_NOTE, .sh_offset = 4096, .sh_size = claim, .sh_addralign = 4 }
	};
	struct elf_buildid id;
	long before = test_elf__max_rss();
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, &eh, sizeof(eh)), sizeof(eh));
	for (int i = 0; i < 3; i++)
		assert_int_equal(write(fd, &ph, sizeof(ph)), sizeof(ph));
	assert_int_equal(write(fd, sh, sizeof(sh)), sizeof(sh));
	assert_int_equal(ftruncate(fd, (off_t)(4096 + claim)), 0);
	assert_int_equal(elf_buildid__read_fd(fd, &id), -ENOENT);
	assert_true(test_elf__max_rss() - before < 16 * 1024);
	close(fd);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_own_build_id),
		cmocka_unit_test(not_elf),
		cmocka_unit_test(no_note),
		cmocka_unit_test(huge_notes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
