// SPDX-License-Identifier: GPL-2.0-only
/* file_output: see file_output.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_output.h"

/*
 * Every file written here is a finished file meant for the disk (the
 * daemon fsyncs each before it is named). Left to the flusher, all of it
 * is still dirty at that fsync, which then waits for the whole file: 60 ms
 * of a 240 ms dump of 100 MB on the benchmark's VM. Started every few MiB
 * as the bytes arrive, the device writes while the rest is formatted and
 * the fsync waits for the tail alone (3-10 ms there). Direct writes need
 * none of it.
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

/* Sets or clears O_DIRECT on the fd (the open file's, shared with its dups). */
static int set_fd_direct(struct file_output *o, bool on)
{
	if (o->fd_direct == on)
		return 0;
	if (fcntl(o->fd, F_SETFL, on ? o->fl | O_DIRECT : o->fl) < 0)
		return -errno;
	o->fd_direct = on;
	return 0;
}

static int write_buffered(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	int err = set_fd_direct(o, false);

	return err ? err : file_output__write_at(o->fd, offset, data, len);
}

/*
 * Aligned bytes to the device. A refusal (EINVAL: an alignment this device
 * does not take) turns direct writing off for the rest of the file, and
 * the same bytes go through the page cache: the file is the same.
 */
static int write_direct(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	int err = set_fd_direct(o, true);

	if (!err)
		err = file_output__write_at(o->fd, offset, data, len);
	if (err == 0 || (err != -EINVAL && o->fd_direct))
		return err;
	o->direct = false;
	return write_buffered(o, offset, data, len);
}

/* @len bytes reached the file at the append offset. */
static void appended(struct file_output *o, size_t len)
{
	o->offset += len;
	if (o->direct || o->offset - o->writeback_from < FILE_OUTPUT_WRITEBACK)
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
 * @direct: write whole aligned blocks with O_DIRECT, where @fd is a
 *	regular file whose file system takes it
 *
 * A dump is written once and read later, if at all: through the page cache
 * its 100 MB cost the writers 25-40 ms of CPU time on the benchmark's VM
 * (new cache pages, each first touched), and they push out pages the
 * traced workload may still want. Direct, the device reads them from the
 * buffer and the writer only waits.
 *
 * Returns 0 or -ENOMEM.
 */
int file_output__init(struct file_output *o, int fd, bool direct)
{
	struct stat st;

	memset(o, 0, sizeof(*o));
	o->fd = fd;
	o->fl = fcntl(fd, F_GETFL);
	if (direct && o->fl >= 0 && !(o->fl & O_DIRECT) && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && set_fd_direct(o, true) == 0)
		o->direct = true;
	o->size = o->direct ? FILE_OUTPUT_DIRECT_BUF_SIZE : FILE_OUTPUT_BUF_SIZE;
	o->buf = aligned_alloc(FILE_OUTPUT_DIRECT_ALIGN, o->size);
	if (!o->buf) {
		(void)set_fd_direct(o, false);
		return -ENOMEM;
	}
	return 0;
}

/**
 * file_output__fini - drop the buffer (unwritten bytes are lost)
 * @o: the output
 */
void file_output__fini(struct file_output *o)
{
	(void)set_fd_direct(o, false);
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
}

bool file_output__is_direct(const struct file_output *o)
{
	return o->direct;
}

/**
 * file_output__flush - write out the buffered bytes
 * @o: the output
 *
 * Direct, the aligned blocks leave the buffer; a last partial block goes
 * through the page cache but stays buffered, so that the buffer keeps
 * starting at an aligned offset: its next direct write covers it again.
 *
 * Returns 0 or -errno.
 */
int file_output__flush(struct file_output *o)
{
	size_t head = o->direct ? o->len & ~(size_t)(FILE_OUTPUT_DIRECT_ALIGN - 1) : 0;
	int err;

	if (head) {
		err = write_direct(o, o->offset, o->buf, head);
		if (err)
			return err;
		appended(o, head);
		o->len -= head;
		memmove(o->buf, o->buf + head, o->len);
	}
	if (!o->len)
		return 0;
	err = write_buffered(o, o->offset, o->buf, o->len);
	if (err || o->direct)
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
 * Through the page cache, bulk goes straight to the file without a copy: a
 * block of the buffer's size or more when nothing is buffered, else what is
 * left of a larger one once it has filled the buffer. Direct, everything is
 * copied into the (aligned) buffer. Returns 0 or -errno.
 */
int file_output__append(struct file_output *o, const void *data, size_t len)
{
	const unsigned char *p = data;
	int err;

	if (p && !o->direct && o->len && len >= 2 * o->size - o->len) {
		/* Tops the buffer up, so that what is left goes out without a copy. */
		size_t n = o->size - o->len;

		memcpy(o->buf + o->len, p, n);
		o->len += n;
		if ((err = file_output__flush(o)))
			return err;
		p += n;
		len -= n;
	}
	if (p && !o->direct && !o->len && len >= o->size) {
		err = file_output__write_at(o->fd, o->offset, p, len);
		if (!err)
			appended(o, len);
		return err;
	}
	while (len) {
		size_t n = o->size - o->len;

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
		if (o->len == o->size && (err = file_output__flush(o)))
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
 * The file gets them now; where they fall in the partial block still
 * buffered (direct), the buffer gets them too, or its next write would
 * put the old ones back.
 *
 * Returns 0 or -errno.
 */
int file_output__patch(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	uint64_t end = offset + len, buf_end = o->offset + o->len;
	int err = file_output__flush(o);

	if (err)
		return err;
	if (o->len && offset < buf_end && end > o->offset) {
		uint64_t from = offset > o->offset ? offset : o->offset;
		uint64_t to = end < buf_end ? end : buf_end;

		memcpy(o->buf + (from - o->offset), (const unsigned char *)data + (from - offset),
		       to - from);
	}
	return write_buffered(o, offset, data, len);
}

uint64_t file_output__pos(const struct file_output *o)
{
	return o->offset + o->len;
}
