/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustar_reader: finds members of a tar archive in a file without
 * extracting it: POSIX ustar headers, pax extended headers ('x': path,
 * linkpath, size) and GNU long names ('L', 'K'), as ustar.c, GNU tar and
 * bsdtar write them. Regular files are found by name through the
 * archive's symbolic links (a perf build-id cache's .build-id links point
 * at directories). The archive may come from anywhere: headers are
 * checked, members and names are bounded, and nothing is read but
 * headers.
 */
#ifndef PERFSNAPD_USTAR_READER_H
#define PERFSNAPD_USTAR_READER_H

#include <stdint.h>

struct ustar_reader;

/* At most this many members are indexed; an archive with more is refused. */
#define USTAR_READER_MAX_MEMBERS 65536

/*
 * Indexes the archive in @fd (not owned; read with pread(), so its offset
 * is not used). Returns 0, -EINVAL (not a tar archive, or a damaged
 * header), -E2BIG (too many members), -ENOMEM or -errno of a read.
 */
int ustar_reader__open(int fd, struct ustar_reader **ret);
void ustar_reader__delete(struct ustar_reader *t);

/*
 * The regular member @name ("a/b", no leading "/" or "./"), following the
 * archive's symbolic links in any component (relative ones, at most 16):
 * where its data starts in the file, and its size. Returns 0, -ENOENT,
 * -ELOOP or -EINVAL (a link out of the archive, a name past 4096 bytes).
 */
int ustar_reader__find(const struct ustar_reader *t, const char *name, uint64_t *ret_offset,
		       uint64_t *ret_size);

/* Members indexed. */
uint64_t ustar_reader__nr_members(const struct ustar_reader *t);

#endif
