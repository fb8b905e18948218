// SPDX-License-Identifier: GPL-2.0-only
/*
 * syscall-loop: the system-call-heavy workload of bench/record-cost and
 * bench/history-per-mib. Each turn calls getpid(2) and write(2) of one
 * byte to /dev/null: two calls, each traced on entry and exit, make four
 * raw_syscalls records a turn, so the tracer's cost per event dominates
 * the loop's own.
 *
 * With -s each turn is instead a byte sent to a child process and back
 * through two pipes: pinned to one CPU (taskset), both switch at every
 * turn, so sched_switch and sched_waking (the shipped events) dominate
 * its records.
 *
 * usage: syscall-loop [-s] SECONDS [PER_SECOND]
 *   Without PER_SECOND it loops as fast as it can for SECONDS, and its
 *   speed is the measure; with it, it makes that many turns a second, in
 *   a burst each millisecond and sleeping 1 ms between them, a light
 *   load. Either way it prints the turns it made per second. Pin it with
 *   taskset.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static int fd;
static int ping[2] = { -1, -1 }, pong[2] = { -1, -1 };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int turn(void)
{
	char c;

	if (ping[1] >= 0)
		return write(ping[1], "", 1) == 1 && read(pong[0], &c, 1) == 1 ? 0 : -1;
	syscall(SYS_getpid);
	return write(fd, "", 1) == 1 ? 0 : -1;
}

/* The child of -s: sends back each byte until the pipe closes. */
static int echo_child(void)
{
	pid_t pid;
	char c;

	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	return 0;
}

int main(int argc, char **argv)
{
	double seconds, rate = 0, start, end;
	unsigned long turns = 0;
	int sw = argc > 1 && !strcmp(argv[1], "-s");

	argc -= sw, argv += sw;
	if (argc < 2 || argc > 3 || (seconds = atof(argv[1])) <= 0 ||
	    (argc == 3 && (rate = atof(argv[2])) <= 0)) {
		fprintf(stderr, "usage: syscall-loop [-s] SECONDS [PER_SECOND]\n");
		return 2;
	}
	if (sw && echo_child())
		return 1;
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0) {
		perror("/dev/null");
		return 1;
	}
	start = now();
	end = start + seconds;
	if (rate > 0) {
		long burst = (long)(rate / 1000) ? (long)(rate / 1000) : 1;
		struct timespec ms = { 0, 1000000 };

		while (now() < end) {
			for (long i = 0; i < burst; i++) {
				if (turn())
					return 1;
				turns++;
			}
			nanosleep(&ms, NULL);
		}
	} else {
		do {
			/* Checking the clock every 1024 turns keeps it out of the figure. */
			for (int i = 0; i < 1024; i++)
				if (turn())
					return 1;
			turns += 1024;
		} while (now() < end);
	}
	printf("%.0f\n", turns / (now() - start));
	if (sw) {
		close(ping[1]);
		wait(NULL);
	}
	return 0;
}
