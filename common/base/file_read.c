// SPDX-License-Identifier: GPL-2.0-only
/* file_read: see file_read.h. */
#include <errno.h>
#include <unistd.h>

#include "file_read.h"

int file_read__at(int fd, uint64_t offset, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}
