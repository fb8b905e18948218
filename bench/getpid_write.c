// SPDX-License-Identifier: GPL-2.0-only
/*
 * getpid_write: the syscall-heavy workload of bench/history-per-mib. Each
 * iteration is getpid() and a one-byte write() to /dev/null.
 *
 * usage: getpid_write SECONDS [PER_SECOND]
 *   Without PER_SECOND it loops as fast as it can and prints the
 *   iterations per second it made; with it, it makes that many a second
 *   (sleeping between ticks of 1 ms), a light load. Pin it with taskset.
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
	double seconds, rate, start, end;
	int fd = open("/dev/null", O_WRONLY);
	unsigned long long n = 0;
	char c = 0;

	if (argc < 2 || fd < 0) {
		fprintf(stderr, "usage: getpid_write SECONDS [PER_SECOND]\n");
		return 2;
	}
	seconds = strtod(argv[1], NULL);
	rate = argc > 2 ? strtod(argv[2], NULL) : 0;
	start = now();
	end = start + seconds;
	while (now() < end) {
		long burst = rate > 0 ? (long)(rate / 1000) : 1000;

		for (long i = 0; i < (burst ? burst : 1); i++) {
			syscall(SYS_getpid);
			if (write(fd, &c, 1) != 1)
				return 1;
			n++;
		}
		if (rate > 0) {
			struct timespec ms = { 0, 1000000 };

			nanosleep(&ms, NULL);
		}
	}
	printf("%.0f\n", n / (now() - start));
	return 0;
}
