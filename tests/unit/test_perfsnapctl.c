// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnapctl against a fake perfsnapd: the real control module with fake
 * ops on an event loop this test drives, and the real perfsnapctl binary
 * run as a child. Checks what it prints, where, and its exit codes.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <event2/event.h>

#include "control.h"
#include "fake_control.h"
#include "test_dir.h"

struct fake {
	struct fake_control fc; /* the control's ctx */
	struct event_base *base;
	struct control *ctl;
	char dir[64];
	char path[128];
	struct event *answer_ev;
	int dump_error; /* how the dump ends */
	bool never_answer;
};

struct result {
	int status; /* exit code, or -1 */
	char out[8192];
	char err[8192];
};

static const char *const status_lines[] = { "state: recording", "ok", NULL };
static const char *const reload_lines[] = { "perfsnapd.conf:3: bad size '4Q'", NULL };

static void answer_dump(evutil_socket_t fd, short what, void *arg)
{
	struct fake *f = arg;

	(void)fd;
	(void)what;
	if (f->dump_error) {
		control_client__done(f->fc.pending[0], f->dump_error, "snapshot failed: %s",
				     strerror(-f->dump_error));
	} else {
		control_client__add_line(f->fc.pending[0], "%s/h-1.perf.data", f->dir);
		control_client__add_line(f->fc.pending[0], "%s/h-1.json", f->dir);
		control_client__done(f->fc.pending[0], 0, NULL);
	}
	f->fc.pending[0] = NULL;
	f->fc.nr_pending = 0;
}

/* Answers 100 ms later, as a real dump would. */
static void answer_later(struct fake_control *fc)
{
	struct fake *f = fc->ctx;
	struct timeval later = { .tv_usec = 100000 };

	assert_int_equal(fc->nr_pending, 1);
	if (!f->never_answer)
		evtimer_add(f->answer_ev, &later);
}

static int setup(void **state)
{
	struct fake *f = calloc(1, sizeof(*f));
	struct control_config cfg = { 0 };

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/test_perfsnapctl.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->path, sizeof(f->path), "%s/control.sock", f->dir);
	f->base = event_base_new();
	assert_non_null(f->base);
	f->answer_ev = evtimer_new(f->base, answer_dump, f);
	assert_non_null(f->answer_ev);
	cfg.path = f->path;
	f->fc.status_lines = status_lines;
	/* 100 snapshots, the i-th of (i + 1) * 1000 bytes. */
	f->fc.list_format = "h-20240101-000000.000-%1$zu %1$zu000 signal";
	f->fc.list_lines = 100;
	f->fc.reload_lines = reload_lines;
	f->fc.reload_error = "configuration not reloaded";
	f->fc.on_dump = answer_later;
	f->fc.ctx = f;
	assert_int_equal(control__new(f->base, &cfg, &fake_control_ops, &f->fc, &f->ctl), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fake *f = *state;

	control__delete(f->ctl);
	fake_control__cancel(&f->fc);
	event_free(f->answer_ev);
	event_base_free(f->base);
	test_dir__remove(f->dir);
	free(f);
	return 0;
}

static void read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, size - 1);
	assert_true(n >= 0);
	buf[n] = '\0';
	close(fd);
}

