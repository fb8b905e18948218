// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for perfdata_writer: the bytes of the header, attrs, ids, data
 * and feature sections, the state machine, I/O faults (short writes,
 * EINTR, ENOSPC) injected by wrapping pwrite() at link time, and the
 * zstd-compressed data section read back the way perf reads it.
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

#define HEADER_SIZE 104
#define ATTR_SIZE   128
#define ATTR_ENTRY  (ATTR_SIZE + 16)

/* Fault injection, set per test and reset by the fixtures. */
static struct {
	size_t max_len; /* cut every write to this many bytes (0: no cut) */
	int eintr;	/* fail every other call with EINTR */
	int fail_errno; /* fail with this errno ... */
	int fail_after; /* ... once this many calls succeeded */
	int calls;
} inject;

ssize_t __real_pwrite(int fd, const void *buf, size_t len, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off);
ssize_t __real_pwrite64(int fd, const void *buf, size_t len, off_t off);
ssize_t __wrap_pwrite64(int fd, const void *buf, size_t len, off_t off);

ssize_t __wrap_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	inject.calls++;
	if (inject.eintr && inject.calls % 2) {
		errno = EINTR;
		return -1;
	}
	if (inject.fail_errno && inject.calls > inject.fail_after) {
		errno = inject.fail_errno;
		return -1;
	}
	if (inject.max_len && len > inject.max_len)
		len = inject.max_len;
	return __real_pwrite(fd, buf, len, off);
}

ssize_t __wrap_pwrite64(int fd, const void *buf, size_t len, off_t off)
{
	return __wrap_pwrite(fd, buf, len, off);
}

struct file {
	unsigned char *data;
	size_t size;
};

static int new_fd(void)
{
	int fd = memfd_create("perfdata", MFD_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static struct file read_file(int fd)
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

static uint64_t file_size(int fd)
{
	struct stat st;

	assert_int_equal(fstat(fd, &st), 0);
	return (uint64_t)st.st_size;
}

static uint64_t u64_at(const struct file *f, uint64_t off)
{
	uint64_t v;

	assert_true(off + 8 <= f->size);
	memcpy(&v, f->data + off, 8);
	return v;
}

static uint32_t u32_at(const struct file *f, uint64_t off)
{
	uint32_t v;

	assert_true(off + 4 <= f->size);
	memcpy(&v, f->data + off, 4);
	return v;
}

static void tp_attr(struct perf_event_attr *attr, uint64_t config)
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

/* A record of @size bytes whose payload is a pattern derived from @seed. */
static struct perf_event_header *make_event(uint64_t *buf, uint16_t size, uint32_t seed)
{
	struct perf_event_header *h = (void *)buf;
	unsigned char *p = (unsigned char *)(h + 1);
	size_t i;

	h->type = PERF_RECORD_SAMPLE;
	h->misc = (uint16_t)seed;
	h->size = size;
	for (i = 0; i < size - sizeof(*h); i++)
		p[i] = (unsigned char)(seed * 31 + i);
	return h;
}

static int reset_inject(void **state)
{
	(void)state;
	memset(&inject, 0, sizeof(inject));
	return 0;
}

/* Checks one perf header string at @off; returns the offset after it. */
static uint64_t check_string(const struct file *f, uint64_t off, const char *want)
{
	uint32_t len = u32_at(f, off);
	size_t slen = strlen(want);
	uint32_t i;

	assert_int_equal(len % 64, 0);
	assert_int_equal(len, (slen + 1 + 63) / 64 * 64);
	assert_memory_equal(f->data + off + 4, want, slen);
	for (i = (uint32_t)slen; i < len; i++)
		assert_int_equal(f->data[off + 4 + i], 0);
	return off + 4 + len;
}

/* 63 and 64 characters: with the NUL, one and two 64-byte blocks. */
#define STR63 "012345678901234567890123456789012345678901234567890123456789012"
#define STR64 STR63 "3"

static const uint64_t ids0[] = { 11, 12 };
static const uint64_t ids1[] = { 99 };
static const char long_name[] =
	"a-rather-long-event-name-that-does-not-fit-in-sixty-four-bytes:with_suffix";
static const unsigned char tracing_blob[] = {
	23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g', 1, 2, 3,
};

/* Writes the reference file used by the layout tests; returns data bytes. */
static size_t write_reference(int fd, struct perf_event_attr *a0, struct perf_event_attr *a1)
{
	static const char *const argv[] = { "perfsnapd", "-c", "x.conf" };
	struct perfdata_writer *w = perfdata_writer__new(fd);
	uint64_t buf[64];
	size_t data = 0;
	int i;

	assert_non_null(w);
	tp_attr(a0, 372);
	memset(a1, 0, sizeof(*a1));
	a1->type = PERF_TYPE_SOFTWARE;
	a1->size = sizeof(*a1);
	a1->config = PERF_COUNT_SW_DUMMY;
	a1->sample_type = PERF_SAMPLE_IDENTIFIER;
	a1->sample_id_all = 1;
	a1->comm = 1;
	assert_int_equal(perfdata_writer__add_attr(w, a0, "sched:sched_switch", ids0, 2), 0);
	/* Features may be set before the data, too. */
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, "old-host"), 0);
	assert_int_equal(perfdata_writer__add_attr(w, a1, long_name, ids1, 1), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	for (i = 0; i < 3; i++) {
		make_event(buf, (uint16_t)(16 + 8 * i), (uint32_t)i);
		assert_int_equal(perfdata_writer__write_event(w, (void *)buf), 0);
		data += 16 + 8 * i;
	}
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, "host"), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_OSRELEASE, STR63), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_VERSION, STR64), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_ARCH, "x86_64"), 0);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 8, 2), 0);
	assert_int_equal(perfdata_writer__set_cmdline(w, 3, argv), 0);
	assert_int_equal(perfdata_writer__set_clockid_res(w, 1), 0);
	assert_int_equal(perfdata_writer__set_sample_time(w, 1000, 2000), 0);
	assert_int_equal(perfdata_writer__set_tracing_data(w, tracing_blob, sizeof(tracing_blob)),
			 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	assert_int_equal(perfdata_writer__size(w), file_size(fd));
	perfdata_writer__delete(w);
	return data;
}

