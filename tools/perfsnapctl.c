// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnapctl: asks a running perfsnapd, over its control socket, for a
 * snapshot (or to fire a trigger), its status, its list of snapshots or a reload. It sends one
 * request line and copies the reply lines to stdout until "ok" (exit 0)
 * or "error <text>" (to stderr, exit 1). Usage errors exit 2.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control_protocol.h"
#include "control_range.h"

#define EXIT_ERROR	    1
#define EXIT_USAGE	    2
#define DEFAULT_TIMEOUT_SEC 60
/* A reply line, its newline, and room for the daemon's prefix space. */
#define MAX_LINE	    (CONTROL_MAX_REPLY_LINE + 2)

struct ctl_options {
	const char *socket;
	unsigned int timeout_sec; /* 0: wait forever */
	struct timespec deadline;
	const char *header; /* printed before the first data line, or NULL */
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: perfsnapctl [--socket PATH] [--timeout SEC] COMMAND [ARGS]\n"
		"\n"
		"Commands:\n"
		"  dump [--reason TEXT] [WINDOW]\n"
		"                        take a snapshot now and print its files\n"
		"  trigger NAME          fire [trigger NAME] and print its snapshot's files\n"
		"  status                what perfsnapd is recording\n"
		"  list                  the snapshots on disk, oldest first: stem, bytes,\n"
		"                        upload, compression, reason\n"
		"  reload                reread the configuration\n"
		"\n"
		"Window of a dump (all the rings hold without one):\n"
		"  --last DURATION       the last DURATION before the dump (e.g. 2s, 500ms)\n"
		"  --since TIME          from TIME: -5s (before now) or ISO 8601 wall clock\n"
		"                        (2026-12-05T21:40:00Z, 2026-12-05T22:40:00.5+01:00,\n"
		"                        2026-12-05 21:40:00 in local time)\n"
		"  --until TIME          up to TIME (default: the dump)\n"
		"  --max-size SIZE       each data file at most SIZE (e.g. 50M, at least 1M):\n"
		"                        keeps the newest records\n"
		"\n"
		"Options:\n"
		"  -s, --socket PATH     control socket (default $PERFSNAPD_SOCKET or\n"
		"                        " CONTROL_DEFAULT_PATH ")\n"
		"  -t, --timeout SEC     give up after SEC seconds (default %d; 0: never)\n"
		"  -h, --help            this text\n"
		"  -V, --version         print the version\n"
		"\n"
		"Exit status: 0 on success, 1 on an error, 2 on a usage error.\n",
		DEFAULT_TIMEOUT_SEC);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "perfsnapctl: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'perfsnapctl --help'.\n");
	return EXIT_USAGE;
}

/* Milliseconds left for poll(), -1 for no deadline, 0 once it has passed. */
static int remaining_ms(const struct ctl_options *o)
{
	struct timespec now;
	long long ms;

	if (!o->timeout_sec)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(o->deadline.tv_sec - now.tv_sec) * 1000 +
	     (o->deadline.tv_nsec - now.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (ms > 1000000000 ? 1000000000 : (int)ms);
}

/* Returns 0 or an exit code (the error printed). */
static int wait_fd(int fd, short events, const struct ctl_options *o)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int n;

	do
		n = poll(&pfd, 1, remaining_ms(o));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		fprintf(stderr, "perfsnapctl: poll: %s\n", strerror(errno));
		return EXIT_ERROR;
	}
	if (n == 0) {
		fprintf(stderr, "perfsnapctl: no answer from perfsnapd within %u s\n",
			o->timeout_sec);
		return EXIT_ERROR;
	}
	return 0;
}

/* Returns a connected socket, or -1 (the error printed). */
static int connect_socket(const struct ctl_options *o)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = o->timeout_sec };
	int fd, err;

	memcpy(sa.sun_path, o->socket, strlen(o->socket) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "perfsnapctl: socket: %s\n", strerror(errno));
		return -1;
	}
	/* A listener with a full backlog makes connect() wait this long at most. */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return fd;
	err = errno;
	close(fd);
	if (err == ENOENT || err == ECONNREFUSED)
		fprintf(stderr, "perfsnapctl: is perfsnapd running? socket %s: %s\n", o->socket,
			strerror(err));
	else if (err == EACCES || err == EPERM)
		fprintf(stderr,
			"perfsnapctl: socket %s: %s (need root or the group perfsnapd "
			"serves)\n",
			o->socket, strerror(err));
	else if (err == EAGAIN)
		fprintf(stderr, "perfsnapctl: socket %s: perfsnapd accepts no connection\n",
			o->socket);
	else
		fprintf(stderr, "perfsnapctl: socket %s: %s\n", o->socket, strerror(err));
	return -1;
}

