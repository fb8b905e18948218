// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config and event_spec: the shipped perfsnapd.conf and
 * examples, good files, globs, terms, clocks, printing and defaults.
 * Tracepoints resolve against the real tracefs (root, tracefs mounted).
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

static void test_default_conf(void **state)
{
	const struct perfsnapd_config *cfg;
	char *path;
	int line, found = 0;
	size_t i;

	(void)state;
	path = copy_conf(CONF_DIR "/perfsnapd.conf", "/var/lib/perfsnapd");
	line = line_of(path, "events =");
	load_good(path, &cfg);

	assert_string_equal(cfg->path, path);
	/* Scheduling and task life, then system calls' enters and exits (globs). */
	assert_true(cfg->nr_events > 4);
	assert_string_equal(cfg->events[0].name, "sched:sched_switch");
	assert_string_equal(cfg->events[1].name, "sched:sched_waking");
	assert_string_equal(cfg->events[2].name, "task:task_newtask");
	assert_string_equal(cfg->events[3].name, "sched:sched_process_free");
	check_tracepoint(&cfg->events[0], "sched", "sched_switch");
	check_tracepoint(&cfg->events[1], "sched", "sched_waking");
	check_tracepoint(&cfg->events[2], "task", "task_newtask");
	check_tracepoint(&cfg->events[3], "sched", "sched_process_free");
	for (i = 0; i < cfg->nr_events; i++) {
		const struct event_spec *e = &cfg->events[i];

		/* The 6.12 uapi header, not /usr/include's older one. */
		assert_int_equal(e->attr.size, PERF_ATTR_SIZE_VER8);
		assert_int_equal(e->attr.sample_type, COMPACT_SAMPLE_TYPE);
		assert_int_equal(e->attr.sample_period, 1);
		assert_true(e->overwrite);
		assert_int_equal(e->attr.write_backward, 1);
		/* The list's continuation lines: each event has its own line. */
		if (i < 4) {
			assert_int_equal(e->line, line + (int)i / 2);
		} else {
			assert_true(!strncmp(e->name, "syscalls:sys_enter_", 19) ||
				    !strncmp(e->name, "syscalls:sys_exit_", 18));
			assert_in_range(e->line, line + 2, line + 6);
		}
		if (!strcmp(e->name, "syscalls:sys_exit_execve") ||
		    !strcmp(e->name, "syscalls:sys_enter_clock_nanosleep"))
			found++;
	}
	assert_int_equal(found, 2);
	assert_int_equal(cfg->window_ms, 30000);
	assert_int_equal(cfg->memory, 256 << 20);
	assert_int_equal(cfg->config_line_buffer_size, 0);
	assert_null(cfg->cpus);
	assert_string_equal(cfg->directory, tmpdir);
	assert_int_equal(cfg->formats, FORMAT(PERFDATA) | FORMAT(TRACEDAT));
	/* CLOCK_MONOTONIC: ftrace's "mono", perf's clockid. */
	assert_int_equal(cfg->clock, CONFIG_CLOCK_MONOTONIC);
	assert_string_equal(trace_clock_of(cfg), "mono");
	for (i = 0; i < cfg->nr_events; i++) {
		assert_int_equal(cfg->events[i].attr.use_clockid, 1);
		assert_int_equal(cfg->events[i].attr.clockid, CLOCK_MONOTONIC);
	}
	check_defaults_but_clock(cfg);
	/* A disk budget, so that no loop of dumps fills the disk (issue 53). */
	assert_int_equal(cfg->max_total_size, 0);
	assert_int_equal(cfg->max_total_percent, 10);
	assert_int_equal(cfg->max_per_hour, 60);
	config__put(cfg);
	free(path);
}

static void test_examples(void **state)
{
	struct dirent *de;
	int loaded = 0;
	DIR *dir;

	(void)state;
	dir = opendir(CONF_DIR "/examples");
	assert_non_null(dir);
	while ((de = readdir(dir))) {
		const struct perfsnapd_config *cfg;
		char src[PATH_MAX];
		char *path;

		if (!strstr(de->d_name, ".conf"))
			continue;
		snprintf(src, sizeof(src), "%s/examples/%s", CONF_DIR, de->d_name);
		path = copy_conf(src, "/var/lib/perfsnapd");
		load_good(path, &cfg);
		assert_true(cfg->nr_events > 0);
		config__put(cfg);
		free(path);
		loaded++;
	}
	closedir(dir);
	assert_true(loaded >= 2);
}