static void check_attr(const struct file *f, uint64_t off, const struct perf_event_attr *want)
{
	struct perf_event_attr got;

	memset(&got, 0, sizeof(got));
	memcpy(&got, f->data + off, ATTR_SIZE);
	assert_int_equal(got.size, ATTR_SIZE);
	assert_int_equal(got.type, want->type);
	assert_int_equal(got.config, want->config);
	assert_int_equal(got.sample_type, want->sample_type);
	assert_int_equal(got.read_format, want->read_format);
	assert_int_equal(got.sample_id_all, want->sample_id_all);
	got.size = want->size;
	assert_memory_equal(&got, want, ATTR_SIZE);
}

static void test_header_attrs_ids_data(void **state)
{
	struct perf_event_attr a0, a1;
	uint64_t data_off, buf[64];
	struct file f;
	size_t data;
	int fd = new_fd(), i;

	(void)state;
	data = write_reference(fd, &a0, &a1);
	f = read_file(fd);

	assert_memory_equal(f.data, "PERFILE2", 8);
	assert_int_equal(u64_at(&f, 8), HEADER_SIZE);
	assert_int_equal(u64_at(&f, 16), ATTR_ENTRY);
	assert_int_equal(u64_at(&f, 24), HEADER_SIZE);	  /* attrs.offset */
	assert_int_equal(u64_at(&f, 32), 2 * ATTR_ENTRY); /* attrs.size */
	data_off = HEADER_SIZE + 2 * ATTR_ENTRY + 3 * 8;
	assert_int_equal(u64_at(&f, 40), data_off); /* data.offset */
	assert_int_equal(u64_at(&f, 48), data);	    /* data.size */
	assert_int_equal(u64_at(&f, 56), 0);	    /* event_types */
	assert_int_equal(u64_at(&f, 64), 0);

	check_attr(&f, HEADER_SIZE, &a0);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_SIZE), HEADER_SIZE + 2 * ATTR_ENTRY);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_SIZE + 8), 16);
	check_attr(&f, HEADER_SIZE + ATTR_ENTRY, &a1);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_ENTRY + ATTR_SIZE),
			 HEADER_SIZE + 2 * ATTR_ENTRY + 16);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_ENTRY + ATTR_SIZE + 8), 8);
	assert_int_equal(u64_at(&f, HEADER_SIZE + 2 * ATTR_ENTRY), 11);
	assert_int_equal(u64_at(&f, HEADER_SIZE + 2 * ATTR_ENTRY + 8), 12);
	assert_int_equal(u64_at(&f, HEADER_SIZE + 2 * ATTR_ENTRY + 16), 99);

	for (i = 0; i < 3; i++) {
		make_event(buf, (uint16_t)(16 + 8 * i), (uint32_t)i);
		assert_memory_equal(f.data + data_off, buf, 16 + 8 * i);
		data_off += 16 + 8 * i;
	}
	free(f.data);
	close(fd);
}

