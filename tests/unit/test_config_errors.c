// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config's diagnostics: every bad file under
 * tests/data/config and bad value, refused with -EINVAL and one diagnostic
 * per problem at its line with its text: the problem and the fix. Each
 * bad configuration is a row of bad_configs[], a cmocka test of its own
 * named by the row; what needs more than a file to load stays a function.
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

/* A diagnostic a row expects: at @line of its file, holding each of @text. */
struct want_diag {
	int line; /* 0: the file as a whole */
	const char *text[5];
};

/* A configuration config__load() must refuse, and how. */
struct bad_config {
	const char *name; /* of the row, in cmocka's output and failures */
	const char *data; /* a file under tests/data/config, else */
	const char *text; /* the file's text (inline.conf) */
	int err;	  /* what config__load() returns */
	size_t nr;	  /* diagnostics in all; 0: not counted */
	bool in_order;	  /* the diagnostics are diags[], in that order */
	struct want_diag diags[10];
};

#define CAPTURE_HEAD  "[capture]\nevents = cpu-clock\n"
#define SNAPSHOT_HEAD "[snapshot]\ndirectory = @DIR@\n"

/* One bad value of a key, at line 3 ([capture]), 5 ([snapshot]) or 6 ([control]). */
#define BAD_VALUE(section, line, before, after, key, value, needle)                         \
	{                                                                                   \
		.name = "[" section "] " key " = '" value "'",                              \
		.text = before key " = " value "\n" after, .err = -EINVAL, .nr = 1,         \
		.diags = { { line, { "[" section "] " key ": ", needle, "accepted: " } } }, \
	}
#define BAD_CAPTURE(key, value, needle) \
	BAD_VALUE("capture", 3, CAPTURE_HEAD, SNAPSHOT_HEAD, key, value, needle)
#define BAD_SNAPSHOT(key, value, needle) \
	BAD_VALUE("snapshot", 5, CAPTURE_HEAD SNAPSHOT_HEAD, "", key, value, needle)
#define BAD_CONTROL(key, value, needle) \
	BAD_VALUE("control", 6, CAPTURE_HEAD SNAPSHOT_HEAD "[control]\n", "", key, value, needle)

/* buffer_size at line 4, after an empty line. */
#define BAD_BUFFER_SIZE(value)                                                                    \
	{                                                                                         \
		.name = "buffer_size = '" value "'",                                              \
		.text = CAPTURE_HEAD "\nbuffer_size = " value "\n" SNAPSHOT_HEAD, .err = -EINVAL, \
		.nr = 1, .diags = { { 4, { "[capture] buffer_size", value, "accepted:" } } },     \
	}
#define BAD_CPUS(value)                                                                           \
	{                                                                                         \
		.name = "cpus = '" value "'",                                                     \
		.text = CAPTURE_HEAD "cpus = " value "\n" SNAPSHOT_HEAD, .err = -EINVAL, .nr = 1, \
		.diags = { { 3, { "[capture] cpus: bad CPU list", "accepted:" } } },              \
	}

/* 399 characters: too long for inih's line buffer. */
#define X10  "xxxxxxxxxx"
#define X100 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
#define X399 X100 X100 X100 X10 X10 X10 X10 X10 X10 X10 X10 X10 "xxxxxxxxx"

