// SPDX-License-Identifier: GPL-2.0-only
/*
 * thread_marker: a second thread, not the process's leader, named NAME,
 * makes COUNT marked system calls (syscall MARK_NR, no such syscall, with
 * the sequence number as first argument), so a test can tell pid from tid.
 * Prints "pid P tid T", sends SIGUSR2 to DUMP_PID and exits.
 *
 * usage: thread_marker NAME COUNT DUMP_PID
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#define MARK_NR 4660

static const char *name;
static long count;

static void *marks(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, name, 0, 0, 0);
	for (long i = 0; i < count; i++)
		syscall(MARK_NR, i);
	printf("pid %d tid %d\n", (int)getpid(), (int)syscall(SYS_gettid));
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 4) {
		fprintf(stderr, "usage: thread_marker NAME COUNT DUMP_PID\n");
		return 2;
	}
	name = argv[1];
	count = strtol(argv[2], NULL, 10);
	if (pthread_create(&t, NULL, marks, NULL) || pthread_join(t, NULL))
		return 1;
	fflush(stdout);
	return kill((pid_t)strtol(argv[3], NULL, 10), SIGUSR2) ? 1 : 0;
}
