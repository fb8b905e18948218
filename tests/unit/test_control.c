// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for control: a real Unix socket in a temporary directory, a
 * fake struct control_ops and the test driving the event loop. Clients
 * are plain blocking sockets in this process, or forked children that
 * drop to uid 65534 to be refused (root only).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <event2/event.h>

#include "control.h"
#include "fake_control.h"
#include "test_dir.h"
#include "test_skip.h"

/* What fake_status() makes of its lines. */
#define ZEROS_100 \
	"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
#define STATUS_REPLY "state: recording\n ok\n error trap\ntab?here\nok\n"

static const char *const status_lines[] = {
	"state: recording",
	"ok",	      /* escaped */
	"error trap", /* escaped */
	"tab\there",  /* sanitized */
	NULL,
};
static const char *const reload_lines[] = { "perfsnapd.conf:3: bad size", NULL };

struct fake {
	struct fake_control fc; /* the control's ctx */
	struct event_base *base;
	struct control *ctl;
	struct control_config cfg;
	char dir[64];
	char path[100];
	int saved_fd3; /* setup_activation: what held fd 3 before, or -1 */
};

/* Runs the loop for about @ms milliseconds. */
static void pump(struct fake *f, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	event_base_loopexit(f->base, &tv);
	event_base_dispatch(f->base);
}

/* A fake with its directory and its replies; no loop, no control yet. */
static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->saved_fd3 = -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_control.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->fc.status_lines = status_lines;
	f->fc.list_format = "host-20240101-000000.000-%1$zu 4096 " ZEROS_100;
	f->fc.reload_lines = reload_lines;
	f->fc.reload_error = "configuration has 1 error";
	return f;
}

static int setup_with(void **state, const char *group, unsigned int timeout_ms)
{
	struct fake *f = fake_new();

	/* A subdirectory control__new() must create. */
	snprintf(f->path, sizeof(f->path), "%s/run/control.sock", f->dir);
	f->cfg.path = f->path;
	f->cfg.group = group;
	f->cfg.timeout_ms = timeout_ms;
	f->base = event_base_new();
	assert_non_null(f->base);
	assert_int_equal(control__new(f->base, &f->cfg, &fake_control_ops, &f->fc, &f->ctl), 0);
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, NULL, 0);
}

static int setup_short_timeout(void **state)
{
	return setup_with(state, NULL, 200);
}

