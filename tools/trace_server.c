// SPDX-License-Identifier: GPL-2.0-only
/* trace_server: see trace_server.h. */
#include <errno.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace_server.h"

#define PROG "perfsnap-convert"

struct server {
	const char *path;
	const char *origin;
	char url_path[PATH_MAX]; /* "/TOKEN/" + base name */
	struct event_base *base;
	bool served;
};

static void reply_error(struct evhttp_request *req, int code, const char *reason)
{
	evhttp_send_error(req, code, reason);
}

static void on_complete(struct evhttp_request *req, void *arg)
{
	struct server *sv = arg;

	(void)req;
	sv->served = true;
	event_base_loopexit(sv->base, NULL);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct server *sv = arg;
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	const char *origin = evhttp_find_header(evhttp_request_get_input_headers(req), "Origin");
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct evbuffer *body;
	struct stat st;
	int fd;

	if (sv->served || !path || strcmp(path, sv->url_path) ||
	    (cmd != EVHTTP_REQ_GET && cmd != EVHTTP_REQ_OPTIONS))
		return reply_error(req, HTTP_NOTFOUND, "Not Found");
	if (origin && strcmp(origin, sv->origin))
		return reply_error(req, 403, "Forbidden");
	evhttp_add_header(out, "Access-Control-Allow-Origin", sv->origin);
	evhttp_add_header(out, "Cache-Control", "no-cache");
	if (cmd == EVHTTP_REQ_OPTIONS) {
		/* A browser's preflight, private network access included. */
		evhttp_add_header(out, "Access-Control-Allow-Methods", "GET");
		evhttp_add_header(out, "Access-Control-Allow-Private-Network", "true");
		evhttp_send_reply(req, 204, "No Content", NULL);
		return;
	}
	fd = open(sv->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !(body = evbuffer_new())) {
		if (fd >= 0)
			close(fd);
		return reply_error(req, HTTP_INTERNAL, "Internal Server Error");
	}
	if (evbuffer_add_file(body, fd, 0, st.st_size)) { /* takes the fd */
		evbuffer_free(body);
		return reply_error(req, HTTP_INTERNAL, "Internal Server Error");
	}
	evhttp_add_header(out, "Content-Type", "application/octet-stream");
	evhttp_request_set_on_complete_cb(req, on_complete, sv);
	evhttp_send_reply(req, HTTP_OK, "OK", body);
	evbuffer_free(body);
}

/* xdg-open where a desktop session is; false when no browser can be started. */
static bool start_browser(const char *url)
{
	char prog[] = "xdg-open", *argv[] = { prog, (char *)url, NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int status, r;

	if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
		return false;
	if (posix_spawn_file_actions_init(&fa))
		return false;
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	r = posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r)
		return false;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool url_safe(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("-._~", *s)))
			return false;
	return true;
}

/*
 * 128 random bits in hex: the port is fixed (the UI fetches from there),
 * so the path is what keeps another local user from fetching the trace.
 */
static int make_token(char *buf, size_t size)
{
	uint8_t r[16];

	if (size < 2 * sizeof(r) + 1 || getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	for (size_t i = 0; i < sizeof(r); i++)
		snprintf(buf + 2 * i, 3, "%02x", r[i]);
	return 0;
}

int trace_server__run(const char *path, const char *origin)
{
	struct server sv = { .path = path, .origin = origin };
	char copy[PATH_MAX], url[2 * PATH_MAX], host[256] = "this-host", token[33];
	struct evhttp *http = NULL;
	const char *base;
	int r = 1;

	snprintf(copy, sizeof(copy), "%s", path);
	base = basename(copy);
	/* The name goes into two URLs unescaped; keep to what needs no escaping. */
	if (!url_safe(base)) {
		fprintf(stderr,
			PROG ": --open: '%s' needs a file name of letters, digits and "
			     "-._~ only\n",
			base);
		return 1;
	}
	if (make_token(token, sizeof(token)) < 0) {
		fprintf(stderr, PROG ": --open: no random bytes for the URL: %s\n",
			strerror(errno));
		return 1;
	}
	snprintf(sv.url_path, sizeof(sv.url_path), "/%s/%s", token, base);
	sv.base = event_base_new();
	http = sv.base ? evhttp_new(sv.base) : NULL;
	if (!http) {
		fprintf(stderr, PROG ": --open: out of memory\n");
		goto out;
	}
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_HEAD |
						 EVHTTP_REQ_POST | EVHTTP_REQ_PUT |
						 EVHTTP_REQ_DELETE);
	evhttp_set_gencb(http, on_request, &sv);
	if (evhttp_bind_socket(http, "127.0.0.1", TRACE_SERVER_PORT)) {
		fprintf(stderr, PROG ": --open: cannot listen on 127.0.0.1:%d: %s\n",
			TRACE_SERVER_PORT, strerror(errno));
		goto out;
	}
	snprintf(url, sizeof(url), "%s/#!/?url=http://127.0.0.1:%d%s", origin, TRACE_SERVER_PORT,
		 sv.url_path);
	if (!start_browser(url)) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "this-host");
		host[sizeof(host) - 1] = 0;
		printf("No browser could be started here. On the machine with the browser,\n"
		       "forward the port first:  ssh -L %d:127.0.0.1:%d %s\n",
		       TRACE_SERVER_PORT, TRACE_SERVER_PORT, host);
	}
	printf("Open %s\nWaiting for the Perfetto UI to fetch http://127.0.0.1:%d%s ...\n", url,
	       TRACE_SERVER_PORT, sv.url_path);
	fflush(stdout);
	if (event_base_dispatch(sv.base) < 0 || !sv.served) {
		fprintf(stderr, PROG ": --open: the server stopped before the trace was fetched\n");
		goto out;
	}
	printf("The Perfetto UI fetched %s\n", base);
	r = 0;
out:
	if (http)
		evhttp_free(http);
	if (sv.base)
		event_base_free(sv.base);
	return r;
}
