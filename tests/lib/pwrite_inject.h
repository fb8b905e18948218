/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pwrite_inject: I/O faults for writer tests, by wrapping pwrite() at link
 * time (-Wl,--wrap=pwrite -Wl,--wrap=pwrite64: only tests linked so may
 * compile pwrite_inject.c in).
 */
#ifndef PERFSNAPD_PWRITE_INJECT_H
#define PERFSNAPD_PWRITE_INJECT_H

#include <stddef.h>

/* Set per test; pwrite_inject__reset() clears it. */
struct pwrite_inject {
	size_t max_len; /* cut every write to this many bytes (0: no cut) */
	int eintr;	/* fail every other call with EINTR */
	int fail_errno; /* fail with this errno ... */
	int fail_after; /* ... once this many calls succeeded */
	/*
	 * Refuse writes to an fd with O_DIRECT set with EINVAL, as a device
	 * whose alignment is larger would, once direct_ok of them went
	 * through; counted in direct_refused.
	 */
	int refuse_direct, direct_ok;
	int direct_calls, direct_refused;
	int calls;
};
extern struct pwrite_inject inject;

void pwrite_inject__reset(void);

#endif