static const struct bad_config bad_configs[] = {
	{
		.name = "bad_unknown_key.conf",
		.data = "bad_unknown_key.conf",
		.err = -EINVAL,
		.nr = 2,
		.diags = {
			{ 3, { "[capture] buffer:", "unknown key",
			       "accepted in [capture]: events, buffer_size, cpus" } },
			{ 6, { "[snapshot] format:", "unknown key",
			       "accepted in [snapshot]: directory, formats" } },
		},
	},
	{
		.name = "bad_unknown_section.conf",
		.data = "bad_unknown_section.conf",
		.err = -EINVAL,
		.nr = 2,
		.diags = {
			{ 6, { "[snapshots]", "unknown section", "accepted: [capture], [snapshot]" } },
			/* Even an empty one, which inih never shows the handler. */
			{ 8, { "[output]", "unknown section", "accepted: [capture], [snapshot]" } },
		},
	},
	{
		.name = "bad_size.conf",
		.data = "bad_size.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 4, { "[capture] buffer_size", "'4Q'",
			       "accepted: a number with optional K, M or G suffix (bytes), e.g. 4M" } },
		},
	},
	BAD_CAPTURE("window", "10", "bad duration '10'"),
	BAD_CAPTURE("window", "2h", "out of range"),
	BAD_CAPTURE("memory", "64MB", "bad size '64MB'"),
	{
		.name = "window with buffer_size",
		.text = CAPTURE_HEAD "buffer_size = 4M\nwindow = 5s\nmemory = 64M\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 5, { "[capture] window: buffer_size (line 3)", "accepted: one of the two ways" } } },
	},
	{
		.name = "window without memory",
		.text = CAPTURE_HEAD "window = 5s\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 3, { "[capture] window: needs memory", "accepted: both" } } },
	},
	{
		.name = "memory without window",
		.text = CAPTURE_HEAD "memory = 64M\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 3, { "[capture] memory: needs window" } } },
	},
	{
		.name = "window the memory cannot hold on one page",
		.text = CAPTURE_HEAD "cpus = 0\nwindow = 5s\nmemory = 1M\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 4,
			     { "[capture] window: memory = 1024 KiB cannot hold the window",
			       "smallest ring (16 pages)", "accepted: memory of at least 1112 KiB" } } },
	},
	BAD_BUFFER_SIZE("0"),
	BAD_BUFFER_SIZE("-1"),
	BAD_BUFFER_SIZE("4MB"),
	BAD_BUFFER_SIZE("M"),
	BAD_BUFFER_SIZE("1025M"),
	BAD_BUFFER_SIZE("2G"),
	BAD_BUFFER_SIZE("4 M"),
	BAD_BUFFER_SIZE("99999999999999999999"),
	{
		.name = "bad_unknown_event.conf",
		.data = "bad_unknown_event.conf",
		.err = -EINVAL,
		.nr = 3,
		.diags = {
			{ 3, { "[capture] events", "'sched:no_such_tracepoint'", "not found in ",
			       "/events: see `perf list tracepoint`" } },
			{ 4, { "[capture] events", "unknown event 'cpu-clocks'",
			       "accepted: tracepoints as system:event", "cpu-clock, task-clock" } },
			{ 5, { "'cycles:u'", "modifier ':u' not supported", "accepted: cycles alone" } },
		},
	},
	{
		.name = "bad_unknown_term.conf",
		.data = "bad_unknown_term.conf",
		.err = -EINVAL,
		.nr = 7,
		.diags = {
			{ 2, { "[capture] events", "cpu-clock/freq=999,stack=8/",
			       "unknown term 'stack=8'",
			       "accepted: freq=N, period=N, call-graph=fp|no, overwrite, no-overwrite" } },
			{ 3, { "call-graph=dwarf not supported: use call-graph=fp" } },
			{ 3, { "call-graph=lbr not supported: use call-graph=fp" } },
			{ 4, { "sched:sched_switch/freq=10/", "use period=N" } },
			{ 4, { "task-clock/freq=0/", "bad freq '0'", "accepted:" } },
			{ 5, { "page-faults/freq=10,period=10/", "together", "accepted: one of them" } },
			{ 5, { "'cycles/freq=10'", "accepted: name or name/term,term/" } },
		},
	},
	{
		.name = "bad_glob.conf",
		.data = "bad_glob.conf",
		.err = -EINVAL,
		.nr = 2,
		.diags = {
			{ 3, { "[capture] events", "'no_such_system*:*' matches no tracepoint",
			       "see `perf list tracepoint`" } },
			{ 4, { "'sched:no_such_event_*' matches no tracepoint",
			       "see `perf list tracepoint`" } },
		},
	},
	{
		.name = "bad_no_events.conf",
		.data = "bad_no_events.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 3, { "[capture] events", "no events", "accepted:" } } },
	},
	{
		/* No events key at all: not tied to a line. */
		.name = "bad_missing_events.conf",
		.data = "bad_missing_events.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 0, { "[capture] events", "no events", "accepted:" } } },
	},
	{
		.name = "bad_cpus.conf",
		.data = "bad_cpus.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 3, { "[capture] cpus", "bad CPU list '0-'",
			       "accepted: all, or CPU numbers and ranges such as 0-3,8" } },
		},
	},
	{
		.name = "bad_cpus_absent.conf",
		.data = "bad_cpus_absent.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 3, { "[capture] cpus", "CPU 65535 in '0,65535' does not exist",
			       "accepted: all, or CPUs in /sys/devices/system/cpu/possible" } },
		},
	},
	BAD_CPUS(""),
	BAD_CPUS("none"),
	BAD_CPUS("0-"),
	BAD_CPUS("-1"),
	BAD_CPUS("3-1"),
	BAD_CPUS("0,,1"),
	BAD_CPUS("0,"),
	BAD_CPUS("1 2"),
	BAD_CPUS("0x1"),
	{
		.name = "bad_directory.conf",
		.data = "bad_directory.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 4, { "[snapshot] directory", "/does-not-exist' does not exist",
			       "create it or change [snapshot] directory" } },
		},
	},
	{
		.name = "bad_directory_relative.conf",
		.data = "bad_directory_relative.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 4, { "[snapshot] directory", "'var/lib/perfsnapd' is not an absolute path",
			       "accepted: an absolute path" } },
		},
	},
	{
		.name = "bad_format.conf",
		.data = "bad_format.conf",
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 5, { "[snapshot] formats", "unknown format 'pcap'",
			       "accepted: perf.data, trace.dat, perfetto, pprof (one or more, space-separated)" } },
		},
	},
	{
		.name = "formats empty",
		.text = CAPTURE_HEAD SNAPSHOT_HEAD "formats =\n",
		.err = -EINVAL,
		.nr = 1,
		.diags = { { 5, { "[snapshot] formats", "empty", "accepted:" } } },
	},
	{
		.name = "bad_syntax.conf",
		.data = "bad_syntax.conf",
		.err = -EINVAL,
		.diags = {
			{ 3, { "syntax error", "'buffer_size 4M'", "accepted: key = value" } },
			{ 4, { "syntax error", "'[snapshot'", "no closing ']'",
			       "accepted: [capture], [snapshot]" } },
		},
	},
	{
		/* Too long for inih's line buffer: reported, not silently split. */
		.name = "line too long",
		.text = "[capture]\nevents = cpu-clock " X399 "\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.diags = { { 2, { "line too long", "indented lines" } } },
	},
	{
		.name = "key outside a section, set twice, continued",
		.text = "top = 1\n[capture]\nevents = cpu-clock\ncpus = all\ncpus = 0\n"
			"buffer_size = 4M\n  8M\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 3,
		.diags = {
			{ 1, { "key 'top' outside a section", "accepted: keys under [capture]" } },
			{ 5, { "[capture] cpus: set again (first on line 4)", "accepted: once" } },
			{ 7, { "[capture] buffer_size: value continues", "'8M'", "accepted: one line" } },
		},
	},
	{
		.name = "bad_many.conf",
		.data = "bad_many.conf",
		.err = -EINVAL,
		.nr = 7,
		.in_order = true,
		.diags = {
			{ 3, { "'nope:nope' not found", "see `perf list tracepoint`" } },
			{ 4, { "[capture] buffer_size: bad size '-1'", "accepted:" } },
			{ 5, { "[capture] cpus: bad CPU list '3-1'", "accepted:" } },
			{ 6, { "[capture] colour: unknown key", "accepted in [capture]:" } },
			{ 8, { "[snapshot] directory", "/missing' does not exist",
			       "create it or change [snapshot] directory" } },
			{ 9, { "unknown format 'pcap'", "accepted:" } },
			{ 10, { "[extra]: unknown section", "accepted:" } },
		},
	},
	{
		.name = "bad_capture_keys.conf",
		.data = "bad_capture_keys.conf",
		.err = -EINVAL,
		.nr = 4,
		.diags = {
			{ 3, { "[capture] clock: bad value 'tai'",
			       "accepted: perf, monotonic, boottime, realtime" } },
			{ 4, { "[capture] history_size: size '2G' out of range",
			       "accepted: 0 (keep none) to 1G" } },
			{ 5, { "[capture] sideband: bad value 'true'", "accepted: yes or no" } },
			{ 6, { "[capture] max_tasks: number '10' out of range",
			       "accepted: a number from 64 to 16777216" } },
		},
	},
	{
		.name = "bad_snapshot_keys.conf",
		.data = "bad_snapshot_keys.conf",
		.err = -EINVAL,
		.nr = 9,
		.diags = {
			{ 5, { "[snapshot] compression: bad value 'gzip'", "accepted: none, zstd" } },
			{ 6, { "[snapshot] max_snapshots: bad number '-1'",
			       "accepted: 0 (unlimited) or a number up to 1000000" } },
			{ 7, { "[snapshot] max_total_size: size '2T' out of range",
			       "accepted: 0 (unlimited) to 1T" } },
			{ 8, { "[snapshot] min_interval: bad duration '5'",
			       "accepted: 0 (none) or a number with unit ms, s, m or h" } },
			{ 9, { "[snapshot] max_per_hour: bad number 'lots'",
			       "accepted: 0 (unlimited) or a number up to 3600" } },
			{ 10, { "[snapshot] post_command: 'upload-snapshot' is not an absolute path",
				"accepted: an absolute path to an executable file" } },
			{ 11, { "[snapshot] post_command_timeout: duration '0' out of range",
				"accepted: more than 0" } },
			{ 12, { "[snapshot] copy_memory: bad size 'lots'",
				"accepted: auto, or 4K to 1T" } },
			{ 13, { "[snapshot] copy_memory_resident: bad value 'maybe'",
				"accepted: yes or no" } },
		},
	},
	{
		.name = "bad_control_keys.conf",
		.data = "bad_control_keys.conf",
		.err = -EINVAL,
		.nr = 3,
		.diags = {
			{ 6, { "[control] socket: 'run/perfsnapd/control.sock' is not an absolute path",
			       "accepted: an absolute path of at most 107 bytes" } },
			{ 7, { "[control] group: no group 'no-such-group-perfsnapd'",
			       "accepted: an existing group" } },
			{ 8, { "[control] colour: unknown key",
			       "accepted in [control]: socket, group" } },
		},
	},
	{
		/* The kernel refuses CLOCK_REALTIME for tracepoints: said at the clock's line. */
		.name = "clock = realtime with a tracepoint",
		.text = "[capture]\nevents = cpu-clock sched:sched_switch\nclock = realtime\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 3, { "[capture] clock: 'realtime'", "sched:sched_switch",
			       "accepted with tracepoints: perf, monotonic, boottime" } },
		},
	},
	{
		/* No ftrace clock is CLOCK_REALTIME: said at the backend's line. */
		.name = "backend = tracefs with clock = realtime",
		.text = "[capture]\nevents = cpu-clock\nbackend = tracefs\nclock = realtime\n" SNAPSHOT_HEAD,
		.err = -EINVAL,
		.nr = 1,
		.diags = {
			{ 3, { "[capture] backend: 'tracefs' cannot stamp events with clock = realtime",
			       "accepted with realtime: perf, auto" } },
		},
	},
	BAD_CAPTURE("backend", "ftrace", "bad value 'ftrace'"),
	BAD_CAPTURE("backend", "", "bad value ''"),
	BAD_CAPTURE("clock", "", "bad value ''"),
	BAD_CAPTURE("clock", "Monotonic", "bad value 'Monotonic'"),
	BAD_CAPTURE("clock", "mono", "bad value 'mono'"),
	BAD_CAPTURE("history_size", "1025M", "out of range"),
	BAD_CAPTURE("history_size", "-1", "bad size '-1'"),
	BAD_CAPTURE("history_size", "16 M", "bad size '16 M'"),
	BAD_CAPTURE("history_size", "99999999999999999999", "out of range"),
	BAD_CAPTURE("sideband", "1", "bad value '1'"),
	BAD_CAPTURE("sideband", "Yes", "accepted: yes or no"),
	BAD_CAPTURE("sideband", "", "bad value ''"),
	BAD_CAPTURE("max_tasks", "63", "number '63' out of range"),
	BAD_CAPTURE("max_tasks", "16777217", "out of range"),
	BAD_CAPTURE("max_tasks", "64k", "bad number '64k'"),
	BAD_CAPTURE("max_tasks", "", "bad number ''"),
	BAD_SNAPSHOT("compression", "ZSTD", "accepted: none, zstd"),
	BAD_SNAPSHOT("compression", "yes", "bad value 'yes'"),
	BAD_SNAPSHOT("perfetto_samples", "stack", "bad value 'stack'"),
	BAD_SNAPSHOT("perfetto_samples", "StackSample",
		     "accepted: auto, perf_sample, stack_sample"),
	BAD_SNAPSHOT("symbols", "yes", "bad value 'yes'"),
	BAD_SNAPSHOT("symbols", "buildids", "accepted: none, build-ids, pack"),
	BAD_SNAPSHOT("max_snapshots", "1000001", "out of range"),
	BAD_SNAPSHOT("max_snapshots", "0x10", "bad number '0x10'"),
	BAD_SNAPSHOT("max_total_size", "1025G", "out of range"),
	BAD_SNAPSHOT("max_total_size", "1P", "bad size '1P'"),
	BAD_SNAPSHOT("max_total_size", "0%", "share '0%' out of range"),
	BAD_SNAPSHOT("max_total_size", "101%", "accepted: 0 (unlimited) to 1T"),
	BAD_SNAPSHOT("max_total_size", "ten%", "bad share 'ten%'"),
	BAD_SNAPSHOT("max_total_size", "%", "bad share '%'"),
	BAD_SNAPSHOT("min_interval", "25h", "duration '25h' out of range"),
	BAD_SNAPSHOT("min_interval", "1.5s", "bad duration '1.5s'"),
	BAD_SNAPSHOT("min_interval", "5S", "bad duration '5S'"),
	BAD_SNAPSHOT("min_interval", "5 s", "bad duration"),
	BAD_SNAPSHOT("min_interval", "-1s", "bad duration"),
	BAD_SNAPSHOT("min_interval", "ms", "bad duration"),
	BAD_SNAPSHOT("max_per_hour", "3601", "out of range"),
	BAD_SNAPSHOT("max_per_hour", "+1", "bad number"),
	BAD_SNAPSHOT("post_command", "", "is not an absolute path"),
	BAD_SNAPSHOT("post_command", "/no/such/program", "No such file or directory"),
	BAD_SNAPSHOT("post_command", "/tmp", "is not a regular file"),
	BAD_SNAPSHOT("post_command", "/bin/true --now", "No such file"),
	BAD_SNAPSHOT("post_command_timeout", "0s", "out of range"),
	BAD_SNAPSHOT("post_command_timeout", "60", "bad duration '60'"),
	BAD_SNAPSHOT("post_command_timeout", "1441m", "out of range"),
	BAD_CONTROL("socket", "", "is not an absolute path"),
	BAD_CONTROL("socket", "/run/perfsnapd/", "names a directory"),
	BAD_CONTROL("group", "", "no group ''"),
	/* The [control] section in the messages about sections and keys. */
	{
		.name = "[control] in the section messages",
		.text = "top = 1\n[capture]\nevents = cpu-clock\nclock = perf\n\tmonotonic\n"
			SNAPSHOT_HEAD "[controls]\n[control\n[control]\ngroup = root\ngroup = root\n",
		.err = -EINVAL,
		.nr = 5,
		.diags = {
			{ 1, { "key 'top' outside a section",
			       "accepted: keys under [capture], [snapshot], [control]" } },
			{ 5, { "[capture] clock: value continues", "'monotonic'", "accepted: one line" } },
			{ 8, { "[controls]: unknown section",
			       "accepted: [capture], [snapshot], [control]" } },
			{ 9, { "'[control' has no closing ']'", "[control]" } },
			{ 12, { "[control] group: set again (first on line 11)", "accepted: once" } },
		},
	},
	{
		/* Every key of a section is offered. */
		.name = "every key offered",
		.text = CAPTURE_HEAD "clocks = perf\n" SNAPSHOT_HEAD "max_snapshot = 1\n",
		.err = -EINVAL,
		.diags = {
			{ 3, { "[capture] clocks: unknown key",
			       "accepted in [capture]: events, buffer_size, cpus, clock, backend, history_size, "
			       "sideband, max_tasks" } },
			{ 6, { "[snapshot] max_snapshot: unknown key",
			       "accepted in [snapshot]: directory, formats, compression, perfetto_samples, "
			       "symbols, max_snapshots, "
			       "max_total_size, min_interval, max_per_hour, post_command, "
			       "post_command_timeout, copy_memory, copy_memory_resident" } },
		},
	},
};

