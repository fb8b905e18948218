// SPDX-License-Identifier: GPL-2.0-only
/* file_output: see file_output.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "file_output.h"

/*
 * Every file written here is a finished file meant for the disk (the
 * daemon fsyncs each before it is named). Left to the flusher, all of it
 * is still dirty at that fsync, which then waits for the whole file.
 * Started every few MiB as the bytes arrive, the device writes while the
 * rest is formatted and the fsync waits for the tail alone
 * (docs/decisions.md). Direct writes need none of it.
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
 * A direct write refused (EINVAL: an alignment this device does not take)
 * turns direct writing off for the rest of the file, and the same bytes go
 * through the page cache: the file is the same.
 */
static int direct_refused(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	o->direct = false;
	return write_buffered(o, offset, data, len);
}

/* Aligned bytes to the device, or through the page cache where refused. */
static int write_direct(struct file_output *o, uint64_t offset, const void *data, size_t len)
{
	int err = set_fd_direct(o, true);

	if (!err)
		err = file_output__write_at(o->fd, offset, data, len);
	if (err == 0 || (err != -EINVAL && o->fd_direct))
		return err;
	return direct_refused(o, offset, data, len);
}

/*
 * The direct writes' thread. A direct write returns when the device has
 * the bytes; made by the writer itself, the formatting stops for each
 * block, a large part of a dump's writing (docs/decisions.md). The writer
 * hands a full block over and fills the other buffer; it waits only when
 * that one is full too, and before any write of its own (a tail, a
 * patch): so the fd's flags and the file's ranges are never the two
 * threads' at once.
 */
struct file_output_io {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned char *spare; /* the buffer not being filled: the job's */
	int fd;
	uint64_t offset; /* the job: at offset of fd, spare's first len bytes */
	size_t len;
	bool busy; /* a job is handed over and not yet done */
	bool quit;
	int err; /* the last job's result */
};

static void *io_main(void *arg)
{
	struct file_output_io *io = arg;

	pthread_mutex_lock(&io->lock);
	for (;;) {
		int err;

		while (!io->busy && !io->quit)
			pthread_cond_wait(&io->cond, &io->lock);
		if (!io->busy)
			break;
		pthread_mutex_unlock(&io->lock);
		err = file_output__write_at(io->fd, io->offset, io->spare, io->len);
		pthread_mutex_lock(&io->lock);
		io->err = err;
		io->busy = false;
		pthread_cond_broadcast(&io->cond);
	}
	pthread_mutex_unlock(&io->lock);
	return NULL;
}

static void io_free(struct file_output_io *io)
{
	if (!io)
		return;
	pthread_mutex_lock(&io->lock);
	io->quit = true;
	pthread_cond_broadcast(&io->cond);
	pthread_mutex_unlock(&io->lock);
	pthread_join(io->thread, NULL);
	pthread_cond_destroy(&io->cond);
	pthread_mutex_destroy(&io->lock);
	free(io->spare);
	free(io);
}

/* NULL where a thread cannot be had: the writer then writes itself. */
static struct file_output_io *io_new(const struct file_output *o)
{
	struct file_output_io *io = calloc(1, sizeof(*io));

	if (!io)
		return NULL;
	io->fd = o->fd;
	io->spare = aligned_alloc(FILE_OUTPUT_DIRECT_ALIGN, o->size);
	if (!io->spare || pthread_mutex_init(&io->lock, NULL))
		goto out_free;
	if (pthread_cond_init(&io->cond, NULL))
		goto out_lock;
	if (pthread_create(&io->thread, NULL, io_main, io) == 0)
		return io;
	pthread_cond_destroy(&io->cond);
out_lock:
	pthread_mutex_destroy(&io->lock);
out_free:
	free(io->spare);
	free(io);
	return NULL;
}

/* Waits for the block handed over, if any; refused as direct, it is written again. */
static int io_wait(struct file_output *o)
{
	struct file_output_io *io = o->io;
	int err;

	if (!io)
		return 0;
	pthread_mutex_lock(&io->lock);
	while (io->busy)
		pthread_cond_wait(&io->cond, &io->lock);
	err = io->err;
	io->err = 0;
	pthread_mutex_unlock(&io->lock);
	return err == -EINVAL ? direct_refused(o, io->offset, io->spare, io->len) : err;
}

/* Hands the whole buffer to the idle thread; the writer goes on in the other. */
static void io_handover(struct file_output *o)
{
	struct file_output_io *io = o->io;
	unsigned char *next = io->spare;

	pthread_mutex_lock(&io->lock);
	io->spare = o->buf;
	io->offset = o->offset;
	io->len = o->len;
	io->busy = true;
	pthread_cond_signal(&io->cond);
	pthread_mutex_unlock(&io->lock);
	o->buf = next;
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
 * it costs the writers CPU time for every new cache page, each first
 * touched (docs/decisions.md), and pushes out pages the traced workload
 * may still want. Direct, the device reads them from the buffer and the
 * writer only waits.
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
	io_free(o->io);
	o->io = NULL;
	(void)set_fd_direct(o, false);
	free(o->buf);
	o->buf = NULL;
	o->len = 0;
}

bool file_output__is_direct(const struct file_output *o)
{
	return o->direct;
}

/*
 * Writes the buffer's first @head bytes (aligned, while direct) and drops
 * them from it; after io_wait(), as every write of the writer's own.
 */
static int write_head(struct file_output *o, size_t head)
{
	int err = o->direct ? write_direct(o, o->offset, o->buf, head) :
			      write_buffered(o, o->offset, o->buf, head);

	if (err)
		return err;
	memmove(o->buf, o->buf + head, o->len - head);
	appended(o, head);
	o->len -= head;
	return 0;
}

/* The buffer is full (direct): the thread writes it while the writer fills the other. */
static int write_full(struct file_output *o)
{
	int err = io_wait(o);

	if (err)
		return err;
	if (o->direct && !o->io)
		o->io = io_new(o);
	if (!o->io || !o->direct || set_fd_direct(o, true))
		return write_head(o, o->len);
	io_handover(o);
	appended(o, o->len);
	o->len = 0;
	return 0;
}

/**
 * file_output__flush - write out the buffered bytes
 * @o: the output
 *
 * Direct, the aligned blocks leave the buffer; a last partial block goes
 * through the page cache but stays buffered, so that the buffer keeps
 * starting at an aligned offset: its next direct write covers it again.
 * Returns with every byte appended in the file.
 *
 * Returns 0 or -errno.
 */
int file_output__flush(struct file_output *o)
{
	int err = io_wait(o);
	size_t head = o->direct ? o->len & ~(size_t)(FILE_OUTPUT_DIRECT_ALIGN - 1) : 0;

	if (err || (head && (err = write_head(o, head))))
		return err;
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
		if (o->len < o->size)
			continue;
		err = o->direct ? write_full(o) : file_output__flush(o);
		if (err)
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
	uint64_t end = offset + len, buf_end = file_output__pos(o);
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
