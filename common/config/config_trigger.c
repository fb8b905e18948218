// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_trigger: the [trigger NAME] sections of perfsnapd.conf. Each key's
 * value is checked where it is read; what needs the whole section (event or
 * psi, not both) and what only the kernel can judge (a filter, a PSI
 * threshold) is checked at the end, by asking the kernel the same question
 * the daemon will (a disabled perf event with the filter set, a PSI trigger
 * written and closed), so that a value the kernel refuses is an error at its
 * line before anything records. Part of common/: never logs.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracefs.h>

#include "config-internal.h"
#include "config_value.h"
#include "event_spec.h"

#define SPACES	      " \t\r\n\v\f"
#define NAME_MAX_LEN  64
#define NAME_ACCEPTED "letters, digits, '-', '_' and '.', at most 64, e.g. [trigger segv]"
#define PSI_ACCEPTED \
	"RESOURCE some|full STALL WINDOW, e.g. memory some 150ms 2s (RESOURCE: cpu, memory, io, irq)"
#define PSI_KERNEL_LIMITS                                                                      \
	"the kernel takes windows of 500ms to 10s and a stall of at most the window; without " \
	"CAP_SYS_RESOURCE the window must be a multiple of 2s"
#define MS_PER_HOUR (3600ull * 1000)

static const char *const psi_resources[] = { "cpu", "memory", "io", "irq", NULL };

static const char *const trigger_key_names[NR_TRIGGER_KEYS] = {
	[TKEY_EVENT] = "event",
	[TKEY_FILTER] = "filter",
	[TKEY_AFTER] = "after",
	[TKEY_COUNT] = "count",
	[TKEY_WINDOW] = "window",
	[TKEY_MAX_PER_HOUR] = "max_per_hour",
	[TKEY_MIN_INTERVAL] = "min_interval",
	[TKEY_PSI] = "psi",
	[TKEY_PSI_FILE] = "psi_file",
	[TKEY_BEFORE] = "before",
	[TKEY_START] = "start",
	[TKEY_END] = "end",
	[TKEY_KEY] = "key",
	[TKEY_START_KEY] = "start_key",
	[TKEY_END_KEY] = "end_key",
	[TKEY_START_FILTER] = "start_filter",
	[TKEY_END_FILTER] = "end_filter",
	[TKEY_THRESHOLD] = "threshold",
};

#define TRIGGER_KEYS                                                                               \
	"event, filter, before, after, count, window, max_per_hour, min_interval, psi, psi_file, " \
	"start, end, key, start_key, end_key, start_filter, end_filter, threshold"

/**
 * config_trigger__is_section - whether a section header is a trigger's
 * @section: the text between the brackets
 */
bool config_trigger__is_section(const char *section)
{
	return !strncmp(section, "trigger", 7) &&
	       (!section[7] || isspace((unsigned char)section[7]));
}

static bool good_name(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > NAME_MAX_LEN)
		return false;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_' && *c != '.')
			return false;
	return true;
}

/**
 * config_trigger__begin - a [trigger NAME] header
 * @p: the parser, at the header's line
 * @section: the text between the brackets
 *
 * Keys that follow go to the new trigger; after a bad header they are
 * ignored (the header is reported).
 */
void config_trigger__begin(struct config_reader *p, const char *section)
{
	struct perfsnapd_config *cfg = p->cfg;
	const char *name = section + 7 + strspn(section + 7, SPACES);
	struct trigger_spec *arr;
	int(*lines)[NR_TRIGGER_KEYS];
	struct trigger_spec *t;

	p->trigger = -1;
	if (!good_name(name)) {
		config_reader__diag(p, p->line,
				    "[%s]: %s trigger name '%s': accepted: " NAME_ACCEPTED, section,
				    *name ? "bad" : "no", name);
		return;
	}
	for (size_t i = 0; i < cfg->nr_triggers; i++)
		if (!strcmp(cfg->triggers[i].name, name)) {
			config_reader__diag(
				p, p->line,
				"[trigger %s]: set again (first on line %d): accepted: one section per trigger name",
				name, cfg->triggers[i].line);
			return;
		}
	arr = realloc(cfg->triggers, (cfg->nr_triggers + 1) * sizeof(*arr));
	if (arr)
		cfg->triggers = arr;
	lines = realloc(p->trigger_key_line, (cfg->nr_triggers + 1) * sizeof(*lines));
	if (lines)
		p->trigger_key_line = lines;
	if (!arr || !lines) {
		p->err = -ENOMEM;
		return;
	}
	t = &cfg->triggers[cfg->nr_triggers];
	memset(t, 0, sizeof(*t));
	memset(lines[cfg->nr_triggers], 0, sizeof(lines[0]));
	t->name = strdup(name);
	if (!t->name) {
		p->err = -ENOMEM;
		return;
	}
	t->line = p->line;
	t->count = 1;
	t->window_ms = 1000;
	p->trigger = (int)cfg->nr_triggers++;
}