/*
 * Returns 0, an exit code, or -1 when perfsnapd closed the connection
 * before taking the request: it may have said why first (a refusal).
 */
static int send_all(int fd, const char *buf, size_t len, const struct ctl_options *o)
{
	ssize_t n;
	int r;

	while (len) {
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			r = wait_fd(fd, POLLOUT, o);
			if (r)
				return r;
			continue;
		}
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return -1;
		if (n < 0) {
			fprintf(stderr, "perfsnapctl: cannot send the request: %s\n",
				strerror(errno));
			return EXIT_ERROR;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Returns -1 for a data line (printed), else the exit code. */
static int take_line(char *line, const char **header)
{
	if (!strcmp(line, CONTROL_REPLY_OK))
		return 0;
	/* Not a file: kept off stdout, where scripts read the paths. */
	if (!strncmp(line, "note: ", 6)) {
		fprintf(stderr, "perfsnapctl: %s\n", line);
		return -1;
	}
	if (control_protocol__is_final(line)) {
		fprintf(stderr, "perfsnapctl: %s\n", line[5] ? line + 6 : "error");
		return EXIT_ERROR;
	}
	/* The daemon escapes a data line that would read as final with a space. */
	if (line[0] == ' ' && control_protocol__is_final(line + 1))
		line++;
	if (*header && puts(*header) == EOF)
		return EXIT_ERROR;
	*header = NULL;
	if (puts(line) == EOF)
		return EXIT_ERROR;
	return -1;
}

/* @unsent: perfsnapd closed the connection before it took the request. */
static int read_reply(int fd, const struct ctl_options *o, bool unsent)
{
	static char buf[MAX_LINE + 1];
	const char *header = o->header;
	size_t len = 0;
	ssize_t n;
	char *nl;
	int r;

	for (;;) {
		while ((nl = memchr(buf, '\n', len))) {
			*nl = '\0';
			r = take_line(buf, &header);
			if (r >= 0)
				return r;
			len -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, len);
		}
		if (len == MAX_LINE) {
			fprintf(stderr, "perfsnapctl: reply line too long\n");
			return EXIT_ERROR;
		}
		r = wait_fd(fd, POLLIN, o);
		if (r)
			return r;
		n = recv(fd, buf + len, MAX_LINE - len, MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n <= 0) {
			fprintf(stderr,
				"perfsnapctl: perfsnapd closed the connection before %s%s%s\n",
				unsent ? "it took the request" : "the reply ended",
				n < 0 ? ": " : "", n < 0 ? strerror(errno) : "");
			return EXIT_ERROR;
		}
		len += (size_t)n;
	}
}

static int run(const struct ctl_options *o, const char *request)
{
	int fd, r;

	fd = connect_socket(o);
	if (fd < 0)
		return EXIT_ERROR;
	r = send_all(fd, request, strlen(request), o);
	/* Refused before the request went out: the reply says why. */
	if (r <= 0)
		r = read_reply(fd, o, r < 0);
	close(fd);
	if (fflush(stdout) == EOF && r == 0) {
		fprintf(stderr, "perfsnapctl: cannot write the reply: %s\n", strerror(errno));
		r = EXIT_ERROR;
	}
	return r;
}

/* Prints a bad window's message; returns the usage exit code. */
static int window_error(const char *err)
{
	fprintf(stderr, "perfsnapctl: dump: %s\nNothing was written.\n", err);
	return EXIT_USAGE;
}

/* Reads --last, --since, --until and --max-size into @w; returns 0 or an exit code. */
static int parse_window_option(int c, const char *arg, struct control_range *w, bool *last)
{
	char err[CONTROL_RANGE_ERROR_MAX];
	uint64_t ns;

	switch (c) {
	case 'l':
		if (control_range__parse_duration(arg, &ns, err, sizeof(err)) < 0)
			return window_error(err);
		if (ns > (uint64_t)INT64_MAX)
			return window_error("--last is too long");
		if (w->since.set)
			return window_error("--last and --since both set the start: give one");
		w->since = (struct control_time){ .set = true,
						  .relative = true,
						  .ns = -(int64_t)ns };
		*last = true;
		return 0;
	case 'S':
		if (*last)
			return window_error("--last and --since both set the start: give one");
		if (control_range__parse_time(arg, &w->since, err, sizeof(err)) < 0)
			return window_error(err);
		return 0;
	case 'U':
		if (control_range__parse_time(arg, &w->until, err, sizeof(err)) < 0)
			return window_error(err);
		return 0;
	case 'm':
		if (control_range__parse_size(arg, &w->max_size, err, sizeof(err)) < 0)
			return window_error(err);
		return 0;
	default:
		return usage_error("%s", "dump: bad option");
	}
}

/* Builds "dump [WINDOW --] [reason]\n" from the dump command's own options. */
static int parse_dump(int argc, char **argv, char *req, size_t size)
{
	static const struct option options[] = {
		{ "reason", required_argument, NULL, 'r' },
		{ "last", required_argument, NULL, 'l' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "max-size", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	char win[CONTROL_RANGE_WIRE_MAX], err[CONTROL_RANGE_ERROR_MAX];
	struct control_range w = { 0 };
	const char *reason = NULL;
	struct timespec now;
	bool last = false, dashes;
	int c, r;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+r:", options, NULL)) != -1) {
		if (c == 'r') {
			reason = optarg;
			continue;
		}
		if (c == '?')
			return usage_error("%s", "dump: bad option");
		r = parse_window_option(c, optarg, &w, &last);
		if (r)
			return r;
	}
	if (optind < argc)
		return usage_error("dump: unexpected argument '%s' (use --reason TEXT)",
				   argv[optind]);
	clock_gettime(CLOCK_REALTIME, &now);
	if (control_range__check(&w, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, err,
				 sizeof(err)) < 0)
		return window_error(err);
	control_range__format(&w, win, sizeof(win));
	/* "--" ends the window: a reason of its own that starts with "--" stays a reason. */
	dashes = *win || (reason && !strncmp(reason, "--", 2));
	if ((size_t)snprintf(req, size, "dump%s%s%s%s%s\n", *win ? " " : "", win,
			     dashes ? " --" : "", reason ? " " : "",
			     reason ? reason : "") >= size) {
		fprintf(stderr, "perfsnapctl: dump: the reason is too long (at most %zu bytes)\n",
			size - sizeof("dump \n") - strlen(win) - (*win ? 1 : 0) - (dashes ? 3 : 0));
		return EXIT_USAGE;
	}
	/* One request line: a newline in the reason would end it early. */
	for (char *p = req; p[1]; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return 0;
}

static int parse_command(int argc, char **argv, char *req, size_t size)
{
	const char *cmd = argv[0];

	if (!strcmp(cmd, "dump"))
		return parse_dump(argc, argv, req, size);
	if (!strcmp(cmd, CONTROL_CMD_TRIGGER)) {
		if (argc != 2)
			return usage_error("%s", "trigger takes one argument: the trigger's name");
		if ((size_t)snprintf(req, size, "trigger %s\n", argv[1]) >= size ||
		    strpbrk(argv[1], " \t\r\n"))
			return usage_error("bad trigger name '%s'", argv[1]);
		return 0;
	}
	if (strcmp(cmd, "status") && strcmp(cmd, "list") && strcmp(cmd, "reload"))
		return usage_error("unknown command '%s'", cmd);
	if (argc > 1)
		return usage_error("%s takes no arguments", cmd);
	snprintf(req, size, "%s\n", cmd);
	return 0;
}

static int parse_timeout(const char *arg, unsigned int *ret)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || v > 86400 || arg[0] == '-')
		return usage_error("bad timeout '%s' (seconds, 0 to 86400)", arg);
	*ret = (unsigned int)v;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct ctl_options o = { .timeout_sec = DEFAULT_TIMEOUT_SEC };
	char req[CONTROL_MAX_LINE + 1]; /* the longest request, and a NUL */
	int c, r;

	o.socket = getenv("PERFSNAPD_SOCKET");
	if (!o.socket || !*o.socket)
		o.socket = CONTROL_DEFAULT_PATH;
	while ((c = getopt_long(argc, argv, "+s:t:hV", options, NULL)) != -1) {
		switch (c) {
		case 's':
			o.socket = optarg;
			break;
		case 't':
			if (parse_timeout(optarg, &o.timeout_sec))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("perfsnapctl %s\n", PERFSNAPD_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no command (dump, trigger, status, list or reload)");
	if (strlen(o.socket) >= sizeof(((struct sockaddr_un *)NULL)->sun_path))
		return usage_error("socket path too long: '%s'", o.socket);
	r = parse_command(argc - optind, argv + optind, req, sizeof(req));
	if (r)
		return r;
	/* For a reader, not for a script reading a pipe. */
	if (!strcmp(argv[optind], "list") && isatty(STDOUT_FILENO))
		o.header = "STEM BYTES UPLOAD COMPRESSION REASON";
	clock_gettime(CLOCK_MONOTONIC, &o.deadline);
	o.deadline.tv_sec += o.timeout_sec;
	return run(&o, req);
}
