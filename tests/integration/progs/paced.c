// SPDX-License-Identifier: GPL-2.0-only
/*
 * paced: a steady system-call load, so that a CPU's ring fills at a known,
 * even rate: RATE getpriority() calls per second, in bursts each
 * millisecond, for SECONDS of milliseconds (0: until killed). getpriority(), because
 * little else on a machine calls it: a test records it alone.
 *
 * usage: paced NAME RATE SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec next, now;
	long rate, seconds, per_ms, carry = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: paced NAME RATE SECONDS\n");
		return 2;
	}
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	rate = strtol(argv[2], NULL, 10);
	seconds = strtol(argv[3], NULL, 10);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long ms = 0; !seconds || ms < seconds * 1000; ms++) {
		/* The calls of this millisecond, the remainder carried to the next. */
		per_ms = (rate + carry) / 1000;
		carry = (rate + carry) % 1000;
		for (long i = 0; i < per_ms; i++)
			syscall(SYS_getpriority, 0, 0);
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		/*
		 * Late (the CPU was taken by others): the missed milliseconds are
		 * skipped, not caught up, so that the rate never rises above RATE.
		 */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > next.tv_sec ||
		    (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec))
			next = now;
		else
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return 0;
}
