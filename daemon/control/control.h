/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * control: perfsnapd's control socket on the daemon's libevent loop. One
 * request line per connection ("dump [reason]", "status", "list",
 * "reload"), then reply lines and a final "ok" or "error <text>" line.
 * Only root and members of the configured group are served. The daemon
 * answers through struct control_ops; a dump or a reload is answered
 * later, when it has finished, through the client handle it was given.
 */
#ifndef PERFSNAPD_CONTROL_H
#define PERFSNAPD_CONTROL_H

#include <stdbool.h>
#include <sys/types.h>

#include "control_protocol.h"

/*
 * Connections served at once. Root may use every one; other users share
 * all but CONTROL_ROOT_RESERVE, at most CONTROL_MAX_CLIENTS_PER_UID each,
 * so that one user's idle connections lock out neither root nor the
 * others. When the table is full, a newcomer who may have a slot closes
 * the oldest connection still waiting for its request line instead of
 * waiting out its idle timeout.
 */
#define CONTROL_MAX_CLIENTS	    64
#define CONTROL_ROOT_RESERVE	    8
#define CONTROL_MAX_CLIENTS_PER_UID 8

struct event_base;
struct control;
struct control_client;
struct control_reply;

/*
 * The daemon's side. status and list answer at once: they append lines
 * with control_reply__add() and return 0 ("ok") or -errno ("error", with
 * the text from control_reply__fail() or else strerror). dump, trigger and
 * reload are handed a reference to @client that the daemon must give
 * back, exactly once, with control_client__done(), even if
 * the peer has gone away meanwhile (then nothing is sent). A NULL
 * callback answers "error <command> is not supported".
 */
struct control_ops {
	int (*status)(void *ctx, struct control_reply *reply);
	int (*list)(void *ctx, struct control_reply *reply);
	void (*reload)(void *ctx, struct control_client *client);
	void (*dump)(void *ctx, const char *reason, struct control_client *client);
	/* "trigger NAME": like dump, for a [trigger NAME]. */
	void (*trigger)(void *ctx, const char *name, struct control_client *client);
};

struct control_config {
	const char *path;	 /* NULL: CONTROL_DEFAULT_PATH */
	const char *group;	 /* NULL or "": root only */
	gid_t gid;		 /* of group (config looked it up) */
	unsigned int timeout_ms; /* idle and write timeout; 0: the default */
};

/*
 * Listens on the socket systemd passed (one AF_UNIX stream socket), or
 * else creates @cfg->path. Returns 0 or -errno (logged).
 */
int control__new(struct event_base *base, const struct control_config *cfg,
		 const struct control_ops *ops, void *ctx, struct control **ret);
/* Closes every connection, and removes the socket if this created it. */
void control__delete(struct control *ctl);

/* Changes the group served (and the socket's group). Returns 0 or -errno (logged). */
int control__set_group(struct control *ctl, const char *group, gid_t gid);
/* The socket's path; "" for an inherited socket. */
const char *control__path(const struct control *ctl);
/* True if the socket came from systemd. */
bool control__socket_activated(const struct control *ctl);
/* Open connections. */
unsigned int control__nr_clients(const struct control *ctl);

/* Appends one reply line. Returns 0 or -errno. */
int control_reply__add(struct control_reply *reply, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Sets the text of the final "error" line and returns @err. */
int control_reply__fail(struct control_reply *reply, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Appends one line to a held client's reply (dropped if the peer is gone). Returns 0 or -errno. */
int control_client__add_line(struct control_client *client, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * Ends a held client's reply with "ok" (@err == 0) or "error <text>" (@errfmt, or
 * strerror(-@err) when NULL), and gives back the daemon's reference.
 */
void control_client__done(struct control_client *client, int err, const char *errfmt, ...)
	__attribute__((format(printf, 3, 4)));
/* False once the peer has gone or the control socket was deleted. */
bool control_client__connected(const struct control_client *client);
/* The peer's pid and uid, as the socket gave them (SO_PEERCRED) at its connect. */
void control_client__peer(const struct control_client *client, pid_t *pid, uid_t *uid);

#endif
