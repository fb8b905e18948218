// SPDX-License-Identifier: GPL-2.0-only
/*
 * wakeup_delay: makes N wakeups that wait a known time for their CPU. A
 * sleeper thread and a SCHED_FIFO hog are pinned to one CPU; the main
 * thread, on another, wakes the hog (which spins for HOG_US), then wakes
 * the sleeper while the hog spins: the sleeper waits for the CPU until the
 * hog stops. Between those, FAST fast wakeups of the sleeper with the CPU
 * free, after which the hog starts only once the sleeper sleeps again.
 * Prints "sleeper TID" and starts when the file GO exists, so that a
 * test can configure a trigger on that tid first; prints "done" at the end.
 *
 * usage: wakeup_delay N HOG_US FAST CPU GO
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int to_sleeper[2], from_sleeper[2], to_hog[2];
static long hog_us;
static int cpu;
static volatile int hog_spinning, sleeper_woken;
static volatile long sleeper_tid;

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void pin(int c)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void *sleeper(void *arg)
{
	char c;

	(void)arg;
	pin(cpu);
	sleeper_tid = (long)syscall(SYS_gettid);
	printf("sleeper %ld\n", sleeper_tid);
	fflush(stdout);
	while (read(to_sleeper[0], &c, 1) == 1)
		if (write(from_sleeper[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *hog(void *arg)
{
	struct sched_param sp = { .sched_priority = 10 };
	char c;

	(void)arg;
	pin(cpu);
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("SCHED_FIFO");
		exit(1);
	}
	while (read(to_hog[0], &c, 1) == 1) {
		long end;

		hog_spinning = 1;
		while (!sleeper_woken)
			;
		end = now_us() + hog_us;
		while (now_us() < end)
			;
		hog_spinning = sleeper_woken = 0;
	}
	return NULL;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, us % 1000000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Until the sleeper sleeps in its read: after a fast wakeup it may still be
 * on its way there, and a hog that starts then preempts it runnable, so
 * the next wakeup finds it awake and no wakeup waits at all.
 */
static void wait_asleep(void)
{
	char path[64], buf[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", sleeper_tid);
	for (;;) {
		f = fopen(path, "r");
		if (!f) {
			perror(path);
			exit(1);
		}
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && p[1] == ' ' && p[2] == 'S')
			return;
		sched_yield();
	}
}

static void ping(void)
{
	char c = 'w';

	if (write(to_sleeper[1], &c, 1) != 1)
		exit(1);
	if (hog_spinning)
		sleeper_woken = 1;
	if (read(from_sleeper[0], &c, 1) != 1) {
		perror("ping");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	pthread_t s, h;
	int n, fast;

	if (argc != 6) {
		fprintf(stderr, "usage: wakeup_delay N HOG_US FAST CPU GO\n");
		return 2;
	}
	n = atoi(argv[1]);
	hog_us = atol(argv[2]);
	fast = atoi(argv[3]);
	cpu = atoi(argv[4]);
	if (pipe(to_sleeper) || pipe(from_sleeper) || pipe(to_hog))
		return 1;
	pin(cpu ? 0 : 1);
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_create(&h, NULL, hog, NULL);
	while (!sleeper_tid)
		sleep_us(1000);
	while (access(argv[5], F_OK))
		sleep_us(10000);
	for (int i = 0; i < n; i++) {
		char c = 'h';

		for (int k = 0; k < fast; k++)
			ping();
		wait_asleep();
		if (write(to_hog[1], &c, 1) != 1)
			return 1;
		while (!hog_spinning)
			;
		/* The sleeper's wakeup waits for the hog. */
		ping();
		sleep_us(20000);
	}
	printf("done\n");
	return 0;
}