static int teardown(void **state)
{
	struct fake *f = *state;

	control__delete(f->ctl);
	/* Clients the test never gave back. */
	fake_control__cancel(&f->fc);
	event_base_free(f->base);
	test_dir__remove(f->dir);
	free(f);
	return 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static void send_str(int fd, const char *s, size_t len)
{
	assert_int_equal(send(fd, s, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* True once @buf holds a whole final line. */
static bool has_final(const char *buf)
{
	for (const char *line = buf; *line;) {
		const char *nl = strchr(line, '\n');

		if (!nl)
			return false;
		if (!strncmp(line, "ok\n", 3) || !strncmp(line, "error ", 6))
			return true;
		line = nl + 1;
	}
	return false;
}

/* What the server sent on @fd until its final line, EOF, or @ms. */
static char *converse(struct fake *f, int fd, int ms)
{
	size_t size = 4096, len = 0;
	char *buf = malloc(size);
	ssize_t n;

	assert_non_null(buf);
	buf[0] = '\0';
	for (int waited = 0; waited < ms; waited += 5) {
		pump(f, 5);
		for (;;) {
			if (len + 2048 > size) {
				size *= 2;
				buf = realloc(buf, size);
				assert_non_null(buf);
			}
			n = recv(fd, buf + len, size - len - 1, MSG_DONTWAIT);
			if (n <= 0)
				break;
			len += (size_t)n;
			buf[len] = '\0';
		}
		if (n == 0 || (n < 0 && errno != EAGAIN) || has_final(buf))
			break;
	}
	return buf;
}

static char *request(struct fake *f, const char *req)
{
	int fd = connect_to(f->path);
	char *reply;

	send_str(fd, req, strlen(req));
	reply = converse(f, fd, 3000);
	close(fd);
	return reply;
}

/* Ends kept dump @i with @err; the client on @fd must read @want within @ms. Closes @fd. */
static void finish_dump(struct fake *f, int i, int err, int fd, int ms, const char *want)
{
	char *got;

	control_client__done(f->fc.pending[i], err, NULL);
	f->fc.pending[i] = NULL;
	got = converse(f, fd, ms);
	assert_string_equal(got, want);
	free(got);
	close(fd);
}

static void expect_reply(struct fake *f, const char *req, const char *want)
{
	char *got = request(f, req);

	assert_string_equal(got, want);
	free(got);
}

static void test_socket_file(void **state)
{
	struct fake *f = *state;
	struct stat st;
	char dir[160];

	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0660);
	snprintf(dir, sizeof(dir), "%s/run", f->dir);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_string_equal(control__path(f->ctl), f->path);
	assert_false(control__socket_activated(f->ctl));
	/* Deleting removes the socket it made. */
	control__delete(f->ctl);
	f->ctl = NULL;
	assert_int_equal(lstat(f->path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

static void test_status(void **state)
{
	struct fake *f = *state;

	expect_reply(f, "status\n", STATUS_REPLY);
	/* CRLF and surrounding blanks are fine. */
	expect_reply(f, "  status \r\n", STATUS_REPLY);
	assert_int_equal(f->fc.status_calls, 2);
}

static void test_list(void **state)
{
	struct fake *f = *state;
	char *got;

	expect_reply(f, "list\n", "ok\n");
	f->fc.list_lines = 2;
	got = request(f, "list\n");
	assert_non_null(strstr(got, "host-20240101-000000.000-1 4096 "));
	assert_non_null(strstr(got, "host-20240101-000000.000-2 4096 "));
	assert_non_null(strstr(got, "\nok\n"));
	free(got);
	/* Over CONTROL_MAX_REPLY: the lines stop and the reply ends in an error. */
	f->fc.list_lines = CONTROL_MAX_REPLY / 100;
	got = request(f, "list\n");
	assert_true(strlen(got) <= CONTROL_MAX_REPLY + 100);
	assert_non_null(strstr(got, "\nerror reply too long"));
	free(got);
}

static void test_reload_error(void **state)
{
	struct fake *f = *state;

	expect_reply(f, "reload\n",
		     "perfsnapd.conf:3: bad size\nerror configuration has 1 error\n");
	assert_int_equal(f->fc.reload_calls, 1);
}

static void test_bad_requests(void **state)
{
	struct fake *f = *state;
	char *got;
	int fd;

	expect_reply(f, "frob x\n",
		     "error unknown command 'frob' (try dump, trigger, status, list, reload)\n");
	expect_reply(f, "\n", "error empty request (try dump, trigger, status, list, reload)\n");
	expect_reply(f, "status now\n", "error 'status' takes no arguments\n");
	expect_reply(f, "reload now\n", "error 'reload' takes no arguments\n");
	fd = connect_to(f->path);
	send_str(fd, "sta\0tus\n", 8);
	got = converse(f, fd, 3000);
	assert_string_equal(got, "error bad request: NUL byte\n");
	free(got);
	close(fd);
	assert_int_equal(f->fc.status_calls, 0);
}

static void test_line_too_long(void **state)
{
	struct fake *f = *state;
	char line[4096];
	char *got;
	int fd;

	/* The longest line taken: CONTROL_MAX_LINE - 1 bytes, then the newline. */
	memset(line, 'r', sizeof(line));
	memcpy(line, "dump ", 5);
	line[CONTROL_MAX_LINE - 1] = '\n';
	fd = connect_to(f->path);
	send_str(fd, line, CONTROL_MAX_LINE);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	assert_int_equal(strlen(f->fc.reasons[0]), CONTROL_MAX_LINE - 1 - 5);
	finish_dump(f, 0, 0, fd, 3000, "ok\n");

	/* One more byte is too long, newline or not. */
	line[CONTROL_MAX_LINE - 1] = 'r';
	line[CONTROL_MAX_LINE] = '\n';
	fd = connect_to(f->path);
	send_str(fd, line, CONTROL_MAX_LINE + 1);
	got = converse(f, fd, 3000);
	assert_string_equal(got, "error request line too long (max 1023 bytes)\n");
	free(got);
	close(fd);
	fd = connect_to(f->path);
	send_str(fd, line, sizeof(line));
	got = converse(f, fd, 3000);
	assert_string_equal(got, "error request line too long (max 1023 bytes)\n");
	free(got);
	close(fd);
	assert_int_equal(f->fc.nr_pending, 1);
	pump(f, 20);
	assert_int_equal(control__nr_clients(f->ctl), 0);
}

static void test_dump_answered_later(void **state)
{
	struct fake *f = *state;
	char buf[64];
	int fd;

	fd = connect_to(f->path);
	send_str(fd, "dump  disk full on /var \n", 25);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	assert_string_equal(f->fc.reasons[0], "disk full on /var");
	/* Nothing yet: no idle timeout while the dump runs. */
	assert_int_equal(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	assert_true(control_client__connected(f->fc.pending[0]));
	assert_int_equal(control_client__add_line(f->fc.pending[0], "/snap/a.perf.data"), 0);
	assert_int_equal(control_client__add_line(f->fc.pending[0], "/snap/a.json"), 0);
	finish_dump(f, 0, 0, fd, 3000, "/snap/a.perf.data\n/snap/a.json\nok\n");

	/* No reason given: "control"; an error with strerror's text. */
	fd = connect_to(f->path);
	send_str(fd, "dump\n", 5);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 2);
	assert_string_equal(f->fc.reasons[1], "control");
	finish_dump(f, 1, -ENOSPC, fd, 3000, "error No space left on device\n");
}

/* A reason that is not UTF-8 reaches the daemon, and a reply line the client, as valid text. */
static void test_dump_not_utf8(void **state)
{
	static const char req[] = "dump caf\xc3\xa9 \xff\xe2\x82.\n";
	struct fake *f = *state;
	int fd;

	fd = connect_to(f->path);
	send_str(fd, req, sizeof(req) - 1);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	assert_string_equal(f->fc.reasons[0], "caf\xc3\xa9 ???.");
	assert_int_equal(control_client__add_line(f->fc.pending[0], "/snap/\xc0\xaf.perf.data"), 0);
	finish_dump(f, 0, 0, fd, 3000, "/snap/??.perf.data\nok\n");
}

static void test_dump_answered_at_once(void **state)
{
	struct fake *f = *state;

	f->fc.sync_dump_error = -EAGAIN;
	expect_reply(f, "dump now\n", "error refused: now\n");
	assert_int_equal(f->fc.nr_pending, 0);
	pump(f, 20);
	assert_int_equal(control__nr_clients(f->ctl), 0);
}

static void test_dump_client_gone(void **state)
{
	struct fake *f = *state;
	int fd;

	fd = connect_to(f->path);
	send_str(fd, "dump\n", 5);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	close(fd);
	pump(f, 50);
	/* The connection is gone, the handle still valid. */
	assert_int_equal(control__nr_clients(f->ctl), 0);
	assert_false(control_client__connected(f->fc.pending[0]));
	assert_int_equal(control_client__add_line(f->fc.pending[0], "/snap/b.perf.data"), 0);
	control_client__done(f->fc.pending[0], 0, NULL);
	f->fc.pending[0] = NULL;
	pump(f, 20);
}

static void test_dump_half_close(void **state)
{
	struct fake *f = *state;
	int fd;

	/* "printf 'dump x' | socat - UNIX-CONNECT:...": no newline, then EOF. */
	fd = connect_to(f->path);
	send_str(fd, "dump x", 6);
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	assert_string_equal(f->fc.reasons[0], "x");
	assert_true(control_client__connected(f->fc.pending[0]));
	finish_dump(f, 0, 0, fd, 3000, "ok\n");
}

static void test_control_deleted_first(void **state)
{
	struct fake *f = *state;
	int fd;

	fd = connect_to(f->path);
	send_str(fd, "dump\n", 5);
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, 1);
	/* Shutdown: the daemon gives the client back after the socket is gone. */
	control__delete(f->ctl);
	f->ctl = NULL;
	assert_false(control_client__connected(f->fc.pending[0]));
	finish_dump(f, 0, 0, fd, 200, "");
}

static void test_idle_timeout(void **state)
{
	struct fake *f = *state;
	struct timespec t0, t1;
	char *got;
	int fd;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = connect_to(f->path);
	send_str(fd, "stat", 4);
	got = converse(f, fd, 3000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_string_equal(got, "error timed out waiting for a request\n");
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	free(got);
	close(fd);
	/* A client waiting for a dump does not time out. */
	fd = connect_to(f->path);
	send_str(fd, "dump\n", 5);
	pump(f, 500);
	assert_int_equal(f->fc.nr_pending, 1);
	assert_true(control_client__connected(f->fc.pending[0]));
	finish_dump(f, 0, 0, fd, 3000, "ok\n");
}

static void test_many_clients(void **state)
{
	struct fake *f = *state;
	int fd[CONTROL_MAX_CLIENTS + 1];
	char *got;

	for (int i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		fd[i] = connect_to(f->path);
		pump(f, 1);
	}
	pump(f, 50);
	assert_int_equal(control__nr_clients(f->ctl), CONTROL_MAX_CLIENTS);
	/* A full table of idle connections: the oldest makes room. */
	fd[CONTROL_MAX_CLIENTS] = connect_to(f->path);
	pump(f, 50);
	got = converse(f, fd[0], 3000);
	assert_string_equal(got, "error closed while idle: the control socket is busy\n");
	free(got);
	assert_int_equal(control__nr_clients(f->ctl), CONTROL_MAX_CLIENTS);
	/* The others are still served, all at once. */
	for (int i = 1; i <= CONTROL_MAX_CLIENTS; i++)
		send_str(fd[i], "status\n", 7);
	for (int i = 1; i <= CONTROL_MAX_CLIENTS; i++) {
		got = converse(f, fd[i], 3000);
		assert_non_null(strstr(got, "\nok\n"));
		free(got);
	}
	for (int i = 0; i <= CONTROL_MAX_CLIENTS; i++)
		close(fd[i]);
	pump(f, 20);
	/* Connections that wait for a dump are never closed for room. */
	for (int i = 0; i < CONTROL_MAX_CLIENTS; i++) {
		fd[i] = connect_to(f->path);
		send_str(fd[i], "dump\n", 5);
		pump(f, 1);
	}
	pump(f, 50);
	assert_int_equal(f->fc.nr_pending, CONTROL_MAX_CLIENTS);
	fd[CONTROL_MAX_CLIENTS] = connect_to(f->path);
	got = converse(f, fd[CONTROL_MAX_CLIENTS], 3000);
	assert_string_equal(got, "error too many connections, try again\n");
	free(got);
	for (int i = 0; i < f->fc.nr_pending; i++) {
		control_client__done(f->fc.pending[i], 0, NULL);
		f->fc.pending[i] = NULL;
	}
	f->fc.nr_pending = 0;
	for (int i = 0; i <= CONTROL_MAX_CLIENTS; i++)
		close(fd[i]);
	pump(f, 20);
	assert_int_equal(control__nr_clients(f->ctl), 0);
}

static void test_existing_files(void **state)
{
	struct fake *f = *state;
	struct control *other = NULL;
	struct control_config cfg = { .path = f->path };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	/* A live socket is not taken over. */
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &other),
			 -EADDRINUSE);
	control__delete(f->ctl);
	f->ctl = NULL;
	/* Anything but a socket is left alone. */
	fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &other), -EEXIST);
	assert_int_equal(unlink(f->path), 0);
	/* A stale socket is replaced. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &f->ctl), 0);
	expect_reply(f, "status\n", STATUS_REPLY);
	/* Bad paths (unknown groups are the configuration's to refuse). */
	cfg.path = "relative.sock";
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &other), -EINVAL);
	cfg.path = f->path;
}

