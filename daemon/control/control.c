// SPDX-License-Identifier: GPL-2.0-only
/*
 * control: the control socket (daemon layer, on the libevent loop). This
 * file owns each connection's life: accepting it, the request line, the
 * reply, timeouts, and clients the daemon holds across a dump. The
 * listening socket and who may connect are control_socket.c's; what a
 * command does is the daemon's, through struct control_ops. See control.h.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "control.h"
#include "control_socket.h"
#include "log.h"
#include "monotonic.h"
#include "text.h"

#define ACCEPT_BURST 16

typedef int (*sync_op_fn)(void *ctx, struct control_reply *reply);

enum client_state {
	CLIENT_READING, /* waiting for the request line (idle timeout) */
	CLIENT_BUSY,	/* handed to the daemon until its dump is done */
	CLIENT_WRITING, /* final line queued; closes once it is sent */
	CLIENT_CLOSED,	/* connection gone; the daemon may still hold it */
};

struct control_reply {
	struct evbuffer *out; /* the connection's output; NULL once it is gone */
	size_t bytes;
	bool overflow;
	char error[CONTROL_MAX_LINE];
};

struct control_client {
	struct control *ctl; /* NULL once closed */
	LIST_ENTRY(control_client) entry;
	struct bufferevent *bev;
	enum client_state state;
	unsigned int refs; /* the connection's, the daemon's, a callback's */
	bool daemon_ref;
	pid_t pid;
	uid_t uid;
	struct control_reply reply;
};

struct control {
	struct event_base *base;
	const struct control_ops *ops;
	void *ctx;
	struct control_socket *sock;
	struct event *listen_ev, *resume_ev;
	struct timeval timeout;
	LIST_HEAD(, control_client) clients;
	unsigned int nr_clients;
	struct log_limit refused_log; /* connections refused at accept */
};

static void client_unref(struct control_client *c)
{
	if (--c->refs == 0)
		free(c);
}

/* Drops the connection; the struct lives on while the daemon holds it. */
static void client_close(struct control_client *c)
{
	if (c->state == CLIENT_CLOSED)
		return;
	bufferevent_free(c->bev);
	c->bev = NULL;
	c->reply.out = NULL;
	LIST_REMOVE(c, entry);
	c->ctl->nr_clients--;
	c->ctl = NULL;
	c->state = CLIENT_CLOSED;
	client_unref(c);
}

static int reply_vadd(struct control_reply *rep, const char *fmt, va_list ap)
{
	char line[CONTROL_MAX_REPLY_LINE];
	size_t len;
	int n;

	if (!rep->out)
		return 0;
	if (rep->overflow)
		return -EMSGSIZE;
	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n < 0)
		return -EINVAL;
	text__sanitize(line);
	len = strlen(line);
	if (rep->bytes + len + 2 > CONTROL_MAX_REPLY) {
		rep->overflow = true;
		return -EMSGSIZE;
	}
	/* A data line must never read as the end of the reply. */
	if (control_protocol__is_final(line) && evbuffer_add(rep->out, " ", 1) < 0)
		return -ENOMEM;
	if (evbuffer_add(rep->out, line, len) < 0 || evbuffer_add(rep->out, "\n", 1) < 0)
		return -ENOMEM;
	rep->bytes += len + 2;
	return 0;
}

/**
 * control_reply__add - append one line to a reply
 * @reply: the reply being built
 * @fmt: printf format of the line (control characters become '?')
 *
 * Returns 0, or -EMSGSIZE past CONTROL_MAX_REPLY (the reply then ends in
 * an error), or -ENOMEM.
 */
int control_reply__add(struct control_reply *reply, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = reply_vadd(reply, fmt, ap);
	va_end(ap);
	return r;
}

/**
 * control_reply__fail - set the text of a reply's final error line
 * @reply: the reply being built
 * @err: the negative errno the callback will return
 * @fmt: printf format of the text after "error "
 *
 * Returns @err, so that a callback can "return control_reply__fail(...)".
 */
