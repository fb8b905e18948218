// SPDX-License-Identifier: GPL-2.0-only
/* child_spawn: see child_spawn.h. */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "child_spawn.h"

int child_spawn__start(const char *path, char *const argv[], int fd3, pid_t *ret)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	int r;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	if (fd3 >= 0)
		posix_spawn_file_actions_adddup2(&fa, fd3, 3);
	/* libperf opens the events without O_CLOEXEC: the rings are no child's. */
	posix_spawn_file_actions_addclosefrom_np(&fa, fd3 >= 0 ? 4 : 3);
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	r = -posix_spawn(ret, path, &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}
