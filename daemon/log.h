/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * log: the daemon's one way to report. Lines go to stderr, which systemd
 * hands to the journal; the level prefix (<N>) lets journald keep the
 * priority. Callers log once, where they decide, and return the code.
 */
#ifndef PERFSNAPD_LOG_H
#define PERFSNAPD_LOG_H

#include <stdbool.h>
#include <syslog.h>

void log_set_verbose(bool verbose);
void log_msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Logs "msg: strerror(-err)" at LOG_ERR and returns @err (a negative errno). */
int log_errno(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)

#endif
