// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_instance: perfsnapd's own tracefs instance, made, set up and
 * removed with libtracefs, which fails with -1 and errno (or sometimes no
 * errno: -EIO then); each call here returns -errno. tracing_on stays open
 * from create to destroy so that the dump's stop is one write(2). Part of
 * common/: no logging.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "cleanup.h"
#include "ftrace_instance.h"

struct ftrace_instance {
	struct tracefs_instance *inst;
	int on_fd;     /* tracing_on, O_WRONLY; -1 until opened */
	int marker_fd; /* trace_marker, O_WRONLY; -1 until opened */
};

/* The instance's settings, in order, before its tracing_on is opened. */
static const struct {
	const char *file;
	const char *value;
} settings[] = {
	/* A new instance traces at once: off until the caller has set it up. */
	{ "tracing_on", "0" },
	/* A flight recorder keeps the newest events, not the oldest. */
	{ "options/overwrite", "1" },
	/*
	 * record-cmd and record-tgid are left as they are, though the
	 * side-band names tasks and saving comms costs every sched_switch:
	 * clearing record-cmd in an instance also stops the saving for the
	 * events enabled then in every other instance, another tool's too
	 * (the kernel walks them all; seen on 6.18), and perf's and
	 * trace-cmd's own tracing must not change because perfsnapd runs.
	 */
};

static int lib_error(void)
{
	return errno > 0 ? -errno : -EIO;
}

