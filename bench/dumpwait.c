// SPDX-License-Identifier: GPL-2.0-only
/*
 * dumpwait: measures one trigger's latency. Triggers a dump, then polls LOG
 * (the recorder's stderr, a regular file) every 200 us for a new line
 * containing DONE, and prints "<microseconds from the trigger> <that line>".
 * A new line containing FAIL, or TIMEOUT_MS without DONE, exits 1.
 *
 * usage: dumpwait PID LOG DONE FAIL TIMEOUT_MS
 *          the trigger is SIGUSR2 to PID;
 *        dumpwait --crash LOG DONE FAIL TIMEOUT_MS
 *          the trigger is a child named "bench-crash" that dies of SIGSEGV
 *          at once (for a recorder with a crash trigger).
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* 0, or -1 if the child could not be started. */
static int crash_child(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		volatile int *null = NULL;

		/* No core file: the latency must not include core_pattern's. */
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		prctl(PR_SET_NAME, "bench-crash", 0, 0, 0);
		*null = 1;
		_exit(3);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct timespec tick = { 0, 200000 };
	const char *log, *done, *failed, *timeout_ms;
	bool crash = argc == 6 && !strcmp(argv[1], "--crash");
	size_t len = 0;
	long long t0, timeout;
	FILE *f;

	if (argc != 6) {
		fprintf(stderr, "usage: dumpwait PID|--crash LOG DONE FAIL TIMEOUT_MS\n");
		return 2;
	}
	log = argv[2];
	done = argv[3];
	failed = argv[4];
	timeout_ms = argv[5];
	f = fopen(log, "r");
	if (!f || fseek(f, 0, SEEK_END) < 0)
		return 2;
	timeout = atoll(timeout_ms) * 1000;
	t0 = now_us();
	if (crash ? crash_child() < 0 : kill(atoi(argv[1]), SIGUSR2) < 0)
		return 2;
	while (now_us() - t0 < timeout) {
		char *nl;

		clearerr(f);
		len += fread(buf + len, 1, sizeof(buf) - 1 - len, f);
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (strstr(buf, done)) {
				printf("%lld %s\n", now_us() - t0, buf);
				return 0;
			}
			if (strstr(buf, failed)) {
				fprintf(stderr, "dumpwait: %s\n", buf);
				return 1;
			}
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == sizeof(buf) - 1)
			len = 0; /* an absurdly long line: drop it */
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "dumpwait: no '%s' after %s ms\n", done, timeout_ms);
	return 1;
}
