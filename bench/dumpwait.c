// SPDX-License-Identifier: GPL-2.0-only
/*
 * dumpwait: measures one dump's latency. Sends SIGUSR2 to PID, then polls
 * LOG (the recorder's stderr, a regular file) every 200 us for a new line
 * containing DONE, and prints "<microseconds> <that line>". A new line
 * containing FAIL, or TIMEOUT_MS without DONE, exits 1.
 *
 * usage: dumpwait PID LOG DONE FAIL TIMEOUT_MS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	size_t len = 0;
	long long t0, timeout;
	FILE *f;

	if (argc != 6)
		return 2;
	f = fopen(argv[2], "r");
	if (!f || fseek(f, 0, SEEK_END) < 0)
		return 2;
	timeout = atoll(argv[5]) * 1000;
	t0 = now_us();
	if (kill(atoi(argv[1]), SIGUSR2) < 0)
		return 2;
	while (now_us() - t0 < timeout) {
		char *nl;

		clearerr(f);
		len += fread(buf + len, 1, sizeof(buf) - 1 - len, f);
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			if (strstr(buf, argv[3])) {
				printf("%lld %s\n", now_us() - t0, buf);
				return 0;
			}
			if (strstr(buf, argv[4])) {
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
	fprintf(stderr, "dumpwait: no '%s' after %s ms\n", argv[3], argv[5]);
	return 1;
}
