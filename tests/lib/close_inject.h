/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * close_inject: close() failures for the tests of what publishes files,
 * by wrapping close() at link time as pwrite_inject does pwrite()
 * (-Wl,--wrap=close: only tests linked so may compile close_inject.c in).
 * Only closes of regular files open for writing count: those are where a
 * network file system's last flush can fail (EIO, ENOSPC, EDQUOT).
 * A failing close still releases the fd, as Linux's does.
 */
#ifndef PERFSNAPD_CLOSE_INJECT_H
#define PERFSNAPD_CLOSE_INJECT_H

/* Set per test; close_inject__reset() clears it. */
struct close_inject {
	int fail_errno; /* fail with this errno ... */
	int fail_at;	/* ... the close counted as this one (1: the first) */
	int calls;	/* closes counted (always): regular files open for writing */
};
extern struct close_inject close_inject;

void close_inject__reset(void);

#endif
