// SPDX-License-Identifier: GPL-2.0-only
/*
 * upload_link: perfsnapd's side of the upload helper. The network is the
 * helper's (perfsnapd-upload: no capabilities, no rings, a seccomp filter,
 * see upload_helper.c); perfsnapd keeps the queue, the state files and the
 * credentials, opens each finished file itself and hands the helper the
 * descriptor. Under systemd the helper is perfsnapd-upload@.service,
 * reached through perfsnapd-upload.socket, so perfsnapd.service needs no
 * network at all; elsewhere perfsnapd starts it as a child. Only the
 * upload thread calls these.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_spawn.h"
#include "config.h"
#include "log.h"
#include "snapshot_name.h"
#include "upload-internal.h"
#include "upload_wire.h"

#define HELPER_NAME  "perfsnapd-upload"
/* How often a wait for the helper's reply looks at the stop flag. */
#define STOP_POLL_MS 100
/* How long a helper has to exit once its socket is closed. */
#define EXIT_WAIT_MS 2000

struct upload_link {
	char *socket_path; /* NULL: a child of ours */
	int fd;		   /* -1: not connected */
	pid_t pid;	   /* the child, 0 if none */
};

int upload_link__new(const char *socket_path, struct upload_link **ret)
{
	struct upload_link *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->fd = -1;
	if (socket_path && !(l->socket_path = strdup(socket_path))) {
		free(l);
		return -ENOMEM;
	}
	*ret = l;
	return 0;
}

/*
 * Where perfsnapd starts its upload helper from, into @path: beside its
 * own binary (a build tree), then where an install puts it relative to
 * perfsnapd (one relocated with --prefix), then the configured place.
 * Returns 0, or -ENOENT with the places looked in ("A, B or C").
 */
static int find_helper(char *path, size_t size)
{
	char self[PATH_MAX], dir[PATH_MAX], tried[3][PATH_MAX + sizeof(HELPER_NAME) + 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	size_t nr = 0;

	if (n > 0) {
		self[n] = '\0';
		snprintf(dir, sizeof(dir), "%s", dirname(self));
		snprintf(tried[nr++], sizeof(tried[0]), "%s/" HELPER_NAME, dir);
		snprintf(tried[nr++], sizeof(tried[0]), "%s/%s/" HELPER_NAME, dir,
			 PERFSNAPD_LIBEXEC_FROM_SBIN);
	}
	snprintf(tried[nr++], sizeof(tried[0]), "%s/" HELPER_NAME, PERFSNAPD_LIBEXECDIR);
	for (size_t i = 0; i < nr; i++)
		if (access(tried[i], X_OK) == 0) {
			snprintf(path, size, "%s", tried[i]);
			return 0;
		}
	if (nr == 3)
		snprintf(path, size, "%s, %s or %s", tried[0], tried[1], tried[2]);
	else
		snprintf(path, size, "%s", tried[0]);
	return -ENOENT;
}

/**
 * upload__check_helper - whether the helper perfsnapd would start is there
 * @cfg: the configuration
 * @helper_socket: --upload-socket, or NULL: perfsnapd starts the helper
 * @err: the message, when it is missing
 * @size: size of @err
 *
 * Said at start, --check-config and reload rather than at every retry.
 * Returns 0 (also without [upload], or with a helper socket) or -ENOENT.
 */
int upload__check_helper(const struct perfsnapd_config *cfg, const char *helper_socket, char *err,
			 size_t size)
{
	char where[4 * PATH_MAX];

	if (!cfg->upload_url || helper_socket || find_helper(where, sizeof(where)) == 0)
		return 0;
	snprintf(err, size,
		 "[upload] upload_url needs the upload helper " HELPER_NAME ", which is not at "
		 "%s: install it there, or run it as " HELPER_NAME ".socket and give its path "
		 "with --upload-socket",
		 where);
	return -ENOENT;
}

static int spawn_helper(struct upload_link *l, char *error, size_t size)
{
	char path[4 * PATH_MAX];
	char name[] = HELPER_NAME, *argv[] = { name, NULL };
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(error, size, "cannot make the upload helper's socket: %s",
			 strerror(errno));
		return -errno;
	}
	(void)find_helper(path, sizeof(path));
	r = child_spawn__start(path, argv, sv[1], &l->pid);
	close(sv[1]);
	if (r < 0) {
		close(sv[0]);
		l->pid = 0;
		snprintf(error, size, "cannot start the upload helper %s: %s", path, strerror(-r));
		return r;
	}
	l->fd = sv[0];
	log_debug("upload: helper %s started as pid %d", path, l->pid);
	return 0;
}

