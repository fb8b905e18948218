/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ring_window: [capture] window and memory at run time. A timer of the
 * loop measures each CPU's byte rate, plans the rings' sizes
 * (ring_budget), resizes one ring at a time and says which CPUs the
 * budget leaves short of the window, in the log and the journal.
 */
#ifndef PERFSNAPD_RING_WINDOW_H
#define PERFSNAPD_RING_WINDOW_H

#include <stddef.h>
#include <stdint.h>

struct daemon;
struct ring_window;
struct capture_window_info;

/* Watches d->cap, whichever capture it holds. Returns 0 or -errno (logged). */
int ring_window__new(struct daemon *d, struct ring_window **ret);
void ring_window__delete(struct ring_window *w);

/*
 * "cpu1 3.8 s of 10 s (short): ring 4096 KiB, 1.1 MiB/s", and the ring
 * being replaced, into @buf, for status.
 */
void ring_window__format_cpu(const struct capture_window_info *info, uint64_t window_ms, char *buf,
			     size_t size);

#endif
