// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_trigger_paired: the keys of a paired [trigger NAME] (start, end,
 * key, start_key, end_key, start_filter, end_filter, threshold) and the
 * checks that need the whole section: both sides, a key that is an integer
 * field of each event (from its format file, through libtraceevent), each
 * filter as the kernel parses it, and the events opened once so that a
 * daemon without the rights fails here, at the line. The two events are
 * added to [capture] events when not there, so that the pair that fires is
 * in the snapshot. Part of common/: never logs.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "cleanup.h"
#include "config-internal.h"
#include "config_filter.h"
#include "config_value.h"
#include "event_spec.h"

#define SPACES		   " \t\r\n\v\f"
#define THRESHOLD_MAX_NS   (3600ull * 1000000000ull)
#define THRESHOLD_ACCEPTED "a duration over 0 up to 1h with unit ns, us, ms or s, e.g. 2ms"
#define PAIRED_EXAMPLE \
	"e.g. start = sched:sched_waking, start_key = pid, end = sched:sched_switch, end_key = next_pid"

static const char *side_name(const struct trigger_spec *t, const struct trigger_side *s)
{
	return s == &t->start ? "start" : "end";
}

static void parse_side_event(struct config_reader *p, struct trigger_spec *t,
			     struct trigger_side *s, const char *value)
{
	struct event_spec *specs = NULL;
	size_t nr = 0;
	char *msg = NULL;
	int r;

	s->line = p->line;
	if (strchr(value, '/') || strpbrk(value, SPACES) || strpbrk(value, "*?[")) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] %s: '%s': accepted: one tracepoint as system:event, without terms or globs, e.g. sched:sched_switch",
			t->name, side_name(t, s), value);
		return;
	}
	r = event_spec__parse(value, p->tracing_dir, p->line, &specs, &nr, &msg);
	if (r == -ENOMEM) {
		p->err = r;
	} else if (r < 0) {
		config_reader__diag(p, p->line, "[trigger %s] %s: %s", t->name, side_name(t, s),
				    msg);
	} else if (nr != 1 || !specs[0].is_tracepoint) {
		config_reader__diag(
			p, p->line,
			"[trigger %s] %s: '%s' is not one tracefs event: accepted: a tracepoint as system:event, e.g. raw_syscalls:sys_enter",
			t->name, side_name(t, s), value);
	} else {
		s->event = specs[0];
		s->event.overwrite = false;
		s->event.attr.write_backward = 0;
		nr = 0;
	}
	for (size_t i = 0; i < nr; i++)
		event_spec__fini(&specs[i]);
	free(specs);
	free(msg);
}

/* "2ms", "500us": a whole number and its unit, over 0. */
static int parse_threshold(const char *value, uint64_t *ret_ns)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = { { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 } };
	unsigned long long n;
	char *end;

	if (!isdigit((unsigned char)value[0]))
		return -EINVAL;
	errno = 0;
	n = strtoull(value, &end, 10);
	if (errno)
		return -ERANGE;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		if (!n || n > THRESHOLD_MAX_NS / units[i].ns)
			return -ERANGE;
		*ret_ns = n * units[i].ns;
		return 0;
	}
	return -EINVAL;
}

static void set_string(struct config_reader *p, char **dst, const char *value)
{
	free(*dst);
	*dst = strdup(value);
	if (!*dst)
		p->err = -ENOMEM;
}

/**
 * config_trigger_paired__set_key - one of the paired keys of a trigger
 * @p: the parser, at the line
 * @t: the trigger
 * @key: TKEY_START to TKEY_THRESHOLD
 * @value: the value
 */
