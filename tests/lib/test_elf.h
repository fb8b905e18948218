/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_elf: what the tests of ELF readers build hostile files from: the
 * fields of an x86-64 executable's ELF header (the tables' places are the
 * test's), and the test's peak RSS, to show a reader did not take the
 * memory a file's headers claim.
 */
#ifndef PERFSNAPD_TEST_ELF_H
#define PERFSNAPD_TEST_ELF_H

#include <elf.h>
#include <sys/resource.h>

/* Inside an Elf64_Ehdr initializer. */
#define TEST_ELF64_EXEC                                                                         \
	.e_ident = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB, EV_CURRENT }, \
	.e_type = ET_EXEC, .e_machine = EM_X86_64, .e_version = EV_CURRENT,                     \
	.e_ehsize = sizeof(Elf64_Ehdr)

/* Peak RSS in KiB, -1 if unknown. */
static inline long test_elf__max_rss(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? -1 : ru.ru_maxrss;
}

#endif
