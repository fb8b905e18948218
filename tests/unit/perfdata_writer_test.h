/* SPDX-License-Identifier: GPL-2.0-only */
/* perfdata_writer_test: helpers of test_perfdata_writer*.c (see perfdata_writer_test.c). */
#ifndef PERFSNAPD_PERFDATA_WRITER_TEST_H
#define PERFSNAPD_PERFDATA_WRITER_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "pwrite_inject.h"

#define HEADER_SIZE 104
#define ATTR_SIZE   128
#define ATTR_ENTRY  (ATTR_SIZE + 16)

struct file {
	unsigned char *data;
	size_t size;
};

int new_fd(void);
struct file read_file(int fd);
uint64_t file_size(int fd);
uint64_t u64_at(const struct file *f, uint64_t off);
uint32_t u32_at(const struct file *f, uint64_t off);
void tp_attr(struct perf_event_attr *attr, uint64_t config);
int reset_inject(void **state);

#endif
