// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for snapshot_tasks and snapshot_callchain: the one decoder of
 * COMM, FORK, EXIT, MMAP and MMAP2 records (names end before the trailer,
 * an MMAP2's inode or build-id form, an MMAP of data is not executable),
 * the names and parents the records give in time order, and the walk of a
 * sample's frames with the context of each.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "snapshot_callchain.h"
#include "snapshot_tasks.h"
#include "test_records.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define ID   7

static const struct perf_event_header *comm(struct test_records *r, uint16_t misc, uint32_t pid,
					    uint32_t tid, const char *name, uint64_t time)
{
	return test_records__comm(r, &(struct test_comm){ .misc = misc,
							  .pid = pid,
							  .tid = tid,
							  .comm = name,
							  .time = time,
							  .id = ID });
}

static const struct perf_event_header *task(struct test_records *r, uint32_t type, uint32_t pid,
					    uint32_t ppid, uint32_t tid, uint32_t ptid,
					    uint64_t time)
{
	return test_records__task(r, &(struct test_task){ .type = type,
							  .pid = pid,
							  .ppid = ppid,
							  .tid = tid,
							  .ptid = ptid,
							  .time = time,
							  .id = ID });
}

static void test_decode(void **state)
{
	static const uint8_t id[20] = { 0xab, 1, 2, 3 };
	struct snapshot_task_record rec;
	struct test_records r;
	struct perf_event_header *h;

	(void)state;
	test_records__init(&r, TYPE);
	h = (struct perf_event_header *)comm(&r, PERF_RECORD_MISC_COMM_EXEC, 10, 11, "sleep", 5);
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(rec.pid, 10);
	assert_int_equal(rec.tid, 11);
	assert_string_equal(rec.comm, "sleep");
	assert_true(rec.exec);
	assert_int_equal(rec.time, 5);
	/* A name that runs into the trailer is none. */
	memset((uint8_t *)(h + 1) + 8, 'x', h->size - sizeof(*h) - 8 - 24);
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), -EINVAL);

	h = (struct perf_event_header *)task(&r, PERF_RECORD_FORK, 20, 10, 21, 11, 6);
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(rec.type, PERF_RECORD_FORK);
	assert_int_equal(rec.pid, 20);
	assert_int_equal(rec.ppid, 10);
	assert_int_equal(rec.tid, 21);
	assert_int_equal(rec.ptid, 11);
	assert_int_equal(rec.time, 6);
	h = (struct perf_event_header *)task(&r, PERF_RECORD_EXIT, 20, 10, 21, 11, 7);
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(rec.type, PERF_RECORD_EXIT);
	assert_int_equal(rec.tid, 21);

	h = test_records__mmap(&r, &(struct test_mmap){ .misc = PERF_RECORD_MISC_MMAP_DATA,
							.pid = 10,
							.tid = 10,
							.start = 0x1000,
							.len = 0x2000,
							.pgoff = 0x3000,
							.filename = "/data",
							.time = 8,
							.id = ID });
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(rec.start, 0x1000);
	assert_int_equal(rec.len, 0x2000);
	assert_int_equal(rec.pgoff, 0x3000);
	assert_string_equal(rec.filename, "/data");
	assert_false(rec.prot & PROT_EXEC);
	assert_false(rec.has_ino);

	h = test_records__mmap2(&r, &(struct test_mmap){ .pid = 10,
							 .start = 0x1000,
							 .len = 0x2000,
							 .maj = 8,
							 .min = 1,
							 .ino = 1234,
							 .prot = PROT_READ | PROT_EXEC,
							 .filename = "/bin/x",
							 .id = ID });
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_true(rec.has_ino);
	assert_int_equal(rec.maj, 8);
	assert_int_equal(rec.min, 1);
	assert_int_equal(rec.ino, 1234);
	assert_true(rec.prot & PROT_EXEC);
	assert_int_equal(rec.build_id_size, 0);
	assert_string_equal(rec.filename, "/bin/x");

	h = test_records__mmap2(&r, &(struct test_mmap){ .misc = PERF_RECORD_MISC_MMAP_BUILD_ID,
							 .pid = 10,
							 .len = 0x1000,
							 .build_id_size = 4,
							 .build_id = id,
							 .prot = PROT_READ | PROT_EXEC,
							 .filename = "/lib/y.so",
							 .id = ID });
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_false(rec.has_ino);
	assert_int_equal(rec.build_id_size, 4);
	assert_memory_equal(rec.build_id, id, 4);
	/* A size past the field: no build-id. */
	((uint8_t *)(h + 1))[32] = 21;
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(rec.build_id_size, 0);
	assert_null(rec.build_id);

	h = test_records__lost(&r, &(struct test_lost){ .id = ID, .lost = 1 });
	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), -ENOMSG);
	test_records__fini(&r);
}