/* In perf's HEADER_* order; the values are checked in perfdata_writer.c. */
static const int feat_bits[] = {
	PERFDATA_FEAT_TRACING_DATA, PERFDATA_FEAT_HOSTNAME,   PERFDATA_FEAT_OSRELEASE,
	PERFDATA_FEAT_VERSION,	    PERFDATA_FEAT_ARCH,	      PERFDATA_FEAT_NRCPUS,
	PERFDATA_FEAT_CMDLINE,	    PERFDATA_FEAT_EVENT_DESC, PERFDATA_FEAT_SAMPLE_TIME,
	PERFDATA_FEAT_CLOCKID,
};
#define NR_FEAT (sizeof(feat_bits) / sizeof(feat_bits[0]))

static void check_event_desc(const struct file *f, uint64_t off, uint64_t end,
			     const struct perf_event_attr *a0, const struct perf_event_attr *a1)
{
	assert_int_equal(u32_at(f, off), 2);
	assert_int_equal(u32_at(f, off + 4), ATTR_SIZE);
	off += 8;
	check_attr(f, off, a0);
	off += ATTR_SIZE;
	assert_int_equal(u32_at(f, off), 2);
	off = check_string(f, off + 4, "sched:sched_switch");
	assert_int_equal(u64_at(f, off), 11);
	assert_int_equal(u64_at(f, off + 8), 12);
	off += 16;
	check_attr(f, off, a1);
	off += ATTR_SIZE;
	assert_int_equal(u32_at(f, off), 1);
	assert_int_equal(u32_at(f, off + 4), 128); /* 75 bytes + NUL, padded to 128 */
	off = check_string(f, off + 4, long_name);
	assert_int_equal(u64_at(f, off), 99);
	assert_int_equal(off + 8, end);
}

static void check_feature(const struct file *f, int bit, uint64_t off, uint64_t size,
			  const struct perf_event_attr *a0, const struct perf_event_attr *a1)
{
	uint64_t p;

	switch (bit) {
	case PERFDATA_FEAT_TRACING_DATA:
		assert_int_equal(size, sizeof(tracing_blob));
		assert_memory_equal(f->data + off, tracing_blob, sizeof(tracing_blob));
		break;
	case PERFDATA_FEAT_HOSTNAME:
		assert_int_equal(size, 4 + 64);
		check_string(f, off, "host");
		break;
	case PERFDATA_FEAT_OSRELEASE: /* 63 chars + NUL: exactly 64 */
		assert_int_equal(size, 4 + 64);
		check_string(f, off, STR63);
		break;
	case PERFDATA_FEAT_VERSION: /* 64 chars + NUL: 128 */
		assert_int_equal(size, 4 + 128);
		check_string(f, off, STR64);
		break;
	case PERFDATA_FEAT_ARCH:
		assert_int_equal(size, 4 + 64);
		check_string(f, off, "x86_64");
		break;
	case PERFDATA_FEAT_NRCPUS:
		assert_int_equal(size, 8);
		assert_int_equal(u32_at(f, off), 8);
		assert_int_equal(u32_at(f, off + 4), 2);
		break;
	case PERFDATA_FEAT_CMDLINE:
		assert_int_equal(size, 4 + 3 * 68);
		assert_int_equal(u32_at(f, off), 3);
		p = check_string(f, off + 4, "perfsnapd");
		p = check_string(f, p, "-c");
		p = check_string(f, p, "x.conf");
		assert_int_equal(p, off + size);
		break;
	case PERFDATA_FEAT_EVENT_DESC:
		check_event_desc(f, off, off + size, a0, a1);
		break;
	case PERFDATA_FEAT_SAMPLE_TIME:
		assert_int_equal(size, 16);
		assert_int_equal(u64_at(f, off), 1000);
		assert_int_equal(u64_at(f, off + 8), 2000);
		break;
	case PERFDATA_FEAT_CLOCKID:
		assert_int_equal(size, 8);
		assert_int_equal(u64_at(f, off), 1);
		break;
	default:
		fail();
	}
}