static void parse_event(struct config_reader *p, struct trigger_spec *t, const char *value)
{
	struct event_spec *specs = NULL;
	size_t nr = 0;
	char *msg = NULL;
	int r;

	if (strchr(value, '/') || strpbrk(value, SPACES)) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] event: '%s': accepted: one tracefs event as system:event, without terms, e.g. signal:signal_generate",
			t->name, value);
		return;
	}
	r = event_spec__parse(value, p->tracing_dir, p->line, &specs, &nr, &msg);
	if (r == -ENOMEM) {
		p->err = r;
	} else if (r < 0) {
		config_reader__diag(p, p->line, "[trigger %s] event: %s", t->name, msg);
	} else if (nr != 1 || !specs[0].is_tracepoint) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] event: '%s' %s: accepted: one tracefs event (tracepoint, kprobe or uprobe) as system:event, e.g. signal:signal_generate",
			t->name, value,
			nr > 1 ? "matches more than one event" : "is not a tracefs event");
	} else {
		t->event = specs[0];
		t->event.overwrite = false;
		t->event.attr.write_backward = 0;
		t->event_line = p->line;
		nr = 0;
	}
	for (size_t i = 0; i < nr; i++)
		event_spec__fini(&specs[i]);
	free(specs);
	free(msg);
}

/* "memory some 150ms 2s". */
static void parse_psi(struct config_reader *p, struct trigger_spec *t, char *value)
{
	char *words[5] = { NULL };
	char *save = NULL;
	unsigned int res, nr = 0;
	uint64_t stall_ms, window_ms;

	t->psi_line = p->line;
	t->psi = strdup(value);
	if (!t->psi) {
		p->err = -ENOMEM;
		return;
	}
	for (char *w = strtok_r(value, SPACES, &save); w && nr < 5;
	     w = strtok_r(NULL, SPACES, &save))
		words[nr++] = w;
	if (nr != 4) {
		config_reader__diag(p, p->line,
				    "[trigger %s] psi: bad value '%s': accepted: " PSI_ACCEPTED,
				    t->name, t->psi);
		return;
	}
	if (config_value__parse_name(words[0], psi_resources, &res)) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] psi: unknown resource '%s': accepted: cpu, memory, io, irq (the files in /proc/pressure)",
			t->name, words[0]);
		return;
	}
	if (strcmp(words[1], "some") && strcmp(words[1], "full")) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] psi: '%s': accepted: some or full (as in /proc/pressure/%s)",
			t->name, words[1], words[0]);
		return;
	}
	if (config_value__parse_duration(words[2], 1, 10000, &stall_ms) ||
	    config_value__parse_duration(words[3], 1, 10000, &window_ms)) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] psi: bad stall or window in '%s': accepted: durations in ms or s up to 10s, e.g. memory some 150ms 2s",
			t->name, t->psi);
		return;
	}
	t->psi_resource = strdup(words[0]);
	if (!t->psi_resource)
		p->err = -ENOMEM;
	t->psi_full = words[1][0] == 'f';
	t->psi_stall_us = stall_ms * 1000;
	t->psi_window_us = window_ms * 1000;
}

