// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for snapshot_objects, the one finder of the objects a
 * snapshot hits (for the symbol pack and perf.data's BUILD_ID), and for
 * snapshot_buildids, which lists them: which mappings a snapshot's samples
 * hit, through their ip or callchain, in their process or the one it was
 * forked from, the latest mapping by the sample's time (a mapping added
 * from outside the snapshot, synthesized at the dump and so stamped after
 * the samples, still names them); a file replaced at its path is two
 * objects; an address in an anonymous mapping or in none is no object's;
 * kernel addresses are listed once each, sorted, and a guest's frames are
 * nobody's; mappings no sample hits are not listed, nor the same file
 * twice.
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
#include "snapshot_objects.h"
#include "test_records.h"

#define TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CALLCHAIN)
#define KTYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define ID    7
#define KID   8

/* With @idbyte, the build-id form (20 such bytes); else the inode form, of inode @ino. */
static void mmap2_form(struct test_records *r, uint32_t pid, uint64_t start, uint8_t idbyte,
		       uint64_t ino, const char *name, uint64_t time)
{
	uint8_t id[20];

	memset(id, idbyte, sizeof(id));
	test_records__mmap2(
		r, &(struct test_mmap){ .misc = PERF_RECORD_MISC_USER |
						(idbyte ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0),
					.pid = pid,
					.tid = pid,
					.start = start,
					.len = 0x1000,
					.build_id_size = idbyte ? 20 : 0,
					.build_id = id,
					.maj = 8,
					.ino = ino,
					.prot = PROT_READ | PROT_EXEC,
					.flags = MAP_PRIVATE,
					.filename = name,
					.time = time,
					.id = ID });
}

static void mmap2(struct test_records *r, uint32_t pid, uint64_t start, uint8_t idbyte,
		  const char *name, uint64_t time)
{
	mmap2_form(r, pid, start, idbyte, 0, name, time);
}

/* Process @child forked from process @parent at @time. */
static void fork_process(struct test_records *r, uint32_t child, uint32_t parent, uint64_t time)
{
	test_records__task(r, &(struct test_task){ .type = PERF_RECORD_FORK,
						   .pid = child,
						   .ppid = parent,
						   .tid = child,
						   .ptid = parent,
						   .time = time,
						   .id = ID });
}

static void sample_in(struct test_records *r, uint16_t misc, uint32_t pid, uint64_t time,
		      const uint64_t *chain, uint64_t nr)
{
	test_records__sample(r, &(struct test_sample){ .misc = misc,
						       .id = ID,
						       .ip = chain[nr - 1],
						       .pid = pid,
						       .tid = pid,
						       .time = time,
						       .callchain = chain,
						       .callchain_nr = nr });
}

