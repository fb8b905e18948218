// SPDX-License-Identifier: GPL-2.0-only
/* pwrite_inject: the wrapped pwrite(). See pwrite_inject.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/types.h>

#include "pwrite_inject.h"
#include "wrap.h"

struct pwrite_inject inject;

ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	inject.calls++;
	if (inject.eintr && inject.calls % 2) {
		errno = EINTR;
		return -1;
	}
	if (inject.fail_errno && inject.calls > inject.fail_after) {
		errno = inject.fail_errno;
		return -1;
	}
	if (inject.refuse_direct && (fcntl(fd, F_GETFL) & O_DIRECT) &&
	    inject.direct_calls++ >= inject.direct_ok) {
		inject.direct_refused++;
		errno = EINVAL;
		return -1;
	}
	if (inject.max_len && len > inject.max_len)
		len = inject.max_len;
	return __real_pwrite(fd, buf, len, off);
}

ssize_t __wrap_pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return __wrap_pwrite(fd, buf, len, off);
}

void pwrite_inject__reset(void)
{
	memset(&inject, 0, sizeof(inject));
}
