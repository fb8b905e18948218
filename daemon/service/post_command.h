/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * post_command: runs [snapshot] post_command after each snapshot with the
 * snapshot's file paths as arguments (to upload them, say), without
 * blocking the loop: the child is watched through a pidfd, killed after
 * its timeout, and its exit status logged.
 */
#ifndef PERFSNAPD_POST_COMMAND_H
#define PERFSNAPD_POST_COMMAND_H

#include <stdint.h>

struct event_base;

/*
 * Starts @command with @paths as arguments. Returns 0 (the outcome is
 * logged later) or -errno (logged).
 */
int post_command__run(struct event_base *base, const char *command, const char *const *paths,
		      int nr_paths, uint64_t timeout_ns);

/* Kills and reaps children still running (at exit). */
void post_command__reap_all(void);

#endif
