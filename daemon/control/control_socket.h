/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * control_socket: the listening end of the control socket and who may use
 * it (daemon layer; a part of control, see control.h). It takes the socket
 * systemd passed, or creates the file with care and removes it at the end,
 * and decides which peers are served: root and the configured group.
 */
#ifndef PERFSNAPD_CONTROL_SOCKET_H
#define PERFSNAPD_CONTROL_SOCKET_H

#include <stdbool.h>

struct control_socket;
struct ucred;

/*
 * Serves @group (NULL or "": root only). Takes systemd's socket if it
 * passed exactly one, else creates @path (mode 0660, root's and @group's).
 * The fd is non-blocking. Returns 0 or -errno (logged).
 */
int control_socket__open(const char *path, const char *group, gid_t gid,
			 struct control_socket **ret);
/* Closes, and removes the file if this created it and it is still that file. */
void control_socket__close(struct control_socket *s);

/* Serves @group instead, and gives it a created socket. Returns 0 or -errno (logged). */
int control_socket__set_group(struct control_socket *s, const char *group, gid_t gid);
/* The group's name, or NULL. */
const char *control_socket__group(const struct control_socket *s);
/* Root, or a peer whose gid or supplementary groups hold the group. */
bool control_socket__allowed(const struct control_socket *s, int fd, const struct ucred *cred);

int control_socket__fd(const struct control_socket *s);
/* The path, "" for systemd's socket. */
const char *control_socket__path(const struct control_socket *s);
bool control_socket__activated(const struct control_socket *s);

#endif
