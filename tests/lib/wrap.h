/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wrap: the prototypes of the libc calls the unit tests wrap at link time
 * (-Wl,--wrap=NAME): __wrap_NAME, defined by a test, and __real_NAME, the
 * libc function it calls through to. Declared once here, so that the
 * definitions have a prototype (-Wmissing-prototypes) and every test
 * wraps with the same signature.
 */
#ifndef PERFSNAPD_WRAP_H
#define PERFSNAPD_WRAP_H

#include <stdio.h>
#include <sys/types.h>

#define WRAP_DECLARE(ret, name, ...)    \
	ret __real_##name(__VA_ARGS__); \
	ret __wrap_##name(__VA_ARGS__)

WRAP_DECLARE(ssize_t, pwrite, int fd, const void *buf, size_t n, off_t off);
WRAP_DECLARE(ssize_t, pwrite64, int fd, const void *buf, size_t n, off_t off);
WRAP_DECLARE(ssize_t, write, int fd, const void *buf, size_t n);
WRAP_DECLARE(int, close, int fd);
WRAP_DECLARE(int, fsync, int fd);
WRAP_DECLARE(int, fclose, FILE *f);
WRAP_DECLARE(int, open, const char *path, int flags, ...);
WRAP_DECLARE(int, open64, const char *path, int flags, ...);
WRAP_DECLARE(int, openat, int dirfd, const char *path, int flags, ...);
WRAP_DECLARE(int, openat64, int dirfd, const char *path, int flags, ...);
WRAP_DECLARE(int, renameat2, int olddirfd, const char *from, int newdirfd, const char *to,
	     unsigned int flags);
WRAP_DECLARE(int, linkat, int olddirfd, const char *from, int newdirfd, const char *to, int flags);

#endif
