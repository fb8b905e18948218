// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for config and event_spec: the shipped perfsnapd.conf and
 * examples, the files under tests/data/config/ (good and bad), and every
 * diagnostic's line and text. Tracepoints resolve against the real tracefs,
 * so this runs as root with tracefs mounted. Configs are copied into a
 * temporary directory with @DIR@ replaced by it, since snapshot directories
 * must exist.
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

#define FORMAT(f) SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_##f)

/* The trace.dat clock a snapshot of @cfg's events is written with. */
static const char *trace_clock_of(const struct perfsnapd_config *cfg)
{
	static char name[16];
	struct snapshot *s = snapshot__new();
	uint64_t id = 1;

	assert_non_null(s);
	for (size_t i = 0; i < cfg->nr_events; i++, id++)
		assert_int_equal(
			snapshot__add_event(s, &cfg->events[i].attr, cfg->events[i].name, &id, 1),
			0);
	snprintf(name, sizeof(name), "%s", snapshot__trace_clock(s));
	snapshot__delete(s);
	return name;
}

#define CONFIG_DATA TEST_DATA_DIR "/config"
#define CONF_DIR    TEST_DATA_DIR "/../../conf"

#define BASE_SAMPLE_TYPE                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static char tmpdir[] = "/tmp/test_config.XXXXXX";
static const char *tracing_dir;

