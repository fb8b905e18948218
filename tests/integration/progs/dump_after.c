// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump_after: runs PROG, reaps it, and sends SIGUSR2 to DUMP_PID at once.
 *
 * Tests that check a task's events "even once it has exited" must dump
 * after the exit, but a shell that signals after it (a few forks later)
 * gives a loaded machine tens of milliseconds to wrap the rings over the
 * very events the test looks for. Here the signal follows the reaping by
 * microseconds, and the task is gone from /proc when it is sent.
 *
 * usage: dump_after DUMP_PID PROG [ARGS...]
 * Exits with PROG's status (128 + signal if it was killed); PROG's stdout
 * and stderr are this program's.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t dump_pid, child;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: dump_after DUMP_PID PROG [ARGS...]\n");
		return 2;
	}
	dump_pid = (pid_t)strtol(argv[1], NULL, 10);
	if (dump_pid <= 0 || kill(dump_pid, 0) < 0) {
		fprintf(stderr, "dump_after: no process %s to signal\n", argv[1]);
		return 2;
	}
	fflush(stdout);
	child = fork();
	if (child < 0) {
		perror("dump_after: fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "dump_after: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			perror("dump_after: waitpid");
			return 2;
		}
	if (kill(dump_pid, SIGUSR2) < 0) {
		perror("dump_after: kill");
		return 2;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
