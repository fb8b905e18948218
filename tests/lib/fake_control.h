/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * fake_control: the daemon's side of the control socket for the control
 * and perfsnapctl tests: status, list and reload answer at once with the lines a
 * test sets; dump keeps each client (and its reason) for the test to
 * answer, or refuses at once. Counts every call.
 */
#ifndef PERFSNAPD_FAKE_CONTROL_H
#define PERFSNAPD_FAKE_CONTROL_H

#include <stddef.h>

#include "control.h"

#define FAKE_CONTROL_MAX_PENDING 80 /* more than CONTROL_MAX_CLIENTS */

struct fake_control {
	/* Replies. */
	const char *const *status_lines; /* NULL-terminated */
	const char *list_format;	 /* a line each, "%1$zu" its number from 1 */
	size_t list_lines;
	const char *const *reload_lines; /* NULL-terminated, then reload fails with: */
	const char *reload_error;
	int sync_dump_error; /* nonzero: dump refuses at once with it */
	/* Called when a dump is kept (may be NULL), with ctx. */
	void (*on_dump)(struct fake_control *fc);
	void *ctx;

	/* What happened. */
	int status_calls, list_calls, reload_calls;
	struct control_client *pending[FAKE_CONTROL_MAX_PENDING];
	char reasons[FAKE_CONTROL_MAX_PENDING][CONTROL_MAX_LINE];
	int nr_pending;
};

/* Its ops; the control's ctx is the struct fake_control. */
extern const struct control_ops fake_control_ops;

/* Answers every dump still kept with -ECANCELED (at teardown). */
void fake_control__cancel(struct fake_control *fc);

#endif
