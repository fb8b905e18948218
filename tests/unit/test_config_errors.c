// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config's diagnostics: every bad file under
 * tests/data/config and bad value, refused with -EINVAL and one diagnostic
 * per problem at its line with its text.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <tracefs.h>
#include "config.h"
#include "snapshot.h"
#include "snapshot_name.h"
#include "snapshot_tracedat.h"
#include "test_dir.h"
#include "config_test.h"

static void test_bad_unknown_key(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_unknown_key.conf", &d, 2);
	expect_diag(&d, path, 3, "[capture] buffer:", "unknown key",
		    "accepted in [capture]: events, buffer_size, cpus");
	expect_diag(&d, path, 6, "[snapshot] format:", "unknown key",
		    "accepted in [snapshot]: directory, formats");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_unknown_section(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_unknown_section.conf", &d, 2);
	expect_diag(&d, path, 6, "[snapshots]", "unknown section",
		    "accepted: [capture], [snapshot]");
	/* Even an empty one, which inih never shows the handler. */
	expect_diag(&d, path, 8, "[output]", "unknown section");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_size(void **state)
{
	static const char *const bad[] = { "0",	    "-1", "4MB", "M",
					   "1025M", "2G", "4 M", "99999999999999999999" };
	struct config_diags d = { 0 };
	char *path, *line = NULL;
	size_t size = 0, i;
	FILE *out;

	(void)state;
	path = load_bad("bad_size.conf", &d, 1);
	expect_diag(&d, path, 4, "[capture] buffer_size", "'4Q'",
		    "accepted: a number with optional K, M or G suffix (bytes), e.g. 4M");

	/* The exact text a user sees. */
	out = open_memstream(&line, &size);
	config_diags__print(&d, out);
	fclose(out);
	assert_true(strncmp(line, path, strlen(path)) == 0);
	assert_string_equal(line + strlen(path),
			    ":4: [capture] buffer_size: bad size '4Q': accepted: a number with "
			    "optional K, M or G suffix (bytes), e.g. 4M\n");
	free(line);
	config_diags__clear(&d);
	free(path);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perfsnapd_config *cfg;
		char *text;

		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n\nbuffer_size = %s\n"
				     "[snapshot]\ndirectory = @DIR@\n",
				     bad[i]) > 0);
		assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
		assert_int_equal(d.nr, 1);
		expect_diag(&d, path, 4, "[capture] buffer_size", bad[i], "accepted:");
		config_diags__clear(&d);
		free(text);
		free(path);
	}
}

