/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * upload: ships finished snapshots to S3-compatible object storage
 * ([upload] in perfsnapd.conf) from a thread of its own, so a slow or dead
 * network never slows or refuses a dump nor blocks the event loop. The
 * transfers are made by a process without privileges (perfsnapd-upload). Each
 * snapshot's data files go first and its JSON last (a reader that sees the
 * JSON sees a whole snapshot). Its state lives beside its files, in a
 * hidden ".<stem>.upload" file replaced atomically on every change, so
 * uploads not yet done survive a restart of perfsnapd or of the host and
 * resume on start. Failures retry with exponential backoff and jitter;
 * refusals (HTTP 4xx but 408 and 429) stop after UPLOAD_MAX_REFUSALS in a
 * row until a reload or a restart.
 */
#ifndef PERFSNAPD_UPLOAD_H
#define PERFSNAPD_UPLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

struct perfsnapd_config;
struct upload;

/* Refusals in a row after which a snapshot is not retried until reload. */
#define UPLOAD_MAX_REFUSALS 3

enum upload_state {
	UPLOAD_NONE,	 /* not known to the uploader (made without [upload]) */
	UPLOAD_PENDING,	 /* waiting or in progress, no failure yet */
	UPLOAD_FAILING,	 /* the last attempt failed; retried after a backoff */
	UPLOAD_FAILED,	 /* refused: not retried until reload or restart */
	UPLOAD_UPLOADED, /* every file is in the bucket */
};

struct upload_info {
	enum upload_state state;
	unsigned int attempts; /* failed attempts so far */
	char error[256];       /* the last failure, "" if none */
	char key[1024];	       /* object key prefix of its files */
};

struct upload_summary {
	size_t pending, failing, failed, uploaded;
};

/*
 * With [upload] in @cfg and no @helper_socket, perfsnapd starts the
 * helper: 0 if it is there, else -ENOENT and what to do in @err.
 */
int upload__check_helper(const struct perfsnapd_config *cfg, const char *helper_socket, char *err,
			 size_t size);

/*
 * Starts the uploader for @cfg (which must have upload_url set) and queues
 * what the state files in cfg->directory say is not yet uploaded. The
 * network is the upload helper's: reached at @helper_socket, or started as
 * a child where it is NULL. Returns 0 or -errno (logged).
 */
int upload__new(const struct perfsnapd_config *cfg, const char *helper_socket, struct upload **ret);
/* Stops the thread (a transfer in flight is abandoned; its state file stays). */
void upload__delete(struct upload *u);

/*
 * A reloaded configuration (still with [upload]), of which the uploader
 * takes a reference: new url, credentials or limits apply to the next
 * attempt, and refused snapshots are retried.
 */
void upload__set_config(struct upload *u, const struct perfsnapd_config *cfg);

/*
 * Queues the complete snapshot @stem in @dir with its @nr file paths;
 * @when is its time (for {date}). Writes its state file. Returns 0 or
 * -errno (logged).
 */
int upload__add(struct upload *u, const char *dir, const char *stem, const char *const *paths,
		int nr, time_t when);

/* Retention deleted @stem: drop it and its state file. */
void upload__forget(struct upload *u, const char *stem);

/* True while @stem (a snapshot the uploader knows) is not yet uploaded. */
bool upload__held(void *u, const char *stem);

/* The state of @stem; UPLOAD_NONE if unknown. */
void upload__info(struct upload *u, const char *stem, struct upload_info *ret);

/* Counts of the snapshots it knows, by state. */
void upload__summary(struct upload *u, struct upload_summary *ret);

/*
 * Calls @fn for each snapshot not yet uploaded (oldest first, at most
 * @max), for perfsnapctl status.
 */
void upload__foreach_waiting(struct upload *u, size_t max,
			     void (*fn)(void *ctx, const char *stem,
					const struct upload_info *info),
			     void *ctx);

/* "pending", "failing", "failed", "uploaded", or "-" for UPLOAD_NONE. */
const char *upload_state__name(enum upload_state s);

#endif
