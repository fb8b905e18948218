/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tmpfile_inject: a file system without O_TMPFILE, for the tests of what
 * publishes files, by wrapping open(), open64(), openat() and openat64()
 * at link time (-Wl,--wrap= each: only tests linked so may compile
 * tmpfile_inject.c in). While refuse is set, an open with O_TMPFILE fails
 * with EOPNOTSUPP, as on a file system that lacks it; every other open
 * goes through.
 */
#ifndef PERFSNAPD_TMPFILE_INJECT_H
#define PERFSNAPD_TMPFILE_INJECT_H

#include <stdbool.h>

extern bool tmpfile_inject_refuse;

#endif
