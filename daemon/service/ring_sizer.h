/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_sizer: [capture] window and memory at run time. A timer of the
 * loop measures each CPU's byte rate, plans the rings' sizes
 * (ring_budget), resizes one ring at a time and says which CPUs the
 * budget leaves short of the window, in the log and the journal.
 */
#ifndef PERFSNAPD_RING_SIZER_H
#define PERFSNAPD_RING_SIZER_H

#include <stddef.h>
#include <stdint.h>

struct daemon;
struct ring_sizer;
struct capture_window_info;

/* Watches d->cap, whichever capture it holds. Returns 0 or -errno (logged). */
int ring_sizer__new(struct daemon *d, struct ring_sizer **ret);
void ring_sizer__delete(struct ring_sizer *w);

/*
 * "cpu1 3.8 s of 10 s (short): ring 4096 KiB, 1.1 MiB/s", and the ring
 * being replaced, into @buf, for status.
 */
void ring_sizer__format_cpu(const struct capture_window_info *info, uint64_t window_ms, char *buf,
			    size_t size);

#endif