/* Tracepoint names under events/@sys matching @pattern, as glob(3) sees them. */
static size_t expected_matches(const char *sys, const char *pattern, glob_t *g)
{
	char pat[PATH_MAX];

	snprintf(pat, sizeof(pat), "%s/events/%s/%s/id", tracing_dir, sys, pattern);
	assert_int_equal(glob(pat, 0, NULL, g), 0);
	return g->gl_pathc;
}

static void test_globs(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	glob_t wak, irq;
	size_t n_wak, n_irq, i;
	char *path;

	(void)state;
	assert_int_equal(load_data("good_globs.conf", &path, &cfg, &d), 0);
	n_wak = expected_matches("sched", "sched_wak*", &wak);
	n_irq = expected_matches("irq", "irq_handler_e*", &irq);
	assert_true(n_wak >= 2);

	/* sched:sched_wakeup and sched:sched_waking again are duplicates. */
	assert_int_equal(cfg->nr_events, n_wak + n_irq);
	for (i = 0; i < n_wak; i++) {
		char *event = strrchr(wak.gl_pathv[i], '/');
		char name[256];

		*event = '\0';
		event = strrchr(wak.gl_pathv[i], '/') + 1;
		snprintf(name, sizeof(name), "sched:%s", event);
		/* Expanded in alphabetical order, like glob(3). */
		assert_string_equal(cfg->events[i].name, name);
		check_tracepoint(&cfg->events[i], "sched", event);
		assert_int_equal(cfg->events[i].line, 3);
		/* The first listed wins: the glob's overwrite, not /no-overwrite/. */
		assert_true(cfg->events[i].overwrite);
	}
	for (i = 0; i < n_irq; i++)
		assert_int_equal(cfg->events[n_wak + i].line, 4);
	assert_string_equal(cfg->events[n_wak].name, "irq:irq_handler_entry");
	globfree(&wak);
	globfree(&irq);
	config__put(cfg);
	free(path);
}

