// SPDX-License-Identifier: GPL-2.0-only
/* service: sd_notify() messages and the watchdog timer. See service.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "service.h"

static struct event *watchdog_ev;

static void on_watchdog(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	sd_notify(0, "WATCHDOG=1");
}

/**
 * service__start_watchdog - ping the supervisor from the loop
 * @base: the daemon's event loop
 *
 * Returns 0 (also when no watchdog was asked for) or -errno.
 */
int service__start_watchdog(struct event_base *base)
{
	uint64_t usec = 0;
	struct timeval tv;
	int r = sd_watchdog_enabled(0, &usec);

	if (r <= 0)
		return r < 0 ? log__errno(r, "WATCHDOG_USEC") : 0;
	usec /= 2;
	tv.tv_sec = (time_t)(usec / 1000000);
	tv.tv_usec = (suseconds_t)(usec % 1000000);
	watchdog_ev = event_new(base, -1, EV_PERSIST, on_watchdog, NULL);
	if (!watchdog_ev || event_add(watchdog_ev, &tv) < 0)
		return log__errno(-ENOMEM, "watchdog timer");
	log_debug("watchdog: WATCHDOG=1 every %llu ms", (unsigned long long)usec / 1000);
	sd_notify(0, "WATCHDOG=1");
	return 0;
}

void service__stop_watchdog(void)
{
	if (watchdog_ev)
		event_free(watchdog_ev);
	watchdog_ev = NULL;
}

void service__ready(const char *status)
{
	sd_notifyf(0, "READY=1\nSTATUS=%s", status);
}

void service__status(const char *fmt, ...)
{
	char status[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(status, sizeof(status), fmt, ap);
	va_end(ap);
	sd_notifyf(0, "STATUS=%s", status);
}

/* systemd wants a CLOCK_MONOTONIC stamp with RELOADING=1 (Type=notify-reload). */
void service__reloading(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
		   (unsigned long long)ts.tv_sec * 1000000ull +
			   (unsigned long long)ts.tv_nsec / 1000);
}

void service__stopping(void)
{
	sd_notify(0, "STOPPING=1");
}
