/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cleanup: scope-bound release of temporaries with the compiler's
 * cleanup attribute, so a function with several early returns needs no
 * exit label: `_cleanup_free_ char *buf = malloc(n);` is freed on every
 * return. Only for what the function owns to its end.
 */
#ifndef PERFSNAPD_CLEANUP_H
#define PERFSNAPD_CLEANUP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(fn) __attribute__((cleanup(fn)))

static inline void cleanup__free(void *p)
{
	free(*(void **)p);
}

static inline void cleanup__close(const int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void cleanup__fclose(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_	 _cleanup_(cleanup__free)
#define _cleanup_close_	 _cleanup_(cleanup__close)
#define _cleanup_fclose_ _cleanup_(cleanup__fclose)

#endif
