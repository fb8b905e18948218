// SPDX-License-Identifier: GPL-2.0-only
/*
 * control_socket: the control socket's listening end (daemon layer, part
 * of control). Creating it never touches a file that is not a stale
 * socket, and it is never reachable by others, not even for a moment.
 * Peers are checked by SO_PEERCRED and SO_PEERGROUPS. See
 * control_socket.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "control_socket.h"
#include "log.h"

#define SUN_PATH_MAX sizeof(((struct sockaddr_un *)NULL)->sun_path)

struct control_socket {
	int fd;
	char path[SUN_PATH_MAX]; /* "" for systemd's socket */
	bool activated, created;
	dev_t dev; /* of the file created, to remove only it */
	ino_t ino;
	char *group; /* NULL: root only */
	gid_t gid;
};

/*
 * The peer's supplementary groups as the kernel took them at connect():
 * not /proc/<pid>/status, which is gone once the peer exits and may be
 * another process's by then.
 */
static bool peer_in_group(int fd, gid_t gid)
{
	gid_t some[64], *groups = some;
	socklen_t len = sizeof(some);
	bool found = false;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0) {
		if (errno != ERANGE || len > NGROUPS_MAX * sizeof(gid_t) || !(groups = malloc(len)))
			return false;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
			len = 0;
	}
	for (size_t i = 0; i < len / sizeof(gid_t) && !found; i++)
		found = groups[i] == gid;
	if (groups != some)
		free(groups);
	return found;
}

/**
 * control_socket__allowed - whether a peer may use the control socket
 * @s: the control socket
 * @fd: the peer's connection
 * @cred: the peer's SO_PEERCRED
 *
 * Returns true for root and members of the group, by their primary or
 * supplementary groups at connect().
 */
bool control_socket__allowed(const struct control_socket *s, int fd, const struct ucred *cred)
{
	if (cred->uid == 0)
		return true;
	if (!s->group)
		return false;
	return cred->gid == s->gid || peer_in_group(fd, s->gid);
}

/*
 * The owner and mode of a socket this created: root (if we are) and the
 * group. Through the socket's own inode, never a path: where others may
 * write in its directory, the path can be a symbolic link by a reload,
 * and chown() and chmod() would follow it to any file.
 */
static int apply_owner(const struct control_socket *s)
{
	uid_t uid = geteuid() == 0 ? 0 : (uid_t)-1;
	gid_t gid = s->group ? s->gid : getegid();
	char proc[64];
	struct stat st;
	int fd, r = 0;

	if (!s->created)
		return 0;
	fd = open(s->path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return log__errno(-errno, "control: '%s'", s->path);
	if (fstat(fd, &st) < 0 || !S_ISSOCK(st.st_mode) || st.st_dev != s->dev ||
	    st.st_ino != s->ino)
		r = log__errno(-ESTALE,
			       "control: '%s' is no longer the socket perfsnapd made; not "
			       "changing its owner",
			       s->path);
	else if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH) < 0)
		r = log__errno(-errno, "control: cannot chown '%s' to group %u", s->path,
			       (unsigned int)gid);
	/* chmod() of the descriptor's /proc link: the inode it names, not a path. */
	else if (snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd) < 0 || chmod(proc, 0660) < 0)
		r = log__errno(-errno, "control: cannot chmod '%s'", s->path);
	close(fd);
	return r;
}

/**
 * control_socket__set_group - change the group that is served
 * @s: the control socket
 * @group: the group's name (for messages), or NULL or "" for root only
 * @gid: its id, as the configuration looked it up
 *
 * A socket this created is given to the group (a socket systemd passed
 * keeps what its unit says). Returns 0 or -errno (logged).
 */
int control_socket__set_group(struct control_socket *s, const char *group, gid_t gid)
{
	char *copy = NULL;

	if (group && *group) {
		copy = strdup(group);
		if (!copy)
			return log__errno(-ENOMEM, "control");
	}
	free(s->group);
	s->group = copy;
	s->gid = copy ? gid : 0;
	return apply_owner(s);
}

/**
 * control_socket__group - the group that is served
 * @s: the control socket
 *
 * Returns its name, or NULL for root only.
 */
const char *control_socket__group(const struct control_socket *s)
{
	return s->group;
}

static int make_parent(const char *path)
{
	char dir[SUN_PATH_MAX];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (mkdir(dir, 0755) == 0) {
		if (chmod(dir, 0755) < 0)
			return log__errno(-errno, "control: cannot chmod '%s'", dir);
		log_info("control: created directory '%s'", dir);
	} else if (errno != EEXIST) {
		return log__errno(-errno, "control: cannot create directory '%s'", dir);
	}
	if (stat(dir, &st) < 0)
		return log__errno(-errno, "control: '%s'", dir);
	if (!S_ISDIR(st.st_mode))
		return log__errno(-ENOTDIR, "control: '%s'", dir);
	if ((st.st_mode & 0022) && !(st.st_mode & S_ISVTX))
		log_warning("control: '%s' is writable by others: they can replace the socket",
			    dir);
	return 0;
}