static void take(struct snapshot_tasks *t, const struct perf_event_header *h)
{
	struct snapshot_task_record rec;

	assert_int_equal(snapshot_tasks__decode(h, TYPE, &rec), 0);
	assert_int_equal(snapshot_tasks__take(t, &rec), 0);
}

/*
 * bash (100, a child of 1) runs a thread 101 and forks 200, which execs
 * sleep; 300 was named before a FORK from a parent the records never name.
 * 500 forked where nothing recorded it (another CPU) and exits, a child of
 * 100 by its EXIT, which never overrides a FORK's parent: 200's EXIT
 * after a reparent to 1 leaves it 100's.
 */
static void test_names(void **state)
{
	struct snapshot_tasks *t = snapshot_tasks__new();
	const struct snapshot_task_info *e;
	struct test_records r;
	size_t pos = 0, n = 0;

	(void)state;
	assert_non_null(t);
	test_records__init(&r, TYPE);
	take(t, task(&r, PERF_RECORD_FORK, 100, 1, 100, 1, 10));
	take(t, comm(&r, 0, 100, 100, "bash", 11));
	take(t, task(&r, PERF_RECORD_FORK, 100, 100, 101, 100, 12));
	take(t, task(&r, PERF_RECORD_FORK, 200, 100, 200, 100, 13));
	assert_string_equal(snapshot_tasks__comm(t, 200), "bash");
	take(t, comm(&r, PERF_RECORD_MISC_COMM_EXEC, 200, 200, "sleep", 14));
	take(t, comm(&r, 0, 300, 300, "early", 15));
	take(t, task(&r, PERF_RECORD_FORK, 300, 999, 300, 999, 16));
	take(t, task(&r, PERF_RECORD_EXIT, 200, 1, 200, 1, 17));
	take(t, comm(&r, PERF_RECORD_MISC_COMM_EXEC, 500, 500, "sleep", 18));
	take(t, task(&r, PERF_RECORD_EXIT, 500, 100, 500, 100, 19));
	take(t, task(&r, PERF_RECORD_EXIT, 101, 100, 101, 100, 20)); /* a thread's */

	e = snapshot_tasks__find(t, 100);
	assert_non_null(e);
	assert_int_equal(e->ppid, 1);
	assert_int_equal(e->named_at, 11);
	e = snapshot_tasks__find(t, 101);
	assert_non_null(e);
	assert_string_equal(e->comm, "bash"); /* its parent's */
	assert_int_equal(e->pid, 100);
	assert_int_equal(e->ppid, 0); /* a thread: its process is its parent */
	e = snapshot_tasks__find(t, 200);
	assert_string_equal(e->comm, "sleep");
	assert_int_equal(e->ppid, 100);
	assert_int_equal(e->named_at, 14); /* the EXIT names nothing */
	e = snapshot_tasks__find(t, 300);
	assert_string_equal(e->comm, "early");
	assert_int_equal(e->ppid, 999);
	assert_int_equal(e->named_at, 16);
	e = snapshot_tasks__find(t, 500);
	assert_non_null(e);
	assert_int_equal(e->ppid, 100);
	assert_int_equal(snapshot_tasks__find(t, 101)->ppid, 0);

	assert_int_equal(snapshot_tasks__add(t, 400, 0), 0);
	assert_int_equal(snapshot_tasks__add(t, 0, 0), 0);
	assert_null(snapshot_tasks__comm(t, 400));
	assert_null(snapshot_tasks__find(t, 401));
	while ((e = snapshot_tasks__next(t, &pos)))
		n++;
	assert_int_equal(n, 6);
	assert_int_equal(snapshot_tasks__nr(t), 6);
	test_records__fini(&r);
	snapshot_tasks__delete(t);
	snapshot_tasks__delete(NULL);
}

