// SPDX-License-Identifier: GPL-2.0-only
/* log: level-prefixed lines on stderr (the journal under systemd). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static bool log_verbose;
static int log_prefix = -1;

void log_set_verbose(bool verbose)
{
	log_verbose = verbose;
}

static void vlog(int priority, const char *fmt, va_list ap, int err)
{
	char line[2048], prefix[8] = "";

	if (priority == LOG_DEBUG && !log_verbose)
		return;
	/* Only the journal reads "<N>" prefixes; a terminal gets plain text. */
	if (log_prefix < 0)
		log_prefix = getenv("JOURNAL_STREAM") != NULL;
	if (log_prefix)
		snprintf(prefix, sizeof(prefix), "<%d>", priority);
	if (vsnprintf(line, sizeof(line), fmt, ap) < 0)
		return;
	if (err)
		fprintf(stderr, "%sperfsnapd: %s: %s\n", prefix, line, strerror(-err));
	else
		fprintf(stderr, "%sperfsnapd: %s\n", prefix, line);
}

void log_msg(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, fmt, ap, 0);
	va_end(ap);
}

int log_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, fmt, ap, err);
	va_end(ap);
	return err;
}