static void test_terms_sampling(void **state)
{
	struct config_diags d = { 0 };
	const struct event_spec *e;
	const struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_data("good_terms.conf", &path, &cfg, &d), 0);
	assert_int_equal(cfg->nr_events, 8);

	e = find_event(cfg, "cpu-clock");
	check_common_attr(e);
	assert_false(e->is_tracepoint);
	assert_int_equal(e->line, 3);
	assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(e->attr.freq, 1);
	assert_int_equal(e->attr.sample_freq, 999);
	assert_int_equal(e->attr.sample_type, BASE_SAMPLE_TYPE | PERF_SAMPLE_CALLCHAIN);
	assert_true(e->overwrite);

	e = find_event(cfg, "task-clock");
	check_common_attr(e);
	assert_int_equal(e->attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(e->attr.freq, 0);
	assert_int_equal(e->attr.sample_period, 100000);
	assert_int_equal(e->attr.sample_type, BASE_SAMPLE_TYPE);
	assert_false(e->overwrite);
	assert_int_equal(e->attr.write_backward, 0);

	e = find_event(cfg, "cycles");
	check_common_attr(e);
	assert_int_equal(e->line, 4);
	assert_int_equal(e->attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(e->attr.freq, 1);
	assert_int_equal(e->attr.sample_freq, 4000);

	/* Aliases take their canonical names. */
	e = find_event(cfg, "context-switches");
	assert_int_equal(e->attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	e = find_event(cfg, "page-faults");
	assert_int_equal(e->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_true(e->overwrite);

	e = find_event(cfg, "dummy");
	assert_int_equal(e->attr.config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(e->attr.sample_type, BASE_SAMPLE_TYPE);
	config__put(cfg);
	free(path);
}

static void test_terms_tracepoints(void **state)
{
	struct config_diags d = { 0 };
	const struct event_spec *e;
	const struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_data("good_terms.conf", &path, &cfg, &d), 0);
	e = find_event(cfg, "sched:sched_switch");
	check_tracepoint(e, "sched", "sched_switch");
	assert_int_equal(e->attr.sample_period, 10);
	assert_false(e->overwrite);

	e = find_event(cfg, "sched:sched_wakeup");
	check_tracepoint(e, "sched", "sched_wakeup");
	assert_int_equal(e->attr.sample_type,
			 BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW | PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(e->line, 5);

	assert_int_equal(cfg->buffer_size, 64 << 10);
	assert_string_equal(cfg->cpus, "0");
	assert_int_equal(cfg->formats, FORMAT(TRACEDAT));
	config__put(cfg);
	free(path);
}

static void test_multiline_and_comments(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_data("good_multiline.conf", &path, &cfg, &d), 0);
	assert_int_equal(cfg->nr_events, 3);
	assert_string_equal(cfg->events[0].name, "sched:sched_switch");
	assert_int_equal(cfg->events[0].line, 4);
	assert_string_equal(cfg->events[1].name, "raw_syscalls:sys_enter");
	assert_int_equal(cfg->events[1].line, 6);
	assert_string_equal(cfg->events[2].name, "cpu-clock");
	assert_int_equal(cfg->events[2].line, 7);
	/* Left out: defaults. */
	assert_int_equal(cfg->buffer_size, 4 << 20);
	assert_null(cfg->cpus);
	assert_string_equal(cfg->directory, tmpdir);
	assert_int_equal(cfg->formats, FORMAT(PERFDATA) | FORMAT(TRACEDAT));
	check_new_defaults(cfg);
	config__put(cfg);
	free(path);
}

static void test_print_round_trip(void **state)
{
	const struct perfsnapd_config *cfg, *again;
	struct config_diags d = { 0 };
	char *path, *printed;
	char *text = NULL;
	size_t size = 0, i;
	FILE *out;

	(void)state;
	assert_int_equal(load_data("good_terms.conf", &path, &cfg, &d), 0);
	out = open_memstream(&text, &size);
	config__print(cfg, out);
	fclose(out);
	assert_non_null(strstr(text, "\n[capture]\nevents = cpu-clock/freq=999,call-graph=fp/\n"
				     "\ttask-clock/period=100000,no-overwrite/\n"
				     "\tcycles/freq=4000/\n"));
	assert_non_null(strstr(text, "\tsched:sched_switch/period=10,no-overwrite/\n"
				     "\tsched:sched_wakeup/call-graph=fp/\n"));
	assert_non_null(strstr(text, "buffer_size = 64K\ncpus = 0\n"));
	assert_non_null(strstr(text, "formats = trace.dat\n"));

	printed = write_conf("printed.conf", text, "", "");
	load_good(printed, &again);
	assert_int_equal(again->nr_events, cfg->nr_events);
	for (i = 0; i < cfg->nr_events; i++) {
		assert_string_equal(again->events[i].name, cfg->events[i].name);
		assert_memory_equal(&again->events[i].attr, &cfg->events[i].attr,
				    sizeof(cfg->events[i].attr));
		assert_int_equal(again->events[i].overwrite, cfg->events[i].overwrite);
	}
	assert_int_equal(again->buffer_size, cfg->buffer_size);
	assert_string_equal(again->cpus, cfg->cpus);
	assert_string_equal(again->directory, cfg->directory);
	assert_int_equal(again->formats, cfg->formats);
	config__put(again);
	config__put(cfg);
	free(printed);
	free(path);
	free(text);
}

static void test_buffer_rounding(void **state)
{
	static const struct {
		const char *value;
		uint64_t bytes;
	} sizes[] = {
		{ "1", 1 },	     { "5000", 5000 },	   { "4k", 4096 },	    { "3K", 3072 },
		{ "12M", 12 << 20 }, { "1G", 1ull << 30 }, { "1024M", 1ull << 30 },
	};
	long page = sysconf(_SC_PAGESIZE);
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct config_diags d = { 0 };
		const struct perfsnapd_config *cfg;
		uint64_t pages, want = 1;
		char *text, *path, *printed = NULL;
		size_t size = 0;
		FILE *out;

		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\nbuffer_size = %s\n"
				     "cpus = all\n[snapshot]\ndirectory = @DIR@\n",
				     sizes[i].value) > 0);
		assert_int_equal(load_text(text, &path, &cfg, &d), 0);
		pages = (sizes[i].bytes + page - 1) / page;
		while (want < pages)
			want <<= 1;
		assert_int_equal(cfg->buffer_size, sizes[i].bytes);
		assert_int_equal(cfg->buffer_pages, want);
		assert_int_equal(cfg->config_line_buffer_size, 3);

		out = open_memstream(&printed, &size);
		config__print(cfg, out);
		fclose(out);
		if (want * page != sizes[i].bytes)
			assert_non_null(strstr(printed, "; rounded up to"));
		else
			assert_null(strstr(printed, "rounded"));
		free(printed);
		config__put(cfg);
		free(path);
		free(text);
	}
}

