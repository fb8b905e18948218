/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_read: bytes of a file at an offset, all or an error: short reads
 * and EINTR retried, the descriptor's own offset untouched (pread), as
 * file_output__write_at() writes them.
 */
#ifndef PERFSNAPD_FILE_READ_H
#define PERFSNAPD_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

/* @len bytes of @fd from @offset into @buf. Returns 0, -ENODATA where the file ends first, or -errno. */
int file_read__at(int fd, uint64_t offset, void *buf, size_t len);

#endif
