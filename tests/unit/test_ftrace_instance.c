// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for ftrace_instance, against the real tracefs (root; the
 * libtracefs call that finds it mounts it where it is not). Each check
 * reads the instance's files here with plain open/read, not through the
 * module. Names carry this process's PID, so two runs never meet, and
 * each test's teardown removes what it made, failed or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

#include "test_skip.h"
#include "ftrace_instance.h"

#define PREFIX	  "perfsnapd-test"
#define MAX_MADE  8
#define MAX_SPINS 10000
#define SYS_ENTER "events/raw_syscalls/sys_enter/"

struct fixture {
	struct ftrace_instance *fi;
	char made[MAX_MADE][NAME_MAX + 1]; /* instances made by hand, removed at teardown */
	int nr_made;
	int raw_fd;
	cpu_set_t affinity; /* restored at teardown */
	bool pinned;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->raw_fd = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];
	int i;

	if (f->raw_fd >= 0)
		close(f->raw_fd);
	(void)ftrace_instance__destroy(f->fi);
	for (i = 0; i < f->nr_made; i++) {
		snprintf(path, sizeof(path), "%s/instances/%s", tracefs_tracing_dir(), f->made[i]);
		(void)rmdir(path);
	}
	if (f->pinned)
		(void)sched_setaffinity(0, sizeof(f->affinity), &f->affinity);
	free(f);
	return 0;
}

static void need_tracefs(void)
{
	const char *dir;
	char path[PATH_MAX];
	struct stat st;

	if (geteuid() != 0)
		test_skip("tracefs instances need root");
	dir = tracefs_tracing_dir();
	if (!dir)
		test_skip("no tracefs, and it cannot be mounted");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		test_skip("tracefs has no instances/");
}

static void need_event(const char *system, const char *event)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_tracing_dir(), system, event);
	if (access(path, F_OK))
		test_skip("the kernel has no raw_syscalls:sys_enter (CONFIG_FTRACE_SYSCALLS)");
}

static bool instance_exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/instances/%s", tracefs_tracing_dir(), name);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* mkdir of instance @name, as another tool would; teardown removes it. */
static void make_by_hand(struct fixture *f, const char *name)
{
	char path[PATH_MAX];

	assert_true(f->nr_made < MAX_MADE);
	snprintf(f->made[f->nr_made], sizeof(f->made[0]), "%s", name);
	f->nr_made++;
	snprintf(path, sizeof(path), "%s/instances/%s", tracefs_tracing_dir(), name);
	if (mkdir(path, 0750))
		fail_msg("mkdir '%s': %s", path, strerror(errno));
}

/* Instance @name's @file, read whole; valid until the next call. */
static const char *read_file(const char *name, const char *file)
{
	static char buf[4096];
	const size_t size = sizeof(buf);
	char path[PATH_MAX];
	size_t len = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/instances/%s/%s", tracefs_tracing_dir(), name, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open '%s': %s", path, strerror(errno));
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	return buf;
}

static void write_file(const char *name, const char *file, const char *str)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/instances/%s/%s", tracefs_tracing_dir(), name, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail_msg("open '%s': %s", path, strerror(errno));
	assert_int_equal(write(fd, str, strlen(str)), (ssize_t)strlen(str));
	close(fd);
}

/* Whether the space-separated @list has @word. */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ' || p[-1] == '\n') &&
		    (!p[len] || p[len] == ' ' || p[len] == '\n'))
			return true;
	return false;
}

static void create(struct fixture *f)
{
	need_tracefs();
	assert_int_equal(ftrace_instance__create(PREFIX, getpid(), 0, &f->fi), 0);
	assert_non_null(f->fi);
}

static void test_create(void **state)
{
	struct fixture *f = *state;
	struct ftrace_instance *other = NULL;
	char name[NAME_MAX + 1];

	create(f);
	snprintf(name, sizeof(name), "%s-%d", PREFIX, (int)getpid());
	assert_string_equal(ftrace_instance__name(f->fi), name);
	assert_true(instance_exists(name));
	assert_string_equal(read_file(name, "tracing_on"), "0\n");
	assert_string_equal(read_file(name, "options/overwrite"), "1\n");

	/* The same name again: refused, and the first is untouched. */
	assert_int_equal(ftrace_instance__create(PREFIX, getpid(), 0, &other), -EEXIST);
	assert_null(other);
	assert_true(instance_exists(name));

	assert_int_equal(ftrace_instance__destroy(f->fi), 0);
	f->fi = NULL;
	assert_false(instance_exists(name));
	assert_int_equal(ftrace_instance__destroy(NULL), 0);
}