static int connect_helper(struct upload_link *l, char *error, size_t size)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(l->socket_path) >= sizeof(sa.sun_path)) {
		snprintf(error, size, "upload helper socket path too long: %s", l->socket_path);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, l->socket_path, strlen(l->socket_path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		snprintf(error, size,
			 "cannot reach the upload helper at %s: %s (is perfsnapd-upload.socket "
			 "running?)",
			 l->socket_path, strerror(-r));
		if (fd >= 0)
			close(fd);
		return r;
	}
	l->fd = fd;
	return 0;
}

/*
 * Closes the connection; a child of ours then abandons what it sends and
 * exits (or is killed after EXIT_WAIT_MS). @why: what the caller saw,
 * replaced by how the child ended where that says more.
 */
static void drop(struct upload_link *l, char *why, size_t size)
{
	struct pollfd p = { .events = POLLIN };
	bool killed = false;
	int status = 0;

	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	if (!l->pid)
		return;
	p.fd = (int)syscall(SYS_pidfd_open, l->pid, 0);
	if (p.fd < 0 || poll(&p, 1, EXIT_WAIT_MS) == 0)
		killed = kill(l->pid, SIGKILL) == 0;
	if (p.fd >= 0)
		close(p.fd);
	if (waitpid(l->pid, &status, 0) != l->pid || !why || killed)
		;
	else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
		snprintf(why, size,
			 "the upload helper (pid %d) was killed by its seccomp filter (SIGSYS): "
			 "it made a system call it must not",
			 l->pid);
	else if (WIFSIGNALED(status))
		snprintf(why, size, "the upload helper (pid %d) was killed by signal %d", l->pid,
			 WTERMSIG(status));
	else if (WIFEXITED(status) && WEXITSTATUS(status))
		snprintf(why, size,
			 "the upload helper (pid %d) exited with status %d (its message is in "
			 "perfsnapd's log)",
			 l->pid, WEXITSTATUS(status));
	l->pid = 0;
}

void upload_link__delete(struct upload_link *l)
{
	if (!l)
		return;
	drop(l, NULL, 0);
	free(l->socket_path);
	free(l);
}

static int copy_field(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		return -ENAMETOOLONG;
	memcpy(dst, src ? src : "", n + 1);
	return 0;
}

