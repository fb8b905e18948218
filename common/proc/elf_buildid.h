/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elf_buildid: the GNU build-id note of an ELF object, the key perf, its
 * build-id cache, Perfetto and pprof use to find the exact file a sample hit.
 */
#ifndef PERFSNAPD_ELF_BUILDID_H
#define PERFSNAPD_ELF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* perf's limit (BUILD_ID_SIZE): a SHA-1; shorter ids (MD5, 16) fit too. */
#define ELF_BUILDID_MAX 20

struct elf_buildid {
	uint8_t size; /* 0: none */
	uint8_t data[ELF_BUILDID_MAX];
};

/*
 * Reads the NT_GNU_BUILD_ID note of the ELF object open at @fd (the offset
 * is not used). Returns 0, -ENOENT when the object has no such note (or one
 * longer than ELF_BUILDID_MAX), -ENOEXEC when @fd is not ELF, or -errno.
 */
int elf_buildid__read_fd(int fd, struct elf_buildid *ret);

/* The same for the file at @path. */
int elf_buildid__read_path(const char *path, struct elf_buildid *ret);

/*
 * The same from a file of bare notes, as /sys/kernel/notes (the running
 * kernel's) and /sys/module/NAME/notes/.note.gnu.build-id (a module's).
 */
int elf_buildid__read_notes_path(const char *path, struct elf_buildid *ret);

/* Lower-case hex into @buf (at least 2 * ELF_BUILDID_MAX + 1 bytes). */
void elf_buildid__hex(const struct elf_buildid *id, char *buf);

#endif
