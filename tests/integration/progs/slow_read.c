// SPDX-License-Identifier: GPL-2.0-only
/*
 * slow_read: makes N read(2)s that take about DELAY_MS each (a pipe another
 * thread writes DELAY_MS later) and FAST reads that return at once (a byte
 * already in a pipe) before each. Prints "reader TID" and starts when the
 * file GO exists; prints "done" at the end.
 *
 * usage: slow_read N DELAY_MS FAST GO
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int slow[2], go_writer[2];
static long delay_ms;

static void *writer(void *arg)
{
	struct timespec ts;
	char c;

	(void)arg;
	ts.tv_sec = delay_ms / 1000;
	ts.tv_nsec = delay_ms % 1000 * 1000000;
	while (read(go_writer[0], &c, 1) == 1) {
		nanosleep(&ts, NULL);
		if (write(slow[1], &c, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct timespec wait = { 0, 10000000 };
	int fast_pipe[2];
	pthread_t w;
	int n, fast;

	if (argc != 5) {
		fprintf(stderr, "usage: slow_read N DELAY_MS FAST GO\n");
		return 2;
	}
	n = atoi(argv[1]);
	delay_ms = atol(argv[2]);
	fast = atoi(argv[3]);
	if (pipe(slow) || pipe(go_writer) || pipe(fast_pipe))
		return 1;
	pthread_create(&w, NULL, writer, NULL);
	printf("reader %ld\n", (long)syscall(SYS_gettid));
	fflush(stdout);
	while (access(argv[4], F_OK))
		nanosleep(&wait, NULL);
	for (int i = 0; i < n; i++) {
		char c = 'r';

		for (int k = 0; k < fast; k++)
			if (write(fast_pipe[1], &c, 1) != 1 || read(fast_pipe[0], &c, 1) != 1)
				return 1;
		if (write(go_writer[1], &c, 1) != 1 || read(slow[0], &c, 1) != 1)
			return 1;
	}
	printf("done\n");
	return 0;
}