#define NR_BAD_CONFIGS (sizeof(bad_configs) / sizeof(bad_configs[0]))

/* "a", "b": @text joined, for a failure message. */
static const char *joined(const char *const *text)
{
	static char buf[1024];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; text[i] && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s'%s'", i ? ", " : "", text[i]);
	return buf;
}

/* Loads the row in *@state: its result, its count, each diagnostic it wants. */
static void test_bad_config(void **state)
{
	const struct bad_config *row = *state;
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path;
	int r;

	r = row->data ? load_data(row->data, &path, &cfg, &d) :
			load_text(row->text, &path, &cfg, &d);
	if (r != row->err || (row->nr && d.nr != row->nr)) {
		dump_diags(&d);
		fail_msg("%s: config__load() returned %d with %zu diagnostics, expected %d and %zu",
			 row->name, r, d.nr, row->err, row->nr);
	}
	if (cfg)
		fail_msg("%s: a configuration despite the errors", row->name);
	for (size_t i = 0; i < sizeof(row->diags) / sizeof(row->diags[0]); i++) {
		const struct want_diag *w = &row->diags[i];

		if (!w->text[0])
			break;
		if (!has_diag(&d, path, w->line, w->text)) {
			dump_diags(&d);
			fail_msg("%s: no diagnostic at %s:%d holding %s", row->name, path, w->line,
				 joined(w->text));
		}
		if (row->in_order && (i >= d.nr || d.items[i].line != w->line)) {
			dump_diags(&d);
			fail_msg("%s: diagnostic %zu not at line %d: out of file order", row->name,
				 i, w->line);
		}
	}
	config_diags__clear(&d);
	free(path);
}