static char *read_all(const char *path)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *in = fopen(path, "r");
	FILE *out = open_memstream(&buf, &size);
	int c;

	if (!in) {
		fail_msg("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	assert_non_null(out);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fclose(out);
	return buf;
}

/* Writes @text to tmpdir/@name with @from replaced by @to; returns the path. */
static char *write_conf(const char *name, const char *text, const char *from, const char *to)
{
	char *path;
	const char *p;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	while (*from && (p = strstr(text, from))) {
		fwrite(text, 1, p - text, f);
		fputs(to, f);
		text = p + strlen(from);
	}
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Copies @src (a file) into tmpdir with @from replaced by tmpdir. */
static char *copy_conf(const char *src, const char *from)
{
	const char *name = strrchr(src, '/') + 1;
	char *text = read_all(src);
	char *path = write_conf(name, text, from, tmpdir);

	free(text);
	return path;
}

static int load_file(const char *path, struct perfsnapd_config **cfg, struct config_diags *d)
{
	*cfg = NULL;
	return config__load(path, NULL, cfg, d);
}

/* Loads tests/data/config/@name (with @DIR@ filled in). */
static int load_data(const char *name, char **ret_path, struct perfsnapd_config **cfg,
		     struct config_diags *d)
{
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/%s", CONFIG_DATA, name);
	*ret_path = copy_conf(src, "@DIR@");
	return load_file(*ret_path, cfg, d);
}

static int load_text(const char *text, char **ret_path, struct perfsnapd_config **cfg,
		     struct config_diags *d)
{
	*ret_path = write_conf("inline.conf", text, "@DIR@", tmpdir);
	return load_file(*ret_path, cfg, d);
}

static void dump_diags(const struct config_diags *d)
{
	config_diags__print(d, stderr);
}

/* Asserts a diagnostic at @line whose message holds every one of @needles. */
static void expect_diag_(const struct config_diags *d, const char *file, int line,
			 const char *const *needles)
{
	size_t i, j;

	for (i = 0; i < d->nr; i++) {
		bool all = true;

		if (d->items[i].line != line || strcmp(d->items[i].file, file))
			continue;
		for (j = 0; needles[j]; j++)
			all = all && strstr(d->items[i].message, needles[j]);
		if (all)
			return;
	}
	dump_diags(d);
	fail_msg("no diagnostic at %s:%d with the expected text", file, line);
}

#define expect_diag(d, file, line, ...) \
	expect_diag_(d, file, line, (const char *const[]){ __VA_ARGS__, NULL })

/* Loads a bad file: -EINVAL, no config, and exactly @nr diagnostics (0: any). */
static char *load_bad(const char *name, struct config_diags *d, size_t nr)
{
	struct perfsnapd_config *cfg;
	char *path;
	int r;

	r = load_data(name, &path, &cfg, d);
	if (r != -EINVAL || (nr && d->nr != nr)) {
		dump_diags(d);
		fail_msg("%s: returned %d with %zu diagnostics, expected -EINVAL and %zu", name, r,
			 d->nr, nr);
	}
	assert_null(cfg);
	return path;
}

static void load_good(const char *path, struct perfsnapd_config **cfg)
{
	struct config_diags d = { 0 };
	int r = load_file(path, cfg, &d);

	if (r) {
		dump_diags(&d);
		fail_msg("%s: returned %d", path, r);
	}
	assert_int_equal(d.nr, 0);
	assert_non_null(*cfg);
}

static uint64_t tracepoint_id(const char *sys, const char *event)
{
	char path[PATH_MAX];
	char *text;
	uint64_t id;

	snprintf(path, sizeof(path), "%s/events/%s/%s/id", tracing_dir, sys, event);
	text = read_all(path);
	id = strtoull(text, NULL, 10);
	free(text);
	return id;
}

static const struct event_spec *find_event(const struct perfsnapd_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nr_events; i++) {
		if (!strcmp(cfg->events[i].name, name))
			return &cfg->events[i];
	}
	fail_msg("event '%s' not in config", name);
	return NULL;
}

static void check_common_attr(const struct event_spec *e)
{
	assert_int_equal(e->attr.size, sizeof(struct perf_event_attr));
	assert_int_equal(e->attr.read_format, PERF_FORMAT_ID);
	assert_int_equal(e->attr.sample_id_all, 1);
	assert_int_equal(e->attr.disabled, 1);
	assert_int_equal(e->attr.write_backward, e->overwrite);
}

static void check_tracepoint(const struct event_spec *e, const char *sys, const char *event)
{
	check_common_attr(e);
	assert_true(e->is_tracepoint);
	assert_int_equal(e->attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(e->attr.config, tracepoint_id(sys, event));
	assert_int_equal(e->attr.sample_type & ~PERF_SAMPLE_CALLCHAIN,
			 BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW);
	assert_int_equal(e->attr.freq, 0);
}

/* Line of the first line in @path starting with @prefix. */
static int line_of(const char *path, const char *prefix)
{
	char *text = read_all(path);
	char *p = text;
	int line = 1;

	while (p && strncmp(p, prefix, strlen(prefix))) {
		p = strchr(p, '\n');
		if (p)
			p++;
		line++;
	}
	free(text);
	if (!p)
		fail_msg("no line starting with '%s' in %s", prefix, path);
	return line;
}

/* The keys added with [control]: what an absent key means. */
static void check_new_defaults(const struct perfsnapd_config *cfg)
{
	size_t i;

	assert_int_equal(cfg->clock, CONFIG_CLOCK_PERF);
	assert_string_equal(trace_clock_of(cfg), "local");
	for (i = 0; i < cfg->nr_events; i++)
		assert_int_equal(cfg->events[i].attr.use_clockid, 0);
	assert_int_equal(cfg->history_size, 16 << 20);
	assert_true(cfg->sideband);
	assert_int_equal(cfg->max_tasks, 65536);
	assert_int_equal(cfg->compression, CONFIG_COMPRESSION_NONE);
	assert_int_equal(cfg->max_snapshots, 0);
	assert_int_equal(cfg->max_total_size, 0);
	assert_int_equal(cfg->min_interval_ms, 0);
	assert_int_equal(cfg->max_per_hour, 0);
	assert_null(cfg->post_command);
	assert_int_equal(cfg->post_command_timeout_ms, 60000);
	assert_string_equal(cfg->control_socket, "/run/perfsnapd/control.sock");
	assert_null(cfg->control_group);
}

/* config__print() of @cfg, malloc'ed. */
static char *print_config(const struct perfsnapd_config *cfg)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	assert_non_null(out);
	config__print(cfg, out);
	assert_int_equal(fclose(out), 0);
	return text;
}

static int group_setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	tracing_dir = tracefs_tracing_dir();
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id",
		 tracing_dir ? tracing_dir : "/sys/kernel/tracing");
	if (!tracing_dir || access(path, R_OK)) {
		fprintf(stderr,
			"test_config: cannot read %s: %s: these tests need tracefs and root: "
			"mount -t tracefs nodev /sys/kernel/tracing\n",
			path, strerror(errno));
		return -1;
	}
	if (!mkdtemp(tmpdir)) {
		fprintf(stderr, "test_config: mkdtemp: %s\n", strerror(errno));
		return -1;
	}
	/* For the unprivileged child in test_unwritable_directory. */
	chmod(tmpdir, 0755);
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return test_dir__remove(tmpdir);
}

