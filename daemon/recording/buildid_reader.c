// SPDX-License-Identifier: GPL-2.0-only
/*
 * buildid_reader: the side-band's build-id reads off the loop. See
 * buildid_reader.h.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buildid_cache.h"
#include "buildid_reader.h"
#include "elf_buildid.h"
#include "log.h"
#include "monotonic.h"
#include "proc_table.h"
#include "symbol_cache.h"

/*
 * Reads waiting or answered and not yet taken: a fork and exec storm, or
 * the seed of a busy host's processes, each of whose mappings is queued
 * (most are the same few files, read once), within a few MiB of paths.
 */
#define MAX_WAITING    4096
#define MAX_PATH_BYTES (4u << 20)
#define KICK_BATCH     64 /* reads waiting that wake the thread before the kick */

struct req {
	struct req *next;
	struct proc_table_mapping d; /* d.path: path below, or NULL */
	struct pt_mapping *waiting;  /* NULL: cancelled, its answer dropped */
	uint64_t seq;
	int err;
	struct elf_buildid id;
	size_t path_len;
	char path[];
};

struct list {
	struct req *head, *tail;
};

struct buildid_reader {
	pthread_mutex_t lock;
	pthread_cond_t wake;	 /* a read queued, or stopping */
	pthread_cond_t answered; /* a read ended */
	pthread_t thread;
	unsigned int refs; /* the owner's and the thread's */
	bool stopping;
	bool refusing; /* the last read offered was refused: logged */
	struct list queue, answers;
	struct req *cur; /* the read in progress */
	uint64_t cur_since;
	size_t nr_waiting, path_bytes;
	uint64_t seq_queued, seq_answered;
	struct symbol_cache *objects; /* or: */
	struct buildid_cache *own;
	struct buildid_reader_stats stats;
};

static void list_add(struct list *l, struct req *q)
{
	q->next = NULL;
	if (l->tail)
		l->tail->next = q;
	else
		l->head = q;
	l->tail = q;
}

static struct req *list_take(struct list *l)
{
	struct req *q = l->head;

	l->head = l->tail = NULL;
	return q;
}

/* Under the lock: @q no longer counts against the bounds. */
static void forget(struct buildid_reader *r, struct req *q)
{
	r->nr_waiting--;
	r->path_bytes -= q->path_len;
}

static void destroy(struct buildid_reader *r)
{
	pthread_cond_destroy(&r->wake);
	pthread_cond_destroy(&r->answered);
	pthread_mutex_destroy(&r->lock);
	symbol_cache__delete(r->objects);
	buildid_cache__delete(r->own);
	free(r);
}

/* Under the lock, which it releases: one reference less; the last frees. */
static void put_unlock(struct buildid_reader *r)
{
	bool last = --r->refs == 0;

	pthread_mutex_unlock(&r->lock);
	if (last)
		destroy(r);
}

static void *run(void *arg)
{
	struct buildid_reader *r = arg;
	struct elf_buildid id;
	struct req *q;
	int err;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (!r->stopping && !r->queue.head)
			pthread_cond_wait(&r->wake, &r->lock);
		if (r->stopping)
			break;
		q = r->queue.head;
		r->queue.head = q->next;
		if (!r->queue.head)
			r->queue.tail = NULL;
		r->cur = q;
		r->cur_since = monotonic_ns();
		pthread_mutex_unlock(&r->lock);

		memset(&id, 0, sizeof(id));
		err = r->objects ? symbol_cache__mmap(r->objects, &q->d, &id) :
				   buildid_cache__read(r->own, &q->d, &id);

		pthread_mutex_lock(&r->lock);
		r->cur = NULL;
		r->cur_since = 0;
		r->seq_answered = q->seq;
		if (q->waiting) {
			q->err = err;
			q->id = id;
			list_add(&r->answers, q);
		} else {
			forget(r, q);
			free(q);
		}
		pthread_cond_broadcast(&r->answered);
	}
	put_unlock(r);
	return NULL;
}

int buildid_reader__new(struct symbol_cache *objects, struct buildid_reader **ret)
{
	struct buildid_reader *r = calloc(1, sizeof(*r));
	pthread_condattr_t attr;
	int err;

	if (!r)
		return -ENOMEM;
	r->objects = symbol_cache__get(objects);
	if (!objects && !(r->own = buildid_cache__new())) {
		free(r);
		return -ENOMEM;
	}
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&r->answered, &attr);
	pthread_condattr_destroy(&attr);
	pthread_cond_init(&r->wake, NULL);
	r->refs = 2;
	err = pthread_create(&r->thread, NULL, run, r);
	if (err) {
		destroy(r);
		return -err;
	}
	*ret = r;
	return 0;
}