int control_reply__fail(struct control_reply *reply, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reply->error, sizeof(reply->error), fmt, ap);
	va_end(ap);
	text__sanitize(reply->error);
	return err;
}

/* Queues the final line; the write callback closes once it is sent. */
static void finish(struct control_client *c, int err)
{
	struct control_reply *rep = &c->reply;
	int r;

	if (err == 0 && rep->overflow) {
		err = -EMSGSIZE;
		snprintf(rep->error, sizeof(rep->error), "reply too long (over %d bytes)",
			 CONTROL_MAX_REPLY);
	}
	if (err < 0 && !rep->error[0])
		snprintf(rep->error, sizeof(rep->error), "%s", strerror(-err));
	if (err < 0)
		r = evbuffer_add_printf(rep->out, "error %s\n", rep->error);
	else
		r = evbuffer_add(rep->out, "ok\n", 3);
	if (r < 0) {
		client_close(c);
		return;
	}
	c->state = CLIENT_WRITING;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_set_timeouts(c->bev, NULL, &c->ctl->timeout);
	bufferevent_enable(c->bev, EV_WRITE);
}

static void finish_error(struct control_client *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void finish_error(struct control_client *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reply.error, sizeof(c->reply.error), fmt, ap);
	va_end(ap);
	text__sanitize(c->reply.error);
	finish(c, err);
}

/*
 * dump, trigger and reload: the client waits for its answer, which the
 * daemon gives when the work is done. Takes the daemon's reference and
 * one for the caller, which gives it back (client_unref()) after the call.
 */
static void begin_async(struct control_client *c)
{
	struct control *ctl = c->ctl;

	c->state = CLIENT_BUSY;
	/* No idle timeout while the work runs; reading goes on to see the peer leave. */
	bufferevent_set_timeouts(c->bev, NULL, &ctl->timeout);
	c->daemon_ref = true;
	c->refs += 2;
}

static void start_async(struct control_client *c, const char *arg,
			void (*op)(void *ctx, const char *arg, struct control_client *client))
{
	char buf[CONTROL_MAX_LINE];

	snprintf(buf, sizeof(buf), "%s", arg);
	text__sanitize(buf);
	begin_async(c);
	op(c->ctl->ctx, buf, c);
	client_unref(c);
}

static void start_reload(struct control_client *c, const char *args)
{
	if (*args) {
		finish_error(c, -EINVAL, "'reload' takes no arguments");
	} else if (!c->ctl->ops->reload) {
		finish_error(c, -EOPNOTSUPP, "reload is not supported");
	} else {
		begin_async(c);
		c->ctl->ops->reload(c->ctl->ctx, c);
		client_unref(c);
	}
}

/* Returns the callback for @cmd, or NULL after answering the client itself. */
static sync_op_fn pick_op(struct control_client *c, const char *cmd, const char *args)
{
	const struct control_ops *ops = c->ctl->ops;
	sync_op_fn op;

	if (!strcmp(cmd, "status")) {
		op = ops->status;
	} else if (!strcmp(cmd, "list")) {
		op = ops->list;
	} else {
		if (*cmd)
			finish_error(c, -EINVAL,
				     "unknown command '%.64s' (try dump, trigger, status, "
				     "list, reload)",
				     cmd);
		else
			finish_error(c, -EINVAL,
				     "empty request (try dump, trigger, status, list, reload)");
		return NULL;
	}
	if (*args) {
		finish_error(c, -EINVAL, "'%s' takes no arguments", cmd);
		return NULL;
	}
	if (!op)
		finish_error(c, -EOPNOTSUPP, "%s is not supported", cmd);
	return op;
}