/* The exact text a user sees. */
static void test_diag_printed(void **state)
{
	struct config_diags d = { 0 };
	char *path, *line = NULL;
	size_t size = 0;
	FILE *out;

	(void)state;
	path = load_bad("bad_size.conf", &d, 1);
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
}

/* A directory that is a plain file, made here. */
static void test_directory_is_a_file(void **state)
{
	struct config_diags d = { 0 };
	char *path, *file, *text;
	const struct perfsnapd_config *cfg;

	(void)state;
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
	const struct perfsnapd_config *cfg;
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

static void test_missing_file(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg = NULL;
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

/*
 * Snapshot names are predictable, so a directory every user may write is
 * refused (another user could take the next names, and every dump would
 * fail); sticky or not, and a group-writable one is the admin's choice.
 */
static void test_world_writable_directory(void **state)
{
	static const mode_t modes[] = { 0777, 01777, 0773 };
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path, *text, *open_dir;

	(void)state;
	assert_true(asprintf(&open_dir, "%s/open", tmpdir) > 0);
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = %s\n",
			     open_dir) > 0);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		char mode[8];

		assert_int_equal(chmod(open_dir, modes[i]), 0);
		snprintf(mode, sizeof(mode), "%04o", (unsigned int)modes[i]);
		assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
		assert_int_equal(d.nr, 1);
		expect_diag(&d, path, 4, "/open' is writable by every user", mode, "chmod o-w");
		config_diags__clear(&d);
		free(path);
	}
	assert_int_equal(chmod(open_dir, 0770), 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	config__put(cfg);
	free(path);
	rmdir(open_dir);
	free(open_dir);
	free(text);
}