/* Runs perfsnapctl with @args (NULL-terminated) while serving the loop. */
static void run_ctl(struct fake *f, struct result *res, ...)
{
	const char *argv[16] = { PERFSNAPCTL };
	char out[128], err[128];
	struct timeval tick = { .tv_usec = 5000 };
	int argc = 1, status;
	va_list ap;
	pid_t pid;

	va_start(ap, res);
	while ((argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	snprintf(out, sizeof(out), "%s/stdout", f->dir);
	snprintf(err, sizeof(err), "%s/stderr", f->dir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execv(PERFSNAPCTL, (char *const *)argv);
		_exit(127);
	}
	res->status = -1;
	for (int i = 0; i < 2000; i++) {
		event_base_loopexit(f->base, &tick);
		event_base_dispatch(f->base);
		if (waitpid(pid, &status, WNOHANG) == pid) {
			res->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
			break;
		}
	}
	if (res->status == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	read_file(out, res->out, sizeof(res->out));
	read_file(err, res->err, sizeof(res->err));
}

static void test_status(void **state)
{
	struct fake *f = *state;
	struct result res;

	run_ctl(f, &res, "--socket", f->path, "status", NULL);
	assert_int_equal(res.status, 0);
	/* The daemon's escaped " ok" comes out as the data line it was. */
	assert_string_equal(res.out, "state: recording\nok\n");
	assert_string_equal(res.err, "");
}

static void test_list(void **state)
{
	struct fake *f = *state;
	struct result res;

	setenv("PERFSNAPD_SOCKET", f->path, 1);
	run_ctl(f, &res, "list", NULL);
	unsetenv("PERFSNAPD_SOCKET");
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "h-20240101-000000.000-1 1000 signal\n"));
	assert_non_null(strstr(res.out, "h-20240101-000000.000-100 100000 signal\n"));
	assert_string_equal(res.err, "");
}

static void test_dump(void **state)
{
	struct fake *f = *state;
	struct result res;
	char want[256];

	run_ctl(f, &res, "--socket", f->path, "--timeout", "5", "dump", "--reason",
		"latency spike\non db1", NULL);
	assert_int_equal(res.status, 0);
	snprintf(want, sizeof(want), "%s/h-1.perf.data\n%s/h-1.json\n", f->dir, f->dir);
	assert_string_equal(res.out, want);
	assert_string_equal(res.err, "");
	assert_string_equal(f->fc.reasons[0], "latency spike on db1");

	run_ctl(f, &res, "-s", f->path, "dump", NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(f->fc.reasons[0], "control");
}

static void test_dump_fails(void **state)
{
	struct fake *f = *state;
	struct result res;

	f->dump_error = -ENOSPC;
	run_ctl(f, &res, "--socket", f->path, "dump", NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "");
	assert_string_equal(res.err, "perfsnapctl: snapshot failed: No space left on device\n");
}

static void test_reload_fails(void **state)
{
	struct fake *f = *state;
	struct result res;

	run_ctl(f, &res, "--socket", f->path, "reload", NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "perfsnapd.conf:3: bad size '4Q'\n");
	assert_string_equal(res.err, "perfsnapctl: configuration not reloaded\n");
}

static void test_timeout(void **state)
{
	struct fake *f = *state;
	struct result res;

	f->never_answer = true;
	run_ctl(f, &res, "--socket", f->path, "--timeout", "1", "dump", NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "");
	assert_string_equal(res.err, "perfsnapctl: no answer from perfsnapd within 1 s\n");
	/* The daemon may answer after the client left. */
	assert_int_equal(f->fc.nr_pending, 1);
	control_client__done(f->fc.pending[0], 0, NULL);
	f->fc.nr_pending = 0;
}

static void test_no_daemon(void **state)
{
	struct fake *f = *state;
	struct result res;
	char path[128], want[256];

	snprintf(path, sizeof(path), "%s/missing.sock", f->dir);
	run_ctl(f, &res, "--socket", path, "status", NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want),
		 "perfsnapctl: is perfsnapd running? socket %s: No such file or directory\n", path);
	assert_string_equal(res.err, want);
	/* A socket nobody listens on. */
	control__delete(f->ctl);
	f->ctl = NULL;
	assert_int_equal(mknod(f->path, S_IFSOCK | 0600, 0), 0);
	run_ctl(f, &res, "--socket", f->path, "status", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "is perfsnapd running?"));
	assert_non_null(strstr(res.err, "Connection refused"));
}

static void test_usage(void **state)
{
	struct fake *f = *state;
	struct result res;
	char long_reason[CONTROL_MAX_LINE + 16];

	run_ctl(f, &res, NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "no command"));
	run_ctl(f, &res, "--socket", f->path, "frob", NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "unknown command 'frob'"));
	run_ctl(f, &res, "--socket", f->path, "status", "now", NULL);
	assert_int_equal(res.status, 2);
	run_ctl(f, &res, "--socket", f->path, "dump", "why", NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "use --reason TEXT"));
	run_ctl(f, &res, "--socket", f->path, "dump", "--frob", NULL);
	assert_int_equal(res.status, 2);
	run_ctl(f, &res, "--timeout", "soon", "status", NULL);
	assert_int_equal(res.status, 2);
	run_ctl(f, &res, "--bogus", "status", NULL);
	assert_int_equal(res.status, 2);
	memset(long_reason, 'x', sizeof(long_reason) - 1);
	long_reason[sizeof(long_reason) - 1] = '\0';
	run_ctl(f, &res, "--socket", f->path, "dump", "--reason", long_reason, NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "too long (at most 1018 bytes)"));
	/* The longest reason that fits goes through whole. */
	long_reason[1018] = '\0';
	run_ctl(f, &res, "--socket", f->path, "dump", "--reason", long_reason, NULL);
	assert_int_equal(res.status, 0);
	assert_int_equal(strlen(f->fc.reasons[0]), 1018);
	/* A window goes before the reason, ended by "--"; a reason starting "--" stays one. */
	run_ctl(f, &res, "--socket", f->path, "dump", "--last", "2s", "--max-size", "8M",
		"--reason", "spike", NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(f->fc.reasons[0], "--since=-2000000000 --max-size=8388608 -- spike");
	run_ctl(f, &res, "--socket", f->path, "dump", "--reason", "--odd", NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(f->fc.reasons[0], "-- --odd");
	/* Bad windows: said, exit 2, nothing asked. */
	{
		static const char *const bad[][3] = {
			{ "--last", "0", "is zero" },
			{ "--since", "+5s", "in the future" },
			{ "--until", "tomorrow", "bad time 'tomorrow'" },
			{ "--max-size", "1.5M", "bad size" },
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			f->fc.reasons[0][0] = '\0';
			run_ctl(f, &res, "--socket", f->path, "dump", bad[i][0], bad[i][1], NULL);
			assert_int_equal(res.status, 2);
			assert_non_null(strstr(res.err, bad[i][2]));
			assert_non_null(strstr(res.err, "Nothing was written."));
			assert_string_equal(f->fc.reasons[0], "");
		}
		run_ctl(f, &res, "--socket", f->path, "dump", "--since", "-1s", "--until", "-2s",
			NULL);
		assert_int_equal(res.status, 2);
		assert_non_null(strstr(res.err, "--since is not before --until"));
	}
	run_ctl(f, &res, "--help", NULL);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "usage: perfsnapctl"));
	assert_string_equal(res.err, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reload_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_daemon, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
