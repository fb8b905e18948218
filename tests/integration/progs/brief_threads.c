// SPDX-License-Identifier: GPL-2.0-only
/*
 * brief_threads: starts COUNT threads one after the other, each named NAME,
 * each spinning for SPIN_US microseconds without a system call and then
 * exiting. A thread that is not preempted switches out only once, as it
 * dies: after the kernel has released it, so that sched_switch's sample
 * carries pid/tid -1 and only the tracepoint's common_pid says whose it is.
 * Prints "tid T" for each thread, then sends SIGUSR2 to DUMP_PID and exits.
 *
 * usage: brief_threads NAME COUNT SPIN_US DUMP_PID
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

static const char *name;
static long spin_us;

static long long now_ns(void)
{
	struct timespec t;

	/* The vDSO's: no system call, so no event and no reason to switch. */
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *brief(void *arg)
{
	long long end;

	prctl(PR_SET_NAME, name, 0, 0, 0);
	*(pid_t *)arg = gettid();
	end = now_ns() + spin_us * 1000LL;
	while (now_ns() < end)
		;
	return NULL;
}

int main(int argc, char **argv)
{
	long count;

	if (argc != 5) {
		fprintf(stderr, "usage: brief_threads NAME COUNT SPIN_US DUMP_PID\n");
		return 2;
	}
	name = argv[1];
	count = strtol(argv[2], NULL, 10);
	spin_us = strtol(argv[3], NULL, 10);
	for (long i = 0; i < count; i++) {
		pthread_t t;
		pid_t tid = 0;

		if (pthread_create(&t, NULL, brief, &tid) != 0 || pthread_join(t, NULL) != 0) {
			perror("brief_threads: thread");
			return 1;
		}
		printf("tid %d\n", (int)tid);
	}
	fflush(stdout);
	if (kill((pid_t)strtol(argv[4], NULL, 10), SIGUSR2) < 0) {
		perror("brief_threads: kill");
		return 1;
	}
	return 0;
}