static void test_default_conf(void **state)
{
	struct perfsnapd_config *cfg;
	long page = sysconf(_SC_PAGESIZE);
	char *path;
	int line;
	size_t i;

	(void)state;
	path = copy_conf(CONF_DIR "/perfsnapd.conf", "/var/lib/perfsnapd");
	line = line_of(path, "events =");
	load_good(path, &cfg);

	assert_string_equal(cfg->path, path);
	assert_int_equal(cfg->nr_events, 3);
	assert_string_equal(cfg->events[0].name, "sched:sched_switch");
	assert_string_equal(cfg->events[1].name, "sched:sched_wakeup");
	assert_string_equal(cfg->events[2].name, "raw_syscalls:sys_enter");
	check_tracepoint(&cfg->events[0], "sched", "sched_switch");
	check_tracepoint(&cfg->events[1], "sched", "sched_wakeup");
	check_tracepoint(&cfg->events[2], "raw_syscalls", "sys_enter");
	for (i = 0; i < cfg->nr_events; i++) {
		const struct event_spec *e = &cfg->events[i];

		/* The 6.12 uapi header, not /usr/include's older one. */
		assert_int_equal(e->attr.size, PERF_ATTR_SIZE_VER8);
		assert_int_equal(e->attr.sample_type, BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW);
		assert_int_equal(e->attr.sample_period, 1);
		assert_true(e->overwrite);
		assert_int_equal(e->attr.write_backward, 1);
		assert_int_equal(e->line, line);
	}
	assert_int_equal(cfg->buffer_size, 4 << 20);
	assert_int_equal(cfg->buffer_pages, (4 << 20) / page);
	assert_int_equal(cfg->config_line_buffer_size, line_of(path, "buffer_size ="));
	assert_null(cfg->cpus);
	assert_string_equal(cfg->directory, tmpdir);
	assert_int_equal(cfg->formats, FORMAT(PERFDATA) | FORMAT(TRACEDAT));
	check_new_defaults(cfg);
	config__delete(cfg);
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
		struct perfsnapd_config *cfg;
		char src[PATH_MAX];
		char *path;

		if (!strstr(de->d_name, ".conf"))
			continue;
		snprintf(src, sizeof(src), "%s/examples/%s", CONF_DIR, de->d_name);
		path = copy_conf(src, "/var/lib/perfsnapd");
		load_good(path, &cfg);
		assert_true(cfg->nr_events > 0);
		config__delete(cfg);
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
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
	free(path);
}

static void test_terms_sampling(void **state)
{
	struct config_diags d = { 0 };
	const struct event_spec *e;
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
	free(path);
}

static void test_terms_tracepoints(void **state)
{
	struct config_diags d = { 0 };
	const struct event_spec *e;
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
	free(path);
}

static void test_multiline_and_comments(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
	free(path);
}

static void test_print_round_trip(void **state)
{
	struct perfsnapd_config *cfg, *again;
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
	config__delete(again);
	config__delete(cfg);
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
		struct perfsnapd_config *cfg;
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
		config__delete(cfg);
		free(path);
		free(text);
	}
}

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

static void test_cpus_normalized(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\ncpus = 0, 0-0,0\n"
				   "[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 0);
	assert_string_equal(cfg->cpus, "0");
	config__delete(cfg);
	free(path);
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
	config__delete(NULL);
	free(path);
}

static void test_explicit_tracing_dir(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg = NULL;
	char *path, *fake;

	(void)state;
	path = write_conf("tp.conf",
			  "[capture]\nevents = sched:sched_switch\n"
			  "[snapshot]\ndirectory = @DIR@\n",
			  "@DIR@", tmpdir);
	assert_int_equal(config__load(path, tracing_dir, &cfg, &d), 0);
	assert_int_equal(cfg->events[0].attr.config, tracepoint_id("sched", "sched_switch"));
	config__delete(cfg);

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
	struct perfsnapd_config *cfg;
	char *path, *socket;
	size_t i;

	(void)state;
	assert_int_equal(load_data("good_all_keys.conf", &path, &cfg, &d), 0);
	assert_int_equal(cfg->nr_events, 2);
	assert_int_equal(cfg->clock, CONFIG_CLOCK_BOOTTIME);
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
	config__delete(cfg);
	free(socket);
	free(path);
}

/* The kernel refuses CLOCK_REALTIME for tracepoints: said at the clock's line. */
static void test_clock_realtime_tracepoint(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock sched:sched_switch\n"
				   "clock = realtime\n[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 -EINVAL);
	assert_null(cfg);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 3, "[capture] clock: 'realtime'", "sched:sched_switch",
		    "accepted with tracepoints: perf, monotonic, boottime");
	config_diags__clear(&d);
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
			struct perfsnapd_config *cfg;
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
			config__delete(cfg);
			free(path);
			free(text);
		}
	}
}