static void handle_request(struct control_client *c, char *line)
{
	sync_op_fn op;
	size_t len;
	char *args;

	line += strspn(line, " \t");
	len = strcspn(line, " \t");
	args = line + len;
	args += strspn(args, " \t");
	line[len] = '\0';
	for (len = strlen(args); len && (args[len - 1] == ' ' || args[len - 1] == '\t'); len--)
		args[len - 1] = '\0';
	log_debug("control: '%.64s' from pid %d uid %u", line, (int)c->pid, (unsigned int)c->uid);
	if (!strcmp(line, "dump")) {
		if (c->ctl->ops->dump)
			start_async(c, *args ? args : "control", c->ctl->ops->dump);
		else
			finish_error(c, -EOPNOTSUPP, "dump is not supported");
		return;
	}
	if (!strcmp(line, CONTROL_CMD_TRIGGER)) {
		if (!*args || strpbrk(args, " \t"))
			finish_error(c, -EINVAL, "trigger takes one argument: the trigger's name");
		else if (c->ctl->ops->trigger)
			start_async(c, args, c->ctl->ops->trigger);
		else
			finish_error(c, -EOPNOTSUPP, "trigger is not supported");
		return;
	}
	if (!strcmp(line, "reload")) {
		start_reload(c, args);
		return;
	}
	op = pick_op(c, line, args);
	if (op)
		finish(c, op(c->ctl->ctx, &c->reply));
}

/* Takes a whole request of @len bytes (newline stripped). */
static void take_request(struct control_client *c, char *line, size_t len)
{
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (strlen(line) != len)
		finish_error(c, -EINVAL, "bad request: NUL byte");
	else
		handle_request(c, line);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct control_client *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t len;
	char *line;

	if (c->state != CLIENT_READING) {
		evbuffer_drain(in, evbuffer_get_length(in));
		return;
	}
	line = evbuffer_readln(in, &len, EVBUFFER_EOL_LF);
	if (!line) {
		/* The high watermark stops reading here. */
		if (evbuffer_get_length(in) >= CONTROL_MAX_LINE)
			finish_error(c, -E2BIG, "request line too long (max %d bytes)",
				     CONTROL_MAX_LINE - 1);
		return;
	}
	take_request(c, line, len);
	free(line);
}

static void on_write(struct bufferevent *bev, void *arg)
{
	struct control_client *c = arg;

	if (c->state == CLIENT_WRITING && evbuffer_get_length(bufferevent_get_output(bev)) == 0)
		client_close(c);
}

/* EOF can be a half-close ("printf 'dump\n' | socat"): only POLLHUP means gone. */
static bool peer_gone(struct bufferevent *bev)
{
	struct pollfd pfd = { .fd = bufferevent_getfd(bev), .events = POLLIN };

	return poll(&pfd, 1, 0) < 0 || (pfd.revents & (POLLHUP | POLLERR));
}

/* A request cut short by EOF, without its newline. */
static void on_eof_reading(struct control_client *c)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	char line[CONTROL_MAX_LINE + 1];
	size_t len = evbuffer_get_length(in);

	if (len == 0 || len >= CONTROL_MAX_LINE) {
		client_close(c);
		return;
	}
	evbuffer_remove(in, line, len);
	line[len] = '\0';
	take_request(c, line, len);
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct control_client *c = arg;

	if (what & BEV_EVENT_ERROR) {
		log_debug("control: pid %d: %s", (int)c->pid, strerror(EVUTIL_SOCKET_ERROR()));
		client_close(c);
	} else if (what & BEV_EVENT_TIMEOUT) {
		if (c->state != CLIENT_READING) {
			log_info("control: pid %d does not read its reply, closing", (int)c->pid);
			client_close(c);
			return;
		}
		finish_error(c, -ETIMEDOUT, "timed out waiting for a request");
	} else if (what & BEV_EVENT_EOF) {
		if (c->state == CLIENT_READING)
			on_eof_reading(c);
		else if (peer_gone(bev))
			client_close(c);
	}
}

