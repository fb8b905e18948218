// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger_psi: a PSI trigger fd, an epoll set holding it with EPOLLPRI, and
 * a libevent read event on the epoll fd. See trigger_psi.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "trigger_psi.h"

struct trigger_psi {
	char *file;
	int fd, epfd;
	struct event *ev;
	trigger_psi_fn fn;
	void *ctx;
};

static void on_ready(evutil_socket_t fd, short what, void *arg)
{
	struct trigger_psi *p = arg;
	struct epoll_event e;
	int n;

	(void)fd;
	(void)what;
	n = epoll_wait(p->epfd, &e, 1, 0);
	if (n <= 0)
		return;
	if (e.events & EPOLLERR) {
		/* The group of a cgroup pressure file was removed: nothing more will come. */
		log_warning("PSI trigger on %s: the file went away (cgroup removed?): "
			    "it fires no more until a reload",
			    p->file);
		event_del(p->ev);
		return;
	}
	if (e.events & EPOLLPRI)
		p->fn(p->ctx);
}

/**
 * trigger_psi__new - arm a PSI trigger and watch it
 * @base: the loop
 * @file: /proc/pressure/memory or a cgroup's memory.pressure (and the like)
 * @full: "full" rather than "some"
 * @stall_us: stall threshold within a window, microseconds
 * @window_us: the window, microseconds
 * @fn: called when the threshold is reached
 * @ctx: its argument
 * @ret: the trigger
 *
 * Returns 0 or -errno: the kernel's EINVAL for a threshold it refuses.
 */
int trigger_psi__new(struct event_base *base, const char *file, bool full, uint64_t stall_us,
		     uint64_t window_us, trigger_psi_fn fn, void *ctx, struct trigger_psi **ret)
{
	struct trigger_psi *p = calloc(1, sizeof(*p));
	struct epoll_event e = { .events = EPOLLPRI };
	char text[64];
	int r = 0;

	if (!p)
		return -ENOMEM;
	p->fd = p->epfd = -1;
	p->fn = fn;
	p->ctx = ctx;
	p->file = strdup(file);
	if (!p->file) {
		r = -ENOMEM;
		goto out;
	}
	p->fd = open(file, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (p->fd < 0) {
		r = -errno;
		goto out;
	}
	snprintf(text, sizeof(text), "%s %llu %llu", full ? "full" : "some",
		 (unsigned long long)stall_us, (unsigned long long)window_us);
	/* The kernel ends the string at the last byte written: send the NUL. */
	if (write(p->fd, text, strlen(text) + 1) < 0) {
		r = -errno;
		goto out;
	}
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0 || epoll_ctl(p->epfd, EPOLL_CTL_ADD, p->fd, &e) < 0) {
		r = -errno;
		goto out;
	}
	p->ev = event_new(base, p->epfd, EV_READ | EV_PERSIST, on_ready, p);
	if (!p->ev || event_add(p->ev, NULL) < 0)
		r = -ENOMEM;
out:
	if (r < 0) {
		trigger_psi__delete(p);
		return r;
	}
	*ret = p;
	return 0;
}

/**
 * trigger_psi__delete - disarm and free
 * @p: the trigger, or NULL
 */
void trigger_psi__delete(struct trigger_psi *p)
{
	if (!p)
		return;
	if (p->ev)
		event_free(p->ev);
	if (p->epfd >= 0)
		close(p->epfd);
	if (p->fd >= 0)
		close(p->fd);
	free(p->file);
	free(p);
}
