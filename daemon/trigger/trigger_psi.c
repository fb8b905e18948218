// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger_psi: a PSI trigger fd, a thread that poll()s it for POLLPRI, and a
 * pipe from that thread to a read event on the loop. See trigger_psi.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "log.h"
#include "trigger_psi.h"

#define MSG_FIRED 'P'
#define MSG_GONE  'E'

struct trigger_psi {
	char *file;
	int fd;
	int stop_pipe[2];   /* loop -> thread: close the write end to stop */
	int notify_pipe[2]; /* thread -> loop: one byte per report */
	struct event *ev;
	pthread_t thread;
	bool started;
	trigger_psi_fn fn;
	void *ctx;
};

static void send_msg(struct trigger_psi *p, char msg)
{
	/* Non-blocking: a full pipe already holds reports the loop will see. */
	while (write(p->notify_pipe[1], &msg, 1) < 0 && errno == EINTR)
		;
}

static void *watch(void *arg)
{
	struct trigger_psi *p = arg;
	struct pollfd fds[2] = {
		{ .fd = p->fd, .events = POLLPRI },
		{ .fd = p->stop_pipe[0], .events = POLLIN },
	};

	for (;;) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (fds[1].revents)
			break;
		if (fds[0].revents & POLLERR) {
			/* The group of a cgroup pressure file was removed. */
			send_msg(p, MSG_GONE);
			break;
		}
		if (fds[0].revents & POLLPRI)
			send_msg(p, MSG_FIRED);
	}
	return NULL;
}

static void on_notify(evutil_socket_t fd, short what, void *arg)
{
	struct trigger_psi *p = arg;
	char buf[64];
	ssize_t n;

	(void)what;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == MSG_FIRED) {
				p->fn(p->ctx);
			} else {
				log_warning("PSI trigger on %s: the file went away (cgroup "
					    "removed?): it fires no more until a reload",
					    p->file);
				event_del(p->ev);
				return;
			}
		}
}

/**
 * trigger_psi__new - arm a PSI trigger and watch it
 * @base: the loop
 * @file: /proc/pressure/memory or a cgroup's memory.pressure (and the like)
 * @full: "full" rather than "some"
 * @stall_us: stall threshold within a window, microseconds
 * @window_us: the window, microseconds
 * @fn: called on the loop when the threshold is reached
 * @ctx: its argument
 * @ret: the trigger
 *
 * Returns 0 or -errno: the kernel's EINVAL for a threshold it refuses.
 */
int trigger_psi__new(struct event_base *base, const char *file, bool full, uint64_t stall_us,
		     uint64_t window_us, trigger_psi_fn fn, void *ctx, struct trigger_psi **ret)
{
	struct trigger_psi *p = calloc(1, sizeof(*p));
	char text[64];
	int r = 0;

	if (!p)
		return -ENOMEM;
	p->fd = p->stop_pipe[0] = p->stop_pipe[1] = p->notify_pipe[0] = p->notify_pipe[1] = -1;
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
	if (pipe2(p->stop_pipe, O_CLOEXEC) < 0 ||
	    pipe2(p->notify_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		goto out;
	}
	p->ev = event_new(base, p->notify_pipe[0], EV_READ | EV_PERSIST, on_notify, p);
	if (!p->ev || event_add(p->ev, NULL) < 0) {
		r = -ENOMEM;
		goto out;
	}
	r = -pthread_create(&p->thread, NULL, watch, p);
	p->started = r == 0;
out:
	if (r < 0) {
		trigger_psi__delete(p);
		return r;
	}
	*ret = p;
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/**
 * trigger_psi__delete - stop the thread, disarm and free
 * @p: the trigger, or NULL
 */
void trigger_psi__delete(struct trigger_psi *p)
{
	if (!p)
		return;
	if (p->started) {
		close_fd(&p->stop_pipe[1]); /* POLLHUP on the read end */
		pthread_join(p->thread, NULL);
	}
	if (p->ev)
		event_free(p->ev);
	close_fd(&p->stop_pipe[0]);
	close_fd(&p->stop_pipe[1]);
	close_fd(&p->notify_pipe[0]);
	close_fd(&p->notify_pipe[1]);
	close_fd(&p->fd);
	free(p->file);
	free(p);
}
