// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for elf_symtab: the test binary's copy keeps its symbols
 * (readelf lists as many functions as in the original) within the cap;
 * a cap below its sections' size is -EFBIG before anything is read, as
 * is a sparse "ELF" whose symbol table claims 1 GiB (issue 53), without
 * the memory.
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
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "elf_symtab.h"
#include "test_elf.h"

/* Functions `readelf -sW` lists in @path. */
static long functions(const char *path)
{
	char cmd[4200];
	long n = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -sW '%s' 2>/dev/null | grep -c ' FUNC '", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &n), 1);
	pclose(f);
	return n;
}

static void copies_own_symbols(void **state)
{
	char out[64], exe[64];
	uint64_t size = 0;
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), fd;

	(void)state;
	assert_true(in >= 0);
	fd = memfd_create("symtab", MFD_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(elf_symtab__copy(in, fd, 16, &size), -EFBIG);
	assert_int_equal(elf_symtab__copy(in, fd, 1ull << 30, &size), 0);
	assert_true(size > 0);
	snprintf(out, sizeof(out), "/proc/%d/fd/%d", (int)getpid(), fd);
	assert_true(functions(out) > 10);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)getpid());
	assert_int_equal(functions(out), functions(exe));
	close(fd);
	close(in);
}

static void huge_symtab(void **state)
{
	const uint64_t claim = 1ull << 30;
	Elf64_Ehdr eh = {
		TEST_ELF64_EXEC,
		.e_shoff = sizeof(Elf64_Ehdr),
		.e_shentsize = sizeof(Elf64_Shdr),
		.e_shnum = 3,
		.e_shstrndx = 2,
	};
	Elf64_Shdr sh[3] = {
		{ 0 },
		{ .sh_type = SHT_SYMTAB,
		  .sh_offset = 4096,
		  .sh_size = claim,
		  .sh_link = 2,
		  .sh_entsize = sizeof(Elf64_Sym),
		  .sh_addralign = 8 },
		{ .sh_type = SHT_STRTAB, .sh_offset = 4096, .sh_size = claim, .sh_addralign = 1 },
	};
	long before = test_elf__max_rss();
	uint64_t size = 0;
	int in = memfd_create("huge", MFD_CLOEXEC), out = memfd_create("copy", MFD_CLOEXEC);

	(void)state;
	assert_true(in >= 0 && out >= 0);
	assert_int_equal(write(in, &eh, sizeof(eh)), sizeof(eh));
	assert_int_equal(write(in, sh, sizeof(sh)), sizeof(sh));
	assert_int_equal(ftruncate(in, (off_t)(4096 + claim)), 0);
	assert_int_equal(elf_symtab__copy(in, out, 64ull << 20, &size), -EFBIG);
	assert_true(test_elf__max_rss() - before < 16 * 1024);
	close(in);
	close(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(copies_own_symbols),
		cmocka_unit_test(huge_symtab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