static void test_feature_sections(void **state)
{
	struct perf_event_attr a0, a1;
	uint64_t feat_off, next, bitmap = 0;
	struct file f;
	size_t i;
	int fd = new_fd();

	(void)state;
	write_reference(fd, &a0, &a1);
	f = read_file(fd);

	for (i = 0; i < NR_FEAT; i++)
		bitmap |= 1ull << feat_bits[i];
	assert_int_equal(u64_at(&f, 72), bitmap);
	assert_int_equal(u64_at(&f, 80), 0);
	assert_int_equal(u64_at(&f, 88), 0);
	assert_int_equal(u64_at(&f, 96), 0);

	/* The table follows the data; payloads follow the table, in bit order. */
	feat_off = u64_at(&f, 40) + u64_at(&f, 48);
	next = feat_off + NR_FEAT * 16;
	for (i = 0; i < NR_FEAT; i++) {
		uint64_t off = u64_at(&f, feat_off + 16 * i);
		uint64_t size = u64_at(&f, feat_off + 16 * i + 8);

		assert_int_equal(off, next);
		check_feature(&f, feat_bits[i], off, size, &a0, &a1);
		next = off + size;
	}
	assert_int_equal(next, f.size);
	free(f.data);
	close(fd);
}

static void test_minimal_file(void **state)
{
	struct perfdata_writer *w;
	struct perf_event_attr a;
	struct file f;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);

	f = read_file(fd);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_SIZE), HEADER_SIZE + ATTR_ENTRY);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_SIZE + 8), 0);
	assert_int_equal(u64_at(&f, 48), 0);
	assert_int_equal(u64_at(&f, 72), 1ull << PERFDATA_FEAT_EVENT_DESC);
	/* One section: right after the (empty) data, then EVENT_DESC. */
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_ENTRY), HEADER_SIZE + ATTR_ENTRY + 16);
	assert_int_equal(u64_at(&f, HEADER_SIZE + ATTR_ENTRY + 8), 8 + ATTR_SIZE + 4 + 4 + 64);
	assert_int_equal(f.size, HEADER_SIZE + ATTR_ENTRY + 16 + 8 + ATTR_SIZE + 4 + 4 + 64);
	free(f.data);
	close(fd);
}

/* Until __finish, the file on disk looks like an unterminated perf record. */
static void test_provisional_header(void **state)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	uint64_t buf[64];
	struct file f;
	int fd = new_fd(), i;

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 1, 1), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	make_event(buf, 64, 3);
	for (i = 0; i < 5000; i++)
		assert_int_equal(perfdata_writer__write_event(w, (void *)buf), 0);
	f = read_file(fd);
	assert_int_equal(f.size, 256 * 1024);
	assert_memory_equal(f.data, "PERFILE2", 8);
	assert_int_equal(u64_at(&f, 40), HEADER_SIZE + ATTR_ENTRY);
	assert_int_equal(u64_at(&f, 48), 0);
	assert_int_equal(u64_at(&f, 72), 0);
	assert_int_equal(perfdata_writer__size(w), HEADER_SIZE + ATTR_ENTRY + 5000 * 64);
	free(f.data);
	perfdata_writer__delete(w);
	close(fd);
}