static void test_bad_unknown_event(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_unknown_event.conf", &d, 3);
	expect_diag(&d, path, 3, "[capture] events", "'sched:no_such_tracepoint'", "not found in ",
		    "/events: see `perf list tracepoint`");
	expect_diag(&d, path, 4, "[capture] events", "unknown event 'cpu-clocks'",
		    "accepted: tracepoints as system:event", "cpu-clock, task-clock");
	expect_diag(&d, path, 5, "'cycles:u'", "modifier ':u' not supported");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_unknown_term(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_unknown_term.conf", &d, 7);
	expect_diag(&d, path, 2, "[capture] events", "cpu-clock/freq=999,stack=8/",
		    "unknown term 'stack=8'",
		    "accepted: freq=N, period=N, call-graph=fp|no, overwrite, no-overwrite");
	expect_diag(&d, path, 3, "call-graph=dwarf not supported: use call-graph=fp");
	expect_diag(&d, path, 3, "call-graph=lbr not supported: use call-graph=fp");
	expect_diag(&d, path, 4, "sched:sched_switch/freq=10/", "use period=N");
	expect_diag(&d, path, 4, "task-clock/freq=0/", "bad freq '0'", "accepted:");
	expect_diag(&d, path, 5, "page-faults/freq=10,period=10/", "together");
	expect_diag(&d, path, 5, "'cycles/freq=10'", "accepted: name or name/term,term/");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_glob(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_glob.conf", &d, 2);
	expect_diag(&d, path, 3, "[capture] events", "'no_such_system*:*' matches no tracepoint",
		    "see `perf list tracepoint`");
	expect_diag(&d, path, 4, "'sched:no_such_event_*' matches no tracepoint");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_no_events(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_no_events.conf", &d, 1);
	expect_diag(&d, path, 3, "[capture] events", "no events", "accepted:");
	config_diags__clear(&d);
	free(path);

	/* No events key at all: not tied to a line. */
	path = load_bad("bad_missing_events.conf", &d, 1);
	expect_diag(&d, path, 0, "[capture] events", "no events");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_cpus(void **state)
{
	static const char *const bad[] = {
		"", "none", "0-", "-1", "3-1", "0,,1", "0,", "1 2", "0x1"
	};
	struct config_diags d = { 0 };
	char *path;
	size_t i;

	(void)state;
	path = load_bad("bad_cpus.conf", &d, 1);
	expect_diag(&d, path, 3, "[capture] cpus", "bad CPU list '0-'",
		    "accepted: all, or CPU numbers and ranges such as 0-3,8");
	config_diags__clear(&d);
	free(path);

	path = load_bad("bad_cpus_absent.conf", &d, 1);
	expect_diag(&d, path, 3, "[capture] cpus", "CPU 65535 in '0,65535' does not exist",
		    "accepted: all, or CPUs in /sys/devices/system/cpu/possible");
	config_diags__clear(&d);
	free(path);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perfsnapd_config *cfg;
		char *text;

		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\ncpus = %s\n"
				     "[snapshot]\ndirectory = @DIR@\n",
				     bad[i]) > 0);
		assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
		assert_int_equal(d.nr, 1);
		expect_diag(&d, path, 3, "[capture] cpus: bad CPU list", "accepted:");
		config_diags__clear(&d);
		free(text);
		free(path);
	}
}

static void test_bad_directory(void **state)
{
	struct config_diags d = { 0 };
	char *path, *file, *text;
	struct perfsnapd_config *cfg;

	(void)state;
	path = load_bad("bad_directory.conf", &d, 1);
	expect_diag(&d, path, 4, "[snapshot] directory", "/does-not-exist' does not exist",
		    "create it or change [snapshot] directory");
	config_diags__clear(&d);
	free(path);

	path = load_bad("bad_directory_relative.conf", &d, 1);
	expect_diag(&d, path, 4, "[snapshot] directory",
		    "'var/lib/perfsnapd' is not an absolute path", "accepted: an absolute path");
	config_diags__clear(&d);
	free(path);

	file = write_conf("plain-file", "", "", "");
	assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = %s\n",
			     file) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 4, "[snapshot] directory", "is not a directory");
	config_diags__clear(&d);
	free(text);
	free(path);
	free(file);
}

/*
 * Root can write anywhere, so check an unwritable directory from a child
 * that has become nobody.
 */
static void test_unwritable_directory(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path, *text, *locked;
	int status;
	pid_t pid;

	(void)state;
	assert_true(asprintf(&locked, "%s/locked", tmpdir) > 0);
	/* 0555: also unwritable when the tests do not run as root. */
	assert_int_equal(mkdir(locked, 0555), 0);
	assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = %s\n",
			     locked) > 0);
	path = write_conf("unwritable.conf", text, "", "");
	chmod(path, 0644);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int r;

		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(2);
		r = config__load(path, NULL, &cfg, &d);
		if (r != -EINVAL || d.nr != 1 || d.items[0].line != 4 ||
		    !strstr(d.items[0].message, "/locked' is not writable") ||
		    !strstr(d.items[0].message, "or change [snapshot] directory")) {
			config_diags__print(&d, stderr);
			_exit(1);
		}
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(locked);
	free(text);
	free(path);
}

