/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trigger_psi: one kernel PSI trigger ("some 150000 2000000" written to
 * /proc/pressure/<resource> or a cgroup's <resource>.pressure), watched on
 * the daemon's loop. The kernel signals POLLPRI when the stall in a window
 * reaches the threshold, at most once per window. libevent has no POLLPRI,
 * and an epoll set nested in the loop's does not work: the outer readiness
 * check polls the PSI fd, which consumes the event, so the inner
 * epoll_wait() finds nothing. A small thread poll()s the fd instead and
 * tells the loop through a pipe.
 */
#ifndef PERFSNAPD_TRIGGER_PSI_H
#define PERFSNAPD_TRIGGER_PSI_H

#include <stdbool.h>
#include <stdint.h>

struct event_base;
struct trigger_psi;

/* Called on the loop thread each time the kernel reports the threshold reached. */
typedef void (*trigger_psi_fn)(void *ctx);

/* Returns 0 or -errno (not logged: the caller names the trigger and line). */
int trigger_psi__new(struct event_base *base, const char *file, bool full, uint64_t stall_us,
		     uint64_t window_us, trigger_psi_fn fn, void *ctx, struct trigger_psi **ret);
void trigger_psi__delete(struct trigger_psi *p);

#endif
