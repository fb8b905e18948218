// SPDX-License-Identifier: GPL-2.0-only
/*
 * post_command: posix_spawn, a pidfd in the event loop, a timeout. The
 * child gets /dev/null as stdin, the daemon's stdout/stderr (the journal
 * under systemd) and no other descriptor of the daemon's.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "child_spawn.h"
#include "log.h"
#include "monotonic.h"
#include "post_command.h"

struct child {
	pid_t pid;
	int pidfd;
	char *command;
	struct event *exit_ev;
	struct event *timeout_ev;
	uint64_t started_ns;
	struct child *next;
};

static struct child *children;

static void child_free(struct child *c)
{
	struct child **p;

	for (p = &children; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	if (c->exit_ev)
		event_free(c->exit_ev);
	if (c->timeout_ev)
		event_free(c->timeout_ev);
	if (c->pidfd >= 0)
		close(c->pidfd);
	free(c->command);
	free(c);
}

static void log_status(const struct child *c, int status)
{
	unsigned long long ms = (monotonic_ns() - c->started_ns) / 1000000;

	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		log_info("post_command '%s' (pid %d) succeeded in %llu ms", c->command, c->pid, ms);
	else if (WIFEXITED(status))
		log_warning("post_command '%s' (pid %d) exited with status %d after %llu ms",
			    c->command, c->pid, WEXITSTATUS(status), ms);
	else if (WIFSIGNALED(status))
		log_warning("post_command '%s' (pid %d) killed by signal %d after %llu ms",
			    c->command, c->pid, WTERMSIG(status), ms);
}

static void on_exit_ready(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	int status = 0;

	(void)fd;
	(void)what;
	if (waitpid(c->pid, &status, WNOHANG) != c->pid)
		return;
	log_status(c, status);
	child_free(c);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;

	(void)fd;
	(void)what;
	log_warning("post_command '%s' (pid %d) timed out: killing it", c->command, c->pid);
	kill(c->pid, SIGKILL);
}

static int spawn(const char *command, const char *const *paths, int nr_paths, pid_t *ret)
{
	char **argv = calloc((size_t)nr_paths + 2, sizeof(*argv));
	int r;

	if (!argv)
		return -ENOMEM;
	argv[0] = (char *)command;
	for (int i = 0; i < nr_paths; i++)
		argv[i + 1] = (char *)paths[i];
	r = child_spawn__start(command, argv, -1, ret);
	free(argv);
	return r;
}

/**
 * post_command__run - start the post command for one snapshot
 * @base: the event loop that watches the child
 * @command: absolute path of the program
 * @paths: the snapshot's files, passed as arguments
 * @nr_paths: their number
 * @timeout_ns: after this the child is killed
 *
 * Returns 0 or -errno (logged).
 */
int post_command__run(struct event_base *base, const char *command, const char *const *paths,
		      int nr_paths, uint64_t timeout_ns)
{
	struct timeval tv = { .tv_sec = (time_t)(timeout_ns / 1000000000ull),
			      .tv_usec = (suseconds_t)(timeout_ns % 1000000000ull / 1000) };
	struct child *c = calloc(1, sizeof(*c));
	int r;

	if (!c)
		return log__errno(-ENOMEM, "post_command");
	c->pidfd = -1;
	c->command = strdup(command);
	c->started_ns = monotonic_ns();
	if (!c->command) {
		free(c);
		return log__errno(-ENOMEM, "post_command");
	}
	r = spawn(command, paths, nr_paths, &c->pid);
	if (r < 0) {
		free(c->command);
		free(c);
		return log__errno(r, "cannot run post_command '%s'", command);
	}
	c->next = children;
	children = c;
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (c->pidfd < 0) {
		r = log__errno(-errno, "pidfd_open for post_command pid %d", c->pid);
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		child_free(c);
		return r;
	}
	c->exit_ev = event_new(base, c->pidfd, EV_READ | EV_PERSIST, on_exit_ready, c);
	c->timeout_ev = evtimer_new(base, on_timeout, c);
	if (!c->exit_ev || !c->timeout_ev || event_add(c->exit_ev, NULL) < 0 ||
	    evtimer_add(c->timeout_ev, &tv) < 0) {
		kill(c->pid, SIGKILL);
		waitpid(c->pid, NULL, 0);
		child_free(c);
		return log__errno(-ENOMEM, "post_command events");
	}
	log_debug("post_command '%s' started as pid %d", command, c->pid);
	return 0;
}

/**
 * post_command__reap_all - end every child still running
 *
 * At exit: a child still uploading is killed rather than left orphaned.
 */
void post_command__reap_all(void)
{
	while (children) {
		struct child *c = children;
		int status = 0;

		kill(c->pid, SIGKILL);
		if (waitpid(c->pid, &status, 0) == c->pid)
			log_status(c, status);
		child_free(c);
	}
}
