// SPDX-License-Identifier: GPL-2.0-only
/* symbol_store: see symbol_store.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_buildid.h"
#include "symbol_store.h"
#include "ustar_reader.h"

struct symbol_store {
	int fd; /* the directory, or the archive */
	struct ustar_reader *tar;
	unsigned long nr_found;
};

int symbol_store__open(const char *path, struct symbol_store **ret)
{
	struct symbol_store *st;
	struct stat sb;
	int fd, r;

	/* O_NONBLOCK: a FIFO given by mistake is refused, not waited on. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	r = fstat(fd, &sb) < 0				 ? -errno :
	    !S_ISDIR(sb.st_mode) && !S_ISREG(sb.st_mode) ? -EINVAL :
							   0;
	if (r < 0) {
		close(fd);
		return r;
	}
	st = calloc(1, sizeof(*st));
	if (!st) {
		close(fd);
		return -ENOMEM;
	}
	st->fd = fd;
	if (S_ISREG(sb.st_mode)) {
		r = ustar_reader__open(fd, &st->tar);
		if (r < 0) {
			symbol_store__delete(st);
			return r;
		}
	}
	*ret = st;
	return 0;
}

void symbol_store__delete(struct symbol_store *st)
{
	if (!st)
		return;
	ustar_reader__delete(st->tar);
	close(st->fd);
	free(st);
}

unsigned long symbol_store__nr_found(const struct symbol_store *st)
{
	return st->nr_found;
}

/* @name in a directory: a regular file, never waited on. */
static int open_in_dir(const struct symbol_store *st, const char *name, int *ret_fd,
		       uint64_t *ret_size)
{
	int fd = openat(st->fd, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat sb;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	*ret_fd = fd;
	*ret_size = (uint64_t)sb.st_size;
	return 0;
}

static int open_name(const struct symbol_store *st, const char *name, int *ret_fd,
		     uint64_t *ret_offset, uint64_t *ret_size)
{
	int r;

	*ret_offset = 0;
	if (!st->tar)
		return open_in_dir(st, name, ret_fd, ret_size);
	r = ustar_reader__find(st->tar, name, ret_offset, ret_size);
	if (r < 0)
		return r;
	*ret_fd = fcntl(st->fd, F_DUPFD_CLOEXEC, 0);
	return *ret_fd < 0 ? -errno : 0;
}

/* The places perf's build-id caches keep an object, in the order perf looks. */
static int store_open(void *ctx, const struct symbols_key *key, int *ret_fd, uint64_t *ret_offset,
		      uint64_t *ret_size)
{
	struct symbol_store *st = ctx;
	const char *file = strcmp(key->path, SYMBOLS_KERNEL_DSO) ? "elf" : "kallsyms",
		   *path = key->path;
	struct elf_buildid bid = { .size = (uint8_t)key->build_id_size };
	char hex[2 * ELF_BUILDID_MAX + 1], name[3][PATH_MAX];
	int r = -ENOENT;

	if (!bid.size || key->build_id_size > ELF_BUILDID_MAX)
		return -ENOENT;
	memcpy(bid.data, key->build_id, bid.size);
	elf_buildid__hex(&bid, hex);
	snprintf(name[0], sizeof(name[0]), ".build-id/%.2s/%s/%s", hex, hex + 2, file);
	snprintf(name[1], sizeof(name[1]), ".build-id/%.2s/%s", hex, hex + 2);
	while (*path == '/')
		path++;
	if (snprintf(name[2], sizeof(name[2]), "%s/%s/%s", path, hex, file) >= (int)sizeof(name[2]))
		name[2][0] = '\0';
	for (size_t i = 0; i < 3 && r < 0; i++)
		if (name[i][0])
			r = open_name(st, name[i], ret_fd, ret_offset, ret_size);
	if (r == 0)
		st->nr_found++;
	return r;
}

void symbol_store__source(struct symbol_store *st, struct symbols_source *ret)
{
	*ret = (struct symbols_source){ .open = store_open, .ctx = st };
}
