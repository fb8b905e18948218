/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recording_clock: "now" in the events' clock ([capture] clock), so that a
 * time the daemon states in a snapshot's sidecar compares with its
 * records' times. perf's own clock has no clock_gettime(): a marker event
 * on the calling thread stamps one record (see recording_clock.c).
 */
#ifndef PERFSNAPD_RECORDING_CLOCK_H
#define PERFSNAPD_RECORDING_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct recording_clock;

/* @use_clockid, @clockid: the events' attr. Returns 0 or -errno. */
int recording_clock__new(bool use_clockid, int clockid, struct recording_clock **ret);
void recording_clock__delete(struct recording_clock *rc);
/* Now, in ns; on the thread that made @rc. Returns 0 or -errno. */
int recording_clock__now(struct recording_clock *rc, uint64_t *ret_ns);
/* The clock minus CLOCK_MONOTONIC, in ns; on that thread. Returns 0 or -errno. */
int recording_clock__offset(struct recording_clock *rc, int64_t *ret_ns);

#endif