static void parse_number(struct config_reader *p, struct trigger_spec *t, int key,
			 const char *value)
{
	static const struct {
		bool duration;
		uint64_t min, max;
		const char *accepted;
	} b[NR_TRIGGER_KEYS] = {
		[TKEY_AFTER] = { true, 0, 60000, "0 to 1m, with unit ms, s or m, e.g. 100ms" },
		[TKEY_BEFORE] = { true, 0, MS_PER_HOUR,
				  "0 (all the rings hold) or 1ms to 1h, with unit ms, s, m or h, "
				  "e.g. 2s" },
		[TKEY_COUNT] = { false, 1, 1000000, "a number from 1 to 1000000, e.g. 3" },
		[TKEY_WINDOW] = { true, 1, MS_PER_HOUR,
				  "1ms to 1h, with unit ms, s, m or h, e.g. 1s" },
		[TKEY_MAX_PER_HOUR] = { false, 0, 3600,
					"0 (unlimited) or a number up to 3600, e.g. 6" },
		[TKEY_MIN_INTERVAL] = { true, 0, 24 * MS_PER_HOUR,
					"0 (none) or a duration up to 24h, e.g. 10s" },
	};
	uint64_t v = 0;
	int r;

	if (b[key].duration)
		r = config_value__parse_duration(value, b[key].min, b[key].max, &v);
	else
		r = config_value__parse_count(value, b[key].min, b[key].max, &v);
	if (r < 0) {
		config_reader__diag(p, p->line, "[trigger %s] %s: %s '%s'%s: accepted: %s", t->name,
				    trigger_key_names[key], b[key].duration ? "duration" : "number",
				    value, r == -ERANGE ? " out of range" : " is bad",
				    b[key].accepted);
		return;
	}
	switch (key) {
	case TKEY_AFTER:
		t->after_ms = v;
		break;
	case TKEY_BEFORE:
		t->before_ms = v;
		break;
	case TKEY_COUNT:
		t->count = (unsigned int)v;
		break;
	case TKEY_WINDOW:
		t->window_ms = v;
		break;
	case TKEY_MAX_PER_HOUR:
		t->max_per_hour = (unsigned int)v;
		break;
	default:
		t->min_interval_ms = v;
		break;
	}
}

/**
 * config_trigger__set_key - a key = value line in a [trigger NAME] section
 * @p: the parser, at the line
 * @name: the key
 * @value: the value without blanks and comment
 */
void config_trigger__set_key(struct config_reader *p, const char *name, char *value)
{
	struct trigger_spec *t;
	int key;

	if (p->trigger < 0)
		return; /* the header was reported */
	t = &p->cfg->triggers[p->trigger];
	for (key = 0; key < NR_TRIGGER_KEYS; key++)
		if (!strcmp(trigger_key_names[key], name))
			break;
	if (key == NR_TRIGGER_KEYS) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] %s: unknown key: accepted in [trigger NAME]: " TRIGGER_KEYS,
			t->name, name);
		return;
	}
	if (p->trigger_key_line[p->trigger][key]) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] %s: set again (first on line %d): accepted: once per trigger",
			t->name, name, p->trigger_key_line[p->trigger][key]);
		return;
	}
	p->trigger_key_line[p->trigger][key] = p->line;
	switch (key) {
	case TKEY_EVENT:
		parse_event(p, t, value);
		break;
	case TKEY_FILTER:
		t->filter_line = p->line;
		if (!*value)
			config_reader__diag(
				p, p->line,
				"[trigger %s] filter: empty: accepted: a kernel event filter such as sig == 11, or no filter key",
				t->name);
		else if (!(t->filter = strdup(value)))
			p->err = -ENOMEM;
		break;
	case TKEY_PSI:
		parse_psi(p, t, value);
		break;
	case TKEY_PSI_FILE:
		if (value[0] != '/')
			config_reader__diag(
				p, p->line,
				"[trigger %s] psi_file: '%s' is not an absolute path: accepted: a pressure file such as /sys/fs/cgroup/unified/GROUP/memory.pressure",
				t->name, value);
		else if (!(t->psi_file = strdup(value)))
			p->err = -ENOMEM;
		break;
	default:
		if (key >= TKEY_START)
			config_trigger_paired__set_key(p, t, key, value);
		else
			parse_number(p, t, key, value);
		break;
	}
}

/* "sig, errno, code, comm, pid" from the event's format file, for a message. */
static void field_names(const struct trigger_spec *t, const char *tracing_dir, char *buf,
			size_t size)
{
	char path[PATH_MAX], line[512];
	const char *colon = strchr(t->event.name, ':');
	size_t len = 0;
	FILE *f;

	buf[0] = '\0';
	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir || !colon)
		return;
	snprintf(path, sizeof(path), "%s/events/%.*s/%s/format", tracing_dir,
		 (int)(colon - t->event.name), t->event.name, colon + 1);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && len < size) {
		char *decl = strstr(line, "field:");
		char *semi, *name;

		if (!decl || !(semi = strchr(decl, ';')))
			continue;
		*semi = '\0';
		if (semi > decl && semi[-1] == ']')
			*strrchr(decl, '[') = '\0';
		name = strrchr(decl, ' ');
		name = name ? name + 1 : decl + 6;
		if (strncmp(name, "common_", 7))
			len += snprintf(buf + len, size - len, "%s%s", len ? ", " : "", name);
	}
	fclose(f);
}