static void test_cpus_normalized(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\ncpus = 0, 0-0,0\n"
				   "[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 0);
	assert_string_equal(cfg->cpus, "0");
	config__put(cfg);
	free(path);
}

static void test_explicit_tracing_dir(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg = NULL;
	char *path, *fake;

	(void)state;
	path = write_conf("tp.conf",
			  "[capture]\nevents = sched:sched_switch\n"
			  "[snapshot]\ndirectory = @DIR@\n",
			  "@DIR@", tmpdir);
	assert_int_equal(config__load(path, tracing_dir, &cfg, &d), 0);
	assert_int_equal(cfg->events[0].attr.config, tracepoint_id("sched", "sched_switch"));
	config__put(cfg);

	/* A tracing dir without events/ says how to mount tracefs. */
	assert_true(asprintf(&fake, "%s/no-tracefs", tmpdir) > 0);
	assert_int_equal(config__load(path, fake, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 2, "sched:sched_switch", "mount -t tracefs");
	config_diags__clear(&d);
	free(fake);
	free(path);
}

static void test_all_keys(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path, *socket;
	size_t i;

	(void)state;
	assert_int_equal(load_data("good_all_keys.conf", &path, &cfg, &d), 0);
	assert_int_equal(cfg->nr_events, 2);
	assert_int_equal(cfg->clock, CONFIG_CLOCK_BOOTTIME);
	assert_int_equal(cfg->backend, CONFIG_BACKEND_AUTO);
	assert_string_equal(trace_clock_of(cfg), "boot");
	/* Applied to events listed before the clock key. */
	for (i = 0; i < cfg->nr_events; i++) {
		assert_int_equal(cfg->events[i].attr.use_clockid, 1);
		assert_int_equal(cfg->events[i].attr.clockid, CLOCK_BOOTTIME);
	}
	assert_int_equal(cfg->history_size, 0);
	assert_false(cfg->sideband);
	assert_int_equal(cfg->max_tasks, 64);
	assert_int_equal(cfg->formats, FORMAT(PERFDATA) | FORMAT(TRACEDAT));
	assert_int_equal(cfg->compression, CONFIG_COMPRESSION_ZSTD);
	assert_int_equal(cfg->perfetto_samples, CONFIG_PERFETTO_SAMPLES_STACK_SAMPLE);
	assert_int_equal(cfg->symbols, CONFIG_SYMBOLS_PACK);
	assert_int_equal(cfg->max_snapshots, 10);
	assert_int_equal(cfg->max_total_size, 1ull << 40);
	assert_int_equal(cfg->min_interval_ms, 500);
	assert_int_equal(cfg->max_per_hour, 60);
	assert_string_equal(cfg->post_command, "/bin/true");
	assert_int_equal(cfg->post_command_timeout_ms, 90000);
	assert_true(asprintf(&socket, "%s/control.sock", tmpdir) > 0);
	assert_string_equal(cfg->control_socket, socket);
	assert_string_equal(cfg->control_group, "root");
	assert_int_equal(cfg->control_gid, 0);
	config__put(cfg);
	free(socket);
	free(path);
}

static void test_clock(void **state)
{
	static const struct {
		const char *name;
		enum config_clock clock;
		int clockid;
		const char *trace_clock;
		const char *events; /* the kernel stamps tracepoints only NMI-safely */
	} clocks[] = {
		{ "perf", CONFIG_CLOCK_PERF, -1, "local", "cpu-clock sched:sched_switch" },
		{ "monotonic", CONFIG_CLOCK_MONOTONIC, CLOCK_MONOTONIC, "mono",
		  "cpu-clock sched:sched_switch" },
		{ "boottime", CONFIG_CLOCK_BOOTTIME, CLOCK_BOOTTIME, "boot",
		  "cpu-clock sched:sched_switch" },
		{ "realtime", CONFIG_CLOCK_REALTIME, CLOCK_REALTIME, "realtime",
		  "cpu-clock task-clock" },
	};
	size_t i, j, before;

	(void)state;
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		for (before = 0; before < 2; before++) {
			struct config_diags d = { 0 };
			const struct perfsnapd_config *cfg;
			char *text, *path;

			/* The clock key before and after the events it applies to. */
			if (before)
				assert_true(asprintf(&text,
						     "[capture]\nclock = %s\n"
						     "events = %s\n"
						     "[snapshot]\ndirectory = @DIR@\n",
						     clocks[i].name, clocks[i].events) > 0);
			else
				assert_true(asprintf(&text,
						     "[capture]\n"
						     "events = %s\n"
						     "clock = %s\n[snapshot]\ndirectory = @DIR@\n",
						     clocks[i].events, clocks[i].name) > 0);
			assert_int_equal(load_text(text, &path, &cfg, &d), 0);
			assert_int_equal(cfg->clock, clocks[i].clock);
			assert_string_equal(trace_clock_of(cfg), clocks[i].trace_clock);
			assert_int_equal(cfg->nr_events, 2);
			for (j = 0; j < cfg->nr_events; j++) {
				const struct perf_event_attr *attr = &cfg->events[j].attr;

				assert_int_equal(attr->use_clockid, clocks[i].clockid >= 0);
				assert_int_equal(attr->clockid,
						 clocks[i].clockid >= 0 ? clocks[i].clockid : 0);
			}
			config__put(cfg);
			free(path);
			free(text);
		}
	}
}

