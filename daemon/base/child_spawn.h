/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * child_spawn: a program started the way perfsnapd starts its children
 * (post_command, the upload helper): posix_spawn with stdin /dev/null,
 * stdout and stderr perfsnapd's, no other descriptor of perfsnapd's but
 * the one it hands over, an empty signal mask and SIGPIPE at its default
 * (perfsnapd blocks its signals and ignores SIGPIPE; a child must not).
 */
#ifndef PERFSNAPD_CHILD_SPAWN_H
#define PERFSNAPD_CHILD_SPAWN_H

#include <sys/types.h>

/*
 * Starts @path with @argv; @fd3, unless -1, becomes the child's fd 3.
 * Returns 0 with the pid in @ret, or -errno.
 */
int child_spawn__start(const char *path, char *const argv[], int fd3, pid_t *ret);

#endif
