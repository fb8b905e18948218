/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * service: what perfsnapd tells its supervisor through sd_notify():
 * READY=1 once recording, STATUS= kept current, WATCHDOG=1 from the event
 * loop every WatchdogSec/2 (so a stuck loop gets the daemon restarted),
 * RELOADING=1 around reloads, STOPPING=1 at exit. Without NOTIFY_SOCKET
 * every call does nothing.
 */
#ifndef PERFSNAPD_SERVICE_H
#define PERFSNAPD_SERVICE_H

struct event_base;

/* Arms the watchdog timer if the supervisor asked for one. Returns 0 or -errno. */
int service__start_watchdog(struct event_base *base);
void service__stop_watchdog(void);

void service__ready(const char *status);
void service__status(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void service__reloading(void);
void service__stopping(void);

#endif