/*
 * Opens the event as the daemon will (on this thread, disabled) and sets the
 * filter: the kernel parses it and says EINVAL if it is bad.
 */
static void check_filter(struct config_reader *p, const struct trigger_spec *t)
{
	struct perf_event_attr attr = t->event.attr;
	char fields[512];
	int fd, err = 0;

	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		config_reader__diag(
			p, t->event_line,
			"[trigger %s] event: cannot open '%s' to check its filter: %s: run as root or with CAP_PERFMON",
			t->name, t->event.name, strerror(errno));
		return;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, t->filter) < 0)
		err = errno;
	close(fd);
	if (!err)
		return;
	field_names(t, p->tracing_dir, fields, sizeof(fields));
	config_reader__diag(
		p, t->filter_line,
		"[trigger %s] filter: the kernel refused '%s' for %s: %s: accepted: the kernel's event filter syntax over the event's fields (%s), e.g. %s",
		t->name, t->filter, t->event.name, strerror(err),
		*fields ? fields : "see its format file in tracefs",
		!strcmp(t->event.name, "signal:signal_generate") ? "sig == 11 || sig == 6" :
								   "common_pid != 0");
}

/* Writes the PSI trigger once and closes it: the kernel checks it at write. */
static void check_psi(struct config_reader *p, struct trigger_spec *t)
{
	char path[PATH_MAX], text[64];
	int line = t->psi_file ? p->trigger_key_line[t - p->cfg->triggers][TKEY_PSI_FILE] :
				 t->psi_line;
	int fd, err = 0;
	ssize_t n;

	if (!t->psi_file) {
		snprintf(path, sizeof(path), "/proc/pressure/%s", t->psi_resource);
		t->psi_file = strdup(path);
		if (!t->psi_file) {
			p->err = -ENOMEM;
			return;
		}
	}
	fd = open(t->psi_file, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		config_reader__diag(
			p, line,
			"[trigger %s] %s: cannot open %s: %s: accepted: /proc/pressure/%s (kernel with CONFIG_PSI, not booted with psi=0) or a cgroup v2 group's %s.pressure",
			t->name, line == t->psi_line ? "psi" : "psi_file", t->psi_file,
			strerror(errno), t->psi_resource, t->psi_resource);
		return;
	}
	snprintf(text, sizeof(text), "%s %llu %llu", t->psi_full ? "full" : "some",
		 (unsigned long long)t->psi_stall_us, (unsigned long long)t->psi_window_us);
	/* The kernel ends the string at the last byte written: send the NUL too. */
	n = write(fd, text, strlen(text) + 1);
	if (n < 0)
		err = errno;
	close(fd);
	if (err)
		config_reader__diag(
			p, t->psi_line,
			"[trigger %s] psi: the kernel refused '%s' on %s: %s: accepted: %s",
			t->name, t->psi, t->psi_file, strerror(err), PSI_KERNEL_LIMITS);
}

/**
 * config_trigger__finish - checks that need a whole section, and the kernel's
 * @p: the parser, after the last line
 */
