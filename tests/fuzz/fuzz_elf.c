// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of users' ELF files (issue 53): each
 * input is a file a local user could map, read for its build-id note
 * (elf_buildid__read_fd()) and copied as the symbol pack copies it
 * (elf_symtab__copy(), within 1 MiB); a copy that has a build-id must
 * have the input's. Neither may crash, leak or read past the file. Built with clang under PERFSNAPD_FUZZ; replay_main.c drives it
 * over tests/fuzz/elf_corpus in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "elf_buildid.h"
#include "elf_symtab.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd_of(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-elf", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_buildid id, again;
	uint64_t out_size = 0;
	int in = memfd_of(data, size), out = memfd_of(NULL, 0);
	int have_id = elf_buildid__read_fd(in, &id) == 0;

	if (elf_symtab__copy(in, out, 1 << 20, &out_size) == 0) {
		if (out_size > (1 << 20) + (uint64_t)size)
			abort();
		/*
		 * A note whose section header was damaged is not copied (only
		 * sections are): the copy may lack the id, never claim another.
		 */
		if (elf_buildid__read_fd(out, &again) == 0 &&
		    (!have_id || again.size != id.size || memcmp(again.data, id.data, id.size)))
			abort();
	}
	close(in);
	close(out);
	return 0;
}
