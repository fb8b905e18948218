// SPDX-License-Identifier: GPL-2.0-only
/*
 * ustar: the 512-byte header blocks of POSIX ustar, and members' data
 * padded to whole blocks. See ustar.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "file_output.h"
#include "ustar.h"

#define BLOCK	     512
#define NAME_LEN     100
#define PREFIX_LEN   155
#define MAX_SIZE     077777777777ull /* 11 octal digits */
#define COPY_BUF_LEN (1u << 20)
#define PATH_MAX_PAX 4096 /* longest name or link target (PATH_MAX) */

struct ustar_header {
	char name[NAME_LEN];
	char mode[8];
	char uid[8];
	char gid[8];
	char size[12];
	char mtime[12];
	char chksum[8];
	char typeflag;
	char linkname[100];
	char magic[6];
	char version[2];
	char uname[32];
	char gname[32];
	char devmajor[8];
	char devminor[8];
	char prefix[PREFIX_LEN];
	char pad[12];
};

_Static_assert(sizeof(struct ustar_header) == BLOCK, "a ustar header is one block");

struct ustar {
	int fd;
	uint64_t offset; /* where the next block goes */
	uint64_t start;
	time_t mtime; /* of every member: when the archive was made */
};

int ustar__new(int fd, uint64_t offset, struct ustar **ret)
{
	struct ustar *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->fd = fd;
	t->offset = t->start = offset;
	t->mtime = time(NULL);
	*ret = t;
	return 0;
}

void ustar__delete(struct ustar *t)
{
	free(t);
}

uint64_t ustar__bytes(const struct ustar *t)
{
	return t->offset - t->start;
}

uint64_t ustar__member_bytes(uint64_t size)
{
	return BLOCK + (size + BLOCK - 1) / BLOCK * BLOCK;
}

static int write_at(struct ustar *t, const void *buf, size_t len)
{
	int r = file_output__write_at(t->fd, t->offset, buf, len);

	if (r == 0)
		t->offset += len;
	return r;
}

static int pad_to_block(struct ustar *t, uint64_t size)
{
	static const char zeros[BLOCK];
	size_t rest = (size_t)(size % BLOCK);

	return rest ? write_at(t, zeros, BLOCK - rest) : 0;
}

/* Octal, zero-filled, NUL-terminated in @len bytes, as every tar reads it. */
static void octal(char *field, size_t len, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%0*llo", (int)len - 1, (unsigned long long)v);
	memcpy(field, buf, len - 1);
	field[len - 1] = '\0';
}

/* @name into the name field, or split at a '/' into prefix and name. */
static int set_name(struct ustar_header *h, const char *name)
{
	size_t len = strlen(name);

	if (!len)
		return -EINVAL;
	if (len <= NAME_LEN) {
		memcpy(h->name, name, len);
		return 0;
	}
	/* The longest prefix that fits leaves the shortest name (a directory's keeps its '/'). */
	for (size_t i = len - 2; i > 0; i--) {
		if (name[i] != '/')
			continue;
		if (i > PREFIX_LEN)
			continue;
		if (len - i - 1 > NAME_LEN || len - i - 1 == 0)
			return -ENAMETOOLONG;
		memcpy(h->prefix, name, i);
		memcpy(h->name, name + i + 1, len - i - 1);
		return 0;
	}
	return -ENAMETOOLONG;
}

/* Every field but name, prefix, linkname and the checksum (spaces, to sum). */
static void fill_header(const struct ustar *t, struct ustar_header *h, char type, mode_t mode,
			uint64_t size)
{
	octal(h->mode, sizeof(h->mode), mode & 07777);
	octal(h->uid, sizeof(h->uid), 0);
	octal(h->gid, sizeof(h->gid), 0);
	octal(h->size, sizeof(h->size), size);
	octal(h->mtime, sizeof(h->mtime), t->mtime > 0 ? (uint64_t)t->mtime : 0);
	h->typeflag = type;
	memcpy(h->magic, "ustar", 6);
	memcpy(h->version, "00", 2);
	memcpy(h->uname, "root", 4);
	memcpy(h->gname, "root", 4);
	octal(h->devmajor, sizeof(h->devmajor), 0);
	octal(h->devminor, sizeof(h->devminor), 0);
	memset(h->chksum, ' ', sizeof(h->chksum));
}

/*
 * A pax extended header ('x') with one record, "LEN KEY=VALUE\n", for a
 * name or link target longer than ustar holds: POSIX.1-2001, read by GNU
 * tar, bsdtar and busybox.
 */
