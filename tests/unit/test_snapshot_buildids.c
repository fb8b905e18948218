// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for snapshot_buildids: which mappings a snapshot's samples
 * hit, through their ip or callchain, in their process or the one it was
 * forked from, the latest mapping by the sample's time; mappings no sample
 * hits are not listed, nor the same file twice.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "snapshot.h"
#include "snapshot_buildids.h"
#include "test_records.h"

#define TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CALLCHAIN)
#define ID 7

static void mmap2(struct test_records *r, uint32_t pid, uint64_t start, uint8_t idbyte,
		  const char *name, uint64_t time)
{
	uint8_t id[20];

	memset(id, idbyte, sizeof(id));
	test_records__mmap2(r, &(struct test_mmap){ .misc = PERF_RECORD_MISC_USER |
							    PERF_RECORD_MISC_MMAP_BUILD_ID,
						    .pid = pid,
						    .tid = pid,
						    .start = start,
						    .len = 0x1000,
						    .build_id_size = 20,
						    .build_id = id,
						    .prot = PROT_READ | PROT_EXEC,
						    .flags = MAP_PRIVATE,
						    .filename = name,
						    .time = time,
						    .id = ID });
}

static void sample(struct test_records *r, uint32_t pid, uint64_t time, const uint64_t *chain,
		   uint64_t nr)
{
	test_records__sample(r, &(struct test_sample){ .misc = PERF_RECORD_MISC_USER,
						       .id = ID,
						       .ip = chain[nr - 1],
						       .pid = pid,
						       .tid = pid,
						       .time = time,
						       .callchain = chain,
						       .callchain_nr = nr });
}

static const struct snapshot_buildid *find(const struct snapshot_buildids *b, const char *name)
{
	for (size_t i = 0; i < snapshot_buildids__nr(b); i++)
		if (!strcmp(snapshot_buildids__entry(b, i)->name, name))
			return snapshot_buildids__entry(b, i);
	return NULL;
}

static void test_hits(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .sample_type = TYPE,
				     .sample_id_all = 1 };
	uint64_t ids[] = { ID };
	/* user frames in /app and /lib/a.so */
	const uint64_t chain1[] = { PERF_CONTEXT_USER, 0x10010, 0x20020 };
	/* 200 (forked from 100, no maps of its own) in /lib/b.so, which only it hits */
	const uint64_t chain2[] = { PERF_CONTEXT_USER, 0x40030 };
	/* at 0x30000: /lib/old.so until 50, then /lib/new.so */
	const uint64_t chain3[] = { PERF_CONTEXT_USER, 0x30040 };
	struct snapshot *s = snapshot__new();
	const struct snapshot_buildid *e;
	struct snapshot_buildids *b;
	struct test_records r;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "cpu-clock", ids, 1), 0);
	test_records__init(&r, TYPE);
	mmap2(&r, 100, 0x10000, 0x11, "/app", 1);
	mmap2(&r, 100, 0x20000, 0x22, "/lib/a.so", 2);
	mmap2(&r, 100, 0x90000, 0x99, "/lib/unused.so", 3);
	mmap2(&r, 100, 0x40000, 0x66, "/lib/b.so", 3);
	mmap2(&r, 100, 0x30000, 0x33, "/lib/old.so", 4);
	mmap2(&r, 100, 0x30000, 0x44, "/lib/new.so", 50);
	mmap2(&r, 300, 0x20000, 0x55, "/lib/a.so", 5); /* another process's a.so */
	test_records__task(&r, &(struct test_task){ .type = PERF_RECORD_FORK,
						    .pid = 200,
						    .ppid = 100,
						    .tid = 200,
						    .ptid = 100,
						    .time = 10,
						    .id = ID });
	sample(&r, 100, 20, chain1, 3);
	sample(&r, 100, 21, chain1, 3); /* again: listed once */
	sample(&r, 200, 30, chain2, 2);
	sample(&r, 100, 60, chain3, 2);
	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);

	b = snapshot_buildids__new();
	assert_non_null(b);
	assert_int_equal(snapshot_buildids__scan(b, s), 0);
	e = find(b, "/app");
	assert_non_null(e);
	assert_int_equal(e->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(e->id.size, 20);
	assert_int_equal(e->id.data[0], 0x11);
	e = find(b, "/lib/a.so");
	assert_non_null(e);
	assert_int_equal(e->id.data[19], 0x22); /* process 100's, not 300's */
	e = find(b, "/lib/b.so");
	assert_non_null(e);
	assert_int_equal(e->id.data[0], 0x66);
	e = find(b, "/lib/new.so");
	assert_non_null(e);
	assert_int_equal(e->id.data[0], 0x44);
	assert_null(find(b, "/lib/old.so")); /* replaced before the sample */
	assert_null(find(b, "/lib/unused.so"));
	/* No kernel frame, so no kernel entry; /app, a.so, b.so, new.so once each. */
	assert_null(find(b, "[kernel.kallsyms]"));
	assert_int_equal(snapshot_buildids__nr(b), 4);
	assert_int_equal(snapshot_buildids__scan(b, s), -EINVAL); /* once */
	snapshot_buildids__delete(b);
	test_records__fini(&r);
	snapshot__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
