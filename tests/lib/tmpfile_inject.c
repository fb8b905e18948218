// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>

#include "tmpfile_inject.h"
#include "wrap.h"

bool tmpfile_inject_refuse;

/* The mode argument is there only with O_CREAT or O_TMPFILE. */
static mode_t mode_of(int flags, va_list ap)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? va_arg(ap, mode_t) : 0;
}

static bool refused(int flags)
{
	if (!tmpfile_inject_refuse || (flags & O_TMPFILE) != O_TMPFILE)
		return false;
	errno = EOPNOTSUPP;
	return true;
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refused(flags) ? -1 : __real_open(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refused(flags) ? -1 : __real_open64(path, flags, mode);
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refused(flags) ? -1 : __real_openat(dirfd, path, flags, mode);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = mode_of(flags, ap);
	va_end(ap);
	return refused(flags) ? -1 : __real_openat64(dirfd, path, flags, mode);
}
