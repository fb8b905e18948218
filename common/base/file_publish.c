// SPDX-License-Identifier: GPL-2.0-only
/*
 * file_publish: unnamed files (O_TMPFILE) linked into place together,
 * hidden temporaries renamed into place where O_TMPFILE is missing (or
 * over an old file), and everything removed again on failure; unnamed
 * scratch files. See file_publish.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_output.h"
#include "file_publish.h"

struct publish_file {
	char name[NAME_MAX + 1]; /* the final name */
	char temp[NAME_MAX + 1]; /* the hidden name, where O_TMPFILE is missing */
	int fd;			 /* open until published (O_TMPFILE) or renamed */
	bool named;		 /* created under temp, not with O_TMPFILE */
	bool synced;
	bool published; /* under name */
};

struct file_publish {
	int dirfd;
	unsigned int flags; /* FILE_PUBLISH_* */
	bool no_tmpfile;    /* the directory refused O_TMPFILE once */
	bool committed;
	int nr, cap;
	struct publish_file *files;
};

/**
 * file_publish__new - start a set of files published together
 * @dir: the directory they appear in
 * @ret: the set, for file_publish__delete()
 *
 * Returns 0 or -errno (the directory cannot be opened, -ENOMEM).
 */
int file_publish__new(const char *dir, struct file_publish **ret)
{
	struct file_publish *set = calloc(1, sizeof(*set));

	if (!set)
		return -ENOMEM;
	set->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (set->dirfd < 0) {
		int r = -errno;

		free(set);
		return r;
	}
	*ret = set;
	return 0;
}