static void test_state_errors(void **state)
{
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct perf_event_attr a;
	struct perfdata_writer *w;
	uint64_t id = 1;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_non_null(w);
	assert_int_equal(perfdata_writer__write_event(w, &fin), -EBADFD);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	assert_int_equal(perfdata_writer__begin_data(w), -EINVAL); /* no attrs */
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", &id, 1), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:z", &id, 1), -EBADFD);
	assert_int_equal(perfdata_writer__begin_data(w), -EBADFD);
	assert_int_equal(perfdata_writer__write_event(w, &fin), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);

	assert_int_equal(perfdata_writer__write_event(w, &fin), -EBADFD);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	assert_int_equal(perfdata_writer__begin_data(w), -EBADFD);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:z", &id, 1), -EBADFD);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, "h"), -EBADFD);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 1, 1), -EBADFD);
	assert_int_equal(perfdata_writer__set_cmdline(w, 0, NULL), -EBADFD);
	assert_int_equal(perfdata_writer__set_clockid_res(w, 1), -EBADFD);
	assert_int_equal(perfdata_writer__set_sample_time(w, 1, 2), -EBADFD);
	assert_int_equal(perfdata_writer__set_tracing_data(w, "x", 1), -EBADFD);
	perfdata_writer__delete(w);
	perfdata_writer__delete(NULL);
	close(fd);
}

static void test_invalid_args(void **state)
{
	struct perf_event_header bad = { .type = PERF_RECORD_SAMPLE, .size = 12 };
	struct perf_event_header tiny = { .type = PERF_RECORD_SAMPLE, .size = 0 };
	struct perf_event_attr a, big;
	struct perfdata_writer *w;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, NULL, NULL, 0), -EINVAL);
	assert_int_equal(perfdata_writer__add_attr(w, NULL, "x:y", NULL, 0), -EINVAL);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 2), -EINVAL);
	/* A field perf 6.1 cannot read (past the 128 bytes) is refused. */
	big = a;
	big.config3 = 1;
	assert_int_equal(perfdata_writer__add_attr(w, &big, "x:y", NULL, 0), -EINVAL);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_NRCPUS, "x"), -EINVAL);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, NULL), -EINVAL);
	assert_int_equal(perfdata_writer__set_cmdline(w, -1, NULL), -EINVAL);
	assert_int_equal(perfdata_writer__set_cmdline(w, 1, NULL), -EINVAL);
	assert_int_equal(perfdata_writer__set_tracing_data(w, NULL, 4), -EINVAL);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__write_event(w, &bad), -EINVAL);
	assert_int_equal(perfdata_writer__write_event(w, &tiny), -EINVAL);
	assert_int_equal(perfdata_writer__write_event(w, NULL), -EINVAL);
	/* Argument errors leave the writer usable. */
	assert_int_equal(perfdata_writer__finish(w), 0);
	assert_int_equal(perfdata_writer__add_attr(NULL, &a, "x:y", NULL, 0), -EINVAL);
	assert_int_equal(perfdata_writer__size(NULL), 0);
	perfdata_writer__delete(w);
	close(fd);
}

#define MANY_EVENTS 60000
#define MANY_IDS    40000 /* 320 KB of ids: larger than the buffer */

static uint16_t many_size(uint32_t i)
{
	return (uint16_t)(8 + 8 * ((i * 7) % 40));
}

/* Writes many records of varied sizes, zstd @level (0: none); returns the file. */
static struct file write_many(int level)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	uint64_t *ids = malloc(MANY_IDS * sizeof(*ids));
	uint64_t buf[64];
	struct file f;
	uint32_t i;
	int fd = new_fd();

	assert_non_null(ids);
	for (i = 0; i < MANY_IDS; i++)
		ids[i] = 1000 + i;
	tp_attr(&a, 7);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_compression(w, level), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "many:ids", ids, MANY_IDS), 0);
	free(ids);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	for (i = 0; i < MANY_EVENTS; i++) {
		make_event(buf, many_size(i), i);
		assert_int_equal(perfdata_writer__write_event(w, (void *)buf), 0);
	}
	assert_int_equal(perfdata_writer__set_sample_time(w, 1, 2), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	f = read_file(fd);
	assert_int_equal(perfdata_writer__size(w), f.size);
	perfdata_writer__delete(w);
	close(fd);
	return f;
}

