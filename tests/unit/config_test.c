// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_test: what the config unit tests share: loading configs copied into
 * a scratch directory (with @DIR@ replaced), diagnostics checks, tracefs
 * lookups, and the group setup that needs tracefs.
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

/* The trace.dat clock a snapshot of @cfg's events is written with. */
const char *trace_clock_of(const struct perfsnapd_config *cfg)
{
	static char name[16];
	struct snapshot *s = snapshot__new();
	uint64_t id = 1;

	assert_non_null(s);
	for (size_t i = 0; i < cfg->nr_events; i++, id++)
		assert_int_equal(
			snapshot__add_event(s, &cfg->events[i].attr, cfg->events[i].name, &id, 1),
			0);
	snprintf(name, sizeof(name), "%s", snapshot_tracedat__trace_clock(s));
	snapshot__delete(s);
	return name;
}

char tmpdir[] = "/tmp/test_config.XXXXXX";
const char *tracing_dir;

char *read_all(const char *path)
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
char *write_conf(const char *name, const char *text, const char *from, const char *to)
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
char *copy_conf(const char *src, const char *from)
{
	const char *name = strrchr(src, '/') + 1;
	char *text = read_all(src);
	char *path = write_conf(name, text, from, tmpdir);

	free(text);
	return path;
}

int load_file(const char *path, const struct perfsnapd_config **cfg, struct config_diags *d)
{
	*cfg = NULL;
	return config__load(path, NULL, cfg, d);
}

/* Loads tests/data/config/@name (with @DIR@ filled in). */
int load_data(const char *name, char **ret_path, const struct perfsnapd_config **cfg,
	      struct config_diags *d)
{
	char src[PATH_MAX];

	snprintf(src, sizeof(src), "%s/%s", CONFIG_DATA, name);
	*ret_path = copy_conf(src, "@DIR@");
	return load_file(*ret_path, cfg, d);
}

int load_text(const char *text, char **ret_path, const struct perfsnapd_config **cfg,
	      struct config_diags *d)
{
	*ret_path = write_conf("inline.conf", text, "@DIR@", tmpdir);
	return load_file(*ret_path, cfg, d);
}

void dump_diags(const struct config_diags *d)
{
	config_diags__print(d, stderr);
}

/* Whether @d has a diagnostic at @file:@line whose message holds every one of @needles. */
bool has_diag(const struct config_diags *d, const char *file, int line, const char *const *needles)
{
	size_t i, j;

	for (i = 0; i < d->nr; i++) {
		bool all = true;

		if (d->items[i].line != line || strcmp(d->items[i].file, file))
			continue;
		for (j = 0; needles[j]; j++)
			all = all && strstr(d->items[i].message, needles[j]);
		if (all)
			return true;
	}
	return false;
}

/* Asserts a diagnostic at @line whose message holds every one of @needles. */
void expect_diag_(const struct config_diags *d, const char *file, int line,
		  const char *const *needles)
{
	if (has_diag(d, file, line, needles))
		return;
	dump_diags(d);
	fail_msg("no diagnostic at %s:%d with the expected text", file, line);
}

/* Loads a bad file: -EINVAL, no config, and exactly @nr diagnostics (0: any). */
char *load_bad(const char *name, struct config_diags *d, size_t nr)
{
	const struct perfsnapd_config *cfg;
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

void load_good(const char *path, const struct perfsnapd_config **cfg)
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

uint64_t tracepoint_id(const char *sys, const char *event)
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

const struct event_spec *find_event(const struct perfsnapd_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->nr_events; i++) {
		if (!strcmp(cfg->events[i].name, name))
			return &cfg->events[i];
	}
	fail_msg("event '%s' not in config", name);
	return NULL;
}

void check_common_attr(const struct event_spec *e)
{
	assert_int_equal(e->attr.size, sizeof(struct perf_event_attr));
	assert_int_equal(e->attr.read_format, PERF_FORMAT_ID);
	assert_int_equal(e->attr.sample_id_all, 1);
	assert_int_equal(e->attr.disabled, 1);
	assert_int_equal(e->attr.write_backward, e->overwrite);
}

void check_tracepoint(const struct event_spec *e, const char *sys, const char *event)
{
	check_common_attr(e);
	assert_true(e->is_tracepoint);
	assert_int_equal(e->attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(e->attr.config, tracepoint_id(sys, event));
	if (e->overwrite && !(e->attr.sample_type & PERF_SAMPLE_CALLCHAIN))
		assert_int_equal(e->attr.sample_type, COMPACT_SAMPLE_TYPE);
	else
		assert_int_equal(e->attr.sample_type & ~PERF_SAMPLE_CALLCHAIN,
				 BASE_SAMPLE_TYPE | PERF_SAMPLE_RAW);
	assert_int_equal(e->attr.freq, 0);
}

/* Line of the first line in @path starting with @prefix. */
int line_of(const char *path, const char *prefix)
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
void check_new_defaults(const struct perfsnapd_config *cfg)
{
	size_t i;

	assert_int_equal(cfg->clock, CONFIG_CLOCK_PERF);
	assert_string_equal(trace_clock_of(cfg), "local");
	for (i = 0; i < cfg->nr_events; i++)
		assert_int_equal(cfg->events[i].attr.use_clockid, 0);
	check_defaults_but_clock(cfg);
	assert_int_equal(cfg->max_total_size, 0);
	assert_int_equal(cfg->max_per_hour, 0);
}

/* What the built-in defaults and the shipped configuration share (its budget is its own). */
void check_defaults_but_clock(const struct perfsnapd_config *cfg)
{
	assert_int_equal(cfg->history_size, 16 << 20);
	assert_true(cfg->sideband);
	assert_int_equal(cfg->max_tasks, 65536);
	assert_int_equal(cfg->compression, CONFIG_COMPRESSION_AUTO);
	assert_int_equal(cfg->symbols, CONFIG_SYMBOLS_BUILD_IDS);
	assert_int_equal(cfg->max_snapshots, 0);
	assert_int_equal(cfg->min_interval_ms, 0);
	assert_null(cfg->post_command);
	assert_int_equal(cfg->post_command_timeout_ms, 60000);
	assert_string_equal(cfg->control_socket, "/run/perfsnapd/control.sock");
	assert_null(cfg->control_group);
	assert_int_equal(cfg->control_member_max_per_hour, 4);
}

/* config__print() of @cfg, malloc'ed. */
char *print_config(const struct perfsnapd_config *cfg)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	assert_non_null(out);
	config__print(cfg, out);
	assert_int_equal(fclose(out), 0);
	return text;
}

int group_setup(void **state)
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

int group_teardown(void **state)
{
	(void)state;
	return test_dir__remove(tmpdir);
}

/*
 * Loads a config with "@key = @value" in [@section] on line 3 ([capture]),
 * 5 ([snapshot]) or 6 ([control]); expects exactly one diagnostic there.
 */
void expect_bad_value(const char *section, const char *key, const char *value, const char *needle)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg;
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