int buildid_reader__queue(void *ctx, const struct proc_table_mapping *m, struct pt_mapping *waiting)
{
	struct buildid_reader *r = ctx;
	size_t len = m->path ? strnlen(m->path, PATH_MAX) : 0;
	struct req *q;
	int err = 0;

	if (len >= PATH_MAX)
		return -ENAMETOOLONG;
	pthread_mutex_lock(&r->lock);
	if (r->stopping || r->nr_waiting >= MAX_WAITING || r->path_bytes + len > MAX_PATH_BYTES)
		err = -EAGAIN;
	else if (!(q = malloc(sizeof(*q) + len + 1)))
		err = -ENOMEM;
	if (err) {
		/* Once per run of refusals: a burst of new mappings, or a read that hangs. */
		if (err == -EAGAIN && !r->refusing)
			log_warning("side-band: the build-id reader's queue is full (%zu reads "
				    "waiting): new mappings go without build-ids until it drains",
				    r->nr_waiting);
		r->refusing = err == -EAGAIN;
		r->stats.full += err == -EAGAIN;
		pthread_mutex_unlock(&r->lock);
		return err;
	}
	r->refusing = false;
	q->d = *m;
	q->d.path = m->path ? memcpy(q->path, m->path, len + 1) : NULL;
	q->waiting = waiting;
	q->seq = ++r->seq_queued;
	q->path_len = len;
	r->nr_waiting++;
	r->path_bytes += len;
	r->stats.queued++;
	list_add(&r->queue, q);
	/* The drain that queues wakes the thread once, at its end (buildid_reader__kick()). */
	if (r->nr_waiting >= KICK_BATCH)
		pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	return 0;
}

void buildid_reader__kick(struct buildid_reader *r)
{
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	if (r->queue.head)
		pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
}

/* Hands each of @q's reads to @fn (NULL: cancelled) and frees them. */
static void answer_all(struct buildid_reader *r, struct req *q, int cancel,
		       buildid_reader_answer_fn fn, void *arg)
{
	while (q) {
		struct req *next = q->next;

		if (fn)
			fn(arg, q->waiting, cancel ? cancel : q->err, &q->id);
		pthread_mutex_lock(&r->lock);
		forget(r, q);
		pthread_mutex_unlock(&r->lock);
		free(q);
		q = next;
	}
}

void buildid_reader__answers(struct buildid_reader *r, buildid_reader_answer_fn fn, void *arg)
{
	struct req *q;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	q = list_take(&r->answers);
	pthread_mutex_unlock(&r->lock);
	answer_all(r, q, 0, fn, arg);
}

int buildid_reader__wait(struct buildid_reader *r, unsigned int timeout_ms)
{
	uint64_t target, end = monotonic_ns() + (uint64_t)timeout_ms * 1000000;
	struct timespec ts = { .tv_sec = (time_t)(end / 1000000000),
			       .tv_nsec = (long)(end % 1000000000) };
	int err = 0;

	if (!r)
		return 0;
	pthread_mutex_lock(&r->lock);
	if (r->queue.head)
		pthread_cond_signal(&r->wake);
	target = r->seq_queued;
	/* A read already this late may never end: no one waits for it again. */
	if (r->cur_since && r->cur_since + (uint64_t)timeout_ms * 1000000 < monotonic_ns())
		err = ETIMEDOUT;
	while (r->seq_answered < target && err != ETIMEDOUT)
		err = pthread_cond_timedwait(&r->answered, &r->lock, &ts);
	err = r->seq_answered < target ? -ETIMEDOUT : 0;
	pthread_mutex_unlock(&r->lock);
	return err;
}

void buildid_reader__stats(struct buildid_reader *r, struct buildid_reader_stats *ret)
{
	uint64_t now = monotonic_ns();

	memset(ret, 0, sizeof(*ret));
	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	*ret = r->stats;
	ret->busy_ns = r->cur_since && now > r->cur_since ? now - r->cur_since : 0;
	pthread_mutex_unlock(&r->lock);
}

void buildid_reader__delete(struct buildid_reader *r, buildid_reader_answer_fn fn, void *arg)
{
	struct req *answered, *queued;
	bool busy;

	if (!r)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	answered = list_take(&r->answers);
	queued = list_take(&r->queue);
	busy = r->cur != NULL;
	if (busy && fn)
		fn(arg, r->cur->waiting, -ECANCELED, NULL);
	if (busy)
		r->cur->waiting = NULL;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	answer_all(r, answered, 0, fn, arg);
	answer_all(r, queued, -ECANCELED, fn, arg);
	/* A read in progress may never end: its thread frees what it holds. */
	if (busy)
		pthread_detach(r->thread);
	else
		pthread_join(r->thread, NULL);
	pthread_mutex_lock(&r->lock);
	put_unlock(r);
}
