/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * test_records: perf records built by hand for the tests, as the kernel
 * lays them out. A struct test_records is a growing run of records back to
 * back (8-byte aligned, each a multiple of 8 bytes) for one sample_type:
 * a SAMPLE holds the fields its bits name, in the kernel's order, and every
 * other kernel record ends in the sample_id_all trailer of those bits. The
 * bytes are written here from the ABI in <linux/perf_event.h>, not with
 * perf_record or perf_sample_layout, so that the tests of those readers
 * do not check them against themselves.
 *
 * Each record function returns the record it added, in r->data: valid up
 * to the next addition, writable (a test may cut or corrupt it). r->len
 * may be lowered to cut the run. Misuse (a field the builder cannot write,
 * a record over 64 KiB, a record begun off an 8-byte boundary) and a failed
 * allocation abort: a test cannot go on without its records.
 */
#ifndef PERFSNAPD_TEST_RECORDS_H
#define PERFSNAPD_TEST_RECORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct test_records {
	uint64_t sample_type; /* of the records to come: may change between them */
	uint8_t *data;
	size_t len, cap;
	size_t nr;    /* records added */
	size_t start; /* of the record between __begin and __end */
};

/*
 * The fields of a PERF_RECORD_SAMPLE; only those sample_type names are
 * written. The sample_type may hold IDENTIFIER, IP, TID, TIME, ADDR, ID,
 * STREAM_ID, CPU, PERIOD, CALLCHAIN and RAW. RAW is padded as the kernel
 * pads it: its size word says raw_size rounded up so that size word and
 * data end on 8 bytes, the padding zeros.
 */
struct test_sample {
	uint16_t misc;
	uint64_t id; /* IDENTIFIER and ID */
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint64_t addr;
	uint64_t stream_id;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain;
	uint64_t callchain_nr;
	const void *raw;
	uint32_t raw_size;
};

/*
 * The other records: their own fields, then time, id and cpu for the
 * trailer, whose pid and tid are the record's (0 for LOST) and whose
 * STREAM_ID, when sample_type has it, is the id.
 */

/* PERF_RECORD_COMM (PERF_RECORD_MISC_COMM_EXEC in misc for an exec). */
struct test_comm {
	uint16_t misc;
	uint32_t pid, tid;
	const char *comm; /* written whole, NUL and padding after it */
	uint16_t size;	  /* of the record, zeros before the trailer; 0: the least */
	uint64_t time, id;
	uint32_t cpu;
};

/*
 * PERF_RECORD_MMAP (pid to pgoff and filename) or PERF_RECORD_MMAP2. With
 * PERF_RECORD_MISC_MMAP_BUILD_ID in misc, an MMAP2 carries build_id_size
 * and build_id where maj, min, ino and ino_generation would be.
 */
struct test_mmap {
	uint16_t misc;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint32_t maj, min;
	uint64_t ino, ino_generation;
	uint8_t build_id_size;
	const uint8_t *build_id; /* build_id_size bytes, at most 20 */
	uint32_t prot, flags;
	const char *filename;
	uint64_t time, id;
	uint32_t cpu;
};

/* PERF_RECORD_FORK or PERF_RECORD_EXIT; time is also the record's own. */
struct test_task {
	uint32_t type;
	uint16_t misc;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time, id;
	uint32_t cpu;
};

/* PERF_RECORD_LOST: @lost records of the event @id. */
struct test_lost {
	uint16_t misc;
	uint64_t id, lost;
	uint64_t time;
	uint32_t cpu;
};

/*
 * An empty run for @sample_type; __fini() frees it. A struct test_records
 * of zeros, or with only .sample_type set, is one too.
 */
void test_records__init(struct test_records *r, uint64_t sample_type);
/* Empties the run, keeping its memory (and sample_type). */
void test_records__reset(struct test_records *r);
void test_records__fini(struct test_records *r);

struct perf_event_header *test_records__sample(struct test_records *r, const struct test_sample *s);
struct perf_event_header *test_records__comm(struct test_records *r, const struct test_comm *c);
struct perf_event_header *test_records__mmap(struct test_records *r, const struct test_mmap *m);
struct perf_event_header *test_records__mmap2(struct test_records *r, const struct test_mmap *m);
struct perf_event_header *test_records__task(struct test_records *r, const struct test_task *t);
struct perf_event_header *test_records__lost(struct test_records *r, const struct test_lost *l);

/*
 * A SAMPLE of @size bytes (8 or more, a multiple of 8) that only carries
 * bytes, for code that moves records without reading them: misc is the
 * low 16 bits of @seed, the first word after the header @seed, the rest
 * bytes that depend on @seed and on their offset, so a record out of place
 * or a byte moved shows. @noise: bytes zstd cannot shrink; else a pattern
 * that shrinks well.
 */
struct perf_event_header *test_records__pattern(struct test_records *r, uint16_t size,
						uint64_t seed, bool noise);

/*
 * Any other record (perf's own, a malformed one): __begin() writes the
 * header, __put*() its payload, __end() pads it with zeros to 8 bytes and
 * sets its size.
 */
void test_records__begin(struct test_records *r, uint32_t type, uint16_t misc);
struct perf_event_header *test_records__end(struct test_records *r);

/* Bytes as they are, in a record or between records (a file's own header). */
void test_records__put(struct test_records *r, const void *data, size_t len);
void test_records__put_u32(struct test_records *r, uint32_t v);
void test_records__put_u64(struct test_records *r, uint64_t v);
/* @s and its NUL. */
void test_records__put_str(struct test_records *r, const char *s);

#endif
