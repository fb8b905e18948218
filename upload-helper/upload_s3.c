// SPDX-License-Identifier: GPL-2.0-only
/*
 * upload_s3: one S3 PutObject with libcurl, signed with AWS Signature
 * Version 4 by CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3"). The body is the
 * file as it is on disk, streamed, so the payload is sent as
 * UNSIGNED-PAYLOAD (what S3 accepts over any transport; libcurl signs the
 * header). One easy handle is reused, so its connection is kept between
 * the files of a snapshot. The secrets go only to libcurl: the error texts
 * made here hold the HTTP status and the S3 error code and message, never
 * a header or the signature.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curl/curl.h>

#include "upload-internal.h"

#define CONNECT_TIMEOUT_S 10
/* A transfer slower than this for that long is given up (dead network). */
#define LOW_SPEED_BYTES	  1024
#define LOW_SPEED_TIME_S  30
#define MAX_BODY	  4096

struct upload_s3 {
	CURL *curl;
	char body[MAX_BODY]; /* start of an error reply */
	size_t body_len;
	int cancel_fd;
};

int upload_s3__new(struct upload_s3 **ret)
{
	struct upload_s3 *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->curl = curl_easy_init();
	if (!s->curl) {
		free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

void upload_s3__delete(struct upload_s3 *s)
{
	if (!s)
		return;
	curl_easy_cleanup(s->curl);
	free(s);
}

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	struct upload_s3 *s = arg;
	size_t len = size * n, room = sizeof(s->body) - 1 - s->body_len;

	memcpy(s->body + s->body_len, data, len < room ? len : room);
	s->body_len += len < room ? len : room;
	s->body[s->body_len] = '\0';
	return len;
}

static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct upload_s3 *s = arg;
	struct pollfd p = { .fd = s->cancel_fd, .events = POLLIN };

	(void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
	/* perfsnapd closed the socket (it stops) or spoke out of turn. */
	return s->cancel_fd >= 0 && poll(&p, 1, 0) > 0 ? 1 : 0;
}

/* Copies the text of <tag>...</tag> from an S3 error document, or "". */
static void xml_field(const char *body, const char *tag, char *buf, size_t size)
{
	char open[32], close[32];
	const char *start, *end;

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	buf[0] = '\0';
	start = strstr(body, open);
	if (!start)
		return;
	start += strlen(open);
	end = strstr(start, close);
	if (end)
		snprintf(buf, size, "%.*s", (int)(end - start), start);
}

static int object_url(const struct upload_target *t, const char *key, char *buf, size_t size)
{
	const char *host = strstr(t->endpoint, "://") + 3;
	size_t n;

	if (t->path_style)
		n = snprintf(buf, size, "%s/%s/%s", t->endpoint, t->bucket, key);
	else
		n = snprintf(buf, size, "%.*s%s.%s/%s", (int)(host - t->endpoint), t->endpoint,
			     t->bucket, host, key);
	return n < size ? 0 : -ENAMETOOLONG;
}

static enum upload_outcome classify(long status, const char *body, char *error, size_t size)
{
	char code[64], message[160];

	if (status >= 200 && status < 300)
		return UPLOAD_OK;
	xml_field(body, "Code", code, sizeof(code));
	xml_field(body, "Message", message, sizeof(message));
	snprintf(error, size, "HTTP %ld%s%s%s%s", status, code[0] ? " " : "", code,
		 message[0] ? ": " : "", message);
	if (status >= 400 && status < 500 && status != 408 && status != 429)
		return UPLOAD_REFUSED;
	return UPLOAD_RETRY;
}

static void set_options(struct upload_s3 *s, const struct upload_target *t, const char *url,
			FILE *f, off_t size, struct curl_slist *headers, const char *sigv4)
{
	CURL *c = s->curl;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(c, CURLOPT_READDATA, f);
	curl_easy_setopt(c, CURLOPT_INFILESIZE_LARGE, (curl_off_t)size);
	curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4);
	curl_easy_setopt(c, CURLOPT_USERNAME, t->key_id);
	curl_easy_setopt(c, CURLOPT_PASSWORD, t->secret);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, s);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, s);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, (long)CONNECT_TIMEOUT_S);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, (long)LOW_SPEED_BYTES);
	curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, (long)LOW_SPEED_TIME_S);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_USERAGENT, "perfsnapd/" PERFSNAPD_VERSION);
}

/**
 * upload_s3__put - PUT one file as one object
 * @s: the uploader's handle
 * @t: bucket, endpoint, credentials
 * @key: the object key
 * @fd: the file, read from its start; closed here
 * @json: it is a snapshot's JSON sidecar (its Content-Type)
 * @cancel_fd: readable (or hung up) when the transfer is to be abandoned;
 *             -1 for none
 * @error: set to why it failed (no secret in it)
 * @error_size: its size
 * @ret_bytes: the bytes sent, on success
 */
enum upload_outcome upload_s3__put(struct upload_s3 *s, const struct upload_target *t,
				   const char *key, int fd, bool json, int cancel_fd, char *error,
				   size_t error_size, uint64_t *ret_bytes)
{
	enum upload_outcome out = UPLOAD_LOCAL;
	struct curl_slist *headers = NULL, *h;
	char url[PATH_MAX + UPLOAD_KEY_MAX], sigv4[64];
	char *token = NULL;
	struct stat st;
	long status = 0;
	CURLcode cr;
	FILE *f;

	if (fstat(fd, &st) < 0 || !(f = fdopen(fd, "r"))) {
		snprintf(error, error_size, "cannot read the file: %s", strerror(errno));
		close(fd);
		return UPLOAD_LOCAL;
	}
	if (object_url(t, key, url, sizeof(url)) < 0) {
		snprintf(error, error_size, "object URL too long");
		goto out;
	}
	snprintf(sigv4, sizeof(sigv4), "aws:amz:%s:s3", t->region);
	/* libcurl signs the value given here as the payload hash. */
	h = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
	if (h && t->token) {
		headers = h;
		if (asprintf(&token, "x-amz-security-token: %s", t->token) < 0)
			token = NULL;
		h = token ? curl_slist_append(headers, token) : NULL;
	}
	if (h)
		h = curl_slist_append(h, json ? "Content-Type: application/json" :
						"Content-Type: application/octet-stream");
	if (!h) {
		snprintf(error, error_size, "out of memory");
		out = UPLOAD_RETRY;
		goto out;
	}
	headers = h;
	s->body_len = 0;
	s->body[0] = '\0';
	s->cancel_fd = cancel_fd;
	set_options(s, t, url, f, st.st_size, headers, sigv4);
	cr = curl_easy_perform(s->curl);
	if (cr == CURLE_ABORTED_BY_CALLBACK) {
		snprintf(error, error_size, "stopped");
		out = UPLOAD_STOPPED;
	} else if (cr != CURLE_OK) {
		snprintf(error, error_size, "%s", curl_easy_strerror(cr));
		out = UPLOAD_RETRY;
	} else {
		curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
		out = classify(status, s->body, error, error_size);
		if (out == UPLOAD_OK)
			*ret_bytes = st.st_size;
	}
out:
	/* The header list holds the session token: wipe it with the list. */
	curl_easy_setopt(s->curl, CURLOPT_HTTPHEADER, NULL);
	for (h = headers; h; h = h->next)
		explicit_bzero(h->data, strlen(h->data));
	curl_slist_free_all(headers);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	fclose(f);
	return out;
}
