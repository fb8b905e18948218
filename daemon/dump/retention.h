/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * retention: the snapshots in a directory and their pruning. Only files
 * named as perfsnapd names them count (snapshot_name__parse()); dotfiles,
 * symlinks and anything else are never listed nor deleted. The temporaries
 * perfsnapd makes (snapshot_name__is_temporary()) count toward
 * the byte limit, and retention__remove_temporaries() deletes them at
 * start. Nothing here logs: callers log what was deleted.
 */
#ifndef PERFSNAPD_RETENTION_H
#define PERFSNAPD_RETENTION_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "snapshot_name.h"

/* One snapshot: every file of one stem. */
struct snapshot_entry {
	char stem[NAME_MAX + 1];
	unsigned int files;    /* SNAPSHOT_FILE_BIT()s of the files present */
	uint64_t bytes;	       /* all its files together */
	struct timespec mtime; /* the newest of its files */
	char *reason;	       /* "reason" from <stem>.json, or NULL */
	char compression[8];   /* "compression" from it ("zstd", "none"), or "" */
	int error;	       /* retention__enforce(): 0 or -errno of a failed unlink */
	bool forced;	       /* deleted although held, to keep max_total_size */
};

/* Longest "reason" kept from a sidecar; longer ones are cut. */
#define RETENTION_MAX_REASON 1024

/*
 * Lists the snapshots in @dir, oldest first. Returns 0 and an array in
 * *ret (free with retention__free()), or -errno.
 */
int retention__list(const char *dir, struct snapshot_entry **ret, size_t *ret_nr);

/*
 * Deletes the oldest snapshots until at most @max_snapshots remain and
 * they take at most @max_total_bytes (0: no limit), but never the newest
 * one. Returns 0 or the first -errno; what was deleted (or attempted,
 * with .error set) goes to *ret_deleted in both cases unless listing the
 * directory failed.
 */
int retention__enforce(const char *dir, size_t max_snapshots, uint64_t max_total_bytes,
		       struct snapshot_entry **ret_deleted, size_t *ret_nr_deleted);

/*
 * Like retention__enforce(), but a snapshot for which @held returns true
 * (not yet uploaded) is kept beyond max_snapshots and deleted only if
 * max_total_bytes cannot be kept otherwise (then with .forced set).
 */
int retention__enforce_held(const char *dir, size_t max_snapshots, uint64_t max_total_bytes,
			    bool (*held)(void *ctx, const char *stem), void *held_ctx,
			    struct snapshot_entry **ret_deleted, size_t *ret_nr_deleted);

/* Frees a list from retention__list() or retention__enforce(); NULL is fine. */
void retention__free(struct snapshot_entry *entries, size_t nr);

/*
 * Deletes the temporaries in @dir that an earlier run left (see above),
 * calling @removed for each with its size and 0 or -errno. Returns how many
 * were deleted, or -errno if @dir cannot be read.
 */
int retention__remove_temporaries(const char *dir,
				  void (*removed)(void *ctx, const char *name, uint64_t bytes,
						  int err),
				  void *ctx);

#endif
