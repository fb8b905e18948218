// SPDX-License-Identifier: GPL-2.0-only
/*
 * retention: lists the snapshots in the snapshot directory and deletes the
 * oldest to keep within count and size limits (daemon layer, no logging).
 * A file is perfsnapd's only if its whole name has perfsnapd's shape; the
 * reason and compression come from a tolerant scan of the sidecar JSON. Temporaries a
 * crash left count toward the byte limit and are removed at start.
 * See retention.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "retention.h"
#include "snapshot_name.h"

#define MAX_JSON (64 * 1024)

/* Appends @cp as UTF-8 if there is room for it and a NUL. */
static size_t put_utf8(char *out, size_t o, size_t size, unsigned int cp)
{
	if (cp < 0x20 || cp == 0x7f || (cp >= 0xd800 && cp < 0xe000))
		cp = '?';
	if (cp < 0x80) {
		if (o + 2 > size)
			return o;
		out[o++] = (char)cp;
	} else if (cp < 0x800) {
		if (o + 3 > size)
			return o;
		out[o++] = (char)(0xc0 | (cp >> 6));
		out[o++] = (char)(0x80 | (cp & 0x3f));
	} else {
		if (o + 4 > size)
			return o;
		out[o++] = (char)(0xe0 | (cp >> 12));
		out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[o++] = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

/*
 * Decodes the JSON string starting after the quote at buf[*pos] into @out
 * (cut to @size). Returns false if it does not end.
 */
static bool json_string(const char *buf, size_t len, size_t *pos, char *out, size_t size)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t i = *pos + 1, o = 0;

	for (; i < len && buf[i] != '"'; i++) {
		unsigned int cp = (unsigned char)buf[i];

		if (cp == '\\' && i + 1 < len) {
			const char *e = strchr(esc_in, buf[++i]);

			if (buf[i] == 'u' && i + 4 < len) {
				char hex[5] = { buf[i + 1], buf[i + 2], buf[i + 3], buf[i + 4], 0 };

				cp = (unsigned int)strtoul(hex, NULL, 16);
				i += 4;
			} else {
				cp = e && buf[i] ? (unsigned char)esc_out[e - esc_in] : '?';
			}
			o = put_utf8(out, o, size, cp);
		} else if (cp >= 0x80) {
			if (o + 2 <= size)
				out[o++] = (char)cp; /* UTF-8 passes through */
		} else {
			o = put_utf8(out, o, size, cp);
		}
	}
	out[o] = '\0';
	*pos = i;
	return i < len;
}

static size_t skip_ws(const char *buf, size_t len, size_t i)
{
	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	return i;
}

/*
 * The string value of the top-level key @name into @value (NUL-terminated,
 * cut to @size), or false. Not a JSON validator: it only tells keys of the
 * outer object from everything else.
 */
static bool json_top_string(const char *buf, size_t len, const char *name, char *value, size_t size)
{
	char key[16];
	int depth = 0;
	size_t j;

	for (size_t i = 0; i < len; i++) {
		if (buf[i] == '{' || buf[i] == '[') {
			depth++;
			continue;
		}
		if (buf[i] == '}' || buf[i] == ']') {
			depth--;
			continue;
		}
		if (buf[i] != '"')
			continue;
		if (!json_string(buf, len, &i, key, sizeof(key)))
			return false;
		j = skip_ws(buf, len, i + 1);
		if (depth != 1 || strcmp(key, name) || j >= len || buf[j] != ':')
			continue; /* a nested key, another key, or a value */
		j = skip_ws(buf, len, j + 1);
		return j < len && buf[j] == '"' && json_string(buf, len, &j, value, size);
	}
	return false;
}

/* "reason" (NULL if none) and "compression" ("" if none) of <stem>.json. */
static void read_sidecar(int dfd, struct snapshot_entry *e)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	char name[NAME_MAX + 1], reason[RETENTION_MAX_REASON];
	size_t len = 0;
	ssize_t n;

	e->reason = NULL;
	e->compression[0] = '\0';
	if (snapshot_name__file(name, sizeof(name), e->stem, SNAPSHOT_FILE_JSON) < 0)
		return;
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || !(buf = malloc(MAX_JSON)))
		return;
	while (len < MAX_JSON) {
		n = read(fd, buf + len, MAX_JSON - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (json_top_string(buf, len, "reason", reason, sizeof(reason)))
		e->reason = strdup(reason);
	if (!json_top_string(buf, len, "compression", e->compression, sizeof(e->compression)))
		e->compression[0] = '\0';
}

static int by_stem(const void *a, const void *b)
{
	return strcmp(((const struct snapshot_entry *)a)->stem,
		      ((const struct snapshot_entry *)b)->stem);
}

/* Same stamp text and sequence number: names made by one daemon sort by them. */
static int by_age(const void *a, const void *b)
{
	const struct snapshot_entry *x = a, *y = b;
	struct snapshot_name nx, ny;
	int r;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	/* Listed entries are valid stems: "<host>-YYYYmmdd-HHMMSS.mmm-<seq>". */
	snapshot_name__parse_stem(x->stem, strlen(x->stem), &nx);
	snapshot_name__parse_stem(y->stem, strlen(y->stem), &ny);
	r = strncmp(x->stem + nx.host_len, y->stem + ny.host_len, 20);
	if (r)
		return r;
	if (nx.seq != ny.seq)
		return nx.seq < ny.seq ? -1 : 1;
	return strcmp(x->stem, y->stem);
}

/* Appends one entry per snapshot file in @d; adds up the temporaries' bytes. */
static int scan(DIR *d, struct snapshot_entry **ret, size_t *ret_nr, uint64_t *ret_tmp_bytes)
{
	struct snapshot_entry *v = NULL, *nv;
	size_t nr = 0, alloc = 0;
	struct snapshot_name name;
	struct dirent *de;
	struct stat st;
	bool kind;

	while ((errno = 0, de = readdir(d))) {
		kind = snapshot_name__parse(de->d_name, &name) == 0;
		if (!kind && snapshot_name__is_temporary(de->d_name) &&
		    !fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode))
			*ret_tmp_bytes += (uint64_t)st.st_size;
		if (!kind || fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (nr == alloc) {
			alloc = alloc ? alloc * 2 : 32;
			nv = realloc(v, alloc * sizeof(*v));
			if (!nv) {
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		memset(&v[nr], 0, sizeof(v[nr]));
		memcpy(v[nr].stem, de->d_name, name.stem_len);
		v[nr].files = SNAPSHOT_FILE_BIT(name.file);
		v[nr].bytes = (uint64_t)st.st_size;
		v[nr++].mtime = st.st_mtim;
	}
	if (errno) {
		free(v);
		return -errno;
	}
	*ret = v;
	*ret_nr = nr;
	return 0;
}

static bool newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Folds the per-file entries of each stem into one. Returns the new count. */
static size_t merge(struct snapshot_entry *v, size_t nr)
{
	size_t out = 0;

	if (nr)
		qsort(v, nr, sizeof(*v), by_stem);
	for (size_t i = 0; i < nr; i++) {
		struct snapshot_entry *last = out ? &v[out - 1] : NULL;

		if (last && !strcmp(last->stem, v[i].stem)) {
			last->files |= v[i].files;
			last->bytes += v[i].bytes;
			if (newer(&v[i].mtime, &last->mtime))
				last->mtime = v[i].mtime;
		} else {
			v[out++] = v[i];
		}
	}
	return out;
}

/* The snapshots in @dir, oldest first; adds the temporaries' bytes to *ret_tmp_bytes. */
static int list(const char *dir, struct snapshot_entry **ret, size_t *ret_nr,
		uint64_t *ret_tmp_bytes)
{
	struct snapshot_entry *v = NULL;
	size_t nr = 0;
	DIR *d;
	int r;

	d = opendir(dir);
	if (!d)
		return -errno;
	r = scan(d, &v, &nr, ret_tmp_bytes);
	if (r < 0) {
		closedir(d);
		return r;
	}
	nr = merge(v, nr);
	for (size_t i = 0; i < nr; i++)
		if (v[i].files & SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_JSON))
			read_sidecar(dirfd(d), &v[i]);
	closedir(d);
	if (nr)
		qsort(v, nr, sizeof(*v), by_age);
	if (!nr) {
		free(v);
		v = NULL;
	}
	*ret = v;
	*ret_nr = nr;
	return 0;
}

/**
 * retention__list - the snapshots in a directory
 * @dir: the snapshot directory
 * @ret: an array, oldest first (newest file time, then the stem's time and
 *       sequence number); NULL when there are none
 * @ret_nr: its length
 *
 * Returns 0 or -errno.
 */
int retention__list(const char *dir, struct snapshot_entry **ret, size_t *ret_nr)
{
	uint64_t tmp_bytes = 0;

	return list(dir, ret, ret_nr, &tmp_bytes);
}

/**
 * retention__remove_temporaries - delete what a crash left in a directory
 * @dir: the snapshot directory
 * @removed: called for each temporary, with its size and 0 or the -errno
 *	of its unlink
 * @ctx: for @removed
 *
 * Only names snapshot_name__is_temporary() knows, only regular files, only
 * in @dir itself. For perfsnapd's start, when no dump of its own runs.
 * Returns the number removed, or -errno if @dir cannot be read.
 */
int retention__remove_temporaries(const char *dir,
				  void (*removed)(void *ctx, const char *name, uint64_t bytes,
						  int err),
				  void *ctx)
{
	struct dirent *de;
	struct stat st;
	int count = 0, r = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while ((errno = 0, de = readdir(d))) {
		if (!snapshot_name__is_temporary(de->d_name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		r = unlinkat(dirfd(d), de->d_name, 0) < 0 ? -errno : 0;
		count += r == 0;
		removed(ctx, de->d_name, (uint64_t)st.st_size, r);
	}
	r = errno ? -errno : count;
	closedir(d);
	return r;
}

/**
 * retention__free - free a snapshot list
 * @entries: the array, or NULL
 * @nr: its length
 */
void retention__free(struct snapshot_entry *entries, size_t nr)
{
	if (!entries)
		return;
	for (size_t i = 0; i < nr; i++)
		free(entries[i].reason);
	free(entries);
}

static int remove_snapshot(int dfd, const struct snapshot_entry *e)
{
	char name[NAME_MAX + 1];
	int r = 0;

	/* In writing order: the sidecar goes last, so a partial delete still lists. */
	for (int i = 0; i < SNAPSHOT_NR_FILES; i++) {
		if (!(e->files & SNAPSHOT_FILE_BIT(i)))
			continue;
		/* A name too long to exist was never listed; never unlink a cut one. */
		if (snapshot_name__file(name, sizeof(name), e->stem, (enum snapshot_file)i) < 0)
			continue;
		if (unlinkat(dfd, name, 0) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	}
	return r;
}

static bool over(size_t count, uint64_t bytes, size_t max_snapshots, uint64_t max_bytes)
{
	return (max_snapshots && count > max_snapshots) || (max_bytes && bytes > max_bytes);
}

/* Deletes v[i], counting it out; false once a delete failed. */
static bool delete_one(int dfd, struct snapshot_entry *e, size_t *count, uint64_t *bytes)
{
	e->error = remove_snapshot(dfd, e);
	if (e->error < 0)
		return false;
	(*count)--;
	*bytes -= e->bytes;
	return true;
}

/**
 * retention__enforce_held - delete the oldest snapshots beyond the limits
 * @dir: the snapshot directory
 * @max_snapshots: most snapshots to keep, 0 for no limit
 * @max_total_bytes: most bytes all of them may take, 0 for no limit
 * @held: NULL, or true for a snapshot that must stay if it can (not yet
 *	uploaded): it is deleted only when max_total_bytes cannot be kept
 *	otherwise, and then has .forced set
 * @held_ctx: for @held
 * @ret_deleted: the snapshots deleted, oldest first (NULL if none)
 * @ret_nr_deleted: their number
 *
 * The newest snapshot stays even if it alone is over a limit. Stops at the
 * first snapshot that cannot be deleted; it is the last in *ret_deleted,
 * with .error set. Returns 0, or that error, or -errno if @dir cannot be
 * listed (then *ret_deleted is not set).
 */
int retention__enforce_held(const char *dir, size_t max_snapshots, uint64_t max_total_bytes,
			    bool (*held)(void *ctx, const char *stem), void *held_ctx,
			    struct snapshot_entry **ret_deleted, size_t *ret_nr_deleted)
{
	struct snapshot_entry *v;
	uint64_t bytes = 0;
	size_t nr, count, done = 0;
	bool *gone = NULL, ok = true;
	int dfd, r;

	/* A crash's temporaries take room too, though only a start removes them. */
	r = list(dir, &v, &nr, &bytes);
	if (r < 0)
		return r;
	for (size_t i = 0; i < nr; i++)
		bytes += v[i].bytes;
	count = nr;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	gone = nr ? calloc(nr, sizeof(*gone)) : NULL;
	if (dfd < 0 || (nr && !gone)) {
		r = dfd < 0 ? -errno : -ENOMEM;
		if (dfd >= 0)
			close(dfd);
		free(gone);
		retention__free(v, nr);
		return r;
	}
	/* First what may go, then, for the size limit only, what is held. */
	for (int pass = 0; pass < 2 && ok; pass++)
		for (size_t i = 0; ok && i + 1 < nr; i++) {
			if (gone[i] ||
			    !over(count, bytes, pass ? 0 : max_snapshots, max_total_bytes))
				continue;
			if (!pass && held && held(held_ctx, v[i].stem))
				continue;
			v[i].forced = pass == 1;
			gone[i] = true;
			ok = delete_one(dfd, &v[i], &count, &bytes);
			if (!ok)
				r = v[i].error;
		}
	close(dfd);
	/* The deleted ones go to the array's head, oldest first; free the rest's reasons. */
	for (size_t i = 0; i < nr; i++) {
		if (gone[i]) {
			struct snapshot_entry e = v[i];

			memmove(&v[done + 1], &v[done], (i - done) * sizeof(*v));
			v[done++] = e;
		}
	}
	for (size_t i = done; i < nr; i++)
		free(v[i].reason);
	free(gone);
	if (!done) {
		free(v);
		v = NULL;
	}
	*ret_deleted = v;
	*ret_nr_deleted = done;
	return r;
}

/**
 * retention__enforce - retention__enforce_held() with nothing held
 */
int retention__enforce(const char *dir, size_t max_snapshots, uint64_t max_total_bytes,
		       struct snapshot_entry **ret_deleted, size_t *ret_nr_deleted)
{
	return retention__enforce_held(dir, max_snapshots, max_total_bytes, NULL, NULL, ret_deleted,
				       ret_nr_deleted);
}