static int fill(struct upload_wire_put *m, const struct perfsnapd_config *cfg, const char *key,
		bool json)
{
	m->version = UPLOAD_WIRE_VERSION;
	m->flags = (cfg->upload_path_style ? UPLOAD_WIRE_PATH_STYLE : 0) |
		   (json ? UPLOAD_WIRE_JSON : 0);
	if (copy_field(m->endpoint, sizeof(m->endpoint), cfg->upload_endpoint) < 0 ||
	    copy_field(m->bucket, sizeof(m->bucket), cfg->upload_bucket) < 0 ||
	    copy_field(m->region, sizeof(m->region), cfg->upload_region) < 0 ||
	    copy_field(m->key_id, sizeof(m->key_id), cfg->upload_key_id) < 0 ||
	    copy_field(m->secret, sizeof(m->secret), cfg->upload_secret) < 0 ||
	    copy_field(m->token, sizeof(m->token), cfg->upload_token) < 0 ||
	    copy_field(m->key, sizeof(m->key), key) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static int send_put(int sock, const struct upload_wire_put *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u = { 0 };
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	ssize_t n;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)sizeof(*m) ? 0 : n < 0 ? -errno : -EIO;
}

/* Waits for the reply, looking at *@stop. 1: stopped; 0: got it; -errno. */
static int wait_reply(int sock, struct upload_wire_reply *reply, atomic_bool *stop)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	ssize_t n;

	for (;;) {
		if (atomic_load(stop))
			return 1;
		n = poll(&p, 1, STOP_POLL_MS);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			break;
	}
	do
		n = recv(sock, reply, sizeof(*reply), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return -ECONNRESET;
	if (n != (ssize_t)sizeof(*reply) || reply->version != UPLOAD_WIRE_VERSION)
		return -EPROTO;
	return 0;
}

/* An idle helper says nothing: a readable socket means it is gone. */
static bool idle_gone(struct upload_link *l)
{
	struct pollfd p = { .fd = l->fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/* It went while no transfer was asked of it: say how, and start afresh. */
static void drop_idle(struct upload_link *l)
{
	char why[256] = "it closed its socket";
	pid_t pid = l->pid;

	drop(l, why, sizeof(why));
	if (pid)
		log_warning("upload: the upload helper (pid %d) went away while idle: %s; "
			    "starting another",
			    pid, why);
	else
		log_warning("upload: the upload helper at %s closed its connection: "
			    "connecting again",
			    l->socket_path);
}

/* The snapshot's sidecar goes up as JSON (its Content-Type). */
static bool is_json(const char *path)
{
	const char *base = strrchr(path, '/');
	struct snapshot_name n;

	return snapshot_name__parse(base ? base + 1 : path, &n) == 0 &&
	       n.file == SNAPSHOT_FILE_JSON;
}

/**
 * upload_link__put - PUT one file, by the helper
 * @l: the link
 * @cfg: its [upload]: bucket, endpoint, credentials
 * @key: the object key
 * @path: the local file (opened here: the helper gets its descriptor)
 * @stop: becomes true when the uploader stops: the transfer is abandoned
 * @error: set to why it failed (no secret in it)
 * @error_size: its size
 * @ret_bytes: the bytes sent, on success
 */
enum upload_outcome upload_link__put(struct upload_link *l, const struct perfsnapd_config *cfg,
				     const char *key, const char *path, atomic_bool *stop,
				     char *error, size_t error_size, uint64_t *ret_bytes)
{
	struct upload_wire_put *m = calloc(1, sizeof(*m));
	struct upload_wire_reply reply = { 0 };
	enum upload_outcome out = UPLOAD_RETRY;
	int fd = -1, r;

	if (!m) {
		snprintf(error, error_size, "out of memory");
		return UPLOAD_RETRY;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		snprintf(error, error_size, "cannot read %s: %s", path, strerror(errno));
		out = UPLOAD_LOCAL;
		goto out;
	}
	if (fill(m, cfg, key, is_json(path)) < 0) {
		snprintf(error, error_size, "object key or [upload] setting too long");
		out = UPLOAD_REFUSED;
		goto out;
	}
	if (l->fd >= 0 && idle_gone(l))
		drop_idle(l);
	if (l->fd < 0 && (l->socket_path ? connect_helper(l, error, error_size) :
					   spawn_helper(l, error, error_size)) < 0)
		goto out;
	r = send_put(l->fd, m, fd);
	if (r == 0)
		r = wait_reply(l->fd, &reply, stop);
	if (r == 1) {
		snprintf(error, error_size, "stopped");
		drop(l, NULL, 0);
		out = UPLOAD_STOPPED;
	} else if (r < 0) {
		snprintf(error, error_size, "the upload helper went away: %s", strerror(-r));
		drop(l, error, error_size);
	} else {
		out = reply.outcome <= UPLOAD_STOPPED ? (enum upload_outcome)reply.outcome :
							UPLOAD_RETRY;
		reply.error[sizeof(reply.error) - 1] = '\0';
		snprintf(error, error_size, "%s", reply.error);
		if (out == UPLOAD_OK)
			*ret_bytes = reply.bytes;
	}
out:
	if (fd >= 0)
		close(fd);
	explicit_bzero(m, sizeof(*m));
	free(m);
	return out;
}
