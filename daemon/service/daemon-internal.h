/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon-internal: what daemon.c and daemon_reload.c share: the steps of a
 * recording's life that a reload runs again. Only the service's files
 * include it.
 */
#ifndef PERFSNAPD_DAEMON_INTERNAL_H
#define PERFSNAPD_DAEMON_INTERNAL_H

#include "daemon.h"

struct capture;
struct config_diags;
struct dump;
struct perfsnapd_config;
struct sideband;
struct trigger_set;

/* A recording a reload replaced while it dumped: it closes once its dumper is gone. */
struct retired_recording {
	struct daemon *d;
	struct capture *cap;
	struct sideband *sb;
	struct dump *dump;
	struct retired_recording *next;
};

/* Finishes the current dumper's dump in flight, then closes its recording. */
void daemon__close_recording(struct daemon *d);
/*
 * Loop: the side-band watches its rings, sampling starts, and a dumper
 * takes the rings of d->cap and d->sb, just opened. On failure they close.
 */
int daemon__attach_recording(struct daemon *d);
/*
 * Hands the current recording to its dumper to finish what it has started,
 * and forgets it. Returns 0 or -ENOMEM.
 */
int daemon__retire_recording(struct daemon *d);
/* After a reload: start, stop or retarget the uploader. */
void daemon__reload_upload(struct daemon *d);
int daemon__new_triggers(struct daemon *d, const struct perfsnapd_config *cfg,
			 struct config_diags *diags, struct trigger_set **ret);
/* Puts @ts in place of the current set, with its counts and kept matches. */
void daemon__swap_triggers(struct daemon *d, struct trigger_set *ts);
/* Gives up a reload still opening its rings. */
void daemon__cancel_reload(struct daemon *d);

#endif
