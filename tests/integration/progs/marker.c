// SPDX-License-Identifier: GPL-2.0-only
/*
 * marker: makes a known number of "marked" system calls that integration
 * tests look for in snapshots: syscall number MARK_NR (no such syscall, so
 * it returns ENOSYS at once) with the sequence number as first argument.
 *
 * usage: marker NAME COUNT [hold|exit|quiet] [SPIN_SYSCALLS] [DUMP_PID]
 * Sets its comm to NAME, optionally makes SPIN_SYSCALLS unmarked getppid()
 * calls first (load), makes COUNT marked calls, sends SIGUSR2 to DUMP_PID
 * if given (so nothing else runs between its last mark and the dump),
 * prints "done" and then either waits for SIGTERM (hold) or exits. quiet
 * is hold after 300 ms of spinning without a system call: run at a
 * real-time priority, the marker then keeps its CPU, and so its ring,
 * free of any other task's events until the dump has paused it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MARK_NR 4660

int main(int argc, char **argv)
{
	struct timespec t0, t1, r0, r1;
	long count, spin = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: marker NAME COUNT [hold|exit] [SPIN_SYSCALLS]\n");
		return 2;
	}
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	count = strtol(argv[2], NULL, 10);
	if (argc > 4)
		spin = strtol(argv[4], NULL, 10);
	for (long i = 0; i < spin; i++)
		syscall(SYS_getppid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	clock_gettime(CLOCK_REALTIME, &r0);
	for (long i = 0; i < count; i++)
		syscall(MARK_NR, i, 0x5eed, 0, 0, 0, 0);
	clock_gettime(CLOCK_REALTIME, &r1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* Brackets the marks in two clocks, for the [capture] clock tests. */
	printf("mono %lld %lld\nreal %lld %lld\n", (long long)t0.tv_sec * 1000000000LL + t0.tv_nsec,
	       (long long)t1.tv_sec * 1000000000LL + t1.tv_nsec,
	       (long long)r0.tv_sec * 1000000000LL + r0.tv_nsec,
	       (long long)r1.tv_sec * 1000000000LL + r1.tv_nsec);
	if (argc > 5)
		kill((pid_t)strtol(argv[5], NULL, 10), SIGUSR2);
	if (argc > 3 && strcmp(argv[3], "quiet") == 0) {
		/* clock_gettime() is the vDSO's: no system call, no event. */
		long long end = (long long)t1.tv_sec * 1000000000LL + t1.tv_nsec + 300000000LL;

		do
			clock_gettime(CLOCK_MONOTONIC, &t0);
		while ((long long)t0.tv_sec * 1000000000LL + t0.tv_nsec < end);
	}
	printf("done %d\n", getpid());
	fflush(stdout);
	if (argc > 3 && strcmp(argv[3], "exit") == 0)
		return 0;
	pause();
	return 0;
}