void config_trigger__finish(struct config_reader *p)
{
	struct perfsnapd_config *cfg = p->cfg;

	for (size_t i = 0; i < cfg->nr_triggers; i++) {
		struct trigger_spec *t = &cfg->triggers[i];
		const int *lines = p->trigger_key_line[i];
		bool has_event = lines[TKEY_EVENT], has_psi = lines[TKEY_PSI], has_paired = false;

		for (int k = TKEY_START; k <= TKEY_THRESHOLD; k++)
			has_paired |= lines[k] != 0;
		if (has_paired) {
			config_trigger_paired__finish(p, t);
			continue;
		}

		if (has_event && has_psi) {
			config_reader__diag(
				p, lines[TKEY_PSI],
				"[trigger %s] psi: given with event (line %d): accepted: event or psi, one per trigger",
				t->name, lines[TKEY_EVENT]);
			continue;
		}
		if (lines[TKEY_FILTER] && !has_event)
			config_reader__diag(
				p, lines[TKEY_FILTER],
				"[trigger %s] filter: without event: accepted: filter with an event key",
				t->name);
		if (lines[TKEY_PSI_FILE] && !has_psi)
			config_reader__diag(
				p, lines[TKEY_PSI_FILE],
				"[trigger %s] psi_file: without psi: accepted: psi_file with a psi key naming its resource",
				t->name);
		if (lines[TKEY_COUNT] && !has_event)
			config_reader__diag(
				p, lines[TKEY_COUNT],
				"[trigger %s] count: without event: accepted: count with an event key",
				t->name);
		t->kind = has_event ? TRIGGER_KIND_EVENT :
			  has_psi   ? TRIGGER_KIND_PSI :
				      TRIGGER_KIND_MANUAL;
		if (t->kind == TRIGGER_KIND_EVENT && t->event.name) {
			if (cfg->clock == CONFIG_CLOCK_REALTIME) {
				config_reader__diag(
					p, t->event_line,
					"[trigger %s] event: [capture] clock = realtime cannot stamp tracepoints such as %s: accepted with triggers: clock = perf, monotonic or boottime",
					t->name, t->event.name);
				continue;
			}
			if (cfg->nr_events) {
				t->event.attr.use_clockid = cfg->events[0].attr.use_clockid;
				t->event.attr.clockid = cfg->events[0].attr.clockid;
			}
			if (t->filter && !p->err)
				check_filter(p, t);
		}
		if (t->kind == TRIGGER_KIND_PSI && t->psi_resource && !p->err)
			check_psi(p, t);
	}
}

/**
 * config_trigger__fini - free what a trigger_spec holds
 * @t: the trigger
 */
void config_trigger__fini(struct trigger_spec *t)
{
	free(t->name);
	event_spec__fini(&t->event);
	free(t->filter);
	free(t->psi);
	free(t->psi_resource);
	free(t->psi_file);
	config_trigger_paired__fini(t);
}

/**
 * config_trigger__print - print a trigger section as it loads back
 * @t: the trigger
 * @out: stream
 */
void config_trigger__print(const struct trigger_spec *t, FILE *out)
{
	char v[CONFIG_VALUE_FORMAT_MAX];

	fprintf(out, "\n[trigger %s]\n", t->name);
	if (t->kind == TRIGGER_KIND_EVENT) {
		fprintf(out, "event = %s\n", t->event.name);
		if (t->filter)
			fprintf(out, "filter = %s\n", t->filter);
		fprintf(out, "count = %u\n", t->count);
		config_value__format_duration(t->window_ms, v, sizeof(v));
		fprintf(out, "window = %s\n", v);
	} else if (t->kind == TRIGGER_KIND_PSI) {
		fprintf(out, "psi = %s\n", t->psi);
		fprintf(out, "psi_file = %s\n", t->psi_file);
	} else if (t->kind == TRIGGER_KIND_PAIRED) {
		config_trigger_paired__print(t, out);
		fprintf(out, "count = %u\n", t->count);
		config_value__format_duration(t->window_ms, v, sizeof(v));
		fprintf(out, "window = %s\n", v);
	} else {
		fputs("; manual: fired by `perfsnapctl trigger NAME` only\n", out);
	}
	config_value__format_duration(t->before_ms, v, sizeof(v));
	fprintf(out, "before = %s%s\n", v, t->before_ms ? "" : "\t; all the rings hold");
	config_value__format_duration(t->after_ms, v, sizeof(v));
	fprintf(out, "after = %s\n", v);
	fprintf(out, "max_per_hour = %u%s\n", t->max_per_hour,
		t->max_per_hour ? "" : "\t; unlimited");
	config_value__format_duration(t->min_interval_ms, v, sizeof(v));
	fprintf(out, "min_interval = %s%s\n", v, t->min_interval_ms ? "" : "\t; none");
}

const struct trigger_spec *config__trigger(const struct perfsnapd_config *cfg, const char *name)
{
	for (size_t i = 0; i < cfg->nr_triggers; i++)
		if (!strcmp(cfg->triggers[i].name, name))
			return &cfg->triggers[i];
	return NULL;
}

const char *config__trigger_kind_name(enum trigger_kind kind)
{
	return kind == TRIGGER_KIND_EVENT  ? "event" :
	       kind == TRIGGER_KIND_PSI	   ? "psi" :
	       kind == TRIGGER_KIND_PAIRED ? "paired" :
					     "manual";
}
