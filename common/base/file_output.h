/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * file_output: the buffered, positioned writing both file writers share
 * (perf.data and trace.dat): appends go through a 256 KiB buffer, earlier
 * bytes can be patched in place (headers, sizes known only at the end),
 * and pwrite() keeps it free of the fd's own offset. Short writes and EINTR
 * are retried; any other failure is returned as -errno.
 */
#ifndef PERFSNAPD_FILE_OUTPUT_H
#define PERFSNAPD_FILE_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

/* The append buffer's size. */
#define FILE_OUTPUT_BUF_SIZE (256 * 1024)

struct file_output {
	int fd;
	unsigned char *buf;
	size_t len;	 /* bytes waiting in buf */
	uint64_t offset;	 /* file offset of buf[0] */
	uint64_t writeback_from; /* bytes before it: writeback started */
};

/* Starts at offset 0 of @fd (never closed here). Returns 0 or -ENOMEM. */
int file_output__init(struct file_output *o, int fd);
void file_output__fini(struct file_output *o);

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
