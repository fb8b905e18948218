// SPDX-License-Identifier: GPL-2.0-only
/*
 * spinner: burns CPU in two named functions of its own, and in the kernel
 * through a syscall loop, for the given number of seconds, so a cpu-clock
 * snapshot with frame-pointer callchains has user and kernel symbols to name.
 * Built with -O0 -fno-omit-frame-pointer; the names must survive.
 *
 * usage: spinner SECONDS
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long psnap_sink;

/* Global symbols: the tests find them by name in call stacks. */
void psnap_spin_inner(void);
void psnap_spin_outer(void);
void psnap_kernel_work(int fd);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void psnap_spin_inner(void)
{
	for (unsigned long i = 0; i < 2000000; i++)
		psnap_sink += i * 7;
}

__attribute__((noinline)) void psnap_spin_outer(void)
{
	psnap_spin_inner();
}

__attribute__((noinline)) void psnap_kernel_work(int fd)
{
	char buf[4096];

	for (int i = 0; i < 200; i++)
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 3.0);
	int fd = open("/dev/zero", O_RDONLY);

	prctl(PR_SET_NAME, "psnap_spinner", 0, 0, 0);
	printf("started %d\n", getpid());
	fflush(stdout);
	while (now() < end) {
		psnap_spin_outer();
		psnap_kernel_work(fd);
	}
	printf("done\n");
	fflush(stdout);
	pause();
	return 0;
}
