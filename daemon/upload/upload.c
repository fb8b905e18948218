// SPDX-License-Identifier: GPL-2.0-only
/*
 * upload: the queue of snapshots to ship and the one thread that ships
 * them, oldest first, a file at a time (a snapshot never tried before one
 * whose retry is due: upload_item__next_due()). The event loop only queues (and
 * writes a small state file); everything that waits on the network is on
 * the thread. The rules:
 *  - a failure of the network, a 5xx, 408 or 429 is retried after
 *    retry_min * 2^(attempts - 1), at most retry_max, with "equal jitter"
 *    (a random half of it added to the other half) so a fleet that lost
 *    its storage at once does not come back at once;
 *  - any other 4xx (403 for bad credentials, 404 for a missing bucket) is
 *    a refusal: after UPLOAD_MAX_REFUSALS in a row (which rides out a
 *    short clock skew) the snapshot is "failed" and not retried until a
 *    reload or a restart, which is how a fixed credentials file is taken;
 *  - a local file that cannot be read fails the snapshot at once.
 * Every change of state is logged once with journal fields SNAPSHOT_STEM,
 * UPLOAD_STATE, UPLOAD_URL, UPLOAD_ATTEMPTS and UPLOAD_ERROR.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/ioprio.h>

#include "config.h"
#include "log.h"
#include "monotonic.h"
#include "snapshot_name.h"
#include "upload-internal.h"

#define UPLOAD_NICE 10

struct upload {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	atomic_bool stop;
	/*
	 * [upload] and [snapshot] directory: the current configuration, a
	 * reference, replaced under the lock by a reload. An attempt holds
	 * a reference of its own to the one it started with, so a reload
	 * never changes the bucket or credentials under a PUT.
	 */
	const struct perfsnapd_config *cfg;
	struct upload_item *items; /* every snapshot known, oldest first */
	char host[256];
	struct upload_link *link; /* the helper that does the network */
};

/* The key prefix with {host} and {date} (UTC, YYYY-MM-DD) put in. */
static void expand_prefix(const char *prefix, const char *host, time_t when, char *buf, size_t size)
{
	char date[16];
	struct tm tm;
	size_t len = 0;

	gmtime_r(&when, &tm);
	strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	buf[0] = '\0';
	while (*prefix && len + 1 < size) {
		const char *with = !strncmp(prefix, "{host}", 6) ? host :
				   !strncmp(prefix, "{date}", 6) ? date :
								   NULL;

		if (with) {
			len += snprintf(buf + len, size - len, "%s", with);
			prefix += 6;
		} else {
			buf[len++] = *prefix++;
			buf[len] = '\0';
		}
	}
	if (len >= size)
		buf[size - 1] = '\0';
}

/* "s3://bucket/key", for messages. */
static void object_name(const struct perfsnapd_config *cfg, const char *key, char *buf, size_t size)
{
	snprintf(buf, size, "s3://%s/%s", cfg->upload_bucket, key);
}

/* Equal jitter: half the backoff, plus a random part of the other half. */
static uint64_t backoff_ns(const struct perfsnapd_config *cfg, unsigned int attempts)
{
	uint64_t ms = cfg->upload_retry_min_ms;
	uint64_t r = 0;

	for (unsigned int i = 1; i < attempts && ms < cfg->upload_retry_max_ms; i++)
		ms *= 2;
	if (ms > cfg->upload_retry_max_ms)
		ms = cfg->upload_retry_max_ms;
	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = monotonic_ns();
	return (ms / 2 + r % (ms - ms / 2 + 1)) * 1000000ull;
}

