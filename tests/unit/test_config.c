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
#include <ftw.h>
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
#include <unistd.h>
#include <cmocka.h>

#include <tracefs.h>

#include "config.h"

#define CONFIG_DATA TEST_DATA_DIR "/config"
#define CONF_DIR TEST_DATA_DIR "/../../conf"

#define BASE_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			  PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

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
		fail_msg("%s: returned %d with %zu diagnostics, expected -EINVAL and %zu",
			 name, r, d->nr, nr);
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

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int group_setup(void **state)
{
	char path[PATH_MAX];

	(void)state;
	tracing_dir = tracefs_tracing_dir();
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/id",
		 tracing_dir ? tracing_dir : "/sys/kernel/tracing");
	if (!tracing_dir || access(path, R_OK)) {
		fprintf(stderr, "test_config: cannot read %s: %s: these tests need tracefs and root: "
			"mount -t tracefs nodev /sys/kernel/tracing\n", path, strerror(errno));
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
	return nftw(tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
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
	assert_int_equal(cfg->formats, SNAPSHOT_FORMAT_PERFDATA);
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
	assert_int_equal(cfg->formats, SNAPSHOT_FORMAT_TRACEDAT);
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
	assert_int_equal(cfg->formats, SNAPSHOT_FORMAT_PERFDATA | SNAPSHOT_FORMAT_TRACEDAT);
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
		{ "1", 1 }, { "5000", 5000 }, { "4k", 4096 }, { "3K", 3072 },
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

		assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\nbuffer_size = %s\n"
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
	static const char *const bad[] = { "0", "-1", "4MB", "M", "1025M", "2G", "4 M",
					   "99999999999999999999" };
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

		assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\n\nbuffer_size = %s\n"
				     "[snapshot]\ndirectory = @DIR@\n", bad[i]) > 0);
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
	expect_diag(&d, path, 3, "[capture] events", "'sched:no_such_tracepoint'",
		    "not found in ", "/events: see `perf list tracepoint`");
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
	static const char *const bad[] = { "", "none", "0-", "-1", "3-1", "0,,1", "0,", "1 2",
					   "0x1" };
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

		assert_true(asprintf(&text, "[capture]\nevents = cpu-clock\ncpus = %s\n"
				     "[snapshot]\ndirectory = @DIR@\n", bad[i]) > 0);
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
				   "[snapshot]\ndirectory = @DIR@\n", &path, &cfg, &d), 0);
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
	expect_diag(&d, path, 4, "[snapshot] directory", "'var/lib/perfsnapd' is not an absolute path",
		    "accepted: an absolute path");
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
		    "accepted: perf.data, trace.dat, or both space-separated");
	config_diags__clear(&d);
	free(path);

	assert_int_equal(load_text("[capture]\nevents = cpu-clock\n[snapshot]\n"
				   "directory = @DIR@\nformats =\n", &path, &cfg, &d), -EINVAL);
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
	assert_true(asprintf(&text, "[capture]\nevents = cpu-clock %s\n[snapshot]\n"
			     "directory = @DIR@\n", long_line) > 0);
	assert_int_equal(load_text(text, &path, &cfg, &d), -EINVAL);
	expect_diag(&d, path, 2, "line too long", "indented lines");
	config_diags__clear(&d);
	free(path);
	free(text);

	/* Keys outside sections, keys set twice, continued scalars. */
	assert_int_equal(load_text("top = 1\n[capture]\nevents = cpu-clock\ncpus = all\n"
				   "cpus = 0\nbuffer_size = 4M\n  8M\n[snapshot]\n"
				   "directory = @DIR@\n", &path, &cfg, &d), -EINVAL);
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
	path = write_conf("tp.conf", "[capture]\nevents = sched:sched_switch\n"
			  "[snapshot]\ndirectory = @DIR@\n", "@DIR@", tmpdir);
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
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