/* Runs the loop until child @pid exits; returns its exit status. */
static int wait_child(struct fake *f, pid_t pid)
{
	int status = 0;

	for (int i = 0; i < 1000; i++) {
		pump(f, 5);
		if (waitpid(pid, &status, WNOHANG) == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * In a child as uid 65534 with @gid and @groups: sends "status" and exits
 * 0 if the reply is @want, else 1 (2 if it could not drop privileges).
 */
static int child_request(struct fake *f, gid_t gid, const gid_t *groups, int nr_groups,
			 const char *want)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		char buf[512];
		size_t len = 0;
		ssize_t n;
		int fd;

		alarm(10);
		if (setgroups((size_t)nr_groups, groups) < 0 || setgid(gid) < 0 ||
		    setuid(65534) < 0)
			_exit(2);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
		    write(fd, "status\n", 7) != 7) {
			/* Refused peers may see the close before the write. */
		}
		while (len < sizeof(buf) - 1 &&
		       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)n;
		buf[len] = '\0';
		_exit(strcmp(buf, want) ? 1 : 0);
	}
	return wait_child(f, pid);
}

static void test_peer_credentials(void **state)
{
	struct fake *f = *state;
	struct group *users = getgrnam("users");
	gid_t nobody = 65534, both[2];
	struct stat st;
	char dir[160];

	if (geteuid() != 0 || !users)
		test_skip("needs root and the group 'users'");
	both[0] = nobody;
	both[1] = users->gr_gid;
	/* Let uid 65534 reach the socket, so that control itself decides. */
	assert_int_equal(chmod(f->dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/run", f->dir);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chmod(f->path, 0666), 0);

	/* Root only: refused. */
	assert_int_equal(child_request(f, nobody, NULL, 0, "error permission denied: need root\n"),
			 0);
	/* Group "users": refused without it, served with it as gid or supplementary group. */
	assert_int_equal(control__set_group(f->ctl, "users", users->gr_gid), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_int_equal(st.st_gid, users->gr_gid);
	assert_int_equal(chmod(f->path, 0666), 0);
	assert_int_equal(child_request(f, nobody, &nobody, 1,
				       "error permission denied: need root or group 'users'\n"),
			 0);
	assert_int_equal(child_request(f, nobody, both, 2, STATUS_REPLY), 0);
	assert_int_equal(child_request(f, users->gr_gid, NULL, 0, STATUS_REPLY), 0);
	assert_int_equal(f->fc.status_calls, 2);
	/* The socket file goes to the group (0660 again), and back. */
	assert_int_equal(control__set_group(f->ctl, "users", users->gr_gid), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, users->gr_gid);
	assert_int_equal(st.st_mode & 07777, 0660);
	assert_int_equal(control__set_group(f->ctl, NULL, 0), 0);
	assert_int_equal(lstat(f->path, &st), 0);
	assert_int_equal(st.st_gid, getegid());
}

/*
 * systemd's socket is fd 3 (SD_LISTEN_FDS_START), set up before the event
 * loop, which would otherwise take fd 3 for itself. Whatever holds fd 3
 * when the test starts (ctest does) is set aside and given back by
 * teardown_activation, so the test runs wherever it is started.
 */
static int setup_activation(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct fake *f = fake_new();
	int fd;

	snprintf(f->path, sizeof(f->path), "%s/activated.sock", f->dir);
	if (fcntl(3, F_GETFD) >= 0)
		assert_true((f->saved_fd3 = fcntl(3, F_DUPFD_CLOEXEC, 10)) >= 0);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", f->path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 4), 0);
	if (fd != 3) {
		assert_int_equal(dup2(fd, 3), 3);
		close(fd);
	}
	f->base = event_base_new();
	assert_non_null(f->base);
	*state = f;
	return 0;
}

static int teardown_activation(void **state)
{
	struct fake *f = *state;

	if (f->saved_fd3 >= 0) {
		assert_int_equal(dup2(f->saved_fd3, 3), 3);
		close(f->saved_fd3);
	} else {
		close(3); /* still the socket if the test failed before closing it */
	}
	return teardown(state);
}

static void test_socket_activation(void **state)
{
	struct fake *f = *state;
	struct control_config cfg = { .path = NULL };
	char pid[32];
	struct stat st;

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	/* With no path it would be /run/perfsnapd/control.sock: nothing is made there. */
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &f->ctl), 0);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	assert_true(control__socket_activated(f->ctl));
	assert_string_equal(control__path(f->ctl), "");
	expect_reply(f, "status\n", STATUS_REPLY);
	control__delete(f->ctl);
	f->ctl = NULL;
	/* The inherited socket's file stays (systemd owns it); fd 3 is closed. */
	assert_int_equal(lstat(f->path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_true(fcntl(3, F_GETFD) < 0);
}

static void test_socket_activation_wrong(void **state)
{
	struct fake *f = *state;
	struct control_config cfg = { .path = NULL };
	char pid[32];

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	/* Two sockets, or one that is not a listening Unix stream socket: refused. */
	setenv("LISTEN_FDS", "2", 1);
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &f->ctl), -EINVAL);
	assert_int_equal(close(3), 0);
	assert_int_equal(open("/dev/null", O_RDONLY), 3);
	setenv("LISTEN_FDS", "1", 1);
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &f->ctl),
			 -ENOTSOCK);
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	assert_null(f->ctl);
	close(3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_socket_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_line_too_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_answered_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_not_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_answered_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_client_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_half_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_deleted_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_timeout, setup_short_timeout, teardown),
		cmocka_unit_test_setup_teardown(test_many_clients, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_peer_credentials, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket_activation, setup_activation,
						teardown_activation),
		cmocka_unit_test_setup_teardown(test_socket_activation_wrong, setup_activation,
						teardown_activation),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