static void log_state(const struct upload *u, const struct perfsnapd_config *cfg,
		      const struct upload_item *it, int priority, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void log_state(const struct upload *u, const struct perfsnapd_config *cfg,
		      const struct upload_item *it, int priority, const char *fmt, ...)
{
	char msg[700], url[UPLOAD_KEY_MAX + 80], attempts[16];
	struct log_field fields[] = {
		{ "SNAPSHOT_STEM", it->stem }, { "UPLOAD_STATE", upload_state__name(it->state) },
		{ "UPLOAD_URL", url },	       { "UPLOAD_ATTEMPTS", attempts },
		{ "UPLOAD_ERROR", it->error },
	};
	va_list ap;

	(void)u;
	object_name(cfg, it->key, url, sizeof(url));
	snprintf(attempts, sizeof(attempts), "%u", it->attempts);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log__fields(priority, fields, it->error[0] ? 5 : 4, "%s", msg);
}

/**
 * upload_item__next_due - the item to try next
 * @items: the queue, oldest first
 * @now: CLOCK_MONOTONIC ns
 * @wait_ns: when none is due, how long until one is (UINT64_MAX: never)
 *
 * Of the items due, the one due first, the oldest among equals: a snapshot
 * never tried (due at 0) goes before one whose retry has come, so when
 * every attempt hangs until its timeout (an endpoint that never answers)
 * each snapshot is still tried in turn, not the two oldest for ever.
 */
struct upload_item *upload_item__next_due(struct upload_item *items, uint64_t now,
					  uint64_t *wait_ns)
{
	struct upload_item *best = NULL;

	*wait_ns = UINT64_MAX;
	for (struct upload_item *it = items; it; it = it->next) {
		if (it->state != UPLOAD_PENDING && it->state != UPLOAD_FAILING)
			continue;
		if (it->next_try_ns <= now) {
			if (!best || it->next_try_ns < best->next_try_ns)
				best = it;
		} else if (!best && it->next_try_ns - now < *wait_ns) {
			*wait_ns = it->next_try_ns - now;
		}
	}
	return best;
}

static void unlink_item(struct upload *u, struct upload_item *it)
{
	for (struct upload_item **p = &u->items; *p; p = &(*p)->next)
		if (*p == it) {
			*p = it->next;
			return;
		}
}

/* keep_local = no: the JSON first, so no reader sees a partial snapshot. */
static void delete_local(struct upload_item *it)
{
	char path[PATH_MAX + NAME_MAX + 2];

	for (int i = it->nr_files - 1; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", it->dir, it->files[i]);
		if (unlink(path) < 0 && errno != ENOENT)
			log_warning("upload: keep_local = no, but %s cannot be deleted: %s", path,
				    strerror(errno));
	}
}

/* Thread, unlocked: every file of @it not yet in the bucket, in order. */
static enum upload_outcome ship(struct upload *u, struct upload_item *it,
				const struct perfsnapd_config *cfg, char *error, size_t size,
				uint64_t *bytes)
{
	char path[PATH_MAX + NAME_MAX + 2], key[UPLOAD_KEY_MAX + NAME_MAX + 1];

	for (int i = 0; i < it->nr_files; i++) {
		enum upload_outcome out;
		uint64_t n = 0;

		if (it->done[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", it->dir, it->files[i]);
		snprintf(key, sizeof(key), "%s%s", it->key, it->files[i]);
		out = upload_link__put(u->link, cfg, key, path, &u->stop, error, size, &n);
		if (out != UPLOAD_OK) {
			if (out != UPLOAD_STOPPED && out != UPLOAD_LOCAL) {
				size_t len = strlen(error);

				snprintf(error + len, size - len, " (PUT %s)", it->files[i]);
			}
			return out;
		}
		*bytes += n;
		/* Under the lock: status readers copy the item. */
		pthread_mutex_lock(&u->lock);
		it->done[i] = true;
		pthread_mutex_unlock(&u->lock);
		(void)upload_state__write(it, false);
	}
	return UPLOAD_OK;
}

/* Thread, locked: what the attempt did to @it. */
static void settle(struct upload *u, struct upload_item *it, const struct perfsnapd_config *cfg,
		   enum upload_outcome out, const char *error, uint64_t bytes, uint64_t took_ns)
{
	char name[UPLOAD_KEY_MAX + 80];
	uint64_t wait;

	object_name(cfg, it->key, name, sizeof(name));
	if (out == UPLOAD_STOPPED)
		return;
	if (out == UPLOAD_OK) {
		it->state = UPLOAD_UPLOADED;
		it->error[0] = '\0';
		it->refusals = 0;
		log_state(u, cfg, it, LOG_NOTICE,
			  "upload: snapshot %s uploaded to %s: %" PRIu64 " bytes in %" PRIu64
			  " ms%s",
			  it->stem, name, bytes, took_ns / 1000000,
			  cfg->upload_keep_local ? "" : "; local files deleted (keep_local = no)");
		return;
	}
	it->attempts++;
	snprintf(it->error, sizeof(it->error), "%s", error);
	it->refusals = out == UPLOAD_REFUSED ? it->refusals + 1 : 0;
	if (out == UPLOAD_LOCAL || it->refusals >= UPLOAD_MAX_REFUSALS) {
		it->state = UPLOAD_FAILED;
		log_state(
			u, cfg, it, LOG_ERR,
			"upload: snapshot %s to %s failed after %u attempts: %s: not retried until "
			"perfsnapd is reloaded or restarted (%s)",
			it->stem, name, it->attempts, error,
			out == UPLOAD_LOCAL ?
				"its local files are gone or unreadable" :
				"check [upload] credentials, url and the bucket's policy");
		return;
	}
	it->state = UPLOAD_FAILING;
	wait = backoff_ns(cfg, it->attempts);
	it->next_try_ns = monotonic_ns() + wait;
	log_state(u, cfg, it, LOG_WARNING,
		  "upload: snapshot %s to %s: attempt %u failed: %s; retrying in %.1f s", it->stem,
		  name, it->attempts, error, wait / 1e9);
}

/*
 * Background work: the thread yields the CPU and the disk to the dump
 * worker and the event loop (nice 10, the lowest best-effort I/O level;
 * not the idle class, which a busy disk could starve for ever). Best effort.
 */
static void lower_priority(void)
{
	pid_t tid = syscall(SYS_gettid);

	if (setpriority(PRIO_PROCESS, tid, UPLOAD_NICE) < 0)
		log_debug("upload: cannot renice its thread: %s", strerror(errno));
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, tid,
		    IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 7)) < 0)
		log_debug("upload: cannot set its I/O priority: %s", strerror(errno));
}

