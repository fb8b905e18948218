// SPDX-License-Identifier: GPL-2.0-only
/*
 * recording_open: a recording's rings and side-band, opened on a thread
 * for a reload. The thread owns what it opens until it writes to the
 * pipe; the loop joins it before reading its result.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <event2/event.h>

#include "capture.h"
#include "config.h"
#include "log.h"
#include "recording_open.h"
#include "sideband.h"

struct recording_open {
	const struct perfsnapd_config *cfg;
	recording_open_fn fn;
	void *ctx;
	int pipe[2];
	struct event *ev;
	pthread_t thread;
	bool running; /* the thread is not yet joined */
	int err;
	struct capture *cap;
	struct sideband *sb;
};

int recording_open__now(const struct perfsnapd_config *cfg, bool may_cut, struct capture **cap,
			struct sideband **sb)
{
	int r = capture__open(cfg, may_cut, cap);

	*sb = NULL;
	if (r == 0 && cfg->sideband) {
		r = sideband__new(*cap, cfg, sb);
		if (r < 0) {
			capture__close(*cap);
			*cap = NULL;
		}
	}
	return r;
}

static void *open_thread(void *arg)
{
	struct recording_open *o = arg;
	char c = 0;

	o->err = recording_open__now(o->cfg, false, &o->cap, &o->sb);
	/* The loop joins before it looks: the pipe only wakes it. */
	while (write(o->pipe[1], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void join(struct recording_open *o)
{
	if (o->running) {
		pthread_join(o->thread, NULL);
		o->running = false;
	}
}

static void on_opened(evutil_socket_t fd, short what, void *arg)
{
	struct recording_open *o = arg;

	(void)fd;
	(void)what;
	join(o);
	o->fn(o->ctx, o->err);
}

int recording_open__start(const struct perfsnapd_config *cfg, struct event_base *base,
			  recording_open_fn fn, void *ctx, struct recording_open **ret)
{
	struct recording_open *o = calloc(1, sizeof(*o));
	int r;

	if (!o)
		return log__errno(-ENOMEM, "reload");
	o->pipe[0] = o->pipe[1] = -1;
	o->cfg = config__get(cfg);
	o->fn = fn;
	o->ctx = ctx;
	if (pipe2(o->pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = log__errno(-errno, "reload: pipe");
		goto fail;
	}
	o->ev = event_new(base, o->pipe[0], EV_READ, on_opened, o);
	if (!o->ev || event_add(o->ev, NULL) < 0) {
		r = log__errno(-ENOMEM, "reload: event_new");
		goto fail;
	}
	r = -pthread_create(&o->thread, NULL, open_thread, o);
	if (r < 0) {
		log__errno(r, "reload: cannot start the thread that opens the rings");
		goto fail;
	}
	o->running = true;
	*ret = o;
	return 0;
fail:
	recording_open__delete(o);
	return r;
}

void recording_open__take(struct recording_open *o, struct capture **cap, struct sideband **sb)
{
	*cap = o->cap;
	*sb = o->sb;
	o->cap = NULL;
	o->sb = NULL;
}

void recording_open__delete(struct recording_open *o)
{
	if (!o)
		return;
	join(o);
	if (o->ev)
		event_free(o->ev);
	sideband__delete(o->sb);
	capture__close(o->cap);
	if (o->pipe[0] >= 0)
		close(o->pipe[0]);
	if (o->pipe[1] >= 0)
		close(o->pipe[1]);
	config__put(o->cfg);
	free(o);
}
