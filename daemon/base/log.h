/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log: the daemon's one way to report. Under systemd (stderr connected to
 * the journal, as JOURNAL_STREAM says) entries go to the journal natively,
 * with structured fields where the caller gives them; otherwise one line
 * per entry on stderr. Callers log once, where they decide, and return the
 * code.
 */
#ifndef PERFSNAPD_LOG_H
#define PERFSNAPD_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

/* A journal field: NAME must be upper case, as journald requires. */
struct log_field {
	const char *name;
	const char *value;
};

void log__set_verbose(bool verbose);
void log__msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like log__msg, with journal fields (on stderr only the message shows). */
void log__fields(int priority, const struct log_field *fields, size_t nr_fields, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

/* Logs "msg: strerror(-err)" at LOG_ERR and returns @err (a negative errno). */
int log__errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* True when entries go to the journal. */
bool log__to_journal(void);

/*
 * A message that others can make repeat (a refused connection, a refused
 * dump): the first is logged, then at most one per LOG_LIMIT_EVERY_NS;
 * the ones in between are counted and the next line logged says how many.
 * Zeroed is ready.
 */
struct log_limit {
	bool logged; /* one was, at last_ns */
	uint64_t last_ns;
	uint64_t quiet; /* not logged since */
};

#define LOG_LIMIT_EVERY_NS (60 * 1000000000ull)

/*
 * Whether the occurrence at @now_ns is logged; if so, *@quiet says how
 * many were not since the last one logged.
 */
bool log_limit__pass(struct log_limit *l, uint64_t now_ns, uint64_t *quiet);
/* What a line that passed ends with: how many were not logged before it, and the limit. */
const char *log_limit__note(uint64_t quiet, char *buf, size_t size);

#define log_debug(...)	 log__msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...)	 log__msg(LOG_INFO, __VA_ARGS__)
#define log_notice(...)	 log__msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log__msg(LOG_WARNING, __VA_ARGS__)
#define log_error(...)	 log__msg(LOG_ERR, __VA_ARGS__)

#endif