static void check_many(const struct file *f)
{
	uint64_t off, total = 0, buf[64];
	uint32_t i;

	for (i = 0; i < MANY_IDS; i++)
		assert_int_equal(u64_at(f, HEADER_SIZE + ATTR_ENTRY + 8 * i), 1000 + i);
	off = u64_at(f, 40);
	assert_int_equal(off, HEADER_SIZE + ATTR_ENTRY + 8 * MANY_IDS);
	for (i = 0; i < MANY_EVENTS; i++) {
		uint16_t size = many_size(i);

		make_event(buf, size, i);
		if (memcmp(f->data + off, buf, size))
			fail_msg("record %u at offset %llu differs", i, (unsigned long long)off);
		off += size;
		total += size;
	}
	assert_true(total > 4 * 256 * 1024);
	assert_int_equal(u64_at(f, 48), total);
}

static void test_many_events(void **state)
{
	struct file f;

	(void)state;
	f = write_many(0);
	check_many(&f);
	/* Writes go out in buffer-sized pieces, not one per record. */
	assert_true(inject.calls <= (int)(f.size / (256 * 1024)) + 3);
	free(f.data);
}

static void test_short_writes_and_eintr(void **state)
{
	struct file ref, f;

	(void)state;
	ref = write_many(0);
	inject.max_len = 4093;
	inject.eintr = 1;
	inject.calls = 0;
	f = write_many(0);
	assert_true(inject.calls > 2 * (int)(ref.size / 4093));
	assert_int_equal(f.size, ref.size);
	assert_memory_equal(f.data, ref.data, ref.size);
	free(ref.data);
	free(f.data);
}

static void test_write_error(void **state)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	uint64_t buf[64];
	int fd = new_fd(), err = 0, i;

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	inject.fail_errno = ENOSPC;
	inject.fail_after = 1;
	make_event(buf, 256, 1);
	/* The first flush succeeds, the second fails with the real errno. */
	for (i = 0; i < 10000 && !err; i++)
		err = perfdata_writer__write_event(w, (void *)buf);
	assert_int_equal(err, -ENOSPC);
	assert_true(i > 1024);
	assert_int_equal(perfdata_writer__write_event(w, (void *)buf), -EBADFD);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	perfdata_writer__delete(w);
	close(fd);
}

static void test_finish_error(void **state)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	inject.fail_errno = EIO;
	assert_int_equal(perfdata_writer__finish(w), -EIO);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 1, 1), -EBADFD);
	perfdata_writer__delete(w);
	close(fd);
}

/*
 * Decompresses every COMPRESSED record of @f's data section as perf does:
 * one zstd stream for the file, an output buffer of mmap_len per record.
 * Each must yield whole records. Returns them (*@ret_len bytes) and sets
 * *@ret_out to the bytes of the COMPRESSED records.
 */
static unsigned char *decompress_data(const struct file *f, uint32_t mmap_len, size_t *ret_len,
				      uint64_t *ret_out)
{
	uint64_t off = u64_at(f, 40), end = off + u64_at(f, 48);
	ZSTD_DStream *ds = ZSTD_createDStream();
	unsigned char *all = NULL;
	size_t len = 0;

	assert_non_null(ds);
	*ret_out = 0;
	while (off < end) {
		struct perf_event_header h, *r;
		ZSTD_inBuffer in;
		ZSTD_outBuffer out;
		size_t pos;

		memcpy(&h, f->data + off, sizeof(h));
		assert_int_equal(h.type, PERF_RECORD_COMPRESSED);
		assert_true(h.size > sizeof(h) && off + h.size <= end);
		all = realloc(all, len + mmap_len);
		assert_non_null(all);
		in = (ZSTD_inBuffer){ f->data + off + sizeof(h), h.size - sizeof(h), 0 };
		out = (ZSTD_outBuffer){ all + len, mmap_len, 0 };
		while (in.pos < in.size)
			assert_false(ZSTD_isError(ZSTD_decompressStream(ds, &out, &in)));
		assert_true(out.pos > 0);
		for (pos = 0; pos < out.pos; pos += r->size) {
			r = (void *)(all + len + pos);
			assert_true(pos + sizeof(*r) <= out.pos && r->size >= sizeof(*r));
		}
		assert_int_equal(pos, out.pos);
		len += out.pos;
		off += h.size;
		*ret_out += h.size;
	}
	ZSTD_freeDStream(ds);
	*ret_len = len;
	return all;
}

