/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_output: the buffered, positioned writing both file writers share
 * (perf.data and trace.dat): appends go through a buffer, earlier bytes
 * can be patched in place (headers, sizes known only at the end), and
 * pwrite() keeps it free of the fd's own offset. On a regular file whose
 * file system takes O_DIRECT, whole aligned blocks of the buffer go to the
 * device directly, written by a thread of the output's own while the next
 * block fills, and only the unaligned tail and the patches through the
 * page cache. Short writes and EINTR are retried; any other failure is
 * returned as -errno.
 */
#ifndef PERFSNAPD_FILE_OUTPUT_H
#define PERFSNAPD_FILE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The append buffer's size through the page cache, and direct. */
#define FILE_OUTPUT_BUF_SIZE	    (256 * 1024)
#define FILE_OUTPUT_DIRECT_BUF_SIZE (1024 * 1024)
/* Offset, length and memory alignment of a direct write. */
#define FILE_OUTPUT_DIRECT_ALIGN    4096

struct file_output_io;

struct file_output {
	int fd;
	unsigned char *buf;
	size_t size;		   /* buf's capacity */
	size_t len;		   /* bytes waiting in buf */
	uint64_t offset;	   /* file offset of buf[0]; aligned while direct */
	uint64_t writeback_from;   /* bytes before it: writeback started */
	int fl;			   /* the fd's status flags before init */
	bool direct;		   /* aligned blocks are written with O_DIRECT */
	bool fd_direct;		   /* O_DIRECT is set on the fd now */
	struct file_output_io *io; /* the direct writes' thread, from the first full block */
};

/*
 * Starts at offset 0 of @fd (never closed here); @direct asks for direct
 * writes where the file takes them. Returns 0 or -ENOMEM.
 */
int file_output__init(struct file_output *o, int fd, bool direct);
/*
 * Drops the buffer (unwritten bytes are lost; a block already handed to the
 * thread is written first) and gives the fd back its flags.
 */
void file_output__fini(struct file_output *o);
/* Writes directly to the device: whole aligned blocks bypass the page cache. */
bool file_output__is_direct(const struct file_output *o);

/* Appends @len bytes (zeros if @data is NULL). Returns 0 or -errno. */
int file_output__append(struct file_output *o, const void *data, size_t len);
/* Writes out what the buffer holds. Returns 0 or -errno. */
int file_output__flush(struct file_output *o);
/* Rewrites bytes already appended, at @offset; flushes first. Returns 0 or -errno. */
int file_output__patch(struct file_output *o, uint64_t offset, const void *data, size_t len);
/* The offset the next appended byte goes to. */
uint64_t file_output__pos(const struct file_output *o);

/* Writes all @len bytes of @data at @offset of @fd, unbuffered. Returns 0 or -errno. */
int file_output__write_at(int fd, uint64_t offset, const void *data, size_t len);

#endif
