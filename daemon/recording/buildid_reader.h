/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * buildid_reader: the side-band's build-id reads, on a thread of their own.
 * A mapped file can be made to answer slowly or never (a binary on a hung
 * NFS or FUSE mount, a path a user swaps); read on the loop, it stalled
 * every client, trigger and dump. The process table queues its reads here
 * (proc_table__set_build_id_queue()); this thread opens and reads them in
 * order, and the answers go back to the table whenever its owner takes
 * them, under the table's lock. The queue is bounded: a read it cannot take
 * leaves its mapping without a build-id (counted). A read that never ends
 * holds only this thread: the queue behind it fills, and the rest of
 * perfsnapd goes on.
 */
#ifndef PERFSNAPD_BUILDID_READER_H
#define PERFSNAPD_BUILDID_READER_H

#include <stdint.h>

struct buildid_reader;
struct elf_buildid;
struct proc_table_mapping;
struct pt_mapping;
struct symbol_cache;

/* An answer, as proc_table__build_id_done() takes it. */
typedef void (*buildid_reader_answer_fn)(void *arg, struct pt_mapping *waiting, int err,
					 const struct elf_buildid *id);

struct buildid_reader_stats {
	uint64_t queued, full; /* reads taken; refused by the full queue */
	uint64_t busy_ns;      /* how long the read in progress has taken; 0: none */
};

/*
 * Reads through @objects (symbols = pack: the cache keeps each object it
 * opens; a reference is taken) or, NULL, through a cache of its own.
 * Returns 0 or -errno.
 */
int buildid_reader__new(struct symbol_cache *objects, struct buildid_reader **ret);

/*
 * Answers what is queued with -ECANCELED (through @fn) and the read in
 * progress too, which its thread drops when it ends, if ever: a read that
 * never ends keeps that thread, not its caller. NULL: nothing.
 */
void buildid_reader__delete(struct buildid_reader *r, buildid_reader_answer_fn fn, void *arg);

/* A proc_table_build_id_queue_fn (@ctx the reader). */
int buildid_reader__queue(void *ctx, const struct proc_table_mapping *m,
			  struct pt_mapping *waiting);

/*
 * Starts the reads queued so far. A queue wakes the thread only once many
 * wait: a drain queues a mapping per exec, and waking the thread for each
 * cost the loop more than the queueing itself; its end kicks it once.
 */
void buildid_reader__kick(struct buildid_reader *r);

/* Hands the answers so far to @fn, in the order read. */
void buildid_reader__answers(struct buildid_reader *r, buildid_reader_answer_fn fn, void *arg);

/*
 * Waits until every read queued before the call is answered, at most
 * @timeout_ms (the caller's thread, never the loop's); not at all while a
 * read has taken longer than that already. Returns 0 or -ETIMEDOUT.
 */
int buildid_reader__wait(struct buildid_reader *r, unsigned int timeout_ms);

void buildid_reader__stats(struct buildid_reader *r, struct buildid_reader_stats *ret);

#endif