static void test_compressed_data(void **state)
{
	struct file plain = write_many(0), z = write_many(3);
	uint64_t plain_data = u64_at(&plain, 48), table, off, out;
	unsigned char *records;
	size_t len;

	(void)state;
	/* Same attrs and ids; the data section is COMPRESSED records only. */
	assert_int_equal(u64_at(&z, 40), u64_at(&plain, 40));
	assert_memory_equal(z.data + HEADER_SIZE, plain.data + HEADER_SIZE,
			    u64_at(&z, 40) - HEADER_SIZE);
	records = decompress_data(&z, PERFDATA_COMPRESS_CHUNK, &len, &out);
	assert_int_equal(len, plain_data);
	assert_memory_equal(records, plain.data + u64_at(&plain, 40), len);
	assert_true(out * 4 < plain_data);
	free(records);

	/* EVENT_DESC, SAMPLE_TIME, then COMPRESSED (bit 27) last. */
	assert_int_equal(u64_at(&z, 72), u64_at(&plain, 72) | 1ull << 27);
	table = u64_at(&z, 40) + u64_at(&z, 48);
	off = u64_at(&z, table + 2 * 16);
	assert_int_equal(u64_at(&z, table + 2 * 16 + 8), 20);
	assert_int_equal(off + 20, z.size);
	assert_int_equal(u32_at(&z, off), 0);	  /* version: perf record writes 0 */
	assert_int_equal(u32_at(&z, off + 4), 1); /* type: zstd */
	assert_int_equal(u32_at(&z, off + 8), 3); /* level */
	assert_int_equal(u32_at(&z, off + 12), (plain_data + out / 2) / out);
	assert_int_equal(u32_at(&z, off + 16), 63 * 1024); /* mmap_len */
	free(plain.data);
	free(z.data);
}

static void test_compression_args(void **state)
{
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct perf_event_attr a;
	struct perfdata_writer *w;
	struct file f;
	int fd = new_fd();

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_compression(NULL, 1), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, -1), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, 23), -EINVAL);
	assert_int_equal(perfdata_writer__set_compression(w, 22), 0);
	assert_int_equal(perfdata_writer__set_compression(w, 0), 0); /* off again */
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__set_compression(w, 1), -EBADFD);
	assert_int_equal(perfdata_writer__write_event(w, &fin), 0);
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);
	f = read_file(fd);
	assert_int_equal(u64_at(&f, 48), 8);
	assert_int_equal(u64_at(&f, 72), 1ull << PERFDATA_FEAT_EVENT_DESC);
	free(f.data);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_header_attrs_ids_data, reset_inject),
		cmocka_unit_test_setup(test_feature_sections, reset_inject),
		cmocka_unit_test_setup(test_minimal_file, reset_inject),
		cmocka_unit_test_setup(test_provisional_header, reset_inject),
		cmocka_unit_test_setup(test_state_errors, reset_inject),
		cmocka_unit_test_setup(test_invalid_args, reset_inject),
		cmocka_unit_test_setup(test_many_events, reset_inject),
		cmocka_unit_test_setup(test_short_writes_and_eintr, reset_inject),
		cmocka_unit_test_setup(test_write_error, reset_inject),
		cmocka_unit_test_setup(test_finish_error, reset_inject),
		cmocka_unit_test_setup(test_compressed_data, reset_inject),
		cmocka_unit_test_setup(test_compression_args, reset_inject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
