// SPDX-License-Identifier: GPL-2.0-only
/*
 * event_spec: resolves one [capture] events token into perf_event_attrs.
 * A token is "system:event" (fnmatch globs in both parts, expanded against
 * <tracing_dir>/events) or a software/hardware event name, optionally
 * followed by "/term,term/". Part of common/: reports problems as strings
 * for config to turn into diagnostics, never logs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "event_spec.h"

#define TERMS_ACCEPTED	"freq=N, period=N, call-graph=fp|no, overwrite, no-overwrite"
#define TRACEPOINT_HINT "see `perf list tracepoint`"
#define MOUNT_HINT	"mount it with `mount -t tracefs nodev /sys/kernel/tracing`"

#define SAMPLE_TYPE_BASE                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/*
 * A tracepoint without a callchain, in a per-CPU overwrite ring, records
 * only what its ring cannot give back at the dump: the CPU is the ring's,
 * the task the payload's common_pid, the period the attr's (see
 * snapshot__widen()). The IP stays: nothing else gives it back, and
 * without it perf report's default columns read [k] 0 for every sample.
 * The forward rings are drained into one history for all CPUs, so their
 * records keep their CPU.
 */
#define SAMPLE_TYPE_COMPACT \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

struct named_event {
	const char *name; /* canonical, used as event_spec.name */
	const char *alias;
	uint32_t type;
	uint64_t config;
};

