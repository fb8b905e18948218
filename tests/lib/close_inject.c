// SPDX-License-Identifier: GPL-2.0-only
/* close_inject: the wrapped close(). See close_inject.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>

#include "close_inject.h"
#include "wrap.h"

struct close_inject close_inject;

static bool written_file(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	struct stat st;

	return flags >= 0 && (flags & O_ACCMODE) != O_RDONLY && fstat(fd, &st) == 0 &&
	       S_ISREG(st.st_mode);
}

int __wrap_close(int fd)
{
	/* Counted always; atomically, as threads may close files at once. */
	if (written_file(fd) &&
	    __atomic_add_fetch(&close_inject.calls, 1, __ATOMIC_SEQ_CST) == close_inject.fail_at &&
	    close_inject.fail_errno) {
		(void)__real_close(fd);
		errno = close_inject.fail_errno;
		return -1;
	}
	return __real_close(fd);
}

void close_inject__reset(void)
{
	memset(&close_inject, 0, sizeof(close_inject));
}