/* For a peer that is never served: a fresh socket's buffer has room for one line. */
static void refuse(int fd, const char *line)
{
	(void)send(fd, line, strlen(line), MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

static int client_new(struct control *ctl, int fd, const struct ucred *cred)
{
	struct control_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->bev = bufferevent_socket_new(ctl->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		free(c);
		return -ENOMEM;
	}
	c->ctl = ctl;
	c->refs = 1;
	c->pid = cred->pid;
	c->uid = cred->uid;
	c->reply.out = bufferevent_get_output(c->bev);
	bufferevent_setcb(c->bev, on_read, on_write, on_event, c);
	bufferevent_setwatermark(c->bev, EV_READ, 0, CONTROL_MAX_LINE);
	bufferevent_set_timeouts(c->bev, &ctl->timeout, &ctl->timeout);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	LIST_INSERT_HEAD(&ctl->clients, c, entry);
	ctl->nr_clients++;
	return 0;
}

/* How many connections @uid holds, and how many all users but root hold. */
static unsigned int count_clients(const struct control *ctl, uid_t uid, unsigned int *ret_users)
{
	const struct control_client *c;
	unsigned int n = 0, users = 0;

	LIST_FOREACH(c, &ctl->clients, entry)
	{
		n += c->uid == uid;
		users += c->uid != 0;
	}
	*ret_users = users;
	return n;
}

/*
 * Closes the oldest connection still waiting for its request line, of a
 * user other than root if @users_only, preferring those; the list holds
 * the newest first. Returns false if there is none.
 */
static bool evict_idle(struct control *ctl, bool users_only)
{
	static const char line[] = "error closed while idle: the control socket is busy\n";
	struct control_client *c, *user = NULL, *any = NULL;

	LIST_FOREACH(c, &ctl->clients, entry)
	{
		if (c->state != CLIENT_READING)
			continue;
		any = c;
		if (c->uid != 0)
			user = c;
	}
	c = user ? user : users_only ? NULL : any;
	if (!c)
		return false;
	log_notice("control: closing idle connection of pid %d uid %u: the table is full",
		   (int)c->pid, (unsigned int)c->uid);
	/* A fresh line on a socket that has sent nothing: it fits its buffer. */
	(void)send(bufferevent_getfd(c->bev), line, sizeof(line) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	client_close(c);
	return true;
}

/* Whether @cred may have a connection now, making room if it may. */
static bool make_room(struct control *ctl, const struct ucred *cred, char *why, size_t size)
{
	unsigned int users, mine = count_clients(ctl, cred->uid, &users);

	if (cred->uid != 0 && mine >= CONTROL_MAX_CLIENTS_PER_UID) {
		snprintf(why, size, "error too many connections from uid %u (%d), try again\n",
			 (unsigned int)cred->uid, CONTROL_MAX_CLIENTS_PER_UID);
		return false;
	}
	if (cred->uid != 0 && users >= CONTROL_MAX_CLIENTS - CONTROL_ROOT_RESERVE &&
	    !evict_idle(ctl, true)) {
		snprintf(why, size, "error too many connections, try again\n");
		return false;
	}
	if (ctl->nr_clients >= CONTROL_MAX_CLIENTS && !evict_idle(ctl, false)) {
		snprintf(why, size, "error too many connections, try again\n");
		return false;
	}
	return true;
}

static void take_connection(struct control *ctl, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	const char *group = control_socket__group(ctl->sock);
	char line[128 + NAME_MAX], note[96];
	uint64_t quiet;
	int r;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log__errno(-errno, "control: SO_PEERCRED");
		close(fd);
		return;
	}
	if (!control_socket__allowed(ctl->sock, fd, &cred)) {
		if (log_limit__pass(&ctl->refused_log, monotonic_ns(), &quiet))
			log_notice("control: refused pid %d uid %u gid %u: not root%s%s%s%s",
				   (int)cred.pid, (unsigned int)cred.uid, (unsigned int)cred.gid,
				   group ? " nor in group '" : "", group ? group : "",
				   group ? "'" : "", log_limit__note(quiet, note, sizeof(note)));
		if (group)
			snprintf(line, sizeof(line),
				 "error permission denied: need root or group '%s'\n", group);
		else
			snprintf(line, sizeof(line), "error permission denied: need root\n");
		refuse(fd, line);
		return;
	}
	if (!make_room(ctl, &cred, line, sizeof(line))) {
		if (log_limit__pass(&ctl->refused_log, monotonic_ns(), &quiet))
			log_warning("control: %u connections open, refusing pid %d uid %u%s",
				    ctl->nr_clients, (int)cred.pid, (unsigned int)cred.uid,
				    log_limit__note(quiet, note, sizeof(note)));
		refuse(fd, line);
		return;
	}
	r = client_new(ctl, fd, &cred);
	if (r < 0) {
		log__errno(r, "control: connection from pid %d", (int)cred.pid);
		close(fd);
	}
}

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	struct control *ctl = arg;
	struct timeval pause = { .tv_sec = 1 };
	int fd;

	(void)what;
	for (int i = 0; i < ACCEPT_BURST; i++) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			take_connection(ctl, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return;
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* Else the level-triggered listener would spin until an fd frees up. */
			log_warning("control: accept: %s; pausing for a second", strerror(errno));
			event_del(ctl->listen_ev);
			evtimer_add(ctl->resume_ev, &pause);
			return;
		}
		log__errno(-errno, "control: accept");
		return;
	}
}

