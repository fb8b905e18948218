/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tool_run: for the C integration tests, run a real client (perf,
 * trace-cmd) and capture what it printed.
 */
#ifndef PERFSNAPD_TEST_TOOL_RUN_H
#define PERFSNAPD_TEST_TOOL_RUN_H

/* Reads a whole file into a NUL-terminated malloc'ed string. */
char *tool_run__slurp(const char *path);

/*
 * Runs @prog with @args (NULL-terminated, at most 14), stdin from
 * /dev/null, no perf config and no pager; its stdout and stderr go through
 * files in @tmpdir. Returns the exit status (128 + signal if killed).
 */
int tool_run(const char *tmpdir, const char *prog, const char *const *args, char **ret_out,
	     char **ret_err);

/* tool_run() of perf: $PERF, else "perf" from PATH. */
int tool_run__perf(const char *tmpdir, const char *const *args, char **ret_out, char **ret_err);

#endif
