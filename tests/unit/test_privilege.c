// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for privilege: in a child started with every capability (as
 * root, the way perfsnapd is started by hand), privilege__limit() leaves
 * the table's own capabilities effective and permitted and nothing else,
 * no inheritable or ambient one, a bounding set of the table's, and a
 * program it then runs as root gets no more than that bounding set.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <linux/capability.h>

#include "privilege.h"
#include "test_skip.h"

struct caps {
	uint64_t eff, prm, inh, bnd, amb;
};

/* The Cap lines of a /proc/PID/status text. */
static int parse_caps(FILE *f, struct caps *c)
{
	char line[256];
	int n = 0;

	while (fgets(line, sizeof(line), f)) {
		n += sscanf(line, "CapEff: %" SCNx64, &c->eff) == 1;
		n += sscanf(line, "CapPrm: %" SCNx64, &c->prm) == 1;
		n += sscanf(line, "CapInh: %" SCNx64, &c->inh) == 1;
		n += sscanf(line, "CapBnd: %" SCNx64, &c->bnd) == 1;
		n += sscanf(line, "CapAmb: %" SCNx64, &c->amb) == 1;
	}
	return n == 5 ? 0 : -EINVAL;
}

static int own_caps(struct caps *c)
{
	FILE *f = fopen("/proc/self/status", "re");
	int r;

	if (!f)
		return -errno;
	r = parse_caps(f, c);
	fclose(f);
	return r;
}

/* The capabilities of a shell run as the child runs its programs. */
static int child_program_caps(struct caps *c)
{
	FILE *f = popen("cat /proc/self/status", "re");
	int r;

	if (!f)
		return -errno;
	r = parse_caps(f, c);
	return pclose(f) == 0 ? r : -ECHILD;
}

enum { OK, LIMIT = 10, READ, EFFECTIVE, INHERITED, BOUNDING, PROGRAM, KEPT };

static int limited_child(uint64_t own, uint64_t bound, const struct caps *before)
{
	struct caps after, prog;
	char error[256];

	if (privilege__limit(error, sizeof(error)) < 0) {
		fprintf(stderr, "%s\n", error);
		return LIMIT;
	}
	if (own_caps(&after) < 0 || child_program_caps(&prog) < 0)
		return READ;
	if ((after.eff & ~own) || (after.prm & ~own))
		return EFFECTIVE;
	if (after.inh || after.amb)
		return INHERITED;
	if (after.bnd & ~bound)
		return BOUNDING;
	/* Root's program gets its bounding set: never more than the table's. */
	if ((prog.eff | prog.prm) & ~bound)
		return PROGRAM;
	/* What it had of its own it keeps. */
	if ((before->eff & own) != after.eff)
		return KEPT;
	return OK;
}

static void test_limit(void **state)
{
	uint64_t own, bound;
	struct caps before;
	int status;
	pid_t pid;

	(void)state;
	assert_int_equal(own_caps(&before), 0);
	if (!(before.eff & (1ull << CAP_SETPCAP)) || (before.bnd & (1ull << CAP_SYS_ADMIN)) == 0)
		test_skip("needs root with CAP_SETPCAP and CAP_SYS_ADMIN in its bounding set");
	privilege__table(&own, &bound);
	assert_true(own & (1ull << CAP_PERFMON));
	assert_false(own & (1ull << CAP_SYS_ADMIN));
	assert_false(own & (1ull << CAP_SETUID));
	assert_true(bound & (1ull << CAP_SETUID));
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(limited_child(own, bound, &before));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), OK);
}

/* A second call (or a start under the unit) finds nothing to give up, and succeeds. */
static void test_twice(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char error[256];

		if (privilege__limit(error, sizeof(error)) < 0)
			_exit(LIMIT);
		_exit(privilege__limit(error, sizeof(error)) < 0 ? LIMIT : OK);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_twice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