static void on_resume(evutil_socket_t fd, short what, void *arg)
{
	struct control *ctl = arg;

	(void)fd;
	(void)what;
	if (event_add(ctl->listen_ev, NULL) < 0)
		log_error("control: cannot watch the socket again; control requests stop");
}

/**
 * control__set_group - change which group may use the control socket
 * @ctl: the control socket
 * @group: a group name, or NULL or "" for root only
 * @gid: its id
 *
 * Also gives a socket this created to that group. Returns 0 or -errno
 * (logged); an unknown group changes nothing.
 */
int control__set_group(struct control *ctl, const char *group, gid_t gid)
{
	return control_socket__set_group(ctl->sock, group, gid);
}

/**
 * control__new - start serving the control socket
 * @base: the daemon's event loop
 * @cfg: path, group and timeout (copied)
 * @ops: the daemon's callbacks (kept by reference)
 * @ctx: their first argument
 * @ret: the control socket
 *
 * Uses the socket systemd passed if there is exactly one AF_UNIX stream
 * socket; otherwise creates @cfg->path (mode 0660, owned by root and the
 * group), creating its directory (0755) and replacing a stale socket, but
 * never any other file (see control_socket__open()). Returns 0 or -errno
 * (logged).
 */
int control__new(struct event_base *base, const struct control_config *cfg,
		 const struct control_ops *ops, void *ctx, struct control **ret)
{
	unsigned int ms = cfg->timeout_ms ? cfg->timeout_ms : CONTROL_DEFAULT_TIMEOUT_MS;
	struct control *ctl = calloc(1, sizeof(*ctl));
	int r;

	if (!ctl)
		return log__errno(-ENOMEM, "control");
	ctl->base = base;
	ctl->ops = ops;
	ctl->ctx = ctx;
	ctl->timeout.tv_sec = ms / 1000;
	ctl->timeout.tv_usec = (ms % 1000) * 1000;
	LIST_INIT(&ctl->clients);
	r = control_socket__open(cfg->path ? cfg->path : CONTROL_DEFAULT_PATH, cfg->group, cfg->gid,
				 &ctl->sock);
	if (r < 0)
		goto out_err;
	ctl->listen_ev = event_new(base, control_socket__fd(ctl->sock), EV_READ | EV_PERSIST,
				   on_accept, ctl);
	ctl->resume_ev = evtimer_new(base, on_resume, ctl);
	if (!ctl->listen_ev || !ctl->resume_ev || event_add(ctl->listen_ev, NULL) < 0) {
		r = log__errno(-ENOMEM, "control: event_new");
		goto out_err;
	}
	*ret = ctl;
	return 0;
out_err:
	control__delete(ctl);
	return r;
}

