/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ustar: writes a POSIX ustar archive (IEEE 1003.1-1988, as `tar -x` of
 * GNU tar, bsdtar and busybox reads it) to a file descriptor: regular
 * files from memory or copied from another descriptor, directories and
 * symbolic links. Names up to 255 bytes go in the ustar fields (split at
 * a '/' into prefix and name), link targets up to 100; longer ones, up to
 * 4096, in a pax extended header before the member. Written with pwrite() from
 * the descriptor's offset at __new, so the caller's offset is not used.
 */
#ifndef PERFSNAPD_USTAR_H
#define PERFSNAPD_USTAR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ustar;

/* An archive written at offset @offset of @fd (not owned). Returns 0 or -ENOMEM. */
int ustar__new(int fd, uint64_t offset, struct ustar **ret);
void ustar__delete(struct ustar *t);

/*
 * A member. Returns 0, -ENAMETOOLONG for a name (or link target) longer
 * than 4096, -EINVAL for an empty one, or -errno of the write;
 * after a write error the archive is not usable.
 */
int ustar__add_dir(struct ustar *t, const char *name, mode_t mode);
int ustar__add_symlink(struct ustar *t, const char *name, const char *target);
int ustar__add_data(struct ustar *t, const char *name, const void *data, size_t len, mode_t mode);
/*
 * @size bytes of @src_fd from its offset 0. Where @src_fd has fewer (the
 * file shrank), the member is padded with zeros to @size so the archive
 * stays whole, and -EIO is returned (-errno for a read error).
 */
int ustar__add_fd(struct ustar *t, const char *name, int src_fd, uint64_t size, mode_t mode);

/* The two zero blocks that end an archive. Returns 0 or -errno. */
int ustar__finish(struct ustar *t);

/* Bytes written so far (a multiple of 512). */
uint64_t ustar__bytes(const struct ustar *t);

/* The archive bytes a member of @size data bytes takes: header and padding. */
uint64_t ustar__member_bytes(uint64_t size);

#endif
