// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for perfdata_writer: the bytes of the header, attrs, ids, data
 * and feature sections, and the state machine.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
#include "test_records.h"

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
	struct test_records r;
	size_t data = 0;
	int i;

	assert_non_null(w);
	test_records__init(&r, 0);
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
		const struct perf_event_header *h = test_records__pattern(
			&r, (uint16_t)(16 + 8 * i), i, false);

		assert_int_equal(perfdata_writer__write_event(w, h), 0);
		data += h->size;
	}
	test_records__fini(&r);
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
	struct test_records r;
	uint64_t data_off;
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

	test_records__init(&r, 0);
	for (i = 0; i < 3; i++)
		test_records__pattern(&r, (uint16_t)(16 + 8 * i), i, false);
	assert_int_equal(r.len, data);
	assert_memory_equal(f.data + data_off, r.data, r.len);
	test_records__fini(&r);
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
	const struct perf_event_header *h;
	struct perfdata_writer *w;
	struct test_records r;
	struct file f;
	int fd = new_fd(), i;

	(void)state;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 1, 1), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	test_records__init(&r, 0);
	h = test_records__pattern(&r, 64, 3, false);
	for (i = 0; i < 5000; i++)
		assert_int_equal(perfdata_writer__write_event(w, h), 0);
	test_records__fini(&r);
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

/* Writes 12000 records of mixed sizes, one by one or (@runs) in three runs. */
static struct file write_mixed(bool runs)
{
	struct perf_event_attr a;
	struct perfdata_writer *w;
	struct test_records all;
	size_t cut = 0;
	struct file f;
	int fd = new_fd();

	test_records__init(&all, 0);
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	for (uint32_t i = 0; i < 12000; i++) {
		const struct perf_event_header *h = test_records__pattern(
			&all, (uint16_t)(8 + 8 * (i % 15)), i, false);

		if (!runs)
			assert_int_equal(perfdata_writer__write_event(w, h), 0);
		if (i == 6)
			cut = all.len;
	}
	if (runs) {
		/* A few buffered, then one large enough to go out without a copy, then none. */
		assert_int_equal(perfdata_writer__write_events(w, all.data, cut), 0);
		assert_int_equal(perfdata_writer__write_events(w, all.data + cut, all.len - cut),
				 0);
		assert_int_equal(perfdata_writer__write_events(w, all.data, 0), 0);
	}
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);
	f = read_file(fd);
	close(fd);
	test_records__fini(&all);
	return f;
}

/* Records written in runs make the file written record by record. */
static void test_write_events(void **state)
{
	struct file one = write_mixed(false), runs = write_mixed(true);
	struct perf_event_header *h;
	struct perf_event_attr a;
	struct test_records rec;
	struct perfdata_writer *w;
	int fd = new_fd();

	(void)state;
	assert_true(one.size > 2 * 256 * 1024);
	assert_int_equal(runs.size, one.size);
	assert_memory_equal(runs.data, one.data, one.size);
	free(one.data);
	free(runs.data);

	/* Not whole records: refused, nothing written, the writer still usable. */
	test_records__init(&rec, 0);
	test_records__pattern(&rec, 16, 1, false);
	test_records__pattern(&rec, 16, 2, false);
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__write_events(w, rec.data, 16), -EBADFD);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__write_events(w, rec.data, 8), -EINVAL);
	assert_int_equal(perfdata_writer__write_events(w, rec.data, 20), -EINVAL);
	assert_int_equal(perfdata_writer__write_events(w, NULL, 16), -EINVAL);
	h = (struct perf_event_header *)rec.data;
	h->size = 12;
	assert_int_equal(perfdata_writer__write_events(w, rec.data, 16), -EINVAL);
	assert_int_equal(perfdata_writer__finish(w), 0);
	assert_int_equal(perfdata_writer__size(w),
			 HEADER_SIZE + ATTR_ENTRY + 16 + 8 + ATTR_SIZE + 4 + 4 + 64);
	perfdata_writer__delete(w);
	close(fd);
	test_records__fini(&rec);
}

/* A run torn after its first piece went out fails the writer: the file holds part of it. */
static void test_write_events_torn(void **state)
{
	size_t n = 1u << 20, rec = 64;
	struct perf_event_attr a;
	struct perfdata_writer *w;
	struct test_records run;
	int fd = new_fd();

	(void)state;
	test_records__init(&run, 0);
	while (run.len < n)
		test_records__pattern(&run, (uint16_t)rec, 1, false);
	((struct perf_event_header *)(run.data + n - rec))->size = 12;
	tp_attr(&a, 1);
	w = perfdata_writer__new(fd);
	assert_int_equal(perfdata_writer__add_attr(w, &a, "x:y", NULL, 0), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	assert_int_equal(perfdata_writer__write_events(w, run.data, n), -EINVAL);
	assert_int_equal(perfdata_writer__write_event(w, (void *)run.data), -EBADFD);
	assert_int_equal(perfdata_writer__finish(w), -EBADFD);
	perfdata_writer__delete(w);
	close(fd);
	test_records__fini(&run);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_header_attrs_ids_data, reset_inject),
		cmocka_unit_test_setup(test_feature_sections, reset_inject),
		cmocka_unit_test_setup(test_minimal_file, reset_inject),
		cmocka_unit_test_setup(test_provisional_header, reset_inject),
		cmocka_unit_test_setup(test_write_events, reset_inject),
		cmocka_unit_test_setup(test_write_events_torn, reset_inject),
		cmocka_unit_test_setup(test_state_errors, reset_inject),
		cmocka_unit_test_setup(test_invalid_args, reset_inject),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
