// SPDX-License-Identifier: GPL-2.0-only
/*
 * shortlived_xyz: makes marked syscalls through a known call stack of its
 * own (psl_outer -> psl_middle -> psl_inner), for longer than a small ring
 * holds, then exits. A snapshot taken after it is gone must still name it
 * and its functions: only side-band tracking can, since /proc no longer
 * has it. Built with -O0 -fno-omit-frame-pointer.
 *
 * usage: shortlived_xyz SECONDS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MARK_NR 4660

/* Global symbols: the tests find them by name in call stacks. */
void psl_inner(long seq);
void psl_middle(long seq);
void psl_outer(long seq);

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * The syscall instruction itself is here, not in libc's syscall(): a
 * frame-pointer unwind loses the caller of a leaf without a frame, and
 * psl_inner must show up.
 */
__attribute__((noinline)) void psl_inner(long seq)
{
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)MARK_NR), "D"(seq), "S"(0x51L)
			 : "rcx", "r11", "memory");
	(void)ret;
}

__attribute__((noinline)) void psl_middle(long seq)
{
	psl_inner(seq);
}

__attribute__((noinline)) void psl_outer(long seq)
{
	psl_middle(seq);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	long seq = 0;

	while (now() < end)
		psl_outer(seq++);
	printf("done %d %ld\n", getpid(), seq);
	return 0;
}
