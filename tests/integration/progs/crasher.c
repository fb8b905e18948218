// SPDX-License-Identifier: GPL-2.0-only
/*
 * crasher: dies of a signal, after leaving traces that a snapshot must show:
 * COUNT marked system calls (number MARK_NR, as marker.c, with the sequence
 * number as first argument) under the comm NAME, then the signal.
 *
 * usage: crasher NAME COUNT segv|abort|usr1|oom [CHILDREN [SPREAD_MS]]
 * (oom: allocates until the OOM killer kills it; run it in a memory cgroup)
 * With CHILDREN, forks that many crashers one after the other, SPREAD_MS
 * apart in all (default 0), waits for them all and prints how many died of
 * the signal; else it is the one that dies.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MARK_NR 4660

static void crash(const char *name, long count, const char *how)
{
	/* No core file: a crash storm must not wait on core_pattern. */
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (long i = 0; i < count; i++)
		syscall(MARK_NR, i, 0, 0);
	if (!strcmp(how, "oom")) {
		/* Touch memory until the OOM killer takes this task (SIGKILL). */
		for (;;) {
			char *p = malloc(1 << 20);

			if (p)
				memset(p, 1, 1 << 20);
		}
	}
	if (!strcmp(how, "usr1")) {
		signal(SIGUSR1, SIG_DFL);
		raise(SIGUSR1);
	} else if (!strcmp(how, "abort")) {
		abort();
	} else {
		volatile int *null = NULL;

		signal(SIGSEGV, SIG_DFL);
		*null = 1;
	}
	_exit(3);
}

int main(int argc, char **argv)
{
	long count, children = 0, spread_ms = 0, died = 0;

	if (argc < 4) {
		fprintf(stderr,
			"usage: crasher NAME COUNT segv|abort|usr1|oom [CHILDREN [SPREAD_MS]]\n");
		return 2;
	}
	count = strtol(argv[2], NULL, 10);
	if (argc > 4)
		children = strtol(argv[4], NULL, 10);
	if (argc > 5)
		spread_ms = strtol(argv[5], NULL, 10);
	if (!children)
		crash(argv[1], count, argv[3]);
	for (long i = 0; i < children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			crash(argv[1], count, argv[3]);
		if (spread_ms) {
			struct timespec ts = { .tv_sec = 0,
					       .tv_nsec = spread_ms * 1000000L / children };

			nanosleep(&ts, NULL);
		}
	}
	for (int status; wait(&status) > 0;)
		died += WIFSIGNALED(status);
	printf("%ld died of a signal\n", died);
	return 0;
}