static const struct named_event named_events[] = {
	{ "cpu-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", "migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
	{ "cycles", "cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
};

#define NR_NAMED_EVENTS (sizeof(named_events) / sizeof(named_events[0]))

/* What the /term,term/ suffix asked for; 0 means "not given". */
struct terms {
	uint64_t freq;
	uint64_t period;
	bool callchain;
	bool overwrite;
};

static int fail(char **ret_err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sets *ret_err to the formatted message; returns -EINVAL (or -ENOMEM). */
static int fail(char **ret_err, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(ret_err, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*ret_err = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}

/* Parses a decimal integer > 0 with nothing after it. */
static int parse_positive(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int parse_terms(const char *token, char *list, struct terms *t, char **ret_err)
{
	char *save = NULL;
	char *term;

	for (term = strtok_r(list, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *value = strchr(term, '=');

		if (!strcmp(term, "overwrite")) {
			t->overwrite = true;
			continue;
		}
		if (!strcmp(term, "no-overwrite")) {
			t->overwrite = false;
			continue;
		}
		if (!value)
			goto unknown;
		*value++ = '\0';
		if (!strcmp(term, "freq") || !strcmp(term, "period")) {
			uint64_t *dst = term[0] == 'f' ? &t->freq : &t->period;

			if (parse_positive(value, dst))
				return fail(
					ret_err,
					"event '%s': bad %s '%s': accepted: a positive integer, e.g. %s=%s",
					token, term, value, term,
					term[0] == 'f' ? "999" : "100000");
		} else if (!strcmp(term, "call-graph")) {
			if (!strcmp(value, "fp"))
				t->callchain = true;
			else if (!strcmp(value, "no"))
				t->callchain = false;
			else if (!strcmp(value, "dwarf") || !strcmp(value, "lbr"))
				return fail(
					ret_err,
					"event '%s': call-graph=%s not supported: use call-graph=fp",
					token, value);
			else
				return fail(ret_err,
					    "event '%s': bad call-graph '%s': accepted: fp, no",
					    token, value);
		} else {
			value[-1] = '=';
			goto unknown;
		}
	}
	if (t->freq && t->period)
		return fail(ret_err,
			    "event '%s': freq= and period= given together: accepted: one of them",
			    token);
	return 0;

unknown:
	return fail(ret_err, "event '%s': unknown term '%s': accepted: " TERMS_ACCEPTED, token,
		    term);
}

static void fill_attr(struct perf_event_attr *attr, uint32_t type, uint64_t config,
		      const struct terms *t, bool tracepoint)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->sample_type = SAMPLE_TYPE_BASE;
	if (tracepoint)
		attr->sample_type |= PERF_SAMPLE_RAW;
	if (t->callchain)
		attr->sample_type |= PERF_SAMPLE_CALLCHAIN;
	else if (tracepoint && t->overwrite)
		attr->sample_type = SAMPLE_TYPE_COMPACT;
	attr->read_format = PERF_FORMAT_ID;
	attr->sample_id_all = 1;
	attr->disabled = 1;
	attr->write_backward = t->overwrite;
	if (t->period) {
		attr->sample_period = t->period;
	} else if (tracepoint) {
		attr->sample_period = 1;
	} else {
		attr->freq = 1;
		attr->sample_freq = t->freq ? t->freq : EVENT_SPEC_DEFAULT_FREQ;
	}
}

/*
 * Appends a spec named @name (taken over) unless one with that name is
 * already there. Returns 1 if added, 0 if a duplicate, -ENOMEM.
 */
static int append(struct event_spec **specs, size_t *nr, char *name, uint32_t type, uint64_t config,
		  const struct terms *t, bool tracepoint, int line)
{
	struct event_spec *arr;
	struct event_spec *spec;
	size_t i;

	for (i = 0; i < *nr; i++) {
		if (!strcmp((*specs)[i].name, name)) {
			free(name);
			return 0;
		}
	}
	arr = realloc(*specs, (*nr + 1) * sizeof(*arr));
	if (!arr) {
		free(name);
		return -ENOMEM;
	}
	*specs = arr;
	spec = &arr[(*nr)++];
	memset(spec, 0, sizeof(*spec));
	spec->name = name;
	fill_attr(&spec->attr, type, config, t, tracepoint);
	spec->overwrite = t->overwrite;
	spec->is_tracepoint = tracepoint;
	spec->line = line;
	return 1;
}

/* Reads events/<sys>/<event>/id. Returns 0 or -errno. */
static int read_tracepoint_id(const char *events_dir, const char *sys, const char *event,
			      uint64_t *ret_id)
{
	unsigned long long v;
	char path[PATH_MAX];
	char buf[32];
	char *end;
	ssize_t n;
	int fd;
	int err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s/%s/id", events_dir, sys, event) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	err = errno;
	close(fd);
	if (n < 0)
		return -err;
	buf[n] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	*ret_id = v;
	return 0;
}

static int add_tracepoint(const char *events_dir, const char *sys, const char *event,
			  const struct terms *t, int line, struct event_spec **specs, size_t *nr)
{
	uint64_t id;
	char *name;
	int r;

	r = read_tracepoint_id(events_dir, sys, event, &id);
	if (r < 0)
		return r;
	if (asprintf(&name, "%s:%s", sys, event) < 0)
		return -ENOMEM;
	r = append(specs, nr, name, PERF_TYPE_TRACEPOINT, id, t, true, line);
	return r < 0 ? r : 0;
}

static void free_dirents(struct dirent **list, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/*
 * Adds every tracepoint whose system matches @sys_glob and name @event_glob,
 * in alphabetical order. Returns the number matched, or -errno.
 */
static int expand_tracepoints(const char *events_dir, const char *sys_glob, const char *event_glob,
			      const struct terms *t, int line, struct event_spec **specs,
			      size_t *nr)
{
	struct dirent **systems;
	int matched = 0;
	int nr_sys;
	int i;
	int r = 0;

	nr_sys = scandir(events_dir, &systems, NULL, alphasort);
	if (nr_sys < 0)
		return -errno;
	for (i = 0; i < nr_sys && r >= 0; i++) {
		const char *sys = systems[i]->d_name;
		struct dirent **events;
		char dir[PATH_MAX];
		int nr_ev;
		int j;

		if (sys[0] == '.' || fnmatch(sys_glob, sys, 0))
			continue;
		if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", events_dir, sys) >= sizeof(dir))
			continue;
		/* Plain files such as "enable" fail here and are skipped. */
		nr_ev = scandir(dir, &events, NULL, alphasort);
		if (nr_ev < 0)
			continue;
		for (j = 0; j < nr_ev; j++) {
			const char *event = events[j]->d_name;

			if (event[0] == '.' || fnmatch(event_glob, event, 0))
				continue;
			r = add_tracepoint(events_dir, sys, event, t, line, specs, nr);
			if (r == -ENOMEM)
				break;
			/* "enable" and "filter" have no id: not tracepoints. */
			if (r == 0)
				matched++;
			r = 0;
		}
		free_dirents(events, nr_ev);
	}
	free_dirents(systems, nr_sys);
	return r < 0 ? r : matched;
}

static const struct named_event *find_named(const char *name)
{
	size_t i;

	for (i = 0; i < NR_NAMED_EVENTS; i++) {
		if (!strcmp(named_events[i].name, name) ||
		    (named_events[i].alias && !strcmp(named_events[i].alias, name)))
			return &named_events[i];
	}
	return NULL;
}

static bool is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static int parse_tracepoint(const char *token, char *name, char *colon, const char *tracing_dir,
			    const struct terms *t, int line, struct event_spec **specs, size_t *nr,
			    char **ret_err)
{
	const char *sys = name;
	const char *event = colon + 1;
	char events_dir[PATH_MAX];
	size_t before = *nr;
	int r;

	*colon = '\0';
	if (!*sys || !*event || strchr(event, ':'))
		return fail(
			ret_err,
			"bad tracepoint '%s': accepted: system:event, globs allowed, e.g. sched:sched_switch or sched:*",
			token);
	if (find_named(sys))
		return fail(
			ret_err,
			"event '%s': modifier ':%s' not supported: accepted: %s alone, or with /term,term/ such as /freq=999/",
			token, event, sys);
	if (t->freq)
		return fail(
			ret_err,
			"event '%s': freq= not accepted for a tracepoint: use period=N (every Nth hit)",
			token);
	if (!tracing_dir)
		tracing_dir = tracefs_tracing_dir();
	if (!tracing_dir)
		return fail(ret_err, "tracepoint '%s': tracefs is not mounted: " MOUNT_HINT, token);
	if ((size_t)snprintf(events_dir, sizeof(events_dir), "%s/events", tracing_dir) >=
	    sizeof(events_dir))
		return fail(ret_err, "tracepoint '%s': tracing directory '%s' is too long", token,
			    tracing_dir);
	if (access(events_dir, R_OK | X_OK))
		return fail(ret_err,
			    "tracepoint '%s': cannot read %s: %s: is tracefs mounted? " MOUNT_HINT,
			    token, events_dir, strerror(errno));

	if (is_glob(sys) || is_glob(event)) {
		r = expand_tracepoints(events_dir, sys, event, t, line, specs, nr);
		if (r == 0)
			return fail(ret_err, "'%s' matches no tracepoint in %s: " TRACEPOINT_HINT,
				    token, events_dir);
		if (r < 0 && r != -ENOMEM)
			return fail(ret_err, "tracepoint '%s': cannot read %s: %s", token,
				    events_dir, strerror(-r));
	} else {
		r = add_tracepoint(events_dir, sys, event, t, line, specs, nr);
		if (r == -ENOENT || r == -ENOTDIR)
			return fail(ret_err, "tracepoint '%s:%s' not found in %s: " TRACEPOINT_HINT,
				    sys, event, events_dir);
		if (r < 0 && r != -ENOMEM)
			return fail(ret_err, "tracepoint '%s:%s': cannot read %s/%s/%s/id: %s", sys,
				    event, events_dir, sys, event, strerror(-r));
	}
	return r < 0 ? r : (int)(*nr - before);
}

static int fail_unknown(const char *token, char **ret_err)
{
	char accepted[512] = "";
	size_t len = 0;
	size_t i;

	for (i = 0; i < NR_NAMED_EVENTS && len < sizeof(accepted); i++)
		len += snprintf(accepted + len, sizeof(accepted) - len, ", %s",
				named_events[i].name);
	return fail(
		ret_err,
		"unknown event '%s': accepted: tracepoints as system:event (globs allowed, e.g. sched:*)%s",
		token, accepted);
}

static int parse_named(const char *token, const char *name, const struct terms *t, int line,
		       struct event_spec **specs, size_t *nr, char **ret_err)
{
	const struct named_event *ne = find_named(name);
	char *copy;

	if (!ne)
		return fail_unknown(token, ret_err);
	copy = strdup(ne->name);
	if (!copy)
		return -ENOMEM;
	return append(specs, nr, copy, ne->type, ne->config, t, false, line);
}

/**
 * event_spec__parse - resolve one events token into event specs
 * @token: "sched:sched_switch", "sched:*", "cpu-clock/freq=999,call-graph=fp/"
 * @tracing_dir: tracefs mount point; NULL for the system's (libtracefs)
 * @line: config line, recorded in each spec
 * @specs: array to append to (reallocated); entries are freed with
 *	event_spec__fini()
 * @nr: number of entries in *@specs, updated
 * @ret_err: on -EINVAL, set to a malloc'ed message naming the token and
 *	what is accepted, such as "unknown term 'x': accepted: ..."
 *
 * A glob expands to every matching tracepoint, in alphabetical order. Events
 * whose name is already in *@specs are skipped, so the first one listed
 * wins. Only reads tracefs; opens nothing in perf.
 *
 * Returns the number of specs added (0 if all were duplicates), -EINVAL
 * with *@ret_err set, or -ENOMEM.
 */
int event_spec__parse(const char *token, const char *tracing_dir, int line,
		      struct event_spec **specs, size_t *nr, char **ret_err)
{
	struct terms t = { .overwrite = true };
	char *name;
	char *slash;
	char *colon;
	int r;

	*ret_err = NULL;
	name = strdup(token);
	if (!name)
		return -ENOMEM;
	slash = strchr(name, '/');
	if (slash) {
		size_t len = strlen(slash);

		*slash = '\0';
		if (len < 2 || slash[len - 1] != '/' || memchr(slash + 1, '/', len - 2)) {
			r = fail(
				ret_err,
				"bad event '%s': accepted: name or name/term,term/ with terms " TERMS_ACCEPTED,
				token);
			goto out;
		}
		slash[len - 1] = '\0';
		r = parse_terms(token, slash + 1, &t, ret_err);
		if (r < 0)
			goto out;
	}
	if (!*name) {
		r = fail(ret_err, "bad event '%s': missing event name before '/'", token);
		goto out;
	}
	colon = strchr(name, ':');
	if (colon)
		r = parse_tracepoint(token, name, colon, tracing_dir, &t, line, specs, nr, ret_err);
	else
		r = parse_named(token, name, &t, line, specs, nr, ret_err);
out:
	free(name);
	return r;
}

/**
 * event_spec__fini - free what a spec owns (not the spec itself)
 * @spec: spec filled by event_spec__parse(); may be NULL
 */
void event_spec__fini(struct event_spec *spec)
{
	if (!spec)
		return;
	free(spec->name);
	spec->name = NULL;
}

/**
 * event_spec__print - print a spec as an events token
 * @spec: resolved spec
 * @out: stream to print to
 *
 * Prints the name followed by the terms that are in effect and differ from
 * the defaults, except that sampling events always show freq= or period=,
 * e.g. "cpu-clock/freq=4000/" or "sched:sched_switch/no-overwrite/". The
 * output parses back to the same spec.
 */
void event_spec__print(const struct event_spec *spec, FILE *out)
{
	const struct perf_event_attr *attr = &spec->attr;
	const char *sep = "/";

	fputs(spec->name, out);
	if (!spec->is_tracepoint && attr->freq) {
		fprintf(out, "%sfreq=%llu", sep, (unsigned long long)attr->sample_freq);
		sep = ",";
	} else if (!spec->is_tracepoint || attr->sample_period != 1) {
		fprintf(out, "%speriod=%llu", sep, (unsigned long long)attr->sample_period);
		sep = ",";
	}
	if (attr->sample_type & PERF_SAMPLE_CALLCHAIN) {
		fprintf(out, "%scall-graph=fp", sep);
		sep = ",";
	}
	if (!spec->overwrite) {
		fprintf(out, "%sno-overwrite", sep);
		sep = ",";
	}
	if (*sep == ',')
		fputc('/', out);
}