static int put_pax(struct ustar *t, const char *key, const char *value)
{
	size_t body = strlen(key) + strlen(value) + 3, len = body, digits;
	_cleanup_free_ char *rec = NULL;
	struct ustar_header h;
	unsigned int sum = 0;
	int n, r;

	/* The length counts its own digits. */
	do {
		digits = (size_t)snprintf(NULL, 0, "%zu", len);
		len = body + digits;
	} while ((size_t)snprintf(NULL, 0, "%zu", len) != digits);
	rec = malloc(len + 1);
	if (!rec)
		return -ENOMEM;
	n = snprintf(rec, len + 1, "%zu %s=%s\n", len, key, value);
	if (n < 0 || (size_t)n != len)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	memcpy(h.name, "PaxHeader", 9);
	fill_header(t, &h, 'x', 0644, len);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += ((const unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	h.chksum[7] = ' ';
	r = write_at(t, &h, sizeof(h));
	if (r == 0)
		r = write_at(t, rec, len);
	return r == 0 ? pad_to_block(t, len) : r;
}

static int put_header(struct ustar *t, const char *name, char type, mode_t mode, uint64_t size,
		      const char *link)
{
	struct ustar_header h;
	unsigned int sum = 0;
	int r;

	memset(&h, 0, sizeof(h));
	if (!name[0] || (link && !link[0]))
		return -EINVAL;
	if (size > MAX_SIZE)
		return -EFBIG;
	r = set_name(&h, name);
	if (r == -ENAMETOOLONG) {
		if (strlen(name) > PATH_MAX_PAX)
			return r;
		r = put_pax(t, "path", name);
		/* The ustar fields keep what fits, for readers without pax. */
		memset(&h, 0, sizeof(h));
		memcpy(h.name, name, NAME_LEN);
	}
	if (r < 0)
		return r;
	if (link && strlen(link) > sizeof(h.linkname)) {
		if (strlen(link) > PATH_MAX_PAX)
			return -ENAMETOOLONG;
		r = put_pax(t, "linkpath", link);
		if (r < 0)
			return r;
		memcpy(h.linkname, link, sizeof(h.linkname));
	} else if (link) {
		memcpy(h.linkname, link, strlen(link));
	}
	fill_header(t, &h, type, mode, size);
	/* The checksum is taken with its own field as spaces (fill_header). */
	for (size_t i = 0; i < sizeof(h); i++)
		sum += ((const unsigned char *)&h)[i];
	snprintf(h.chksum, sizeof(h.chksum), "%06o", sum);
	h.chksum[7] = ' ';
	return write_at(t, &h, sizeof(h));
}

int ustar__add_dir(struct ustar *t, const char *name, mode_t mode)
{
	char buf[NAME_LEN + PREFIX_LEN + 2];
	size_t len = strlen(name);

	/* As tar writes them: a directory's name ends in '/'. */
	if (len && name[len - 1] != '/') {
		if (len + 2 > sizeof(buf))
			return -ENAMETOOLONG;
		memcpy(buf, name, len);
		memcpy(buf + len, "/", 2);
		name = buf;
	}
	return put_header(t, name, '5', mode, 0, NULL);
}

int ustar__add_symlink(struct ustar *t, const char *name, const char *target)
{
	return put_header(t, name, '2', 0777, 0, target);
}

int ustar__add_data(struct ustar *t, const char *name, const void *data, size_t len, mode_t mode)
{
	int r = put_header(t, name, '0', mode, len, NULL);

	if (r == 0)
		r = write_at(t, data, len);
	return r == 0 ? pad_to_block(t, len) : r;
}

/* Up to @len bytes from @src at @off by read; 0 at its end. */
static ssize_t read_some(int src, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do
		n = pread(src, buf, len, (off_t)off);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

int ustar__add_fd(struct ustar *t, const char *name, int src_fd, uint64_t size, mode_t mode)
{
	_cleanup_free_ char *buf = NULL;
	uint64_t done = 0;
	int r = put_header(t, name, '0', mode, size, NULL), short_read = 0;

	if (r < 0)
		return r;
	/* In the kernel where it can (no copy through this process), else by read. */
	while (done < size) {
		off_t in = (off_t)done, out = (off_t)t->offset;
		ssize_t n = copy_file_range(src_fd, &in, t->fd, &out, size - done, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		done += (uint64_t)n;
		t->offset += (uint64_t)n;
	}
	while (done < size && !short_read) {
		ssize_t n;

		if (!buf && !(buf = malloc(COPY_BUF_LEN)))
			return -ENOMEM;
		n = read_some(src_fd, buf,
			      size - done < COPY_BUF_LEN ? (size_t)(size - done) : COPY_BUF_LEN,
			      done);
		if (n <= 0) {
			short_read = n < 0 ? (int)n : -EIO;
			break;
		}
		r = write_at(t, buf, (size_t)n);
		if (r < 0)
			return r;
		done += (uint64_t)n;
	}
	/* The member keeps the size its header says. */
	if (done < size) {
		if (!buf && !(buf = malloc(COPY_BUF_LEN)))
			return -ENOMEM;
		memset(buf, 0, COPY_BUF_LEN);
		while (done < size) {
			size_t n = size - done < COPY_BUF_LEN ? (size_t)(size - done) :
								COPY_BUF_LEN;

			r = write_at(t, buf, n);
			if (r < 0)
				return r;
			done += n;
		}
	}
	r = pad_to_block(t, size);
	return r < 0 ? r : short_read;
}

int ustar__finish(struct ustar *t)
{
	static const char zeros[2 * BLOCK];

	return write_at(t, zeros, sizeof(zeros));
}