static void test_create_refuses(void **state)
{
	struct fixture *f = *state;
	char name[NAME_MAX + 1], buf[301];
	pid_t pid = getpid();

	need_tracefs();
	assert_int_equal(ftrace_instance__create("", pid, 0, &f->fi), -EINVAL);
	assert_int_equal(ftrace_instance__create("a/b", pid, 0, &f->fi), -EINVAL);
	assert_int_equal(ftrace_instance__create(PREFIX, 0, 0, &f->fi), -EINVAL);
	memset(buf, 'x', 300);
	buf[300] = '\0';
	assert_int_equal(ftrace_instance__create(buf, pid, 0, &f->fi), -ENAMETOOLONG);

	/* Another tool's instance of that name: refused, and not removed. */
	snprintf(name, sizeof(name), "%s-%d", PREFIX, (int)pid);
	make_by_hand(f, name);
	write_file(name, "tracing_on", "1");
	assert_int_equal(ftrace_instance__create(PREFIX, pid, 0, &f->fi), -EEXIST);
	assert_null(f->fi);
	assert_true(instance_exists(name));
	assert_string_equal(read_file(name, "tracing_on"), "1\n");
}

static void test_enable_event(void **state)
{
	struct fixture *f = *state;
	char filter[64], want[80];
	const char *name;

	create(f);
	need_event("raw_syscalls", "sys_enter");
	name = ftrace_instance__name(f->fi);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_enter", filter),
			 0);
	snprintf(want, sizeof(want), "%s\n", filter);
	assert_string_equal(read_file(name, SYS_ENTER "filter"), want);
	assert_string_equal(read_file(name, SYS_ENTER "enable"), "1\n");

	/* A rejected filter leaves the event off, though it was on. */
	assert_int_equal(
		ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_enter", "common_pid =="),
		-EINVAL);
	assert_string_equal(read_file(name, SYS_ENTER "enable"), "0\n");
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_enter",
						       "no_such_field == 1"),
			 -EINVAL);
	assert_string_equal(read_file(name, SYS_ENTER "enable"), "0\n");

	/* No filter clears the earlier one. */
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_enter", NULL),
			 0);
	assert_string_equal(read_file(name, SYS_ENTER "filter"), "none\n");
	assert_string_equal(read_file(name, SYS_ENTER "enable"), "1\n");

	/* Names, not patterns; an unknown event is not there. */
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_.*", NULL),
			 -ENOENT);
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "no_such", NULL),
			 -ENOENT);
	assert_int_equal(ftrace_instance__enable_event(f->fi, "..", "sys_enter", NULL), -EINVAL);
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "a/b", NULL),
			 -EINVAL);
	assert_int_equal(ftrace_instance__enable_event(f->fi, "", "sys_enter", NULL), -EINVAL);
}

static void test_cpu_kb(void **state)
{
	struct fixture *f = *state;
	size_t kb = 0, was = 0;

	create(f);
	assert_int_equal(ftrace_instance__cpu_kb(f->fi, 0, &was), 0);
	assert_true(was > 0);
	assert_int_equal(ftrace_instance__set_cpu_kb(f->fi, 0, 256), 0);
	assert_int_equal(ftrace_instance__cpu_kb(f->fi, 0, &kb), 0);
	/*
	 * The kernel reads back whole sub-buffers of payload: 256 KiB is 65
	 * pages of 4080 bytes (16 go to each page's header), 258 KiB.
	 */
	assert_in_range(kb, 256, 256 + 256 / 64 + 4);
	assert_int_equal(
		strtoull(read_file(ftrace_instance__name(f->fi), "per_cpu/cpu0/buffer_size_kb"),
			 NULL, 10),
		kb);

	assert_int_equal(ftrace_instance__set_cpu_kb(f->fi, -1, 256), -EINVAL);
	assert_int_equal(ftrace_instance__set_cpu_kb(f->fi, 0, 0), -EINVAL);
	assert_int_equal(ftrace_instance__set_cpu_kb(f->fi, 100000, 256), -ENOENT);
	assert_int_equal(ftrace_instance__cpu_kb(f->fi, -1, &kb), -EINVAL);
	assert_int_equal(ftrace_instance__cpu_kb(f->fi, 100000, &kb), -ENOENT);
	assert_in_range(kb, 256, 256 + 256 / 64 + 4);
}

