/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * recording_open: opens a recording's rings and seeds its side-band from
 * /proc, the two slow steps of opening one. At start-up this runs on the
 * caller's thread; for a reload it runs on a thread of its own, so that
 * the loop goes on answering while the kernel allocates the rings, and
 * the loop is told when it is done.
 */
#ifndef PERFSNAPD_RECORDING_OPEN_H
#define PERFSNAPD_RECORDING_OPEN_H

#include <stdbool.h>

struct capture;
struct event_base;
struct perfsnapd_config;
struct recording_open;
struct sideband;

/*
 * Opens @cfg's events (not yet sampling: capture__start()) and, with the
 * side-band on, seeds its table (*sb NULL otherwise). @may_cut: see
 * capture__open(). Returns 0 or -errno (logged); on error nothing stays
 * open.
 */
int recording_open__now(const struct perfsnapd_config *cfg, bool may_cut, struct capture **cap,
			struct sideband **sb);

/* Called on the loop once the thread is done: 0 or its -errno. */
typedef void (*recording_open_fn)(void *ctx, int err);

/*
 * Runs recording_open__now() on a thread, without cutting the rings (the
 * old ones still hold their locked memory), and calls @fn on @base's loop
 * when it returns. Returns 0 or -errno (logged; @fn is not called).
 */
int recording_open__start(const struct perfsnapd_config *cfg, struct event_base *base,
			  recording_open_fn fn, void *ctx, struct recording_open **ret);
/* In @fn, on success: hands over what was opened; the caller closes it. */
void recording_open__take(struct recording_open *o, struct capture **cap, struct sideband **sb);
/*
 * Waits for the thread if it still runs, closes what was not taken, and
 * frees; @fn is not called after. @o may be NULL.
 */
void recording_open__delete(struct recording_open *o);

#endif
