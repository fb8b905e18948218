// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscall-loop: a system-call-heavy workload whose speed is the measure.
 * It calls getpid(2) and write(2) of one byte to /dev/null in a loop for
 * SECONDS and prints the pairs it made per second. Two calls per turn,
 * each traced on entry and exit, make four raw_syscalls records a turn,
 * so the tracer's cost per event dominates the loop's own.
 *
 * usage: syscall-loop SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double seconds, start, end;
	unsigned long turns = 0;
	int fd;

	if (argc != 2 || (seconds = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: syscall-loop SECONDS\n");
		return 2;
	}
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("/dev/null");
		return 1;
	}
	start = now();
	end = start + seconds;
	do {
		/* Checking the clock every 1024 turns keeps it out of the figure. */
		for (int i = 0; i < 1024; i++) {
			syscall(SYS_getpid);
			if (write(fd, "", 1) != 1)
				return 1;
		}
		turns += 1024;
	} while (now() < end);
	printf("%.0f\n", turns / (now() - start));
	return 0;
}
