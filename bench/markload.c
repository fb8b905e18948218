// SPDX-License-Identifier: GPL-2.0-only
/*
 * markload: the benchmark's workload. Makes "marked" system calls at a
 * steady rate: syscall number 4660 (none such, so it returns ENOSYS at
 * once; raw_syscalls:sys_enter still records it) with a sequence number
 * as first argument, so a gap in a recording shows as missing numbers.
 *
 * usage: markload spin|sleep PERIOD_NS BURST
 *   spin:  busy-waits on the vDSO clock between ticks (one CPU at 100%,
 *          but no other syscalls, and marks evenly spaced);
 *   sleep: sleeps until each tick (clock_nanosleep), to fill a ring
 *          cheaply on a CPU that other programs need.
 * Every PERIOD_NS it makes BURST marked calls. If it falls behind (it was
 * preempted), it skips the missed ticks instead of catching up, so the
 * marks stay evenly spaced. Runs until killed; pin it with taskset.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define MARK_NR 4660

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long long period, next, t;
	long burst, seq = 0;
	int spin;

	if (argc != 4)
		return 2;
	spin = strcmp(argv[1], "spin") == 0;
	period = atoll(argv[2]);
	burst = atol(argv[3]);
	if (period <= 0 || burst <= 0)
		return 2;
	for (next = now_ns();; next += period) {
		if (spin) {
			while ((t = now_ns()) < next)
				;
		} else {
			struct timespec ts = { next / 1000000000LL, next % 1000000000LL };

			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
			t = now_ns();
		}
		if (t - next > period)
			next = t; /* preempted: skip, do not burst */
		for (long i = 0; i < burst; i++)
			syscall(MARK_NR, seq++, 0x5eed, 0, 0, 0, 0);
	}
}