/* Removes a socket nobody listens on; refuses to touch anything else. */
static int remove_stale(const char *path, const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : log__errno(-errno, "control: '%s'", path);
	if (!S_ISSOCK(st.st_mode))
		return log__errno(-EEXIST,
				  "control: '%s' exists and is not a socket; not "
				  "removing it",
				  path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return log__errno(-errno, "control: socket");
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 || r == -EAGAIN)
		return log__errno(-EADDRINUSE, "control: another process listens on '%s'", path);
	if (r != -ECONNREFUSED && r != -ENOENT)
		return log__errno(r, "control: cannot probe '%s'", path);
	if (unlink(path) < 0 && errno != ENOENT)
		return log__errno(-errno, "control: cannot remove stale socket '%s'", path);
	log_info("control: removed stale socket '%s'", path);
	return 0;
}

static int bind_socket(struct control_socket *s, const struct sockaddr_un *sa)
{
	struct stat st;
	mode_t old;
	int r;

	/* 0660 from the start: never reachable by others, not even before chmod(). */
	old = umask(0117);
	r = bind(s->fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ? -errno : 0;
	umask(old);
	if (r < 0)
		return log__errno(r, "control: cannot bind '%s'", s->path);
	s->created = true;
	if (lstat(s->path, &st) < 0)
		return log__errno(-errno, "control: '%s'", s->path);
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	r = apply_owner(s);
	if (r < 0)
		return r;
	if (listen(s->fd, 32) < 0)
		return log__errno(-errno, "control: cannot listen on '%s'", s->path);
	return 0;
}

static int create_socket(struct control_socket *s, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int r;

	if (strlen(path) >= sizeof(sa.sun_path))
		return log__errno(-ENAMETOOLONG, "control: socket path '%s'", path);
	if (path[0] != '/')
		return log__errno(-EINVAL, "control: socket path '%s' is not absolute", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	snprintf(s->path, sizeof(s->path), "%s", path);
	r = make_parent(path);
	if (r == 0)
		r = remove_stale(path, &sa);
	if (r < 0)
		return r;
	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return log__errno(-errno, "control: socket");
	return bind_socket(s, &sa);
}

/* Returns 1 if systemd passed the socket, 0 if not, or -errno (logged). */
static int take_activated(struct control_socket *s)
{
	int n = sd_listen_fds(0), fd = SD_LISTEN_FDS_START, flags, r;

	if (n <= 0)
		return n < 0 ? log__errno(n, "control: sd_listen_fds") : 0;
	if (n != 1)
		return log__errno(-EINVAL, "control: systemd passed %d sockets; expected one", n);
	r = sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0);
	if (r <= 0)
		return log__errno(r < 0 ? r : -ENOTSOCK,
				  "control: the socket systemd passed is not "
				  "a listening AF_UNIX stream socket");
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return log__errno(-errno, "control: fcntl");
	s->fd = fd;
	s->activated = true;
	return 1;
}

/**
 * control_socket__open - take or create the listening socket
 * @path: the socket to create if systemd passed none
 * @group: the group served, or NULL or "" for root only
 * @gid: its id
 * @ret: the socket
 *
 * Takes the socket systemd passed if it is exactly one listening AF_UNIX
 * stream socket (more, or another kind, is an error). Else creates @path:
 * its directory if missing (0755), replacing a socket nobody listens on
 * but never another file; the socket is 0660, root's and @group's (or the
 * daemon's group's). Returns 0 or -errno (logged).
 */
int control_socket__open(const char *path, const char *group, gid_t gid,
			 struct control_socket **ret)
{
	struct control_socket *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return log__errno(-ENOMEM, "control");
	s->fd = -1;
	/* First, so that a bad group fails before any file is made. */
	r = control_socket__set_group(s, group, gid);
	if (r == 0)
		r = take_activated(s);
	if (r == 0)
		r = create_socket(s, path);
	if (r < 0) {
		control_socket__close(s);
		return r;
	}
	*ret = s;
	return 0;
}

/**
 * control_socket__close - stop listening
 * @s: the socket, or NULL
 *
 * Removes the file if this created it and it is still that file (not one
 * that replaced it). systemd's socket file is left to systemd.
 */
void control_socket__close(struct control_socket *s)
{
	struct stat st;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	if (s->created && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
		(void)unlink(s->path);
	free(s->group);
	free(s);
}

/**
 * control_socket__fd - the listening fd
 * @s: the socket
 *
 * Returns the fd (non-blocking, close-on-exec).
 */
int control_socket__fd(const struct control_socket *s)
{
	return s->fd;
}

/**
 * control_socket__path - the socket's path
 * @s: the socket
 *
 * Returns the path, or "" for systemd's socket.
 */
const char *control_socket__path(const struct control_socket *s)
{
	return s->path;
}

/**
 * control_socket__activated - whether systemd passed the socket
 * @s: the socket
 *
 * Returns true for systemd's socket.
 */
bool control_socket__activated(const struct control_socket *s)
{
	return s->activated;
}
