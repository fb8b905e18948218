// SPDX-License-Identifier: GPL-2.0-only
/* tool_run: see tool_run.h. */
#include <fcntl.h>
#include <limits.h>
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

#include "tool_run.h"

char *tool_run__slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, chunk[4096];
	size_t len = 0, n;

	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = realloc(buf, len + n + 1);
		assert_non_null(buf);
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		return calloc(1, 1);
	buf[len] = '\0';
	return buf;
}

int tool_run(const char *tmpdir, const char *prog, const char *const *args, char **ret_out,
	     char **ret_err)
{
	char out_path[PATH_MAX], err_path[PATH_MAX];
	const char *argv[16];
	int status, i;
	pid_t pid;

	snprintf(out_path, sizeof(out_path), "%s/stdout", tmpdir);
	snprintf(err_path, sizeof(err_path), "%s/stderr", tmpdir);
	argv[0] = prog;
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int n = open("/dev/null", O_RDONLY);

		if (o < 0 || e < 0 || n < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0 || dup2(n, 0) < 0)
			_exit(126);
		/* No user config, no pager, no colors: plain output. */
		setenv("PERF_CONFIG", "/dev/null", 1);
		setenv("PERF_PAGER", "cat", 1);
		execvp(prog, (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	*ret_out = tool_run__slurp(out_path);
	*ret_err = tool_run__slurp(err_path);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int tool_run__perf(const char *tmpdir, const char *const *args, char **ret_out, char **ret_err)
{
	const char *perf = getenv("PERF");

	return tool_run(tmpdir, perf && *perf ? perf : "perf", args, ret_out, ret_err);
}