static void test_clock(void **state)
{
	struct fixture *f = *state;

	create(f);
	assert_true(ftrace_instance__has_clock("perf"));
	assert_true(ftrace_instance__has_clock("local"));
	assert_false(ftrace_instance__has_clock("nonsense"));
	assert_false(ftrace_instance__has_clock("per"));
	assert_false(ftrace_instance__has_clock("[local]"));
	assert_false(ftrace_instance__has_clock(""));
	assert_false(ftrace_instance__has_clock(NULL));

	assert_int_equal(ftrace_instance__set_clock(f->fi, "perf"), 0);
	assert_true(has_word(read_file(ftrace_instance__name(f->fi), "trace_clock"), "[perf]"));
	assert_int_equal(ftrace_instance__set_clock(f->fi, "nonsense"), -EINVAL);
	assert_int_equal(ftrace_instance__set_clock(f->fi, ""), -EINVAL);
	assert_true(has_word(read_file(ftrace_instance__name(f->fi), "trace_clock"), "[perf]"));
}

/* This thread on the CPU it runs on; teardown restores its affinity. */
static int pin(struct fixture *f)
{
	cpu_set_t one;
	int cpu;

	assert_int_equal(sched_getaffinity(0, sizeof(f->affinity), &f->affinity), 0);
	f->pinned = true;
	cpu = sched_getcpu();
	assert_true(cpu >= 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	return cpu;
}

static void test_on_and_stats(void **state)
{
	struct fixture *f = *state;
	struct ftrace_cpu_stats st;
	char filter[64];
	int cpu, spins, i, fl;

	create(f);
	need_event("raw_syscalls", "sys_enter");
	cpu = pin(f);
	snprintf(filter, sizeof(filter), "common_pid == %d", (int)getpid());
	assert_int_equal(ftrace_instance__enable_event(f->fi, "raw_syscalls", "sys_enter", filter),
			 0);

	/* Off: the syscalls leave the ring empty. */
	for (i = 0; i < 100; i++)
		(void)getppid();
	assert_int_equal(ftrace_instance__cpu_stats(f->fi, cpu, &st), 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.bytes, 0);
	assert_int_equal(st.oldest_ns, 0);
	assert_true(st.now_ns > 0);

	assert_int_equal(ftrace_instance__set_on(f->fi, true), 0);
	assert_string_equal(read_file(ftrace_instance__name(f->fi), "tracing_on"), "1\n");
	for (spins = 0; spins < MAX_SPINS; spins++) {
		for (i = 0; i < 10; i++)
			(void)getppid();
		assert_int_equal(ftrace_instance__cpu_stats(f->fi, cpu, &st), 0);
		if (st.entries > 0)
			break;
	}
	assert_true(st.entries > 0);
	assert_int_equal(st.overrun, 0);
	assert_int_equal(st.commit_overrun, 0);
	assert_int_equal(st.dropped_events, 0);
	/* What [capture] window reads: the bytes held and how far back they go. */
	assert_true(st.bytes >= st.entries * 8);
	assert_true(st.oldest_ns > 0);
	assert_true(st.now_ns >= st.oldest_ns);
	assert_int_equal(ftrace_instance__set_on(f->fi, false), 0);
	assert_string_equal(read_file(ftrace_instance__name(f->fi), "tracing_on"), "0\n");

	assert_int_equal(ftrace_instance__cpu_stats(f->fi, -1, &st), -EINVAL);
	assert_int_equal(ftrace_instance__cpu_stats(f->fi, 100000, &st), -ENOENT);
	assert_int_equal(ftrace_instance__open_cpu_raw(f->fi, -1), -EINVAL);
	assert_int_equal(ftrace_instance__open_cpu_raw(f->fi, 100000), -ENOENT);

	f->raw_fd = ftrace_instance__open_cpu_raw(f->fi, cpu);
	assert_true(f->raw_fd >= 0);
	fl = fcntl(f->raw_fd, F_GETFL);
	assert_int_equal(fl & O_ACCMODE, O_RDONLY);
	assert_true(fl & O_NONBLOCK);
	assert_true(fcntl(f->raw_fd, F_GETFD) & FD_CLOEXEC);
}

/* A marker is an ftrace:print event in the instance, only while it traces. */
static void test_mark(void **state)
{
	struct fixture *f = *state;
	struct ftrace_cpu_stats st;
	int cpu, type;

	create(f);
	cpu = pin(f);
	type = ftrace_instance__event_type("ftrace", "print");
	assert_true(type > 0);
	assert_int_equal(ftrace_instance__event_type("ftrace", "no_such_event"), -ENOENT);
	assert_int_equal(ftrace_instance__event_type("a/b", "print"), -EINVAL);
	/* Off, the kernel refuses the write: no event. */
	assert_true(ftrace_instance__mark(f->fi, "off\n") < 0);
	assert_int_equal(ftrace_instance__cpu_stats(f->fi, cpu, &st), 0);
	assert_int_equal(st.entries, 0);
	assert_int_equal(ftrace_instance__set_on(f->fi, true), 0);
	assert_int_equal(ftrace_instance__mark(f->fi, "on\n"), 0);
	assert_int_equal(ftrace_instance__set_on(f->fi, false), 0);
	assert_int_equal(ftrace_instance__cpu_stats(f->fi, cpu, &st), 0);
	assert_int_equal(st.entries, 1);
}

/* An open fd of the instance keeps it: destroy says so, and leaves it off. */
static void test_destroy_busy(void **state)
{
	struct fixture *f = *state;
	char name[NAME_MAX + 1];

	create(f);
	snprintf(name, sizeof(name), "%s", ftrace_instance__name(f->fi));
	snprintf(f->made[f->nr_made++], sizeof(f->made[0]), "%s", name);
	assert_int_equal(ftrace_instance__set_on(f->fi, true), 0);
	f->raw_fd = ftrace_instance__open_cpu_raw(f->fi, 0);
	assert_true(f->raw_fd >= 0);
	assert_int_equal(ftrace_instance__destroy(f->fi), -EBUSY);
	f->fi = NULL;
	assert_true(instance_exists(name));
	assert_string_equal(read_file(name, "tracing_on"), "0\n");
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid)
		_exit(0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* Reaped: no process has it, unless the PIDs wrapped since. */
	if (kill(pid, 0) == 0 || errno != ESRCH)
		fail_msg("PID %d was reused at once", (int)pid);
	return pid;
}

static void test_remove_leftovers(void **state)
{
	struct fixture *f = *state;
	char prefix[64], dead[NAME_MAX + 1], live[NAME_MAX + 1], other[NAME_MAX + 1];
	char zero[NAME_MAX + 1], tail[NAME_MAX + 1], seq[NAME_MAX + 1], seq0[NAME_MAX + 1];
	char marker[PATH_MAX];
	pid_t pid;

	need_tracefs();
	/* This run's own prefix: another run's leftovers are not counted here. */
	snprintf(prefix, sizeof(prefix), "%s-%d-lo", PREFIX, (int)getpid());
	pid = dead_pid();
	snprintf(dead, sizeof(dead), "%s-%d", prefix, (int)pid);
	snprintf(live, sizeof(live), "%s-%d", prefix, (int)getpid());
	snprintf(other, sizeof(other), "%sother", prefix);
	snprintf(zero, sizeof(zero), "%s-0%d", prefix, (int)pid);
	snprintf(tail, sizeof(tail), "%s-%d-x", prefix, (int)pid);
	/* A reload's instance of the dead daemon, and a number it never writes. */
	snprintf(seq, sizeof(seq), "%s-%d.2", prefix, (int)pid);
	snprintf(seq0, sizeof(seq0), "%s-%d.0", prefix, (int)pid);
	make_by_hand(f, seq);
	make_by_hand(f, seq0);
	make_by_hand(f, dead);
	make_by_hand(f, live);
	make_by_hand(f, other);
	make_by_hand(f, zero);
	make_by_hand(f, tail);
	/* A killed daemon's instance was tracing. */
	write_file(dead, "tracing_on", "1");
	write_file(dead, "events/sched/sched_switch/enable", "1");

	assert_int_equal(ftrace_instance__remove_leftovers(prefix), 2);
	assert_false(instance_exists(dead));
	assert_false(instance_exists(seq));
	assert_true(instance_exists(seq0));
	assert_true(instance_exists(live));
	assert_true(instance_exists(other));
	assert_true(instance_exists(zero));
	assert_true(instance_exists(tail));
	assert_int_equal(ftrace_instance__remove_leftovers(prefix), 0);

	/*
	 * A daemon of another PID namespace: its PID looks dead here, but it
	 * holds its instance open, tracing. It is left as it is.
	 */
	make_by_hand(f, dead);
	write_file(dead, "tracing_on", "1");
	write_file(dead, "events/sched/sched_switch/enable", "1");
	snprintf(marker, sizeof(marker), "%s/instances/%s/trace_marker", tracefs_tracing_dir(),
		 dead);
	f->raw_fd = open(marker, O_WRONLY | O_CLOEXEC);
	assert_true(f->raw_fd >= 0);
	assert_int_equal(ftrace_instance__remove_leftovers(prefix), -EBUSY);
	assert_true(instance_exists(dead));
	assert_string_equal(read_file(dead, "tracing_on"), "1\n");
	assert_string_equal(read_file(dead, "events/sched/sched_switch/enable"), "1\n");
	close(f->raw_fd);
	f->raw_fd = -1;
	assert_int_equal(ftrace_instance__remove_leftovers(prefix), 1);
	assert_false(instance_exists(dead));

	assert_int_equal(ftrace_instance__remove_leftovers(""), -EINVAL);
	assert_int_equal(ftrace_instance__remove_leftovers("a/b"), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_create_refuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enable_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cpu_kb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_and_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_destroy_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_leftovers, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