static void test_print_all_keys(void **state)
{
	struct perfsnapd_config *cfg, *again;
	struct config_diags d = { 0 };
	char *path, *printed, *text;
	size_t i;

	(void)state;
	assert_int_equal(load_data("good_all_keys.conf", &path, &cfg, &d), 0);
	text = print_config(cfg);
	assert_non_null(strstr(text, "\ncpus = 0\nclock = boottime\nhistory_size = 0\t; keep none\n"
				     "sideband = no\nmax_tasks = 64\n\n[snapshot]\n"));
	assert_non_null(strstr(text,
			       "\nformats = perf.data trace.dat\ncompression = zstd\n"
			       "max_snapshots = 10\nmax_total_size = 1T\nmin_interval = 500ms\n"
			       "max_per_hour = 60\npost_command = /bin/true\n"
			       "post_command_timeout = 90s\n\n[control]\nsocket = "));
	assert_non_null(strstr(text, "/control.sock\ngroup = root\n"));

	printed = write_conf("printed_all.conf", text, "", "");
	load_good(printed, &again);
	for (i = 0; i < cfg->nr_events; i++)
		assert_memory_equal(&again->events[i].attr, &cfg->events[i].attr,
				    sizeof(cfg->events[i].attr));
	assert_int_equal(again->clock, cfg->clock);
	assert_int_equal(again->history_size, cfg->history_size);
	assert_int_equal(again->sideband, cfg->sideband);
	assert_int_equal(again->max_tasks, cfg->max_tasks);
	assert_int_equal(again->compression, cfg->compression);
	assert_int_equal(again->max_snapshots, cfg->max_snapshots);
	assert_int_equal(again->max_total_size, cfg->max_total_size);
	assert_int_equal(again->min_interval_ms, cfg->min_interval_ms);
	assert_int_equal(again->max_per_hour, cfg->max_per_hour);
	assert_string_equal(again->post_command, cfg->post_command);
	assert_int_equal(again->post_command_timeout_ms, cfg->post_command_timeout_ms);
	assert_string_equal(again->control_socket, cfg->control_socket);
	assert_string_equal(again->control_group, cfg->control_group);
	assert_int_equal(again->control_gid, cfg->control_gid);
	config__delete(again);
	config__delete(cfg);
	free(printed);
	free(text);
	free(path);
}

/* Defaults are printed too, and unset strings as comments that load back. */
static void test_print_defaults(void **state)
{
	struct perfsnapd_config *cfg, *again;
	struct config_diags d = { 0 };
	char *path, *printed, *text;

	(void)state;
	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n",
				   &path, &cfg, &d),
			 0);
	text = print_config(cfg);
	assert_non_null(strstr(text, "\nclock = perf\nhistory_size = 16M\nsideband = yes\n"
				     "max_tasks = 65536\n"));
	assert_non_null(strstr(text, "\ncompression = none\nmax_snapshots = 0\t; unlimited\n"
				     "max_total_size = 0\t; unlimited\nmin_interval = 0\t; none\n"
				     "max_per_hour = 0\t; unlimited\n; post_command is not set"));
	assert_non_null(strstr(text, "\npost_command_timeout = 1m\n\n[control]\n"
				     "socket = /run/perfsnapd/control.sock\n; group is not set"));
	printed = write_conf("printed_defaults.conf", text, "", "");
	load_good(printed, &again);
	check_new_defaults(again);
	config__delete(again);
	config__delete(cfg);
	free(printed);
	free(text);
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
	path = load_bad("bad_snapshot_keys.conf", &d, 7);
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

/*
 * Loads a config with "@key = @value" in [@section] on line 3 ([capture]),
 * 5 ([snapshot]) or 6 ([control]); expects exactly one diagnostic there.
 */
