// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the ustar reader, which opens symbol packs that
 * come from anywhere (perfsnap-convert --symbols): each input is an
 * archive, indexed (ustar_reader__open()) and asked for members by the
 * names a pack has and by names that walk its links; a member found must
 * lie within the file. Built with clang under PERFSNAPD_FUZZ;
 * replay_main.c drives it over tests/fuzz/ustar_corpus in every build.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mman.h>

#include "ustar_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
	"a",
	"dir/file",
	"link/file",
	"loop/x",
	".build-id/ab/cdef0123456789abcdef0123456789abcdef01/elf",
	".build-id/ab/cdef0123456789abcdef0123456789abcdef01",
	"[kernel.kallsyms]/ab/kallsyms",
	"usr/lib/libc.so.6/0123456789abcdef0123456789abcdef01234567/elf",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-ustar", MFD_CLOEXEC);
	struct ustar_reader *t;
	uint64_t off, len;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	if (ustar_reader__open(fd, &t) == 0) {
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (ustar_reader__find(t, names[i], &off, &len) == 0 &&
			    (off > size || len > size - off))
				abort();
		ustar_reader__delete(t);
	}
	close(fd);
	return 0;
}