static void test_print_all_keys(void **state)
{
	const struct perfsnapd_config *cfg, *again;
	struct config_diags d = { 0 };
	char *path, *printed, *text;
	size_t i;

	(void)state;
	assert_int_equal(load_data("good_all_keys.conf", &path, &cfg, &d), 0);
	text = print_config(cfg);
	assert_non_null(strstr(
		text,
		"\ncpus = 0\nclock = boottime\nbackend = auto\nhistory_size = 0\t; keep none\n"
		"sideband = no\nmax_tasks = 64\n"
		"window = 0\t; none: every ring is buffer_size\n"
		"memory = 0\t; none: every ring is buffer_size\n\n[snapshot]\n"));
	assert_non_null(strstr(
		text,
		"\nformats = perf.data trace.dat\ncompression = zstd\n"
		"perfetto_samples = stack_sample\nsymbols = pack\nmax_snapshots = 10\nmax_total_size = 1T\nmin_interval = 500ms\n"
		"max_per_hour = 60\npost_command = /bin/true\n"
		"post_command_timeout = 90s\ncopy_memory = 256M\n"
		"copy_memory_resident = yes\n\n[control]\nsocket = "));
	assert_non_null(strstr(text, "/control.sock\ngroup = root\n"));

	printed = write_conf("printed_all.conf", text, "", "");
	load_good(printed, &again);
	for (i = 0; i < cfg->nr_events; i++)
		assert_memory_equal(&again->events[i].attr, &cfg->events[i].attr,
				    sizeof(cfg->events[i].attr));
	assert_int_equal(again->clock, cfg->clock);
	assert_int_equal(again->backend, cfg->backend);
	assert_int_equal(again->history_size, cfg->history_size);
	assert_int_equal(again->sideband, cfg->sideband);
	assert_int_equal(again->max_tasks, cfg->max_tasks);
	assert_int_equal(again->compression, cfg->compression);
	assert_int_equal(again->perfetto_samples, cfg->perfetto_samples);
	assert_int_equal(again->symbols, cfg->symbols);
	assert_int_equal(again->max_snapshots, cfg->max_snapshots);
	assert_int_equal(again->max_total_size, cfg->max_total_size);
	assert_int_equal(again->min_interval_ms, cfg->min_interval_ms);
	assert_int_equal(again->max_per_hour, cfg->max_per_hour);
	assert_string_equal(again->post_command, cfg->post_command);
	assert_int_equal(again->post_command_timeout_ms, cfg->post_command_timeout_ms);
	assert_string_equal(again->control_socket, cfg->control_socket);
	assert_string_equal(again->control_group, cfg->control_group);
	assert_int_equal(again->control_gid, cfg->control_gid);
	config__put(again);
	config__put(cfg);
	free(printed);
	free(text);
	free(path);
}

