// SPDX-License-Identifier: GPL-2.0-only
/*
 * crashwait: measures one trigger's latency. Forks a child named
 * "bench-crash" that dies of SIGSEGV at once, then polls LOG (the
 * recorder's stderr, a regular file) every 200 us for a new line containing
 * DONE, and prints "<microseconds from the fork> <that line>". A new line
 * containing FAIL, or TIMEOUT_MS without DONE, exits 1.
 *
 * usage: crashwait LOG DONE FAIL TIMEOUT_MS
 */
#include <signal.h>
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

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	struct timespec tick = { 0, 200000 };
	long long t0, timeout;
	size_t len = 0;
	pid_t pid;
	FILE *f;

	if (argc != 5)
		return 2;
	f = fopen(argv[1], "r");
	if (!f || fseek(f, 0, SEEK_END) < 0)
		return 2;
	timeout = atoll(argv[4]) * 1000;
	t0 = now_us();
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		volatile int *null = NULL;

		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });
		prctl(PR_SET_NAME, "bench-crash", 0, 0, 0);
		*null = 1;
		_exit(3);
	}
	waitpid(pid, NULL, 0);
	for (;;) {
		char *nl;

		clearerr(f);
		if (fgets(buf + len, (int)(sizeof(buf) - len), f))
			len += strlen(buf + len);
		nl = len ? strchr(buf, '\n') : NULL;
		if (nl) {
			*nl = '\0';
			if (strstr(buf, argv[2])) {
				printf("%lld %s\n", now_us() - t0, buf);
				return 0;
			}
			if (strstr(buf, argv[3]))
				return 1;
			len = 0;
			continue;
		}
		if (len == sizeof(buf) - 1)
			len = 0;
		if (now_us() - t0 > timeout)
			return 1;
		nanosleep(&tick, NULL);
	}
}
