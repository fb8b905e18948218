// SPDX-License-Identifier: GPL-2.0-only
/* file_output: see file_output.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "file_output.h"

/*
 * Every file written here is a finished file meant for the disk (the
 * daemon fsyncs each before it is named). Left to the flusher, all of it
 * is still dirty at that fsync, which then waits for the whole file: 60 ms
 * of a 240 ms dump of 100 MB on the benchmark's VM. Started every few MiB
 * as the bytes arrive, the device writes while the rest is formatted and
 * the fsync waits for the tail alone (3-10 ms there).
 */
#define FILE_OUTPUT_WRITEBACK (4u << 20)

/**
 * file_output__write_at - write all of a buffer at an offset, unbuffered
 * @fd: the file
 * @offset: where
 * @data: the bytes
 * @len: how many
 *
 * The only place bytes reach a file here (the ring copies' memory files
 * too): short writes and EINTR are retried.
 *
 * Returns 0 or -errno (-EIO if a write wrote nothing).
 */
int file_output__write_at(int fd, uint64_t offset, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)offset);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
		offset += (uint64_t)n;
	}
	return 0;
}

/* @len bytes reached the file at the append offset. */
static void appended(struct file_output *o, size_t len)
{
	o->offset += len;
	if (o->offset - o->writeback_from < FILE_OUTPUT_WRITEBACK)
		return;
	/* Only a start: a failure (a pipe, say) shows at the fsync, if at all. */
	(void)sync_file_range(o->fd, (off_t)o->writeback_from,
			      (off_t)(o->offset - o->writeback_from), SYNC_FILE_RANGE_WRITE);
	o->writeback_from = o->offset;
}

/**
 * file_output__init - start writing a file
 * @o: the output
 * @fd: the file, written from offset 0
 *
 * Returns 0 or -ENOMEM.
 */
int file_output__init(struct file_output *o, int fd)
{
	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->buf = malloc(FILE_OUTPUT_BUF_SIZE);
	return o->buf ? 0 : -ENOMEM;
}

/**
 * file_output__fini - drop the buffer (unwritten bytes are lost)
 * @o: the output
 */
void file_output__fini(struct file_output *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
}

/**
 * file_output__flush - write out the buffered bytes
 * @o: the output
 *
 * Returns 0 or -errno.
 */
int file_output__flush(struct file_output *o)
{
	int err;

	if (!o->len)
		return 0;
	err = file_output__write_at(o->fd, o->offset, o->buf, o->len);
	if (err)
		return err;
	appended(o, o->len);
	o->len = 0;
	return 0;
}

/**
 * file_output__append - append bytes at the end of the file
 * @o: the output
 * @data: the bytes, or NULL for zeros
 * @len: how many
 *
 * Bulk goes straight to the file without a copy: a block of the buffer's
 * size or more when nothing is buffered, else what is left of a larger
 * one once it has filled the buffer. Returns 0 or -errno.
 */
int file_output__append(struct file_output *o, const void *data, size_t len)
{
	const unsigned char *p = data;
	int err;

	if (p && o->len && len >= 2 * FILE_OUTPUT_BUF_SIZE - o->len) {
		/* Tops the buffer up, so that what is left goes out without a copy. */
		size_t n = FILE_OUTPUT_BUF_SIZE - o->len;

		memcpy(o->buf + o->len, p, n);
		o->len += n;
		if ((err = file_output__flush(o)))
			return err;
		p += n;
		len -= n;
	}
	if (p && !o->len && len >= FILE_OUTPUT_BUF_SIZE) {
		err = file_output__write_at(o->fd, o->offset, p, len);
		if (!err)
			appended(o, len);
		return err;
	}
	while (len) {
		size_t n = FILE_OUTPUT_BUF_SIZE - o->len;

		if (n > len)
			n = len;
		if (p) {
			memcpy(o->buf + o->len, p, n);
			p += n;
		} else {
			memset(o->buf + o->len, 0, n);
		}
		o->len += n;
		len -= n;
		if (o->len == FILE_OUTPUT_BUF_SIZE && (err = file_output__flush(o)))
			return err;
	}
	return 0;
}

/**
 * file_output__patch - rewrite bytes already appended
 * @o: the output
 * @offset: their file offset
 * @data: the new bytes
 * @len: how many
 *
 * Returns 0 or -errno.
 */
int file_output__patch(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	int err = file_output__flush(o);

	return err ? err : file_output__write_at(o->fd, offset, data, len);
}

uint64_t file_output__pos(const struct file_output *o)
{
	return o->offset + o->len;
}