void config_trigger_paired__set_key(struct config_reader *p, struct trigger_spec *t, int key,
				    const char *value)
{
	uint64_t ns;
	int r;

	switch (key) {
	case TKEY_START:
		parse_side_event(p, t, &t->start, value);
		break;
	case TKEY_END:
		parse_side_event(p, t, &t->end, value);
		break;
	case TKEY_KEY:
	case TKEY_START_KEY:
	case TKEY_END_KEY:
		if (!*value) {
			config_reader__diag(
				p, p->line,
				"[trigger %s] %s: empty: accepted: an integer field of the event, e.g. common_pid",
				t->name,
				key == TKEY_KEY	      ? "key" :
				key == TKEY_START_KEY ? "start_key" :
							"end_key");
			break;
		}
		if (key != TKEY_END_KEY) {
			set_string(p, &t->start.key.name, value);
			t->start.key_line = p->line;
		}
		if (key != TKEY_START_KEY) {
			set_string(p, &t->end.key.name, value);
			t->end.key_line = p->line;
		}
		break;
	case TKEY_START_FILTER:
	case TKEY_END_FILTER: {
		struct trigger_side *s = key == TKEY_START_FILTER ? &t->start : &t->end;

		s->filter_line = p->line;
		if (!*value)
			config_reader__diag(
				p, p->line,
				"[trigger %s] %s_filter: empty: accepted: a kernel event filter such as id == 0, or no %s_filter key",
				t->name, side_name(t, s), side_name(t, s));
		else
			set_string(p, &s->filter, value);
		break;
	}
	default:
		t->threshold_line = p->line;
		r = parse_threshold(value, &ns);
		if (r < 0)
			config_reader__diag(
				p, p->line,
				"[trigger %s] threshold: '%s'%s: accepted: " THRESHOLD_ACCEPTED,
				t->name, value,
				value[0] == '-' ? " is negative" :
				r == -ERANGE	? " is 0 or out of range" :
						  " is bad");
		else
			t->threshold_ns = ns;
		break;
	}
}

/* The event's fields, for a message: "next_pid, next_prio, ...". */
static void list_fields(struct tep_event *ev, char *buf, size_t size)
{
	struct tep_format_field *f;
	size_t len = 0;

	buf[0] = '\0';
	for (f = ev->format.fields; f && len < size; f = f->next)
		if (!(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC)))
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
						f->name);
}

static struct tep_event *find_event(struct tep_handle *tep, const char *name)
{
	const char *colon = strchr(name, ':');
	char sys[128];

	if (!colon || (size_t)(colon - name) >= sizeof(sys))
		return NULL;
	memcpy(sys, name, (size_t)(colon - name));
	sys[colon - name] = '\0';
	return tep_find_event_by_name(tep, sys, colon + 1);
}

/*
 * @name as a field of @ev: an integer of 1, 2, 4 or 8 bytes. Returns 0,
 * or -ENOENT (no such field) or -EINVAL (not an integer).
 */
static int resolve_field(struct tep_event *ev, const char *name, struct trigger_field *f)
{
	struct tep_format_field *ff = tep_find_any_field(ev, name);

	if (!ff)
		return -ENOENT;
	if (ff->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC) ||
	    (ff->size != 1 && ff->size != 2 && ff->size != 4 && ff->size != 8))
		return -EINVAL;
	f->offset = (uint32_t)ff->offset;
	f->size = (uint32_t)ff->size;
	f->is_signed = ff->flags & TEP_FIELD_IS_SIGNED;
	return 0;
}

static void resolve_key(struct config_reader *p, struct trigger_spec *t, struct trigger_side *s,
			struct tep_event *ev)
{
	char fields[512];
	int r = resolve_field(ev, s->key.name, &s->key);

	if (!r)
		return;
	list_fields(ev, fields, sizeof(fields));
	config_reader__diag(
		p, s->key_line,
		"[trigger %s] %s key: '%s' %s %s: accepted: an integer field of it (%s, or common_pid)",
		t->name, side_name(t, s), s->key.name,
		r == -ENOENT ? "is not a field of" : "is not an integer field of", s->event.name,
		fields);
}

/*
 * config_filter's view of the event: its integer fields, and its strings:
 * char arrays and __data_loc ones (not __rel_loc, which BPF programs see
 * at an offset from the field).
 */
static int event_field(void *ev, const char *name, struct trigger_field *f)
{
	struct tep_format_field *ff = tep_find_any_field(ev, name);

	if (!ff || !(ff->flags & TEP_FIELD_IS_STRING))
		return resolve_field(ev, name, f);
	if (ff->flags & TEP_FIELD_IS_RELATIVE || ff->size <= 0)
		return -EINVAL;
	f->kind = ff->flags & TEP_FIELD_IS_DYNAMIC ? TRIGGER_FIELD_DYNAMIC : TRIGGER_FIELD_CHARS;
	f->offset = (uint32_t)ff->offset;
	f->size = (uint32_t)ff->size;
	f->is_signed = false;
	return 0;
}

/* Opens the event (disabled, on this thread) with its filter, as the daemon will. */
static void check_side(struct config_reader *p, struct trigger_spec *t, struct trigger_side *s)
{
	struct perf_event_attr attr = s->event.attr;
	int fd, err = 0;

	attr.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		config_reader__diag(
			p, s->line,
			"[trigger %s] %s: cannot open '%s': %s: accepted: perfsnapd as root (or with CAP_PERFMON and CAP_BPF)",
			t->name, side_name(t, s), s->event.name, strerror(errno));
		return;
	}
	if (s->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, s->filter) < 0)
		err = errno;
	close(fd);
	if (err)
		config_reader__diag(
			p, s->filter_line,
			"[trigger %s] %s_filter: the kernel refused '%s' for %s: %s: accepted: the kernel's event filter syntax over the event's fields, e.g. id == 0",
			t->name, side_name(t, s), s->filter, s->event.name, strerror(err));
}

