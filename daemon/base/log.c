// SPDX-License-Identifier: GPL-2.0-only
/* log: journal entries with fields under systemd, stderr lines otherwise. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <systemd/sd-journal.h>

#include "log.h"
#include "text.h"

#define MAX_FIELDS 16

static bool log_verbose;
static int journal = -1;

void log__set_verbose(bool verbose)
{
	log_verbose = verbose;
}

/* systemd sets JOURNAL_STREAM to the "dev:ino" of the stream it connected. */
bool log__to_journal(void)
{
	unsigned long long dev, ino;
	const char *env;
	struct stat st;

	if (journal >= 0)
		return journal;
	env = getenv("JOURNAL_STREAM");
	journal = env && sscanf(env, "%llu:%llu", &dev, &ino) == 2 &&
		  fstat(STDERR_FILENO, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
	return journal;
}

static void emit(int priority, const struct log_field *fields, size_t nr, const char *msg)
{
	char buf[MAX_FIELDS + 3][1100];
	struct iovec iov[MAX_FIELDS + 3];
	int n = 0;

	if (!log__to_journal()) {
		fprintf(stderr, "perfsnapd: %s\n", msg);
		return;
	}
	snprintf(buf[n], sizeof(buf[n]), "MESSAGE=%s", msg);
	n++;
	snprintf(buf[n], sizeof(buf[n]), "PRIORITY=%d", priority);
	n++;
	snprintf(buf[n], sizeof(buf[n]), "SYSLOG_IDENTIFIER=perfsnapd");
	n++;
	for (size_t i = 0; i < nr && i < MAX_FIELDS; i++, n++) {
		snprintf(buf[n], sizeof(buf[n]), "%s=%s", fields[i].name, fields[i].value);
		text__sanitize(buf[n]);
	}
	for (int i = 0; i < n; i++) {
		iov[i].iov_base = buf[i];
		iov[i].iov_len = strlen(buf[i]);
	}
	/* If the journal socket is gone, stderr still reaches someone. */
	if (sd_journal_sendv(iov, n) < 0)
		fprintf(stderr, "perfsnapd: %s\n", msg);
}

static void vlog(int priority, const struct log_field *fields, size_t nr, int err, const char *fmt,
		 va_list ap)
{
	char msg[1024];
	size_t len;

	if (priority == LOG_DEBUG && !log_verbose)
		return;
	if (vsnprintf(msg, sizeof(msg), fmt, ap) < 0)
		return;
	len = strlen(msg);
	if (err && len < sizeof(msg))
		snprintf(msg + len, sizeof(msg) - len, ": %s", strerror(-err));
	/* A reason, a task name or a server's reply: no escape reaches a terminal. */
	text__sanitize(msg);
	emit(priority, fields, nr, msg);
}

void log__msg(int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, NULL, 0, 0, fmt, ap);
	va_end(ap);
}

void log__fields(int priority, const struct log_field *fields, size_t nr_fields, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(priority, fields, nr_fields, 0, fmt, ap);
	va_end(ap);
}

int log__errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, NULL, 0, err, fmt, ap);
	va_end(ap);
	return err;
}

bool log_limit__pass(struct log_limit *l, uint64_t now_ns, uint64_t *quiet)
{
	if (l->logged && now_ns - l->last_ns < LOG_LIMIT_EVERY_NS) {
		l->quiet++;
		return false;
	}
	*quiet = l->quiet;
	l->quiet = 0;
	l->logged = true;
	l->last_ns = now_ns;
	return true;
}

const char *log_limit__note(uint64_t quiet, char *buf, size_t size)
{
	if (quiet)
		snprintf(buf, size, " (%llu more since the last such line; at most one a minute)",
			 (unsigned long long)quiet);
	else
		snprintf(buf, size, " (at most one such line a minute)");
	return buf;
}