static void test_bad_format(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	path = load_bad("bad_format.conf", &d, 1);
	expect_diag(&d, path, 5, "[snapshot] formats", "unknown format 'pcap'",
		    "accepted: perf.data, trace.dat, perfetto (one or more, space-separated)");
	config_diags__clear(&d);
	free(path);

	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\n"
				   "directory = @DIR@\nformats =\n",
				   &path, &cfg, &d),
			 -EINVAL);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 5, "[snapshot] formats", "empty", "accepted:");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_syntax(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path, *text, *long_line;

	(void)state;
	path = load_bad("bad_syntax.conf", &d, 0);
	expect_diag(&d, path, 3, "syntax error", "'buffer_size 4M'", "accepted: key = value");
	expect_diag(&d, path, 4, "syntax error", "'[snapshot'", "no closing ']'");
	config_diags__clear(&d);
	free(path);

	/* Too long for inih's line buffer: reported, not silently split. */
	long_line = malloc(400);
	memset(long_line, 'x', 399);
	long_line[399] = '\0';
	assert_true(asprintf(&text,
			     "[capture]\nevents = cpu-clock %s\n[snapshot]\n"
			     "directory = @DIR@\n",
			     long_line) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 2, "line too long", "indented lines");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* Keys outside sections, keys set twice, continued scalars. */
	assert_int_equal(load_text("top = 1\n[capture]\nevents = cpu-clock\ncpus = all\n"
				   "cpus = 0\nbuffer_size = 4M\n  8M\n[snapshot]\n"
				   "directory = @DIR@\n",
				   &path, &cfg, &d),
			 -EINVAL);
	assert_int_equal(d.nr, 3);
	expect_diag(&d, path, 1, "key 'top' outside a section");
	expect_diag(&d, path, 5, "[capture] cpus: set again (first on line 4)");
	expect_diag(&d, path, 7, "[capture] buffer_size: value continues", "'8M'");
	config_diags__clear(&d);
	free(long_line);
	free(path);
}

static void test_all_errors_collected(void **state)
{
	struct config_diags d = { 0 };
	char *path;
	size_t i;
	static const int lines[] = { 3, 4, 5, 6, 8, 9, 10 };

	(void)state;
	path = load_bad("bad_many.conf", &d, 7);
	/* In file order. */
	for (i = 0; i < d.nr; i++)
		assert_int_equal(d.items[i].line, lines[i]);
	expect_diag(&d, path, 3, "'nope:nope' not found");
	expect_diag(&d, path, 4, "[capture] buffer_size: bad size '-1'");
	expect_diag(&d, path, 5, "[capture] cpus: bad CPU list '3-1'");
	expect_diag(&d, path, 6, "[capture] colour: unknown key");
	expect_diag(&d, path, 8, "[snapshot] directory", "/missing' does not exist");
	expect_diag(&d, path, 9, "unknown format 'pcap'");
	expect_diag(&d, path, 10, "[extra]: unknown section");
	config_diags__clear(&d);
	free(path);
}

static void test_missing_file(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg = NULL;
	char *path;

	(void)state;
	assert_true(asprintf(&path, "%s/no-such.conf", tmpdir) > 0);
	assert_int_equal(config__load(path, NULL, &cfg, &d), -ENOENT);
	assert_null(cfg);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 0, strerror(ENOENT));
	config_diags__clear(&d);

	assert_int_equal(config__load(tmpdir, NULL, &cfg, &d), -EISDIR);
	expect_diag(&d, tmpdir, 0, strerror(EISDIR));
	config_diags__clear(&d);
	assert_int_equal(d.nr, 0);
	assert_null(d.items);
	config__put(NULL);
	free(path);
}

