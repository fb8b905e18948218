// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfsnapd-upload: the only part of perfsnapd that talks to the network.
 * It is started with its socket as fd 3, by perfsnapd (as a child) or by
 * systemd (perfsnapd-upload.socket, Accept=yes), gives up its privileges
 * (upload_sandbox.c) and then, one request at a time, PUTs the file whose
 * descriptor perfsnapd sends and answers with the outcome. It holds no
 * state: perfsnapd keeps the queue and decides what to retry. It exits
 * when perfsnapd closes the socket.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sysexits.h>
#include <unistd.h>

#include <curl/curl.h>
#include <systemd/sd-daemon.h>

#include "upload-internal.h"
#include "upload_sandbox.h"
#include "upload_wire.h"

/* Reads one request and its descriptor. 1: got it; 0: perfsnapd closed; -errno. */
static int receive(int sock, struct upload_wire_put *m, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n < 0 ? -errno : 0;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (n != (ssize_t)sizeof(*m) || m->version != UPLOAD_WIRE_VERSION || *fd < 0 ||
	    (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		return -EPROTO;
	}
	m->endpoint[sizeof(m->endpoint) - 1] = m->bucket[sizeof(m->bucket) - 1] = '\0';
	m->region[sizeof(m->region) - 1] = m->key_id[sizeof(m->key_id) - 1] = '\0';
	m->secret[sizeof(m->secret) - 1] = m->token[sizeof(m->token) - 1] = '\0';
	m->key[sizeof(m->key) - 1] = '\0';
	return 1;
}

static enum upload_outcome put(struct upload_s3 *s, struct upload_wire_put *m, int fd,
			       struct upload_wire_reply *reply)
{
	struct upload_target t = {
		.bucket = m->bucket,
		.endpoint = m->endpoint,
		.region = m->region,
		.key_id = m->key_id,
		.secret = m->secret,
		.token = m->token[0] ? m->token : NULL,
		.path_style = m->flags & UPLOAD_WIRE_PATH_STYLE,
	};

	/* perfsnapd checked the endpoint; the helper trusts no one. */
	if (!strstr(m->endpoint, "://")) {
		close(fd);
		snprintf(reply->error, sizeof(reply->error), "bad endpoint");
		return UPLOAD_REFUSED;
	}
	return upload_s3__put(s, &t, m->key, fd, m->flags & UPLOAD_WIRE_JSON, UPLOAD_WIRE_FD,
			      reply->error, sizeof(reply->error), &reply->bytes);
}

static int serve(struct upload_s3 *s)
{
	struct upload_wire_put *m = malloc(sizeof(*m));
	int r = EX_OK;

	if (!m)
		return EX_OSERR;
	for (;;) {
		struct upload_wire_reply reply = { .version = UPLOAD_WIRE_VERSION };
		int fd, got = receive(UPLOAD_WIRE_FD, m, &fd);

		if (got <= 0) {
			if (got < 0) {
				fprintf(stderr, "perfsnapd-upload: bad request: %s\n",
					strerror(-got));
				r = EX_PROTOCOL;
			}
			break;
		}
		reply.outcome = put(s, m, fd, &reply);
		explicit_bzero(m, sizeof(*m));
		/* Stopped: perfsnapd closed the socket, and no one reads a reply. */
		if (reply.outcome == UPLOAD_STOPPED ||
		    send(UPLOAD_WIRE_FD, &reply, sizeof(reply), MSG_NOSIGNAL) < 0)
			break;
	}
	explicit_bzero(m, sizeof(*m));
	free(m);
	return r;
}

int main(int argc, char **argv)
{
	struct upload_s3 *s = NULL;
	char error[256];
	int r;

	(void)argv;
	if (argc > 1 || sd_is_socket(UPLOAD_WIRE_FD, AF_UNIX, SOCK_SEQPACKET, -1) <= 0) {
		fprintf(stderr, "perfsnapd-upload: perfsnapd starts it (or "
				"perfsnapd-upload.socket does), with its socket as fd 3\n");
		return EX_USAGE;
	}
	/* Write errors on a socket perfsnapd closed are answered, not fatal. */
	signal(SIGPIPE, SIG_IGN);
	if (upload_sandbox__enter(error, sizeof(error)) < 0) {
		fprintf(stderr, "perfsnapd-upload: %s\n", error);
		return EX_NOPERM;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) || upload_s3__new(&s) < 0) {
		fprintf(stderr, "perfsnapd-upload: cannot initialize libcurl\n");
		return EX_SOFTWARE;
	}
	r = serve(s);
	upload_s3__delete(s);
	curl_global_cleanup();
	return r;
}