/* A name that stays one path component under tracefs. */
static bool valid_name(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

/* Writes @str whole into @file of @inst: a short write is a refusal. */
static int write_file(struct tracefs_instance *inst, const char *file, const char *str)
{
	int n;

	errno = 0;
	n = tracefs_instance_file_write(inst, file, str);
	if (n < 0)
		return lib_error();
	return (size_t)n == strlen(str) ? 0 : -EIO;
}

static int write_event_file(struct tracefs_instance *inst, const char *system, const char *event,
			    const char *file, const char *str)
{
	int n;

	errno = 0;
	n = tracefs_event_file_write(inst, system, event, file, str);
	if (n < 0)
		return lib_error();
	return (size_t)n == strlen(str) ? 0 : -EIO;
}

/* "per_cpu/cpu@cpu/@file" into @buf. */
static int cpu_file(char *buf, size_t size, int cpu, const char *file)
{
	int n;

	if (cpu < 0)
		return -EINVAL;
	n = snprintf(buf, size, "per_cpu/cpu%d/%s", cpu, file);
	return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/*
 * Tracing off and every event off first, so that an instance the kernel
 * will not remove (-EBUSY: a file of it is open) records nothing until a
 * later run removes it; then the rmdir, whose result this returns.
 */
static int remove_instance(struct tracefs_instance *inst)
{
	(void)write_file(inst, "tracing_on", "0");
	(void)write_file(inst, "events/enable", "0");
	errno = 0;
	if (tracefs_instance_destroy(inst) < 0)
		return lib_error();
	return 0;
}

static int set_up(struct ftrace_instance *fi)
{
	size_t i;
	int err;

	for (i = 0; i < sizeof(settings) / sizeof(settings[0]); i++) {
		err = write_file(fi->inst, settings[i].file, settings[i].value);
		if (err)
			return err;
	}
	errno = 0;
	fi->on_fd = tracefs_instance_file_open(fi->inst, "tracing_on", O_WRONLY | O_CLOEXEC);
	if (fi->on_fd < 0)
		return lib_error();
	errno = 0;
	fi->marker_fd = tracefs_instance_file_open(fi->inst, "trace_marker", O_WRONLY | O_CLOEXEC);
	return fi->marker_fd < 0 ? lib_error() : 0;
}

/**
 * ftrace_instance__create - make and set up instance "@prefix-@pid[.@seq]"
 * @prefix: the first part of the name; one path component
 * @pid: the daemon's PID (remove_leftovers reads it)
 * @seq: 0, or the daemon's how-manyth instance: a reload opens its rings
 *	before the old ones close
 * @ret: set to the instance on success
 *
 * An instance that exists, even one made by a racing mkdir between the
 * check and ours, is someone else's: -EEXIST, and it is left alone. Where
 * a setting fails, the instance made here is removed again.
 * Returns 0, -EINVAL for a bad @prefix or @pid, -ENAMETOOLONG, -ENODEV
 * without tracefs, -EEXIST, or -errno.
 */
int ftrace_instance__create(const char *prefix, pid_t pid, unsigned int seq,
			    struct ftrace_instance **ret)
{
	struct ftrace_instance *fi;
	char name[NAME_MAX + 1];
	int n, err;

	if (!valid_name(prefix) || pid <= 0)
		return -EINVAL;
	n = seq ? snprintf(name, sizeof(name), "%s-%d.%u", prefix, (int)pid, seq) :
		  snprintf(name, sizeof(name), "%s-%d", prefix, (int)pid);
	if (n < 0 || (size_t)n >= sizeof(name))
		return -ENAMETOOLONG;
	/* Mounts tracefs where it is not mounted yet. */
	if (!tracefs_tracing_dir())
		return -ENODEV;
	if (tracefs_instance_exists(name))
		return -EEXIST;
	fi = calloc(1, sizeof(*fi));
	if (!fi)
		return -ENOMEM;
	fi->on_fd = -1;
	fi->marker_fd = -1;
	errno = 0;
	fi->inst = tracefs_instance_create(name);
	if (!fi->inst) {
		err = lib_error();
		free(fi);
		return err;
	}
	/* tracefs_instance_create() takes an instance that exists as it is. */
	if (!tracefs_instance_is_new(fi->inst)) {
		tracefs_instance_free(fi->inst);
		free(fi);
		return -EEXIST;
	}
	err = set_up(fi);
	if (err) {
		(void)ftrace_instance__destroy(fi);
		return err;
	}
	*ret = fi;
	return 0;
}

/**
 * ftrace_instance__destroy - turn the instance off, remove it and free @fi
 * @fi: the instance, or NULL
 *
 * tracing_on is closed before the rmdir: the kernel refuses to remove an
 * instance with any file of it open. @fi is freed whatever the result.
 * Returns 0, -EBUSY where a file of it is still open (it is left off, for
 * remove_leftovers of a later run), or -errno.
 */
int ftrace_instance__destroy(struct ftrace_instance *fi)
{
	int err;

	if (!fi)
		return 0;
	if (fi->on_fd >= 0) {
		/* Stop at once, before the slower writes remove_instance() makes. */
		(void)ftrace_instance__set_on(fi, false);
		close(fi->on_fd);
	}
	if (fi->marker_fd >= 0)
		close(fi->marker_fd);
	err = remove_instance(fi->inst);
	tracefs_instance_free(fi->inst);
	free(fi);
	return err;
}

/*
 * Whether @name is "@prefix-PID" or "@prefix-PID.SEQ" as
 * ftrace_instance__create() writes it (no sign, no leading zero), and that
 * PID.
 */
static bool leftover_pid(const char *name, const char *prefix, pid_t *ret_pid)
{
	size_t len = strlen(prefix);
	const char *p;
	long long pid = 0;

	if (strncmp(name, prefix, len) || name[len] != '-')
		return false;
	p = name + len + 1;
	if (*p < '1' || *p > '9')
		return false;
	for (; *p && *p != '.'; p++) {
		if (*p < '0' || *p > '9')
			return false;
		pid = pid * 10 + (*p - '0');
		if (pid > INT_MAX)
			return false;
	}
	if (*p == '.' && (p[1] < '1' || p[1] > '9' || strspn(p + 1, "0123456789") != strlen(p + 1)))
		return false;
	*ret_pid = (pid_t)pid;
	return true;
}

/*
 * Returns 1 where removed, 0 where already gone (a racing daemon's work), or
 * -errno: -EBUSY for an instance whose files someone holds open.
 *
 * Removed by its rmdir alone, which the kernel refuses while any file of
 * the instance is open and which stops its events itself: a daemon whose
 * PID this namespace cannot see (a container's, or the host's seen from a
 * container) holds its instance open, and must find it as it left it,
 * still tracing.
 */
static int remove_leftover(const char *name)
{
	struct tracefs_instance *inst;
	int err = 0;

	errno = 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (!inst)
		return errno == ENOENT ? 0 : lib_error();
	errno = 0;
	if (tracefs_instance_destroy(inst) < 0)
		err = lib_error();
	tracefs_instance_free(inst);
	if (err == -ENOENT)
		return 0;
	return err ? err : 1;
}

/**
 * ftrace_instance__remove_leftovers - remove the instances of dead daemons
 * @prefix: the prefix the daemons give ftrace_instance__create()
 *
 * Only a name "@prefix-PID" exactly, with no process PID, is a leftover:
 * a live daemon's, perf's, trace-cmd's or any other instance is not
 * touched. (A PID is read in this PID namespace; one reused since is
 * taken as alive, and its leftover stays until a later run. A daemon of
 * another PID namespace holds its instance's files open, and the kernel
 * refuses to remove it: -EBUSY, nothing written.) Each leftover is tried
 * even after one failed.
 * Returns how many were removed, or the -errno of the first that was not.
 */
int ftrace_instance__remove_leftovers(const char *prefix)
{
	char **names;
	int removed = 0, err = 0, i, r;
	pid_t pid;

	if (!valid_name(prefix))
		return -EINVAL;
	if (!tracefs_tracing_dir())
		return -ENODEV;
	errno = 0;
	names = tracefs_instances(NULL);
	if (!names)
		return lib_error();
	for (i = 0; names[i]; i++) {
		if (!leftover_pid(names[i], prefix, &pid))
			continue;
		if (kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		r = remove_leftover(names[i]);
		if (r > 0)
			removed++;
		else if (r < 0 && !err)
			err = r;
	}
	tracefs_list_free(names);
	return err ? err : removed;
}

/**
 * ftrace_instance__name - the instance's name, "PREFIX-PID"
 * @fi: the instance
 *
 * Returns a string that lives as long as @fi.
 */
const char *ftrace_instance__name(const struct ftrace_instance *fi)
{
	return tracefs_instance_get_name(fi->inst);
}

/**
 * ftrace_instance__has_clock - whether the system offers a trace clock
 * @clock: its name, as trace_clock lists it ("perf", "mono", "boot")
 *
 * trace_clock lists the clocks, the current one in brackets:
 * "[local] global counter uptime perf mono mono_raw boot tai x86-tsc".
 * Returns false also where tracefs cannot be read.
 */
bool ftrace_instance__has_clock(const char *clock)
{
	_cleanup_free_ char *text = NULL;
	char *tok, *save = NULL;
	size_t len;

	if (!clock || !*clock)
		return false;
	text = tracefs_instance_file_read(NULL, "trace_clock", NULL);
	if (!text)
		return false;
	for (tok = strtok_r(text, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		len = strlen(tok);
		if (len >= 2 && tok[0] == '[' && tok[len - 1] == ']') {
			tok[len - 1] = '\0';
			tok++;
		}
		if (!strcmp(tok, clock))
			return true;
	}
	return false;
}

/**
 * ftrace_instance__set_clock - the clock of the instance's timestamps
 * @fi: the instance
 * @clock: one ftrace_instance__has_clock() accepts
 *
 * The kernel empties the instance's rings when the clock changes (their
 * timestamps would not compare): set it before tracing.
 * Returns 0, -EINVAL for a clock the kernel does not have, or -errno.
 */
int ftrace_instance__set_clock(struct ftrace_instance *fi, const char *clock)
{
	if (!clock || !*clock)
		return -EINVAL;
	return write_file(fi->inst, "trace_clock", clock);
}

/**
 * ftrace_instance__set_cpu_kb - size one CPU's ring
 * @fi: the instance
 * @cpu: the CPU
 * @kb: the size in KiB; the kernel rounds it up to whole sub-buffers
 *
 * Returns 0, -EINVAL for a negative @cpu or a @kb of 0 or past size_t,
 * -ENOENT for a CPU the instance has not, -EBUSY while the ring is
 * mapped, -ENOMEM, or -errno.
 */
int ftrace_instance__set_cpu_kb(struct ftrace_instance *fi, int cpu, size_t kb)
{
	if (cpu < 0 || !kb || kb > SIZE_MAX >> 10)
		return -EINVAL;
	errno = 0;
	/* A negative CPU would size them all: refused above. */
	if (tracefs_instance_set_buffer_size(fi->inst, kb, cpu) < 0)
		return lib_error();
	return 0;
}

/**
 * ftrace_instance__cpu_kb - one CPU's ring size
 * @fi: the instance
 * @cpu: the CPU
 * @ret_kb: set to the size in KiB on success
 *
 * Returns 0, -EINVAL for a negative @cpu, -ENOENT for a CPU the instance
 * has not, or -errno.
 */
int ftrace_instance__cpu_kb(const struct ftrace_instance *fi, int cpu, size_t *ret_kb)
{
	ssize_t kb;

	if (cpu < 0)
		return -EINVAL;
	errno = 0;
	kb = tracefs_instance_get_buffer_size(fi->inst, cpu);
	if (kb < 0)
		return lib_error();
	*ret_kb = (size_t)kb;
	return 0;
}

/**
 * ftrace_instance__enable_event - enable one event, with its filter
 * @fi: the instance
 * @system: the event's system ("sched"), a name, not a pattern
 * @event: the event ("sched_switch"), a name, not a pattern
 * @filter: the filter ("common_pid != 0"), or NULL or "" for none
 *
 * The event's own files are written, not tracefs_event_enable(), which
 * takes case-blind regexes and fails without errno where none matches.
 * The filter goes first, so the event never records unfiltered; a filter
 * the kernel rejects it drops, filtering nothing, so the event is then
 * turned off (it may have been on from an earlier call).
 * Returns 0, -EINVAL for a bad name or a rejected filter, -ENOENT for an
 * event the kernel has not, or -errno.
 */
int ftrace_instance__enable_event(struct ftrace_instance *fi, const char *system, const char *event,
				  const char *filter)
{
	int err;

	if (!valid_name(system) || !valid_name(event))
		return -EINVAL;
	/* "0" clears an earlier filter. */
	err = write_event_file(fi->inst, system, event, "filter", filter && *filter ? filter : "0");
	if (err) {
		(void)write_event_file(fi->inst, system, event, "enable", "0");
		return err;
	}
	return write_event_file(fi->inst, system, event, "enable", "1");
}

/**
 * ftrace_instance__set_on - start or stop recording into the instance
 * @fi: the instance
 * @on: true to start
 *
 * One write(2) to the tracing_on opened at create: no path lookup, no
 * allocation, for the dump's stop.
 * Returns 0 or -errno.
 */
int ftrace_instance__set_on(struct ftrace_instance *fi, bool on)
{
	ssize_t n = write(fi->on_fd, on ? "1" : "0", 1);

	if (n == 1)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/**
 * ftrace_instance__mark - an ftrace:print event in the instance, stamped now
 * @fi: the instance, tracing
 * @text: what the event says
 *
 * One write(2) to the instance's trace_marker, opened at create: its
 * event's time is an instant in the instance's clock, which user space
 * cannot read otherwise (the perf clock has no clock_gettime()).
 * Returns 0 or -errno (-EBADF with tracing off).
 */
int ftrace_instance__mark(struct ftrace_instance *fi, const char *text)
{
	size_t len = strlen(text);
	ssize_t n = write(fi->marker_fd, text, len);

	if (n >= 0 && (size_t)n == len)
		return 0;
	return n < 0 ? -errno : -EIO;
}

/**
 * ftrace_instance__event_type - the type (common_type) of @system:@event
 * @system: e.g. "ftrace"
 * @event: e.g. "print"
 *
 * Types are the system's, the same in every instance: its events/.../id.
 * Returns the type, -ENOENT for no such event, or -errno.
 */
int ftrace_instance__event_type(const char *system, const char *event)
{
	char file[512], *text;
	long v;
	int n;

	if (!valid_name(system) || !valid_name(event))
		return -EINVAL;
	n = snprintf(file, sizeof(file), "events/%s/%s/id", system, event);
	if (n < 0 || (size_t)n >= sizeof(file))
		return -ENAMETOOLONG;
	errno = 0;
	text = tracefs_instance_file_read(NULL, file, NULL);
	if (!text)
		return errno == ENOENT || !errno ? -ENOENT : -errno;
	v = strtol(text, NULL, 10);
	free(text);
	return v > 0 && v <= UINT16_MAX ? (int)v : -EPROTO;
}

/**
 * ftrace_instance__open_cpu_raw - open one CPU's raw ring
 * @fi: the instance
 * @cpu: the CPU
 *
 * The fd keeps the instance busy: close it before ftrace_instance__destroy().
 * Returns the fd, -EINVAL for a negative @cpu, -ENOENT for a CPU the
 * instance has not, or -errno.
 */
int ftrace_instance__open_cpu_raw(const struct ftrace_instance *fi, int cpu)
{
	char path[64];
	int fd, err;

	err = cpu_file(path, sizeof(path), cpu, "trace_pipe_raw");
	if (err)
		return err;
	errno = 0;
	fd = tracefs_instance_file_open(fi->inst, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd >= 0 ? fd : lib_error();
}

/* A decimal count, blanks around it; false for anything else. */
static bool parse_count(const char *s, uint64_t *ret)
{
	unsigned long long v;
	char *end;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return false;
	while (*end == ' ' || *end == '\t')
		end++;
	if (*end)
		return false;
	*ret = v;
	return true;
}

/*
 * A time stamp of a clock in ns ("33636.330702": seconds and
 * microseconds); false for anything else, a counter clock's plain count too.
 */
static bool parse_time(const char *s, uint64_t *ret)
{
	uint64_t sec = 0, usec = 0;
	const char *dot;
	char whole[32];

	while (*s == ' ' || *s == '\t')
		s++;
	dot = strchr(s, '.');
	if (!dot || (size_t)(dot - s) >= sizeof(whole))
		return false;
	memcpy(whole, s, (size_t)(dot - s));
	whole[dot - s] = '\0';
	if (!parse_count(whole, &sec) || !parse_count(dot + 1, &usec) || usec >= 1000000 ||
	    sec > UINT64_MAX / 1000000000ull - 1)
		return false;
	*ret = sec * 1000000000ull + usec * 1000ull;
	return true;
}

/* The "key: N" lines of a stats file, and its two time stamps. */
static int parse_stats(char *text, struct ftrace_cpu_stats *ret)
{
	static const char *const keys[] = { "entries",	      "overrun", "commit overrun",
					    "dropped events", "bytes",	 "oldest event ts",
					    "now ts" };
	struct ftrace_cpu_stats s = { 0 };
	uint64_t *fields[] = { &s.entries, &s.overrun,	 &s.commit_overrun, &s.dropped_events,
			       &s.bytes,   &s.oldest_ns, &s.now_ns };
	unsigned int found = 0, i;
	char *line, *end, *colon;

	/* Whole lines only: a line the bounded read cut is not one. */
	for (line = text; (end = strchr(line, '\n')); line = end + 1) {
		*end = '\0';
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(line, keys[i]))
				continue;
			if (!(i < 5 ? parse_count(colon + 1, fields[i]) :
				      parse_time(colon + 1, fields[i])))
				return -EPROTO;
			found |= 1u << i;
		}
	}
	if (found != (1u << (sizeof(keys) / sizeof(keys[0]))) - 1)
		return -EPROTO;
	*ret = s;
	return 0;
}

/**
 * ftrace_instance__cpu_stats - one CPU's ring counts
 * @fi: the instance
 * @cpu: the CPU
 * @ret: filled on success
 *
 * The file (some 150 bytes: entries, overrun, commit overrun, bytes, two
 * time stamps, dropped and read events; the time stamps only of a clock
 * in seconds, such as perf, mono and boot) is read into a buffer on the
 * stack: no allocation, and a kernel that writes more only has its tail
 * left unread.
 * Returns 0, -EINVAL for a negative @cpu, -ENOENT for a CPU the instance
 * has not, -EPROTO where a count is missing or not a number, or -errno.
 */
int ftrace_instance__cpu_stats(const struct ftrace_instance *fi, int cpu,
			       struct ftrace_cpu_stats *ret)
{
	_cleanup_close_ int fd = -1;
	char path[64], buf[1024];
	size_t len = 0;
	ssize_t n;
	int err;

	err = cpu_file(path, sizeof(path), cpu, "stats");
	if (err)
		return err;
	errno = 0;
	fd = tracefs_instance_file_open(fi->inst, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lib_error();
	while (len < sizeof(buf) - 1) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	return parse_stats(buf, ret);
}
