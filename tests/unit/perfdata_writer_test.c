// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_writer_test: what the perfdata_writer unit tests share: short
 * writes, EINTR and errors injected by wrapping pwrite() at link time, and
 * reading the written file back.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>
#include <perf/event.h>
#include "perfdata_compress.h"
#include "perfdata_writer.h"
#include "perfdata_writer_test.h"

int new_fd(void)
{
	int fd = memfd_create("perfdata", MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

struct file read_file(int fd)
{
	struct file f;
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	f.size = (size_t)st.st_size;
	f.data = malloc(f.size ? f.size : 1);
	assert_non_null(f.data);
	assert_int_equal(pread(fd, f.data, f.size, 0), (ssize_t)f.size);
	return f;
}

uint64_t file_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_size;
}

uint64_t u64_at(const struct file *f, uint64_t off)
{
	uint64_t v;

	assert_true(off + 8 <= f->size);
	memcpy(&v, f->data + off, 8);
	return v;
}

uint32_t u32_at(const struct file *f, uint64_t off)
{
	uint32_t v;

	assert_true(off + 4 <= f->size);
	memcpy(&v, f->data + off, 4);
	return v;
}

void tp_attr(struct perf_event_attr *attr, uint64_t config)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->size = sizeof(*attr);
	attr->config = config;
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			    PERF_SAMPLE_RAW;
	attr->read_format = PERF_FORMAT_ID;
	attr->sample_id_all = 1;
}

int reset_inject(void **state)
{
	(void)state;
	pwrite_inject__reset();
	return 0;
}