static void *upload_main(void *arg)
{
	struct upload *u = arg;

	lower_priority();
	pthread_mutex_lock(&u->lock);
	while (!atomic_load(&u->stop)) {
		const struct perfsnapd_config *cfg;
		struct upload_item *it;
		enum upload_outcome out;
		char error[sizeof(it->error)] = "";
		uint64_t wait, bytes = 0, start = monotonic_ns();

		it = upload_item__next_due(u->items, start, &wait);
		if (!it) {
			struct timespec ts;

			if (wait == UINT64_MAX) {
				pthread_cond_wait(&u->wake, &u->lock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &ts);
			wait += ts.tv_nsec;
			ts.tv_sec += wait / 1000000000ull;
			ts.tv_nsec = wait % 1000000000ull;
			pthread_cond_timedwait(&u->wake, &u->lock, &ts);
			continue;
		}
		it->busy = true;
		cfg = config__get(u->cfg);
		pthread_mutex_unlock(&u->lock);

		out = ship(u, it, cfg, error, sizeof(error), &bytes);

		pthread_mutex_lock(&u->lock);
		it->busy = false;
		if (it->gone) {
			unlink_item(u, it);
			(void)upload_state__remove(it);
			free(it);
		} else {
			settle(u, it, cfg, out, error, bytes, monotonic_ns() - start);
			if (it->state == UPLOAD_UPLOADED && !cfg->upload_keep_local) {
				delete_local(it);
				(void)upload_state__remove(it);
				unlink_item(u, it);
				free(it);
			} else if (out != UPLOAD_STOPPED) {
				(void)upload_state__write(it, true);
			}
		}
		config__put(cfg);
	}
	pthread_mutex_unlock(&u->lock);
	return NULL;
}

/* Oldest first: stems start with the host and the time. */
static void insert_sorted(struct upload *u, struct upload_item *it)
{
	struct upload_item **p = &u->items;

	while (*p && strcmp((*p)->stem, it->stem) <= 0)
		p = &(*p)->next;
	it->next = *p;
	*p = it;
}

static struct upload_item *find(struct upload *u, const char *stem)
{
	for (struct upload_item *it = u->items; it; it = it->next)
		if (!strcmp(it->stem, stem) && !it->gone)
			return it;
	return NULL;
}

static bool any_file_left(int dfd, const struct upload_item *it)
{
	for (int i = 0; i < it->nr_files; i++)
		if (faccessat(dfd, it->files[i], F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			return true;
	return false;
}

/*
 * At start and when the directory changes: the state files in @dir;
 * refused ones get another chance. The lock is taken per snapshot, not
 * across the reads.
 */
static void scan(struct upload *u, const char *dir)
{
	size_t waiting = 0, known = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d) {
		log_warning("upload: cannot read %s for pending uploads: %s", dir, strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		struct upload_item *it = malloc(sizeof(*it));
		int r;

		if (!it)
			break;
		r = e->d_name[0] == '.' ? upload_state__read(dir, e->d_name, it) : -EINVAL;
		pthread_mutex_lock(&u->lock);
		if (r == 0 && find(u, it->stem))
			r = -EEXIST;
		pthread_mutex_unlock(&u->lock);
		if (r < 0) {
			if (r != -EINVAL && r != -EEXIST)
				log_warning("upload: cannot read state file %s/%s: %s", dir,
					    e->d_name, strerror(-r));
			free(it);
			continue;
		}
		/* Its snapshot was deleted behind perfsnapd's back: forget it. */
		if (!any_file_left(dirfd(d), it)) {
			(void)upload_state__remove(it);
			free(it);
			continue;
		}
		if (it->state != UPLOAD_UPLOADED) {
			it->state = it->attempts ? UPLOAD_FAILING : UPLOAD_PENDING;
			it->refusals = 0;
			waiting++;
		}
		known++;
		pthread_mutex_lock(&u->lock);
		insert_sorted(u, it);
		pthread_mutex_unlock(&u->lock);
	}
	closedir(d);
	if (waiting)
		log_notice("upload: %zu snapshots in %s not yet uploaded: resuming", waiting, dir);
	else
		log_debug("upload: %zu snapshots in %s already uploaded", known, dir);
}

/**
 * upload__new - start the uploader
 * @cfg: the configuration, of which it keeps a reference; upload_url must be set
 * @ret: the uploader
 *
 * Returns 0 or -errno (logged).
 */
int upload__new(const struct perfsnapd_config *cfg, const char *helper_socket, struct upload **ret)
{
	struct upload *u;
	int r;

	u = calloc(1, sizeof(*u));
	if (!u)
		return log__errno(-ENOMEM, "upload");
	pthread_mutex_init(&u->lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&u->wake, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (gethostname(u->host, sizeof(u->host) - 1) < 0)
		snprintf(u->host, sizeof(u->host), "localhost");
	/* Keys keep to characters that need no URL encoding (see config_upload). */
	for (char *c = u->host; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
			*c = '-';
	r = upload_link__new(helper_socket, &u->link);
	if (r < 0) {
		free(u);
		return log__errno(r, "upload");
	}
	u->cfg = config__get(cfg);
	scan(u, cfg->directory);
	r = -pthread_create(&u->thread, NULL, upload_main, u);
	if (r < 0) {
		u->stop = true;
		upload__delete(u);
		return log__errno(r, "upload: cannot start its thread");
	}
	log_info("upload: snapshots go to s3://%s/%s at %s (region %s, %s-style)%s",
		 cfg->upload_bucket, cfg->upload_prefix, cfg->upload_endpoint, cfg->upload_region,
		 cfg->upload_path_style ? "path" : "virtual-host",
		 cfg->upload_keep_local ? "" : "; local files deleted once uploaded");
	*ret = u;
	return 0;
}

/**
 * upload__delete - stop the uploader
 * @u: the uploader; NULL is fine
 *
 * A transfer in flight is abandoned within about a second (libcurl's
 * progress callback); every state file stays as it is for the next start.
 */
void upload__delete(struct upload *u)
{
	struct upload_item *it, *next;

	if (!u)
		return;
	if (!atomic_load(&u->stop)) {
		pthread_mutex_lock(&u->lock);
		atomic_store(&u->stop, true);
		pthread_cond_signal(&u->wake);
		pthread_mutex_unlock(&u->lock);
		pthread_join(u->thread, NULL);
	}
	for (it = u->items; it; it = next) {
		next = it->next;
		free(it);
	}
	upload_link__delete(u->link);
	config__put(u->cfg);
	pthread_cond_destroy(&u->wake);
	pthread_mutex_destroy(&u->lock);
	free(u);
}

void upload__set_config(struct upload *u, const struct perfsnapd_config *cfg)
{
	const struct perfsnapd_config *old = u->cfg;
	size_t retried = 0;

	/*
	 * Only the loop thread replaces u->cfg, so it reads it unlocked. Found
	 * ones wait for the wake below.
	 */
	if (strcmp(old->directory, cfg->directory))
		scan(u, cfg->directory);
	pthread_mutex_lock(&u->lock);
	u->cfg = config__get(cfg);
	for (struct upload_item *it = u->items; it; it = it->next) {
		/* One in flight is the thread's until it settles: it is not failed. */
		if (!it->busy && (it->state == UPLOAD_FAILED || it->state == UPLOAD_FAILING)) {
			it->state = UPLOAD_FAILING;
			it->refusals = 0;
			it->next_try_ns = 0;
			retried++;
		}
	}
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	config__put(old);
	if (retried)
		log_notice("upload: configuration reloaded: retrying %zu failed snapshots now",
			   retried);
}

/* The kind of snapshot file @path is (snapshot_name), or SNAPSHOT_NR_FILES. */
static enum snapshot_file file_kind(const char *path)
{
	const char *base = strrchr(path, '/');
	struct snapshot_name n;

	return snapshot_name__parse(base ? base + 1 : path, &n) < 0 ? SNAPSHOT_NR_FILES : n.file;
}

int upload__add(struct upload *u, const char *dir, const char *stem, const char *const *paths,
		int nr, time_t when)
{
	struct upload_item *it = calloc(1, sizeof(*it));
	int r;

	if (!it)
		return log__errno(-ENOMEM, "upload: snapshot %s", stem);
	snprintf(it->dir, sizeof(it->dir), "%s", dir);
	snprintf(it->stem, sizeof(it->stem), "%s", stem);
	pthread_mutex_lock(&u->lock);
	expand_prefix(u->cfg->upload_prefix, u->host, when, it->key, sizeof(it->key));
	pthread_mutex_unlock(&u->lock);
	/* In snapshot_name's order of files: the data files, the sidecar last. */
	for (enum snapshot_file f = 0; f < SNAPSHOT_NR_FILES; f++)
		for (int i = 0; i < nr && it->nr_files < UPLOAD_MAX_FILES; i++) {
			const char *base = strrchr(paths[i], '/');

			if (file_kind(paths[i]) == f)
				snprintf(it->files[it->nr_files++], NAME_MAX + 1, "%s",
					 base ? base + 1 : paths[i]);
		}
	it->state = UPLOAD_PENDING;
	r = upload_state__write(it, false);
	if (r < 0)
		log__errno(r,
			   "upload: cannot write the state file of %s in %s (the upload will not "
			   "survive a restart)",
			   stem, dir);
	pthread_mutex_lock(&u->lock);
	insert_sorted(u, it);
	pthread_cond_signal(&u->wake);
	pthread_mutex_unlock(&u->lock);
	return 0;
}

void upload__forget(struct upload *u, const char *stem)
{
	struct upload_item *it;

	pthread_mutex_lock(&u->lock);
	it = find(u, stem);
	if (it && it->busy) {
		it->gone = true;
	} else if (it) {
		unlink_item(u, it);
		(void)upload_state__remove(it);
		free(it);
	}
	pthread_mutex_unlock(&u->lock);
}

bool upload__held(void *arg, const char *stem)
{
	struct upload *u = arg;
	struct upload_item *it;
	bool held;

	pthread_mutex_lock(&u->lock);
	it = find(u, stem);
	held = it && it->state != UPLOAD_UPLOADED;
	pthread_mutex_unlock(&u->lock);
	return held;
}

static void fill_info(const struct upload_item *it, struct upload_info *ret)
{
	ret->state = it->state;
	ret->attempts = it->attempts;
	snprintf(ret->error, sizeof(ret->error), "%s", it->error);
	snprintf(ret->key, sizeof(ret->key), "%s", it->key);
}

void upload__info(struct upload *u, const char *stem, struct upload_info *ret)
{
	struct upload_item *it;

	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&u->lock);
	it = find(u, stem);
	if (it)
		fill_info(it, ret);
	pthread_mutex_unlock(&u->lock);
}

void upload__summary(struct upload *u, struct upload_summary *ret)
{
	memset(ret, 0, sizeof(*ret));
	pthread_mutex_lock(&u->lock);
	for (struct upload_item *it = u->items; it; it = it->next) {
		if (it->state == UPLOAD_PENDING)
			ret->pending++;
		else if (it->state == UPLOAD_FAILING)
			ret->failing++;
		else if (it->state == UPLOAD_FAILED)
			ret->failed++;
		else if (it->state == UPLOAD_UPLOADED)
			ret->uploaded++;
	}
	pthread_mutex_unlock(&u->lock);
}

void upload__foreach_waiting(struct upload *u, size_t max,
			     void (*fn)(void *ctx, const char *stem,
					const struct upload_info *info),
			     void *ctx)
{
	struct upload_info info;
	size_t n = 0;

	pthread_mutex_lock(&u->lock);
	for (struct upload_item *it = u->items; it && n < max; it = it->next) {
		if (it->state == UPLOAD_UPLOADED || it->gone)
			continue;
		fill_info(it, &info);
		fn(ctx, it->stem, &info);
		n++;
	}
	pthread_mutex_unlock(&u->lock);
}