static void sample(struct test_records *r, uint32_t pid, uint64_t time, const uint64_t *chain,
		   uint64_t nr)
{
	sample_in(r, PERF_RECORD_MISC_USER, pid, time, chain, nr);
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
	fork_process(&r, 200, 100, 10);
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

static const struct snapshot_object *find_object(const struct snapshot_objects *o, const char *path,
						 uint64_t ino)
{
	for (size_t i = 0; i < snapshot_objects__nr(o); i++) {
		const struct snapshot_object *e = snapshot_objects__object(o, i);

		if (!strcmp(e->path, path) && e->ino == ino)
			return e;
	}
	return NULL;
}

static void test_objects(void **state)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .sample_type = TYPE,
				     .sample_id_all = 1 };
	struct perf_event_attr k = { .type = PERF_TYPE_TRACEPOINT,
				     .sample_type = KTYPE,
				     .sample_id_all = 1 };
	uint64_t ids[] = { ID }, kids[] = { KID };
	/* /bin/app replaced at its path: its old inode until 50, then the new one. */
	const uint64_t app[] = { PERF_CONTEXT_USER, 0x10010 };
	/* the kernel twice, then user frames in an anonymous map and in none */
	const uint64_t mixed[] = { PERF_CONTEXT_KERNEL, 0xffff0002, 0xffff0001,
				   PERF_CONTEXT_USER,	0x70010,    0x99999 };
	/* a guest's frames: nobody's here */
	const uint64_t guest[] = { PERF_CONTEXT_GUEST_USER, 0x10010 };
	/* 200, forked from 100 with no maps of its own; /lib/late.so is only added later */
	const uint64_t child[] = { PERF_CONTEXT_USER, 0x20020, 0x30030 };
	struct snapshot *s = snapshot__new();
	const struct snapshot_objects_stats *st;
	const struct snapshot_object *e;
	struct snapshot_objects *o;
	struct test_records r, extra;
	const uint64_t *kips;
	size_t nr_kips;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "cpu-clock", ids, 1), 0);
	assert_int_equal(snapshot__add_event(s, &k, "sched:sched_switch", kids, 1), 0);
	test_records__init(&r, TYPE);
	mmap2_form(&r, 100, 0x10000, 0, 1, "/bin/app", 1);
	mmap2_form(&r, 100, 0x20000, 0, 2, "/lib/a.so", 2);
	mmap2_form(&r, 100, 0x70000, 0, 0, "//anon", 3);
	mmap2_form(&r, 100, 0x10000, 0, 9, "/bin/app", 50);
	fork_process(&r, 200, 100, 10);
	sample_in(&r, PERF_RECORD_MISC_USER, 100, 20, app, 2);
	sample_in(&r, PERF_RECORD_MISC_USER, 100, 60, app, 2);
	sample_in(&r, PERF_RECORD_MISC_USER, 100, 61, app, 2);
	sample_in(&r, PERF_RECORD_MISC_KERNEL, 100, 62, mixed, 6);
	sample_in(&r, PERF_RECORD_MISC_GUEST_USER, 100, 63, guest, 2);
	sample_in(&r, PERF_RECORD_MISC_USER, 200, 64, child, 3);
	/* A tracepoint without a callchain: the kernel at its ip, read without a parse. */
	r.sample_type = KTYPE;
	test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_KERNEL,
							.id = KID,
							.ip = 0xffff0001,
							.pid = 100,
							.tid = 100,
							.time = 65 });
	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);

	o = snapshot_objects__new();
	assert_non_null(o);
	test_records__init(&extra, TYPE);
	mmap2_form(&extra, 100, 0x30000, 0, 3, "/lib/late.so", 1000);
	assert_int_equal(
		snapshot_objects__add_record(o, (struct perf_event_header *)extra.data, TYPE), 0);
	assert_int_equal(snapshot_objects__find(o, s), 0);
	assert_int_equal(snapshot_objects__find(o, s), -EBUSY); /* once */
	assert_int_equal(
		snapshot_objects__add_record(o, (struct perf_event_header *)extra.data, TYPE),
		-EBUSY);

	e = find_object(o, "/bin/app", 1);
	assert_non_null(e);
	assert_int_equal(e->nr_hits, 1);
	assert_true(e->has_ino);
	assert_int_equal(e->pid, 100);
	assert_int_equal(e->start, 0x10000);
	assert_int_equal(e->end, 0x11000);
	e = find_object(o, "/bin/app", 9);
	assert_non_null(e);
	assert_int_equal(e->nr_hits, 2);
	e = find_object(o, "/lib/a.so", 2);
	assert_non_null(e);
	assert_int_equal(e->nr_hits, 1); /* the child's, in its parent's map */
	e = find_object(o, "/lib/late.so", 3);
	assert_non_null(e);
	assert_int_equal(e->nr_hits, 1);
	assert_int_equal(snapshot_objects__nr(o), 4);

	kips = snapshot_objects__kernel_ips(o, &nr_kips);
	assert_int_equal(nr_kips, 2);
	assert_int_equal(kips[0], 0xffff0001);
	assert_int_equal(kips[1], 0xffff0002);
	st = snapshot_objects__stats(o);
	assert_int_equal(st->nr_kernel_hits, 3);
	assert_int_equal(st->nr_kernel_no_ip, 0);
	assert_int_equal(st->nr_user_unmapped, 2); /* //anon and nothing */
	snapshot_objects__delete(o);
	snapshot_objects__delete(NULL);
	test_records__fini(&extra);
	test_records__fini(&r);
	snapshot__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_objects),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