static void expect_bad_value(const char *section, const char *key, const char *value,
			     const char *needle)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *text, *path, *prefix;
	int line;

	if (!strcmp(section, "capture")) {
		line = 3;
		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n%s = %s\n"
				     "[snapshot]\ndirectory = @DIR@\n",
				     key, value) > 0);
	} else if (!strcmp(section, "snapshot")) {
		line = 5;
		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n[snapshot]\n"
				     "directory = @DIR@\n%s = %s\n",
				     key, value) > 0);
	} else {
		line = 6;
		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n[snapshot]\n"
				     "directory = @DIR@\n[control]\n%s = %s\n",
				     key, value) > 0);
	}
	assert_true(asprintf(&prefix, "[%s] %s: ", section, key) > 0);
	if (load_text(text, &path, &cfg, &d) != -EINVAL || d.nr != 1) {
		dump_diags(&d);
		fail_msg("%s = '%s': expected one diagnostic", key, value);
	}
	assert_null(cfg);
	expect_diag(&d, path, line, prefix, needle, "accepted: ");
	config_diags__clear(&d);
	free(prefix);
	free(path);
	free(text);
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

static void test_post_command(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
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
		struct perfsnapd_config *cfg;
		char *text, *path;

		assert_true(asprintf(&text,
				     "[capture]\nevents = cpu-clock\n[snapshot]\n"
				     "directory = @DIR@\n[control]\nsocket = %s\n",
				     name) > 0);
		assert_int_equal(load_text(text, &path, &cfg, &d), 0);
		assert_string_equal(cfg->control_socket, name);
		config__delete(cfg);
		free(path);
		free(text);
	}
}

/* Edges that are accepted, and how they are stored. */
static void test_good_values(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
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
	config__delete(cfg);
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
	config__delete(cfg);
	free(path);
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
		"max_total_size, min_interval, max_per_hour, post_command, post_command_timeout");
	config_diags__clear(&d);
	free(path);
}

/* A credentials file in tmpdir with @text and @mode; returns its path. */
static char *write_credentials(const char *name, const char *text, mode_t mode)
{
	char *path = write_conf(name, text, "", "");

	assert_int_equal(chmod(path, mode), 0);
	return path;
}

#define UPLOAD_HEAD "[capture]\nevents = cpu-clock\n[snapshot]\ndirectory = @DIR@\n[upload]\n"

/* [upload]: the keys, defaults, the credentials file, and that no secret is printed. */
static void test_upload_good(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path, *cred, *text, *printed = NULL;
	size_t size = 0;
	FILE *out;

	(void)state;
	cred = write_credentials("up.cred",
				 "# comment\n[other]\naws_access_key_id = NOTME\n[default]\n"
				 "aws_access_key_id = AKIDEXAMPLE\n"
				 "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n"
				 "aws_session_token = TOKEN123\nregion = eu-west-1\n",
				 0600);
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = s3://snap-bucket/fleet/{host}/{date}/\n"
					 "endpoint = http://127.0.0.1:9000/\npath_style = yes\n"
					 "credentials = %s\nkeep_local = no\nretry_min = 100ms\n",
			     cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->upload_bucket, "snap-bucket");
	assert_string_equal(cfg->upload_prefix, "fleet/{host}/{date}/");
	assert_string_equal(cfg->upload_endpoint, "http://127.0.0.1:9000");
	assert_string_equal(cfg->upload_region, "us-east-1");
	assert_true(cfg->upload_path_style);
	assert_false(cfg->upload_keep_local);
	assert_string_equal(cfg->upload_key_id, "AKIDEXAMPLE");
	assert_string_equal(cfg->upload_secret, "wJalrXUtnFEMI/K7MDENG");
	assert_string_equal(cfg->upload_token, "TOKEN123");
	assert_int_equal(cfg->upload_retry_min_ms, 100);
	assert_int_equal(cfg->upload_retry_max_ms, 5 * 60 * 1000);
	out = open_memstream(&printed, &size);
	config__print(cfg, out);
	fclose(out);
	assert_non_null(strstr(printed, "credentials = "));
	assert_null(strstr(printed, "AKIDEXAMPLE"));
	assert_null(strstr(printed, "wJalrXUtnFEMI"));
	assert_null(strstr(printed, "TOKEN123"));
	free(printed);
	config__delete(cfg);
	free(path);
	free(text);

	/* Defaults: AWS's endpoint of the region, virtual-host style, keep_local. */
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = s3://b12\nregion = eu-west-3\ncredentials = %s\n",
			     cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), 0);
	assert_string_equal(cfg->upload_prefix, "");
	assert_string_equal(cfg->upload_endpoint, "https://s3.eu-west-3.amazonaws.com");
	assert_false(cfg->upload_path_style);
	assert_true(cfg->upload_keep_local);
	config__delete(cfg);
	free(path);
	free(text);
	free(cred);

	/* Without [upload] url nothing is uploaded. */
	assert_int_equal(load_text(UPLOAD_HEAD, &path, &cfg, &d), 0);
	assert_null(cfg->upload_url);
	config__delete(cfg);
	free(path);
}

