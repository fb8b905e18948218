/* SPDX-License-Identifier: GPL-2.0-only */
/* test_dir: the tests' scratch directories. */
#ifndef PERFSNAPD_TEST_DIR_H
#define PERFSNAPD_TEST_DIR_H

/* Removes @dir and everything under it (symlinks are not followed). Returns 0 or -1. */
int test_dir__remove(const char *dir);
/* The entries of @dir but "." and "..", or -1 if it cannot be read. */
int test_dir__count(const char *dir);

#endif
