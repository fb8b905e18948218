/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * upload internals shared by upload.c (the queue and its thread),
 * upload_state.c (the ".<stem>.upload" state files), upload_link.c (the
 * socket to the upload helper, perfsnapd's side) and, in the helper,
 * upload_s3.c (one PUT with libcurl, signed by its CURLOPT_AWS_SIGV4).
 * Not for other modules.
 */
#ifndef PERFSNAPD_UPLOAD_INTERNAL_H
#define PERFSNAPD_UPLOAD_INTERNAL_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "upload.h"

#define UPLOAD_MAX_FILES 8
#define UPLOAD_KEY_MAX	 1024

/* One snapshot to upload: its files, the JSON last. */
struct upload_item {
	struct upload_item *next;
	char dir[PATH_MAX];
	char stem[NAME_MAX + 1];
	char key[UPLOAD_KEY_MAX]; /* object key prefix, {host} and {date} expanded */
	char files[UPLOAD_MAX_FILES][NAME_MAX + 1];
	bool done[UPLOAD_MAX_FILES];
	int nr_files;
	enum upload_state state;
	unsigned int attempts; /* failed attempts */
	unsigned int refusals; /* refused attempts in a row */
	char error[256];       /* the last failure */
	uint64_t next_try_ns;  /* CLOCK_MONOTONIC; 0: now */
	bool busy;	       /* the thread works on it (outside the lock) */
	bool gone;	       /* forgotten while busy: the thread frees it */
};

/*
 * Where and as whom, for one PUT in the helper: views of its request
 * (upload_wire_put), which perfsnapd filled from [upload]. The helper
 * knows no configuration; perfsnapd's side reads the config itself.
 */
struct upload_target {
	const char *bucket, *endpoint, *region, *key_id, *secret, *token;
	bool path_style;
};

/* upload.c: the queue's order */
struct upload_item *upload_item__next_due(struct upload_item *items, uint64_t now,
					  uint64_t *wait_ns);

enum upload_outcome {
	UPLOAD_OK,
	UPLOAD_RETRY,	/* network, 5xx, 408, 429: try again later */
	UPLOAD_REFUSED, /* other 4xx: credentials, bucket, policy */
	UPLOAD_LOCAL,	/* the local file cannot be read */
	UPLOAD_STOPPED, /* the uploader is stopping */
};

struct perfsnapd_config;
struct upload_link;

/*
 * upload_link.c, perfsnapd's side of the helper. @socket_path: connect
 * there (perfsnapd-upload.socket under systemd); NULL: start the helper as
 * a child. The helper is started or connected at the first PUT, and again
 * after it exits.
 */
int upload_link__new(const char *socket_path, struct upload_link **ret);
void upload_link__delete(struct upload_link *l);
/*
 * Has the helper PUT the file @path as object @key, to the bucket and as
 * whom @cfg's [upload] says. Stops early when *@stop becomes true. On
 * failure, @error says why (no secret in it).
 */
enum upload_outcome upload_link__put(struct upload_link *l, const struct perfsnapd_config *cfg,
				     const char *key, const char *path, atomic_bool *stop,
				     char *error, size_t error_size, uint64_t *ret_bytes);

struct upload_s3;

/* upload_s3.c, in the helper */
int upload_s3__new(struct upload_s3 **ret);
void upload_s3__delete(struct upload_s3 *s);
/*
 * PUTs the file @fd (closed here) as object @key. Stops early when
 * @cancel_fd becomes readable. On failure, @error says why (no secret).
 */
enum upload_outcome upload_s3__put(struct upload_s3 *s, const struct upload_target *t,
				   const char *key, int fd, bool json, int cancel_fd, char *error,
				   size_t error_size, uint64_t *ret_bytes);

/* upload_state.c */
#define UPLOAD_STATE_SUFFIX ".upload"
/* Replaces the item's state file atomically; @sync: fsync it and the directory. */
int upload_state__write(const struct upload_item *it, bool sync);
/* Reads state file @name (".<stem>.upload") in @dir. Returns 0, -EINVAL or -errno. */
int upload_state__read(const char *dir, const char *name, struct upload_item *it);
int upload_state__remove(const struct upload_item *it);

#endif
