/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_publish: a set of files in one directory that appear all or
 * nothing. Each file is created unnamed (O_TMPFILE; where the file system
 * lacks it, under a hidden temporary name), written by the caller through
 * its fd, then synced, closed and given its final name together with the
 * others: either every file of the set is published, or none remains under
 * its final name (a failure at file i removes files 0..i-1 again). No
 * existing name is ever replaced, and the directory is synced after.
 *
 *   file_publish__new(dir, &set);
 *   i = file_publish__add(set, "x.data", NULL, 0644);
 *   write(file_publish__fd(set, i), ...);      (any thread, one per file)
 *   r = file_publish__commit(set, &failed);
 *   file_publish__delete(set);                 (discards what is unpublished)
 *
 * One file from memory, in one call: file_publish__write_file(), which can
 * also replace an old file (atomically: a crash leaves the old one or the
 * new) and leave out the syncs. A scratch file that is never published
 * (a snapshot's spill) is unnamed the same way: file_publish__scratch().
 * Returns are 0 (or an index, or an fd) or -errno; nothing here logs.
 */
#ifndef PERFSNAPD_FILE_PUBLISH_H
#define PERFSNAPD_FILE_PUBLISH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct file_publish;

/*
 * The file replaces one of its name, renamed over it from its temporary
 * name (always used then), which it also replaces (a crash's leftover).
 */
#define FILE_PUBLISH_REPLACE 0x1
/* No fsync() of the file or the directory: it lasts if the process crashes, not the machine. */
#define FILE_PUBLISH_NO_SYNC 0x2

/* An empty set of files in @dir (which stays open until delete). */
int file_publish__new(const char *dir, struct file_publish **ret);
/*
 * A new file of the set, to be published as @name (a name in the
 * directory, no '/'); @temp_name is the hidden name it is created under
 * where O_TMPFILE is missing (NULL: ".<name>.tmp"), -EEXIST if taken.
 * Returns the file's index (0, 1, ... in the order of adding) or -errno.
 */
int file_publish__add(struct file_publish *set, const char *name, const char *temp_name,
		      mode_t mode);
/* The file's fd, for the caller to write: never closed by the caller. */
int file_publish__fd(const struct file_publish *set, int i);
/* Whether the file lives under its temporary name until published. */
bool file_publish__is_named(const struct file_publish *set, int i);
/*
 * Syncs file @i now (commit then skips it), so that the files of a set can
 * be synced in parallel: threads may sync distinct files at once.
 */
int file_publish__sync(struct file_publish *set, int i);
/*
 * Syncs what is not synced yet, then publishes the files in the order of
 * adding (closing each: a failing close() is a failure), then syncs the
 * directory. On failure nothing of the set remains: no final name, no
 * temporary, no open file; *@failed (if not NULL) says the index of the
 * file that failed, or -1 for the directory. Returns 0 or -errno.
 */
int file_publish__commit(struct file_publish *set, int *failed);
/* Discards whatever was not published (closes, removes temporaries); NULL is fine. */
void file_publish__delete(struct file_publish *set);

/*
 * Publishes @len bytes of @data as @name in @dir, a set of one file with
 * @flags (FILE_PUBLISH_*). Returns 0 or -errno.
 */
int file_publish__write_file(const char *dir, const char *name, const char *temp_name, mode_t mode,
			     unsigned int flags, const void *data, size_t len);
/*
 * An unnamed read-write file in @dir, never published: O_TMPFILE, else
 * made from @temp_template (mkostemp) and unlinked at once. Returns the
 * fd (the caller's to close) or -errno.
 */
int file_publish__scratch(const char *dir, const char *temp_template);

#endif
