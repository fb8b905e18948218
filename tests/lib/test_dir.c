// SPDX-License-Identifier: GPL-2.0-only
/* test_dir: see test_dir.h. */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

#include "test_dir.h"

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int test_dir__remove(const char *dir)
{
	return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