static size_t walk(const struct perf_record_info *info, uint64_t sample_type, uint16_t misc,
		   struct snapshot_frame *v, size_t max)
{
	struct snapshot_callchain c;
	size_t nr = 0;

	snapshot_callchain__begin(&c, info, sample_type, misc);
	while (nr < max && snapshot_callchain__next(&c, &v[nr]))
		nr++;
	return nr;
}

static void test_callchain(void **state)
{
	const uint64_t chain[] = { (uint64_t)PERF_CONTEXT_KERNEL,
				   0xffff1,
				   0xffff2,
				   (uint64_t)PERF_CONTEXT_USER,
				   0x401,
				   (uint64_t)-3000,
				   0x402,
				   (uint64_t)PERF_CONTEXT_GUEST_USER,
				   0x403 };
	struct perf_record_info info = { .ip = 0x77,
					 .callchain = chain,
					 .callchain_nr = sizeof(chain) / sizeof(chain[0]) };
	struct snapshot_frame v[16];

	(void)state;
	assert_int_equal(
		walk(&info, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, PERF_RECORD_MISC_KERNEL, v, 16),
		5);
	assert_int_equal(v[0].ip, 0xffff1);
	assert_int_equal(v[0].context, SNAPSHOT_CONTEXT_KERNEL);
	assert_int_equal(v[1].context, SNAPSHOT_CONTEXT_KERNEL);
	assert_int_equal(v[2].ip, 0x401);
	assert_int_equal(v[2].context, SNAPSHOT_CONTEXT_USER);
	assert_int_equal(v[3].ip, 0x402);
	assert_int_equal(v[3].context, SNAPSHOT_CONTEXT_UNKNOWN); /* after no known marker */
	assert_int_equal(v[4].context, SNAPSHOT_CONTEXT_GUEST_USER);
	/* Frames before any marker: the sample's cpumode. */
	info.callchain = chain + 4;
	info.callchain_nr = 1;
	assert_int_equal(walk(&info, PERF_SAMPLE_CALLCHAIN, PERF_RECORD_MISC_GUEST_KERNEL, v, 16),
			 1);
	assert_int_equal(v[0].context, SNAPSHOT_CONTEXT_GUEST_KERNEL);
	/* No callchain: the ip, if the sample has one. */
	info.callchain_nr = 0;
	assert_int_equal(walk(&info, PERF_SAMPLE_IP, PERF_RECORD_MISC_USER, v, 16), 1);
	assert_int_equal(v[0].ip, 0x77);
	assert_int_equal(v[0].context, SNAPSHOT_CONTEXT_USER);
	assert_int_equal(walk(&info, PERF_SAMPLE_CALLCHAIN, PERF_RECORD_MISC_USER, v, 16), 0);
	assert_int_equal(snapshot_callchain__context(PERF_RECORD_MISC_HYPERVISOR),
			 SNAPSHOT_CONTEXT_HYPERVISOR);
	assert_int_equal(snapshot_callchain__context(7), SNAPSHOT_CONTEXT_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_callchain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
