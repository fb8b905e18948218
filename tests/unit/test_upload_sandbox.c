// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for upload_sandbox: in a child that entered it (as root, the
 * way perfsnapd starts the helper), the user is nobody, no capability is
 * left, a file cannot be opened for writing nor the file system changed,
 * a packet socket is refused, reading and IP sockets still work, and
 * perf_event_open, ptrace and execve kill the process with SIGSYS.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_skip.h"
#include "upload_sandbox.h"

/* Exit codes of a child's checks: each names the check that failed. */
enum {
	OK = 0,
	ENTER = 10,
	USER,
	CAPS,
	NNP,
	WRITE_OPEN,
	CREATE,
	UNLINK,
	MKDIR,
	READ_OPEN,
	PACKET,
	INET,
};

static const char *const names[] = {
	[ENTER] = "entering the sandbox",
	[USER] = "user nobody",
	[CAPS] = "no capability",
	[NNP] = "no_new_privs",
	[WRITE_OPEN] = "open for writing refused",
	[CREATE] = "creat refused",
	[UNLINK] = "unlink refused",
	[MKDIR] = "mkdir refused",
	[READ_OPEN] = "open for reading allowed",
	[PACKET] = "packet socket refused",
	[INET] = "IP socket allowed",
};

static char victim[] = "/tmp/test_upload_sandbox.XXXXXX";

static int setup(void **state)
{
	int fd = mkstemp(victim);

	(void)state;
	if (fd < 0)
		return -1;
	/* World-writable: only the filter, not the permissions, stops nobody. */
	fchmod(fd, 0666);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(victim);
	return 0;
}

static int caps_clear(void)
{
	char line[256];
	int clear = 0;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cap", 3) && strstr(line, ":\t0000000000000000"))
			clear++;
	fclose(f);
	return clear == 5; /* CapInh, CapPrm, CapEff, CapBnd, CapAmb */
}

static int checks(void)
{
	struct passwd *pw = getpwnam(UPLOAD_SANDBOX_USER);
	uid_t nobody = pw ? pw->pw_uid : 65534;
	char error[256], dir[sizeof(victim) + 4];
	int fd;

	if (upload_sandbox__enter(error, sizeof(error)) < 0) {
		fprintf(stderr, "%s\n", error);
		return ENTER;
	}
	if (getuid() != nobody || geteuid() != nobody)
		return USER;
	if (!caps_clear())
		return CAPS;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return NNP;
	if (open(victim, O_WRONLY) >= 0 || errno != EACCES || open(victim, O_RDWR) >= 0 ||
	    openat(AT_FDCWD, victim, O_WRONLY | O_APPEND) >= 0)
		return WRITE_OPEN;
	if (creat("/tmp/test_upload_sandbox.new", 0600) >= 0 ||
	    open("/tmp/test_upload_sandbox.new", O_RDONLY | O_CREAT, 0600) >= 0)
		return CREATE;
	if (unlink(victim) == 0 || errno != EPERM)
		return UNLINK;
	snprintf(dir, sizeof(dir), "%s.dir", victim);
	if (mkdir(dir, 0700) == 0 || errno != EPERM)
		return MKDIR;
	fd = open(victim, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return READ_OPEN;
	close(fd);
	if (socket(AF_PACKET, SOCK_DGRAM, 0) >= 0 || errno != EAFNOSUPPORT)
		return PACKET;
	fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return INET;
	close(fd);
	return OK;
}

static void skip_unless_root(void)
{
	if (geteuid() != 0)
		test_skip("the sandbox's drop from root needs root");
}

/* Runs @fn in a child; returns its wait status. */
static int in_child(int (*fn)(void))
{
	int status = 0;
	pid_t pid = fork();

	if (pid == 0)
		_exit(fn());
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void test_sandbox_refuses_and_allows(void **state)
{
	size_t code;
	int status;

	(void)state;
	skip_unless_root();
	status = in_child(checks);
	if (!WIFEXITED(status))
		fail_msg("child died: signal %d", WTERMSIG(status));
	code = (size_t)WEXITSTATUS(status);
	if (code != OK)
		fail_msg("failed: %s",
			 code < sizeof(names) / sizeof(*names) && names[code] ? names[code] : "?");
	assert_int_equal(access(victim, F_OK), 0);
}

static int call_perf_event_open(void)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_SOFTWARE,
					.size = sizeof(attr),
					.config = PERF_COUNT_SW_DUMMY };
	char error[256];

	if (upload_sandbox__enter(error, sizeof(error)) < 0)
		return ENTER;
	syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
	return OK;
}

static int call_execve(void)
{
	char prog[] = "true", *argv[] = { prog, NULL }, error[256];

	if (upload_sandbox__enter(error, sizeof(error)) < 0)
		return ENTER;
	execve("/bin/true", argv, argv + 1);
	return OK;
}

static int call_setuid(void)
{
	char error[256];

	if (upload_sandbox__enter(error, sizeof(error)) < 0)
		return ENTER;
	syscall(SYS_setuid, 0);
	return OK;
}

static void assert_killed(int status)
{
	if (WIFEXITED(status))
		fail_msg("exited %d: the call went through", WEXITSTATUS(status));
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGSYS);
}

static void test_sandbox_kills(void **state)
{
	(void)state;
	skip_unless_root();
	assert_killed(in_child(call_perf_event_open));
	assert_killed(in_child(call_execve));
	assert_killed(in_child(call_setuid));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox_refuses_and_allows),
		cmocka_unit_test(test_sandbox_kills),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