/*
 * Only a regular file of at most CONFIG_FILE_MAX bytes is read: a FIFO
 * refused at once (it used to stall until a writer came), a device refused
 * (a symbolic link to /dev/zero used to be read without end), and a file
 * over the limit refused with its size.
 */
static void test_not_a_config_file(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg = NULL;
	char *fifo, *zero, *big;
	FILE *f;

	(void)state;
	assert_true(asprintf(&fifo, "%s/fifo.conf", tmpdir) > 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(config__load(fifo, NULL, &cfg, &d), -EINVAL);
	assert_null(cfg);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, fifo, 0, "it is a FIFO, not a regular file", "perfsnapd.conf(5)");
	config_diags__clear(&d);

	assert_true(asprintf(&zero, "%s/zero.conf", tmpdir) > 0);
	assert_int_equal(symlink("/dev/zero", zero), 0);
	assert_int_equal(config__load(zero, NULL, &cfg, &d), -EINVAL);
	expect_diag(&d, zero, 0, "it is a device, not a regular file");
	config_diags__clear(&d);

	assert_true(asprintf(&big, "%s/big.conf", tmpdir) > 0);
	f = fopen(big, "w");
	assert_non_null(f);
	fputs("[capture]\nevents = cpu-clock\n", f);
	for (int i = 0; i < CONFIG_FILE_MAX / 64 + 1; i++)
		fprintf(f, "; %-61d\n", i);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(config__load(big, NULL, &cfg, &d), -EFBIG);
	assert_null(cfg);
	expect_diag(&d, big, 0, "bytes, over 1048576", "perfsnapd.conf(5)");
	config_diags__clear(&d);
	unlink(fifo);
	unlink(zero);
	unlink(big);
	free(fifo);
	free(zero);
	free(big);
}

int main(void)
{
	struct CMUnitTest tests[NR_BAD_CONFIGS + 6];
	size_t n = 0;

	for (size_t i = 0; i < NR_BAD_CONFIGS; i++)
		tests[n++] = (struct CMUnitTest){
			.name = bad_configs[i].name,
			.test_func = test_bad_config,
			.initial_state = (void *)&bad_configs[i],
		};
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_diag_printed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_directory_is_a_file);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_unwritable_directory);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_missing_file);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_not_a_config_file);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_world_writable_directory);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