static int check_name(const char *name)
{
	if (!name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return strlen(name) > NAME_MAX ? -ENAMETOOLONG : 0;
}

/*
 * An unnamed file in the directory @path (of @dirfd): a crash at any point
 * leaves nothing behind. Returns the fd, -EOPNOTSUPP where the file system
 * has no O_TMPFILE (EISDIR from kernels that predate it), or -errno.
 */
static int open_unnamed(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd = openat(dirfd, path, O_TMPFILE | flags | O_CLOEXEC, mode);

	if (fd >= 0)
		return fd;
	return errno == EISDIR ? -EOPNOTSUPP : -errno;
}

/*
 * An unnamed file, else (no O_TMPFILE) the hidden pf->temp, which a crash
 * leaves for the caller to recognise and remove. A file that replaces
 * another is always pf->temp: linkat() never replaces a name, so an
 * unnamed one would need the temporary name too, to be renamed from.
 */
static int create(struct file_publish *set, struct publish_file *pf, mode_t mode)
{
	bool replace = set->flags & FILE_PUBLISH_REPLACE;
	int r;

	if (!set->no_tmpfile && !replace) {
		r = open_unnamed(set->dirfd, ".", O_WRONLY, mode);
		if (r != -EOPNOTSUPP) {
			pf->fd = r < 0 ? -1 : r;
			return r < 0 ? r : 0;
		}
		set->no_tmpfile = true;
	}
	/* Both names are the caller's then: a temporary a crash left goes. */
	if (replace)
		(void)unlinkat(set->dirfd, pf->temp, 0);
	pf->fd = openat(set->dirfd, pf->temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			mode);
	if (pf->fd < 0)
		return -errno;
	pf->named = true;
	return 0;
}

/**
 * file_publish__add - create one more file of the set
 * @set: the set
 * @name: its final name in the set's directory (no '/')
 * @temp_name: the hidden name to create it under where O_TMPFILE is
 *	missing, or NULL for ".<name>.tmp"; an existing one is -EEXIST
 * @mode: its permissions, less the umask
 *
 * Returns the file's index (the order of adding) or -errno.
 */
int file_publish__add(struct file_publish *set, const char *name, const char *temp_name,
		      mode_t mode)
{
	struct publish_file *pf;
	int r = check_name(name);

	if (r == 0 && temp_name)
		r = check_name(temp_name);
	if (r < 0)
		return r;
	if (set->committed)
		return -EINVAL;
	if (set->nr == set->cap) {
		int cap = set->cap ? set->cap * 2 : 4;
		struct publish_file *files = realloc(set->files, (size_t)cap * sizeof(*files));

		if (!files)
			return -ENOMEM;
		set->files = files;
		set->cap = cap;
	}
	pf = &set->files[set->nr];
	*pf = (struct publish_file){ .fd = -1 };
	snprintf(pf->name, sizeof(pf->name), "%s", name);
	if (temp_name)
		snprintf(pf->temp, sizeof(pf->temp), "%s", temp_name);
	else if ((size_t)snprintf(pf->temp, sizeof(pf->temp), ".%s.tmp", name) >= sizeof(pf->temp))
		return -ENAMETOOLONG;
	r = create(set, pf, mode);
	if (r < 0)
		return r;
	return set->nr++;
}

/**
 * file_publish__fd - the fd to write a file of the set through
 * @set: the set
 * @i: the file's index
 *
 * Returns the fd (the set closes it), or -EBADF once it is closed.
 */
int file_publish__fd(const struct file_publish *set, int i)
{
	return i >= 0 && i < set->nr && set->files[i].fd >= 0 ? set->files[i].fd : -EBADF;
}

/**
 * file_publish__is_named - whether a file lives under its hidden name
 * @set: the set
 * @i: the file's index
 *
 * True where the file system lacks O_TMPFILE: until published or
 * discarded, the file is the temporary given to file_publish__add().
 */
bool file_publish__is_named(const struct file_publish *set, int i)
{
	return i >= 0 && i < set->nr && set->files[i].named && !set->files[i].published;
}

/**
 * file_publish__sync - sync one file of the set ahead of the commit
 * @set: the set
 * @i: the file's index
 *
 * Distinct files may be synced by concurrent threads. Returns 0 or -errno.
 */
int file_publish__sync(struct file_publish *set, int i)
{
	struct publish_file *pf;

	if (i < 0 || i >= set->nr)
		return -EINVAL;
	pf = &set->files[i];
	if (pf->synced)
		return 0;
	if (pf->fd < 0)
		return -EBADF;
	if (fsync(pf->fd) < 0)
		return -errno;
	pf->synced = true;
	return 0;
}

/*
 * Linux releases the fd even when close() fails (EIO, ENOSPC, EDQUOT from
 * a network file system's last flush): the data may be lost, never retry.
 */
static int close_file(struct publish_file *pf)
{
	int r = 0;

	if (pf->fd >= 0 && close(pf->fd) < 0)
		r = -errno;
	pf->fd = -1;
	return r;
}

/*
 * Gives a complete file its final name, never replacing one (but with
 * FILE_PUBLISH_REPLACE): linkat() fails with EEXIST, as does renameat2()
 * with RENAME_NOREPLACE.
 */
static int publish(struct file_publish *set, struct publish_file *pf)
{
	char proc[64];

	if (pf->named && set->flags & FILE_PUBLISH_REPLACE)
		return renameat(set->dirfd, pf->temp, set->dirfd, pf->name) < 0 ? -errno : 0;
	if (pf->named) {
		if (renameat2(set->dirfd, pf->temp, set->dirfd, pf->name, RENAME_NOREPLACE) == 0)
			return 0;
		/* File systems without the flag (some network and FUSE ones): link. */
		if (errno != EINVAL && errno != ENOSYS)
			return -errno;
		if (linkat(set->dirfd, pf->temp, set->dirfd, pf->name, 0) < 0)
			return -errno;
		(void)unlinkat(set->dirfd, pf->temp, 0);
		return 0;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pf->fd);
	if (linkat(AT_FDCWD, proc, set->dirfd, pf->name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	/* No /proc: AT_EMPTY_PATH, which needs CAP_DAC_READ_SEARCH. */
	if (errno == ENOENT && linkat(pf->fd, "", set->dirfd, pf->name, AT_EMPTY_PATH) == 0)
		return 0;
	return -errno;
}

/*
 * Closes every file and removes every temporary left; with @unpublish,
 * the published names too, and syncs the directory so that their removal
 * lasts.
 */
static void discard(struct file_publish *set, bool unpublish)
{
	bool removed = false;

	for (int i = 0; i < set->nr; i++) {
		struct publish_file *pf = &set->files[i];

		(void)close_file(pf);
		if (pf->published && unpublish) {
			removed |= unlinkat(set->dirfd, pf->name, 0) == 0;
			pf->published = false;
		} else if (pf->named && !pf->published) {
			(void)unlinkat(set->dirfd, pf->temp, 0);
			pf->named = false;
		}
	}
	if (removed)
		(void)fsync(set->dirfd);
}

/* Closes and publishes one synced file: an O_TMPFILE file has to be linked while open. */
static int close_and_publish(struct file_publish *set, struct publish_file *pf)
{
	int r, c;

	if (pf->named) {
		r = close_file(pf);
		if (r == 0)
			r = publish(set, pf);
		pf->published = r == 0;
		return r;
	}
	r = publish(set, pf);
	pf->published = r == 0;
	/* Linked but not closed cleanly: published, and so unpublished by the caller. */
	c = close_file(pf);
	return r < 0 ? r : c;
}

/**
 * file_publish__commit - publish every file of the set, or none
 * @set: the set; its files written and complete
 * @failed: where to say which file failed (its index, or -1 for the
 *	directory's sync); may be NULL
 *
 * Syncs the files not synced yet, closes and publishes them in the order
 * they were added (the last one appears last: a file whose presence says
 * the others are complete goes last), and syncs the directory. If any
 * step fails, the files already published are removed again and the
 * directory synced: nothing of the set remains. Returns 0 or -errno.
 */
int file_publish__commit(struct file_publish *set, int *failed)
{
	bool sync = !(set->flags & FILE_PUBLISH_NO_SYNC);
	int bad = -1, r = 0;

	if (set->committed)
		return -EINVAL;
	set->committed = true;
	for (int i = 0; sync && i < set->nr && r == 0; i++) {
		r = file_publish__sync(set, i);
		bad = i;
	}
	for (int i = 0; i < set->nr && r == 0; i++) {
		r = close_and_publish(set, &set->files[i]);
		bad = i;
	}
	if (r == 0 && sync && fsync(set->dirfd) < 0) {
		r = -errno;
		bad = -1;
	}
	/* A file that replaced another stays: the old one is gone already. */
	if (r < 0)
		discard(set, !(set->flags & FILE_PUBLISH_REPLACE));
	if (failed)
		*failed = r < 0 ? bad : -1;
	return r;
}

/**
 * file_publish__delete - free a set
 * @set: the set, or NULL
 *
 * What was not published is discarded: files closed, temporaries removed.
 * Published files stay.
 */
void file_publish__delete(struct file_publish *set)
{
	if (!set)
		return;
	discard(set, false);
	close(set->dirfd);
	free(set->files);
	free(set);
}

/**
 * file_publish__write_file - publish one file of given contents
 * @dir: the directory it appears in
 * @name: its name there (no '/')
 * @temp_name: as for file_publish__add()
 * @mode: its permissions, less the umask
 * @flags: FILE_PUBLISH_* (0: as a set publishes)
 * @data: its contents
 * @len: their length
 *
 * Returns 0 or -errno; on failure no file of @name is left but an old one
 * (with FILE_PUBLISH_REPLACE, the old one unless the failure came after
 * the rename: the directory's sync).
 */
int file_publish__write_file(const char *dir, const char *name, const char *temp_name, mode_t mode,
			     unsigned int flags, const void *data, size_t len)
{
	struct file_publish *set = NULL;
	int i, r = file_publish__new(dir, &set);

	if (r < 0)
		return r;
	set->flags = flags;
	i = file_publish__add(set, name, temp_name, mode);
	r = i < 0 ? i : file_output__write_at(file_publish__fd(set, i), 0, data, len);
	if (r == 0)
		r = file_publish__commit(set, NULL);
	file_publish__delete(set);
	return r;
}

/**
 * file_publish__scratch - an unnamed file that is never published
 * @dir: the directory (file system) it lives in
 * @temp_template: where O_TMPFILE is missing, the name it has for a
 *	moment, for mkostemp() (ends in "XXXXXX")
 *
 * For data that only this process reads back (a snapshot's spill): with
 * O_TMPFILE a crash leaves nothing; without, the name is unlinked at once.
 * Returns the fd (read-write, the caller closes it) or -errno.
 */
int file_publish__scratch(const char *dir, const char *temp_template)
{
	char path[PATH_MAX];
	int fd = open_unnamed(AT_FDCWD, dir, O_RDWR, 0600);

	if (fd != -EOPNOTSUPP)
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, temp_template) >= sizeof(path))
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	(void)unlink(path);
	return fd;
}