/* [capture] events gets the tracepoint (overwrite) when it does not record it. */
static void record_event(struct config_reader *p, const struct trigger_side *s)
{
	struct perfsnapd_config *cfg = p->cfg;
	struct event_spec *specs = NULL, *arr;
	size_t nr = 0;
	char *msg = NULL;

	for (size_t i = 0; i < cfg->nr_events; i++)
		if (!strcmp(cfg->events[i].name, s->event.name))
			return;
	if (event_spec__parse(s->event.name, p->tracing_dir, s->line, &specs, &nr, &msg) < 0 ||
	    nr != 1) {
		for (size_t i = 0; i < nr; i++)
			event_spec__fini(&specs[i]);
		free(specs);
		free(msg);
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	free(msg);
	arr = realloc(cfg->events, (cfg->nr_events + 1) * sizeof(*arr));
	if (!arr) {
		event_spec__fini(&specs[0]);
		free(specs);
		p->err = -ENOMEM;
		return;
	}
	cfg->events = arr;
	if (cfg->nr_events) {
		specs[0].attr.use_clockid = cfg->events[0].attr.use_clockid;
		specs[0].attr.clockid = cfg->events[0].attr.clockid;
	}
	cfg->events[cfg->nr_events++] = specs[0];
	free(specs);
}

static void finish_side(struct config_reader *p, struct trigger_spec *t, struct trigger_side *s,
			struct tep_handle *tep)
{
	struct tep_event *ev = find_event(tep, s->event.name);

	if (!ev) {
		config_reader__diag(p, s->line,
				    "[trigger %s] %s: no format for '%s' in tracefs: accepted: %s",
				    t->name, side_name(t, s), s->event.name, PAIRED_EXAMPLE);
		return;
	}
	if (s->key.name)
		resolve_key(p, t, s, ev);
	if (s->filter)
		(void)config_filter__compile(s->filter, event_field, ev, s);
	else
		s->nr_terms = s->nr_prog = 0;
	if (p->cfg->nr_events) {
		s->event.attr.use_clockid = p->cfg->events[0].attr.use_clockid;
		s->event.attr.clockid = p->cfg->events[0].attr.clockid;
	}
	if (!p->err)
		check_side(p, t, s);
}

/*
 * A tep of the two events' formats alone. tracefs_local_events_system()
 * also reads /proc/kallsyms and the printk formats, which only printing
 * needs: megabytes read by small reallocations, seconds under ASan.
 */
static struct tep_handle *load_formats(const char *tracing_dir, const char *a, const char *b)
{
	const char *names[2] = { a, b };
	struct tep_handle *tep = tep_alloc();
	char path[PATH_MAX], buf[65536];

	if (!tep)
		return NULL;
	/* config__load() looked it up; not found, formats cannot be read. */
	for (int i = 0; tracing_dir && i < 2; i++) {
		const char *colon = strchr(names[i], ':');
		_cleanup_fclose_ FILE *f = NULL;
		struct tep_event *ev;
		char sys[128];
		size_t n;

		if (i == 1 && !strcmp(a, b))
			break;
		snprintf(sys, sizeof(sys), "%.*s", (int)(colon - names[i]), names[i]);
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracing_dir, sys, colon + 1);
		f = fopen(path, "re");
		n = f ? fread(buf, 1, sizeof(buf), f) : 0;
		if (!n || n == sizeof(buf) ||
		    tep_parse_format(tep, &ev, buf, n, sys) != TEP_ERRNO__SUCCESS) {
			tep_free(tep);
			return NULL;
		}
	}
	if (!tracing_dir) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/**
 * config_trigger_paired__finish - the checks of a paired trigger's section
 * @p: the parser, after the last line
 * @t: a trigger with at least one paired key
 */
void config_trigger_paired__finish(struct config_reader *p, struct trigger_spec *t)
{
	const int *lines = p->trigger_key_line[t - p->cfg->triggers];
	struct trigger_side *sides[] = { &t->start, &t->end };
	struct tep_handle *tep;
	int first = 0;

	for (int k = TKEY_START; k <= TKEY_THRESHOLD; k++)
		if (lines[k] && (!first || lines[k] < first))
			first = lines[k];
	if (lines[TKEY_EVENT] || lines[TKEY_PSI] || lines[TKEY_FILTER]) {
		int other = lines[TKEY_EVENT] ? TKEY_EVENT :
			    lines[TKEY_PSI]   ? TKEY_PSI :
						TKEY_FILTER;

		config_reader__diag(
			p, lines[other],
			"[trigger %s] %s: given with the paired keys (line %d): accepted: event (and filter), psi, or start and end, one kind per trigger",
			t->name,
			other == TKEY_EVENT ? "event" :
			other == TKEY_PSI   ? "psi" :
					      "filter",
			first);
		return;
	}
	if (lines[TKEY_KEY] && (lines[TKEY_START_KEY] || lines[TKEY_END_KEY])) {
		config_reader__diag(
			p, lines[TKEY_START_KEY] ? lines[TKEY_START_KEY] : lines[TKEY_END_KEY],
			"[trigger %s] %s: given with key (line %d): accepted: key for both sides, or start_key and end_key",
			t->name, lines[TKEY_START_KEY] ? "start_key" : "end_key", lines[TKEY_KEY]);
		return;
	}
	if (!lines[TKEY_START] || !lines[TKEY_END]) {
		config_reader__diag(
			p,
			lines[TKEY_START] ? lines[TKEY_START] :
			lines[TKEY_END]	  ? lines[TKEY_END] :
					    first,
			"[trigger %s] %s: accepted: both start and end events, %s, threshold = 2ms",
			t->name,
			lines[TKEY_START] ? "start without end" :
			lines[TKEY_END]	  ? "end without start" :
					    "no start and no end",
			PAIRED_EXAMPLE);
		return;
	}
	if (!t->start.key.name || !t->end.key.name) {
		config_reader__diag(
			p,
			t->start.key.name ? t->start.key_line :
			t->end.key.name	  ? t->end.key_line :
					    t->line,
			"[trigger %s] %s: accepted: key (both sides), or start_key and end_key, each an integer field of its event",
			t->name,
			t->start.key.name ? "start_key without end_key" :
			t->end.key.name	  ? "end_key without start_key" :
					    "no key");
		return;
	}
	if (!lines[TKEY_THRESHOLD]) {
		config_reader__diag(p, t->line,
				    "[trigger %s] no threshold: accepted: " THRESHOLD_ACCEPTED,
				    t->name);
		return;
	}
	if (!t->start.event.name || !t->end.event.name)
		return; /* reported at their lines */
	if (p->cfg->clock == CONFIG_CLOCK_REALTIME) {
		config_reader__diag(
			p, t->start.line,
			"[trigger %s] start: [capture] clock = realtime cannot stamp tracepoints such as %s: accepted with triggers: clock = perf, monotonic or boottime",
			t->name, t->start.event.name);
		return;
	}
	tep = load_formats(p->tracing_dir, sides[0]->event.name, sides[1]->event.name);
	if (!tep) {
		config_reader__diag(
			p, t->start.line,
			"[trigger %s] start: cannot read the event formats in tracefs: run as root",
			t->name);
		return;
	}
	for (int i = 0; i < 2; i++)
		finish_side(p, t, sides[i], tep);
	tep_free(tep);
	t->kind = TRIGGER_KIND_PAIRED;
	record_event(p, &t->start);
	record_event(p, &t->end);
}

void config_trigger_paired__fini(struct trigger_spec *t)
{
	struct trigger_side *sides[] = { &t->start, &t->end };

	for (int i = 0; i < 2; i++) {
		event_spec__fini(&sides[i]->event);
		free(sides[i]->key.name);
		free(sides[i]->filter);
	}
}

void config_trigger_paired__print(const struct trigger_spec *t, FILE *out)
{
	char v[32];

	fprintf(out, "start = %s\nstart_key = %s\n", t->start.event.name, t->start.key.name);
	if (t->start.filter)
		fprintf(out, "start_filter = %s\n", t->start.filter);
	fprintf(out, "end = %s\nend_key = %s\n", t->end.event.name, t->end.key.name);
	if (t->end.filter)
		fprintf(out, "end_filter = %s\n", t->end.filter);
	if (t->threshold_ns % 1000000 == 0)
		snprintf(v, sizeof(v), "%" PRIu64 "ms", t->threshold_ns / 1000000);
	else if (t->threshold_ns % 1000 == 0)
		snprintf(v, sizeof(v), "%" PRIu64 "us", t->threshold_ns / 1000);
	else
		snprintf(v, sizeof(v), "%" PRIu64 "ns", t->threshold_ns);
	fprintf(out, "threshold = %s\n", v);
}