/* Defaults are printed too, and unset strings as comments that load back. */
static void test_print_defaults(void **state)
{
	const struct perfsnapd_config *cfg, *again;
	struct config_diags d = { 0 };
	char *path, *printed, *text;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 0);
	text = print_config(cfg);
	assert_non_null(
		strstr(text, "\nclock = perf\nbackend = perf\nhistory_size = 16M\nsideband = yes\n"
			     "max_tasks = 65536\n"));
	assert_non_null(strstr(
		text,
		"\ncompression = auto\nperfetto_samples = auto\nsymbols = build-ids\nmax_snapshots = 0\t; unlimited\n"
		"max_total_size = 0\t; unlimited\nmin_interval = 0\t; none\n"
		"max_per_hour = 0\t; unlimited\n; post_command is not set"));
	assert_non_null(strstr(
		text,
		"\npost_command_timeout = 1m\ncopy_memory = auto\t; the sum of the overwrite rings, at most 1G\ncopy_memory_resident = no\n\n[control]\n"
		"socket = /run/perfsnapd/control.sock\n; group is not set"));
	printed = write_conf("printed_defaults.conf", text, "", "");
	load_good(printed, &again);
	check_new_defaults(again);
	config__put(again);
	config__put(cfg);
	free(printed);
	free(text);
	free(path);
}

static void test_post_command(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *script, *plain, *text, *path;

	(void)state;
	script = write_conf("post.sh", "#!/bin/sh\nexit 0\n", "", "");
	assert_int_equal(chmod(script, 0755), 0);
	assert_true(asprintf(&text,
			     "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n"
			     "post_command = %s\npost_command_timeout = 1500ms\n",
			     script) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->post_command, script);
	assert_int_equal(cfg->post_command_timeout_ms, 1500);
	config__put(cfg);
	free(path);
	free(text);

	/* Not executable, even for root: no x bit at all. */
	plain = write_conf("plain.sh", "#!/bin/sh\n", "", "");
	assert_int_equal(chmod(plain, 0644), 0);
	expect_bad_value("snapshot", "post_command", plain, "is not executable");
	free(plain);
	free(script);
}

static void test_socket_length(void **state)
{
	char name[200];

	(void)state;
	/* sun_path holds 108 bytes with the NUL: 107 are fine, 108 not. */
	memset(name, 'x', sizeof(name));
	name[0] = '/';
	name[108] = '\0';
	expect_bad_value("control", "socket", name, "is too long for a socket address");
	name[107] = '\0';
	{
		struct config_diags d = { 0 };
		const struct perfsnapd_config *cfg;
		char *text, *path;

		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n[snapshot]\n"
				     "directory = @DIR@\n[control]\nsocket = %s\n",
				     name) > 0);
		assert_int_equal(load_text(text, &path, &cfg, &d), 0);
		assert_string_equal(cfg->control_socket, name);
		config__put(cfg);
		free(path);
		free(text);
	}
}

