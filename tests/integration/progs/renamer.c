// SPDX-License-Identifier: GPL-2.0-only
/*
 * renamer: makes COUNT marked syscalls (second argument 0) as NAME1,
 * renames itself with prctl(PR_SET_NAME) to NAME2, makes COUNT more
 * (second argument 1), then exits or holds.
 *
 * usage: renamer NAME1 NAME2 COUNT [hold|exit]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MARK_NR 4660

int main(int argc, char **argv)
{
	long count;

	if (argc < 4) {
		fprintf(stderr, "usage: renamer NAME1 NAME2 COUNT [hold|exit]\n");
		return 2;
	}
	count = strtol(argv[3], NULL, 10);
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	for (long i = 0; i < count; i++)
		syscall(MARK_NR, i, 0, 0, 0, 0, 0);
	prctl(PR_SET_NAME, argv[2], 0, 0, 0);
	for (long i = 0; i < count; i++)
		syscall(MARK_NR, i, 1, 0, 0, 0, 0);
	printf("done %d\n", getpid());
	fflush(stdout);
	if (argc > 4 && strcmp(argv[4], "hold") == 0)
		pause();
	return 0;
}