/**
 * control__delete - close the control socket and every connection
 * @ctl: the control socket, or NULL
 *
 * Clients the daemon still holds stay valid (and disconnected) until it
 * gives them back. A socket file this created is removed, if it is still
 * the same file.
 */
void control__delete(struct control *ctl)
{
	if (!ctl)
		return;
	while (!LIST_EMPTY(&ctl->clients))
		client_close(LIST_FIRST(&ctl->clients));
	if (ctl->listen_ev)
		event_free(ctl->listen_ev);
	if (ctl->resume_ev)
		event_free(ctl->resume_ev);
	control_socket__close(ctl->sock);
	free(ctl);
}

/**
 * control__path - the control socket's path
 * @ctl: the control socket
 *
 * Returns the path, or "" for a socket systemd passed.
 */
const char *control__path(const struct control *ctl)
{
	return control_socket__path(ctl->sock);
}

/**
 * control__socket_activated - whether systemd passed the socket
 * @ctl: the control socket
 *
 * Returns true for an inherited socket.
 */
bool control__socket_activated(const struct control *ctl)
{
	return control_socket__activated(ctl->sock);
}

/**
 * control__nr_clients - open connections
 * @ctl: the control socket
 *
 * Returns the number of connections not yet closed.
 */
unsigned int control__nr_clients(const struct control *ctl)
{
	return ctl->nr_clients;
}

/**
 * control_client__add_line - append a line to a held client's reply
 * @client: a client the daemon holds
 * @fmt: printf format of the line
 *
 * Returns 0 (also when the peer is gone and the line is dropped),
 * -EMSGSIZE, -ENOMEM, or -EINVAL if the reply has already ended.
 */
int control_client__add_line(struct control_client *client, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (client->state == CLIENT_CLOSED)
		return 0;
	if (client->state != CLIENT_BUSY)
		return -EINVAL;
	va_start(ap, fmt);
	r = reply_vadd(&client->reply, fmt, ap);
	va_end(ap);
	return r;
}

static void client_done(struct control_client *c, int err, const char *text)
{
	if (!c->daemon_ref) {
		log_error("control: bug: a client was given back twice");
		return;
	}
	c->daemon_ref = false;
	if (c->state == CLIENT_BUSY) {
		if (text && err < 0) {
			snprintf(c->reply.error, sizeof(c->reply.error), "%s", text);
			text__sanitize(c->reply.error);
		}
		finish(c, err < 0 ? err : 0);
	}
	client_unref(c);
}

/**
 * control_client__done - end a dump's reply and give the client back
 * @client: a client the daemon holds
 * @err: 0 for "ok", or a negative errno for "error"
 * @errfmt: printf format of the error text, or NULL for strerror(-@err)
 *
 * @client must not be used afterwards. Nothing is sent if the peer is gone.
 */
void control_client__done(struct control_client *client, int err, const char *errfmt, ...)
{
	char text[CONTROL_MAX_LINE];
	va_list ap;

	if (errfmt) {
		va_start(ap, errfmt);
		vsnprintf(text, sizeof(text), errfmt, ap);
		va_end(ap);
	}
	client_done(client, err, errfmt ? text : NULL);
}

/**
 * control_client__connected - whether a reply can still reach the peer
 * @client: a client the daemon holds
 *
 * Returns false once the peer has gone or the control socket was deleted.
 */
bool control_client__connected(const struct control_client *client)
{
	return client->state != CLIENT_CLOSED;
}

void control_client__peer(const struct control_client *client, pid_t *pid, uid_t *uid)
{
	*pid = client->pid;
	*uid = client->uid;
}