static void test_upload_bad(void **state)
{
	struct config_diags d = { 0 };
	struct perfsnapd_config *cfg;
	char *path, *open_cred, *nokey, *text;

	(void)state;
	open_cred = write_credentials(
		"open.cred",
		"[default]\naws_access_key_id = A\naws_secret_access_key = SECRETVALUE\n", 0644);
	nokey = write_credentials("nokey.cred",
				  "\n[default]\naws_access_key_id = A\nbroken SECRETVALUE\n", 0600);
	assert_true(asprintf(&text,
			     UPLOAD_HEAD "url = http://bucket/x\nurl = s3://B/x\n"
					 "credentials = %s\n[upload]\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: 'http://bucket/x' is not an s3:// URL");
	expect_diag(&d, path, 7, "[upload] url: set again");
	config_diags__clear(&d);
	free(path);
	free(text);

	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/a b%%/\ncredentials = %s\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: key prefix 'a b%/' has ' '");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* Readable by others: refused at the credentials line, with the fix. */
	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/x/\ncredentials = %s\n",
			     open_cred) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	assert_int_equal(d.nr, 1);
	expect_diag(&d, path, 7, "[upload] credentials:", "has mode 0644", "chmod 600");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* A missing key is reported at the [default] line of the credentials file, no value quoted. */
	assert_true(asprintf(&text, UPLOAD_HEAD "url = s3://bucket/x/\ncredentials = %s\n", nokey) >
		    0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, nokey, 2, "[default]: no aws_secret_access_key");
	expect_diag(&d, nokey, 4, "[default]: a line that is not 'key = value'");
	for (size_t i = 0; i < d.nr; i++)
		assert_null(strstr(d.items[i].message, "SECRETVALUE"));
	config_diags__clear(&d);
	free(path);
	free(text);

	/* An IP endpoint needs path_style; retry_max under retry_min; no credentials key. */
	assert_int_equal(load_text(UPLOAD_HEAD
				   "url = s3://bucket/x/\nendpoint = http://10.0.0.1:9000\n"
				   "retry_min = 10s\nretry_max = 1s\nregion = US\n",
				   &path, &cfg, &d),
			 -EINVAL);
	expect_diag(&d, path, 6, "[upload] url: set without credentials");
	expect_diag(&d, path, 7, "[upload] endpoint:", "is an IP address", "path_style = yes");
	expect_diag(&d, path, 9, "[upload] retry_max: shorter than retry_min");
	expect_diag(&d, path, 10, "[upload] region: bad region 'US'");
	config_diags__clear(&d);
	free(path);

	/* Keys without url. */
	assert_int_equal(load_text(UPLOAD_HEAD "keep_local = no\n", &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 6, "[upload] keep_local: set without [upload] url");
	config_diags__clear(&d);
	free(path);
	free(open_cred);
	free(nokey);
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
		cmocka_unit_test(test_bad_unknown_key),
		cmocka_unit_test(test_bad_unknown_section),
		cmocka_unit_test(test_bad_size),
		cmocka_unit_test(test_bad_unknown_event),
		cmocka_unit_test(test_bad_unknown_term),
		cmocka_unit_test(test_bad_glob),
		cmocka_unit_test(test_bad_no_events),
		cmocka_unit_test(test_bad_cpus),
		cmocka_unit_test(test_cpus_normalized),
		cmocka_unit_test(test_bad_directory),
		cmocka_unit_test(test_unwritable_directory),
		cmocka_unit_test(test_bad_format),
		cmocka_unit_test(test_bad_syntax),
		cmocka_unit_test(test_all_errors_collected),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_explicit_tracing_dir),
		cmocka_unit_test(test_all_keys),
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_clock_realtime_tracepoint),
		cmocka_unit_test(test_print_all_keys),
		cmocka_unit_test(test_print_defaults),
		cmocka_unit_test(test_bad_capture_keys),
		cmocka_unit_test(test_bad_snapshot_keys),
		cmocka_unit_test(test_bad_control_keys),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_post_command),
		cmocka_unit_test(test_socket_length),
		cmocka_unit_test(test_good_values),
		cmocka_unit_test(test_control_section_messages),
		cmocka_unit_test(test_upload_good),
		cmocka_unit_test(test_upload_bad),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