static void test_bad_capture_keys(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_capture_keys.conf", &d, 4);
	expect_diag(&d, path, 3, "[capture] clock: bad value 'tai'",
		    "accepted: perf, monotonic, boottime, realtime");
	expect_diag(&d, path, 4, "[capture] history_size: size '2G' out of range",
		    "accepted: 0 (keep none) to 1G");
	expect_diag(&d, path, 5, "[capture] sideband: bad value 'true'", "accepted: yes or no");
	expect_diag(&d, path, 6, "[capture] max_tasks: number '10' out of range",
		    "accepted: a number from 64 to 16777216");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_snapshot_keys(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_snapshot_keys.conf", &d, 9);
	expect_diag(&d, path, 5, "[snapshot] compression: bad value 'gzip'",
		    "accepted: none, zstd");
	expect_diag(&d, path, 6, "[snapshot] max_snapshots: bad number '-1'",
		    "accepted: 0 (unlimited) or a number up to 1000000");
	expect_diag(&d, path, 7, "[snapshot] max_total_size: size '2T' out of range",
		    "accepted: 0 (unlimited) to 1T");
	expect_diag(&d, path, 8, "[snapshot] min_interval: bad duration '5'",
		    "accepted: 0 (none) or a number with unit ms, s, m or h");
	expect_diag(&d, path, 9, "[snapshot] max_per_hour: bad number 'lots'",
		    "accepted: 0 (unlimited) or a number up to 3600");
	expect_diag(&d, path, 10,
		    "[snapshot] post_command: 'upload-snapshot' is not an absolute path",
		    "accepted: an absolute path to an executable file");
	expect_diag(&d, path, 11, "[snapshot] post_command_timeout: duration '0' out of range",
		    "accepted: more than 0");
	expect_diag(&d, path, 12, "[snapshot] copy_memory: bad size 'lots'",
		    "accepted: auto, or 4K to 1T");
	expect_diag(&d, path, 13, "[snapshot] copy_memory_resident: bad value 'maybe'",
		    "accepted: yes or no");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_control_keys(void **state)
{
	struct config_diags d = { 0 };
	char *path;

	(void)state;
	path = load_bad("bad_control_keys.conf", &d, 3);
	expect_diag(&d, path, 6,
		    "[control] socket: 'run/perfsnapd/control.sock' is not an absolute path",
		    "accepted: an absolute path of at most 107 bytes");
	expect_diag(&d, path, 7, "[control] group: no group 'no-such-group-perfsnapd'",
		    "accepted: an existing group");
	expect_diag(&d, path, 8, "[control] colour: unknown key",
		    "accepted in [control]: socket, group");
	config_diags__clear(&d);
	free(path);
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *section, *key, *value, *needle;
	} bad[] = {
		{ "capture", "clock", "", "bad value ''" },
		{ "capture", "clock", "Monotonic", "bad value 'Monotonic'" },
		{ "capture", "clock", "mono", "bad value 'mono'" },
		{ "capture", "history_size", "1025M", "out of range" },
		{ "capture", "history_size", "-1", "bad size '-1'" },
		{ "capture", "history_size", "16 M", "bad size '16 M'" },
		{ "capture", "history_size", "99999999999999999999", "out of range" },
		{ "capture", "sideband", "1", "bad value '1'" },
		{ "capture", "sideband", "Yes", "accepted: yes or no" },
		{ "capture", "sideband", "", "bad value ''" },
		{ "capture", "max_tasks", "63", "number '63' out of range" },
		{ "capture", "max_tasks", "16777217", "out of range" },
		{ "capture", "max_tasks", "64k", "bad number '64k'" },
		{ "capture", "max_tasks", "", "bad number ''" },
		{ "snapshot", "compression", "ZSTD", "accepted: none, zstd" },
		{ "snapshot", "compression", "yes", "bad value 'yes'" },
		{ "snapshot", "max_snapshots", "1000001", "out of range" },
		{ "snapshot", "max_snapshots", "0x10", "bad number '0x10'" },
		{ "snapshot", "max_total_size", "1025G", "out of range" },
		{ "snapshot", "max_total_size", "1P", "bad size '1P'" },
		{ "snapshot", "min_interval", "25h", "duration '25h' out of range" },
		{ "snapshot", "min_interval", "1.5s", "bad duration '1.5s'" },
		{ "snapshot", "min_interval", "5S", "bad duration '5S'" },
		{ "snapshot", "min_interval", "5 s", "bad duration" },
		{ "snapshot", "min_interval", "-1s", "bad duration" },
		{ "snapshot", "min_interval", "ms", "bad duration" },
		{ "snapshot", "max_per_hour", "3601", "out of range" },
		{ "snapshot", "max_per_hour", "+1", "bad number" },
		{ "snapshot", "post_command", "", "is not an absolute path" },
		{ "snapshot", "post_command", "/no/such/program", "No such file or directory" },
		{ "snapshot", "post_command", "/tmp", "is not a regular file" },
		{ "snapshot", "post_command", "/bin/true --now", "No such file" },
		{ "snapshot", "post_command_timeout", "0s", "out of range" },
		{ "snapshot", "post_command_timeout", "60", "bad duration '60'" },
		{ "snapshot", "post_command_timeout", "1441m", "out of range" },
		{ "control", "socket", "", "is not an absolute path" },
		{ "control", "socket", "/run/perfsnapd/", "names a directory" },
		{ "control", "group", "", "no group ''" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_value(bad[i].section, bad[i].key, bad[i].value, bad[i].needle);
}

/* The [control] section in the messages about sections and keys. */
static void test_control_section_messages(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_text("top = 1\n[capture]\nevents = cpu-clock\nclock = perf\n"
				   "\tmonotonic\n[snapshot]\ndirectory = @DIR@\n[controls]\n"
				   "[control\n[control]\ngroup = root\ngroup = root\n",
				   &path, &cfg, &d),
			 -EINVAL);
	assert_int_equal(d.nr, 5);
	expect_diag(&d, path, 1, "key 'top' outside a section",
		    "accepted: keys under [capture], [snapshot], [control]");
	expect_diag(&d, path, 5, "[capture] clock: value continues", "'monotonic'");
	expect_diag(&d, path, 8, "[controls]: unknown section",
		    "accepted: [capture], [snapshot], [control]");
	expect_diag(&d, path, 9, "'[control' has no closing ']'", "[control]");
	expect_diag(&d, path, 12, "[control] group: set again (first on line 11)");
	config_diags__clear(&d);
	free(path);

	/* Every key of a section is offered. */
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\nclocks = perf\n[snapshot]\n"
				   "directory = @DIR@\nmax_snapshot = 1\n",
				   &path, &cfg, &d),
			 -EINVAL);
	expect_diag(&d, path, 3, "[capture] clocks: unknown key",
		    "accepted in [capture]: events, buffer_size, cpus, clock, history_size, "
		    "sideband, max_tasks");
	expect_diag(
		&d, path, 6, "[snapshot] max_snapshot: unknown key",
		"accepted in [snapshot]: directory, formats, compression, max_snapshots, "
		"max_total_size, min_interval, max_per_hour, post_command, post_command_timeout, "
		"copy_memory, copy_memory_resident");
	config_diags__clear(&d);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_unknown_key),
		cmocka_unit_test(test_bad_unknown_section),
		cmocka_unit_test(test_bad_size),
		cmocka_unit_test(test_bad_unknown_event),
		cmocka_unit_test(test_bad_unknown_term),
		cmocka_unit_test(test_bad_glob),
		cmocka_unit_test(test_bad_no_events),
		cmocka_unit_test(test_bad_cpus),
		cmocka_unit_test(test_bad_directory),
		cmocka_unit_test(test_unwritable_directory),
		cmocka_unit_test(test_bad_format),
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_all_errors_collected),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_bad_capture_keys),
		cmocka_unit_test(test_bad_snapshot_keys),
		cmocka_unit_test(test_bad_control_keys),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_control_section_messages),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