/* Edges that are accepted, and how they are stored. */
static void test_good_values(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(
		load_text("[capture]\nevents = cpu-clock\nhistory_size = 1G\n"
			  "max_tasks = 16777216\nsideband = yes\nclock = perf\n"
			  "[snapshot]\ndirectory = @DIR@\nmax_snapshots = 1000000\n"
			  "max_total_size = 1024G\nmin_interval = 24h\nmax_per_hour = 3600\n"
			  "post_command_timeout = 1ms\ncompression = none\n"
			  "[control]\nsocket = /run/x.sock\n",
			  &path, &cfg, &d),
		0);
	assert_int_equal(cfg->history_size, 1ull << 30);
	assert_int_equal(cfg->max_tasks, 16777216);
	assert_true(cfg->sideband);
	assert_int_equal(cfg->max_snapshots, 1000000);
	assert_int_equal(cfg->max_total_size, 1ull << 40);
	assert_int_equal(cfg->min_interval_ms, 24ull * 3600 * 1000);
	assert_int_equal(cfg->max_per_hour, 3600);
	assert_int_equal(cfg->post_command_timeout_ms, 1);
	assert_string_equal(cfg->control_socket, "/run/x.sock");
	config__put(cfg);
	free(path);

	assert_int_equal(load_text("[capture]\nevents = cpu-clock\nmax_tasks = 64\n"
				   "history_size = 0\n[snapshot]\ndirectory = @DIR@\n"
				   "min_interval = 0ms\nmax_total_size = 0\n",
				   &path, &cfg, &d),
			 0);
	assert_int_equal(cfg->max_tasks, 64);
	assert_int_equal(cfg->history_size, 0);
	assert_int_equal(cfg->min_interval_ms, 0);
	assert_int_equal(cfg->max_total_size, 0);
	assert_int_equal(config__max_total_bytes(cfg, 1000), 0);
	config__put(cfg);
	free(path);

	/* A share of the directory's file system, measured by the daemon. */
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\n"
				   "directory = @DIR@\nmax_total_size = 10%\n",
				   &path, &cfg, &d),
			 0);
	assert_int_equal(cfg->max_total_percent, 10);
	assert_int_equal(cfg->max_total_size, 0);
	assert_int_equal(config__max_total_bytes(cfg, 50ull << 30), 5ull << 30);
	assert_int_equal(config__max_total_bytes(cfg, 0), 1);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		assert_non_null(f);
		config__print(cfg, f);
		fclose(f);
		assert_non_null(
			strstr(text, "\nmax_total_size = 10%\t; of the directory's file system\n"));
		free(text);
	}
	config__put(cfg);
	free(path);
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\n"
				   "directory = @DIR@\nmax_total_size = 100%\n",
				   &path, &cfg, &d),
			 0);
	assert_int_equal(config__max_total_bytes(cfg, 4096), 4096);
	config__put(cfg);
	free(path);
}

/* window and memory: each CPU's ring sized for the window, no buffer_size; printed back. */
static void test_window(void **state)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg, *again;
	char *path, *text, *printed;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\nwindow = 10s\nmemory = 256M\n"
				   "[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 0);
	assert_int_equal(cfg->window_ms, 10000);
	assert_int_equal(cfg->memory, 256ull << 20);
	assert_int_equal(cfg->buffer_size, 0);
	assert_int_equal(cfg->buffer_pages, 0);
	/* 256M less one side-band ring and its control page per CPU, and two clocks' 2 pages. */
	assert_int_equal(config__window_pages(cfg, 2),
			 (int64_t)((256ull << 20) / (uint64_t)sysconf(_SC_PAGESIZE)) -
				 2 * (CONFIG_SIDEBAND_RING_PAGES + 1) - 4);
	text = print_config(cfg);
	assert_non_null(strstr(text, "window = 10s\nmemory = 256M\n"));
	assert_non_null(strstr(text, "; buffer_size is not set"));
	printed = write_conf("printed_window.conf", text, "", "");
	load_good(printed, &again);
	assert_int_equal(again->window_ms, 10000);
	assert_int_equal(again->memory, 256ull << 20);
	assert_int_equal(again->buffer_pages, 0);
	config__put(again);
	config__put(cfg);
	free(printed);
	free(text);
	free(path);
}

/*
 * References: the count is config.c's, beside the config. A reference
 * outlives the loader's (AddressSanitizer sees a read after a free), and
 * the last put frees (LeakSanitizer sees what it does not).
 */
static void test_references(void **state)
{
	const struct perfsnapd_config *cfg, *ref;
	char *path;

	(void)state;
	path = copy_conf(CONF_DIR "/perfsnapd.conf", "/var/lib/perfsnapd");
	load_good(path, &cfg);
	ref = config__get(cfg);
	assert_ptr_equal(ref, cfg);
	config__put(cfg);
	assert_string_equal(ref->path, path);
	assert_true(ref->nr_events > 4);
	config__put(ref);
	assert_null(config__get(NULL));
	config__put(NULL);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_conf),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_terms_sampling),
		cmocka_unit_test(test_terms_tracepoints),
		cmocka_unit_test(test_multiline_and_comments),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_buffer_rounding),
		cmocka_unit_test(test_cpus_normalized),
		cmocka_unit_test(test_explicit_tracing_dir),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_print_all_keys),
		cmocka_unit_test(test_print_defaults),
		cmocka_unit_test(test_post_command),
		cmocka_unit_test(test_socket_length),
		cmocka_unit_test(test_good_values),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_references),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
