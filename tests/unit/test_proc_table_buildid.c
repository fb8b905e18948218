// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the build-ids of proc_table: a mapping that came without
 * one (inode form, as the kernel writes it when the note's page is not in
 * memory, or seeded from /proc) is emitted in MMAP2's build-id form with
 * the id of the file mapped, even once that file is deleted; one that came
 * with one keeps it; with reading off, the inode form stays. A reader given
 * to the table reads instead; the opener it may use opens only the file
 * mapped. An id just read answers for its inode and generation a while
 * (buildid_recent), and is renewed past half of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <perf/event.h>

#include "buildid_recent.h"
#include "elf_buildid.h"
#include "perf_record.h"
#include "proc_table.h"
#include "proc_table_test.h"
#include "test_records.h"

/* A copy of this test's binary, mapped executable, then deleted. */
struct deleted_map {
	char path[64];
	void *addr;
	size_t len;
	struct elf_buildid id;
};

static void map_deleted_copy(struct deleted_map *d)
{
	char buf[65536];
	struct stat st;
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	assert_true(in >= 0);
	assert_int_equal(elf_buildid__read_fd(in, &d->id), 0);
	snprintf(d->path, sizeof(d->path), "ptbid-%d.elf", (int)getpid());
	out = open(d->path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	assert_int_equal(fstat(out, &st), 0);
	d->len = (size_t)st.st_size & ~(size_t)4095;
	d->addr = mmap(NULL, d->len, PROT_READ | PROT_EXEC, MAP_PRIVATE, out, 0);
	assert_true(d->addr != MAP_FAILED);
	close(out);
	/* A different file at the same path: map_files must not read this one. */
	assert_int_equal(unlink(d->path), 0);
	out = open(d->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(out >= 0);
	assert_int_equal(write(out, "not ELF\n", 8), 8);
	close(out);
}

/* Each file its own inode @ino: the table trusts an id just read for its inode. */
static struct perf_event_header *inode_mmap2(struct test_records *rec, uint32_t pid, uint64_t start,
					     uint64_t len, const char *name, uint64_t ino,
					     uint64_t time)
{
	return test_records__mmap2(rec, &(struct test_mmap){ .misc = PERF_RECORD_MISC_USER,
							     .pid = pid,
							     .tid = pid,
							     .start = start,
							     .len = len,
							     .maj = 8,
							     .min = 1,
							     .ino = ino,
							     .prot = PROT_READ | PROT_EXEC,
							     .flags = MAP_PRIVATE,
							     .filename = name,
							     .time = time,
							     .id = 1,
							     .cpu = 0 });
}

static void expect_build_id(const struct perf_event_header *h, const struct elf_buildid *id)
{
	const struct perf_record_mmap2 *r = (const void *)h;

	assert_int_equal(r->header.type, PERF_RECORD_MMAP2);
	assert_int_equal(r->header.misc, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	assert_int_equal(r->build_id_size, id->size);
	assert_memory_equal(r->build_id, id->data, id->size);
}

static void test_record_of_deleted_file(void **state)
{
	struct proc_table *t = proc_table__new(8);
	uint32_t pid = (uint32_t)getpid();
	struct snapshot_task tasks[] = { { (pid_t)pid, (pid_t)pid } };
	struct collector c = { 0 };
	struct test_records rec;
	struct deleted_map d;
	char name[96];

	(void)state;
	assert_non_null(t);
	map_deleted_copy(&d);
	proc_table__set_read_build_ids(t, true);
	test_records__init(&rec, ST);
	snprintf(name, sizeof(name), "%s/%s (deleted)", getenv("PWD") ? getenv("PWD") : ".",
		 d.path);
	feed(t, inode_mmap2(&rec, pid, (uintptr_t)d.addr, d.len, name, 1234, 5));
	test_records__reset(&rec);
	/* Gone from memory and from its path: nothing to read, the inode form stays. */
	feed(t, inode_mmap2(&rec, pid, 0x1000, 0x1000, "/nonexistent/lib.so", 1235, 6));
	test_records__fini(&rec);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 1);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_none, 1);

	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_build_id(c.rec[0], &d.id);
	assert_int_equal(c.rec[1]->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(((const struct perf_record_mmap2 *)c.rec[1])->ino, 1235);
	collector_free(&c);
	proc_table__delete(t);
	munmap(d.addr, d.len);
	unlink(d.path);
}

/* A pid already gone: the path is read only if it is still the file mapped. */
static void test_path_checked_by_inode(void **state)
{
	struct proc_table *t = proc_table__new(8);
	struct snapshot_task tasks[] = { { 0, 0 } };
	struct collector c = { 0 };
	struct test_records rec;
	struct elf_buildid id;
	struct test_mmap m;
	struct stat st;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t gone = fork();

	(void)state;
	assert_non_null(t);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	tasks[0] = (struct snapshot_task){ gone, gone };
	assert_int_equal(stat(exe, &st), 0);
	assert_int_equal(elf_buildid__read_path(exe, &id), 0);
	proc_table__set_read_build_ids(t, true);
	test_records__init(&rec, ST);
	m = (struct test_mmap){ .misc = PERF_RECORD_MISC_USER,
				.pid = (uint32_t)gone,
				.tid = (uint32_t)gone,
				.start = 0x10000,
				.len = 0x1000,
				.maj = major(st.st_dev),
				.min = minor(st.st_dev),
				.ino = st.st_ino + 1, /* another file was mapped there */
				.prot = PROT_READ | PROT_EXEC,
				.flags = MAP_PRIVATE,
				.filename = exe,
				.time = 5,
				.id = 1 };
	feed(t, test_records__mmap2(&rec, &m));
	test_records__reset(&rec);
	m.start = 0x20000;
	m.ino = st.st_ino; /* the very file */
	m.time = 6;
	feed(t, test_records__mmap2(&rec, &m));
	test_records__fini(&rec);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_none, 1);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 1);

	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(c.rec[0]->misc, PERF_RECORD_MISC_USER);
	expect_build_id(c.rec[1], &id);
	collector_free(&c);
	proc_table__delete(t);
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
	ssize_t n;

	assert_true(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
}

/*
 * Ids read are remembered by the file, not by its inode number alone: the
 * same inode rewritten with another object (a new change time and size)
 * is read again.
 */
static void test_cache_sees_rewrite(void **state)
{
	struct proc_table *t = proc_table__new(8);
	struct collector c = { 0 };
	struct elf_buildid first, second;
	struct test_records rec;
	struct test_mmap m;
	struct stat st;
	char path[64], abs[4200], cwd[4096];
	pid_t gone = fork();
	struct snapshot_task tasks[1];

	(void)state;
	assert_non_null(t);
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	tasks[0] = (struct snapshot_task){ gone, gone };
	snprintf(path, sizeof(path), "ptbid-cache-%d.elf", (int)getpid());
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(abs, sizeof(abs), "%s/%s", cwd, path);
	copy_file("/proc/self/exe", path);
	assert_int_equal(elf_buildid__read_path(path, &first), 0);
	assert_int_equal(stat(path, &st), 0);
	proc_table__set_read_build_ids(t, true);
	test_records__init(&rec, ST);
	m = (struct test_mmap){ .misc = PERF_RECORD_MISC_USER,
				.pid = (uint32_t)gone,
				.tid = (uint32_t)gone,
				.start = 0x10000,
				.len = 0x1000,
				.maj = major(st.st_dev),
				.min = minor(st.st_dev),
				.ino = st.st_ino,
				.prot = PROT_READ | PROT_EXEC,
				.flags = MAP_PRIVATE,
				.filename = abs,
				.time = 5,
				.id = 1 };
	feed(t, test_records__mmap2(&rec, &m));
	test_records__reset(&rec);
	/* Another object in the same inode. */
	copy_file("/bin/true", path);
	assert_int_equal(elf_buildid__read_path(path, &second), 0);
	assert_true(memcmp(&first, &second, sizeof(first)));
	/*
	 * Within a second of its read the table trusts an id by the record's
	 * inode and generation (test_recent_ids); another generation makes it
	 * read, and what is tested here is the file's own check.
	 */
	m.ino_generation = 1;
	m.start = 0x20000;
	m.time = 6;
	feed(t, test_records__mmap2(&rec, &m));
	test_records__fini(&rec);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 2);
	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	expect_build_id(c.rec[0], &first);
	expect_build_id(c.rec[1], &second);
	collector_free(&c);
	proc_table__delete(t);
	unlink(path);
}

static void test_reading_off(void **state)
{
	static const uint8_t kernel_id[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	struct proc_table *t = proc_table__new(8);
	uint32_t pid = (uint32_t)getpid();
	struct snapshot_task tasks[] = { { (pid_t)pid, (pid_t)pid } };
	struct collector c = { 0 };
	struct test_records rec;

	(void)state;
	assert_non_null(t);
	test_records__init(&rec, ST);
	feed(t, inode_mmap2(&rec, pid, 0x1000, 0x1000, "/proc/self/exe", 1234, 5));
	/* An id the kernel gave (another tool asked for them) is dropped too. */
	feed(t, test_records__mmap2(&rec, &(struct test_mmap){
						  .misc = PERF_RECORD_MISC_USER |
							  PERF_RECORD_MISC_MMAP_BUILD_ID,
						  .pid = pid,
						  .tid = pid,
						  .start = 0x9000,
						  .len = 0x1000,
						  .build_id_size = 20,
						  .build_id = kernel_id,
						  .prot = PROT_READ | PROT_EXEC,
						  .flags = MAP_PRIVATE,
						  .filename = "/kernel-gave-an-id",
						  .time = 6,
						  .id = 1,
						  .cpu = 1,
					  }));
	test_records__fini(&rec);
	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(c.rec[0]->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(c.rec[1]->misc, PERF_RECORD_MISC_USER);
	assert_string_equal(((const struct perf_record_mmap2 *)c.rec[1])->filename,
			    "/kernel-gave-an-id");
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 0);
	collector_free(&c);
	proc_table__delete(t);
}

/* This process, seeded from /proc: its executable's mapping carries its id. */
static void test_seeded(void **state)
{
	struct proc_table *t = proc_table__new(1 << 16);
	pid_t pid = getpid();
	struct snapshot_task tasks[] = { { pid, pid } };
	struct collector c = { 0 };
	struct elf_buildid id;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	size_t found = 0;

	(void)state;
	assert_non_null(t);
	assert_true(n > 0);
	exe[n] = '\0';
	assert_int_equal(elf_buildid__read_path(exe, &id), 0);
	proc_table__set_read_build_ids(t, true);
	assert_true(proc_table__seed_from_proc(t, 0) > 0);
	assert_true(proc_table__stats(t)->nr_build_ids_read > 0);
	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	for (size_t i = 0; i < c.nr; i++) {
		const struct perf_record_mmap2 *r = (const void *)c.rec[i];

		if (r->header.type != PERF_RECORD_MMAP2 || strcmp(r->filename, exe))
			continue;
		expect_build_id(c.rec[i], &id);
		found++;
	}
	assert_true(found > 0);
	collector_free(&c);
	proc_table__delete(t);
}

struct reader_calls {
	int nr;
	struct proc_table_mapping last;
	char path[256];
};

static int fake_reader(void *ctx, const struct proc_table_mapping *m, struct elf_buildid *ret)
{
	struct reader_calls *calls = ctx;

	calls->nr++;
	calls->last = *m;
	snprintf(calls->path, sizeof(calls->path), "%s", m->path);
	*ret = (struct elf_buildid){ .size = 4, .data = { 0xde, 0xad, 0xbe, 0xef } };
	return 0;
}

/*
 * With a reader, the table asks it and opens nothing itself: the reader's
 * id goes to a path that names no file, and the reader sees the mapping as
 * the record named it. Without one again, the table reads.
 */
static void test_reader(void **state)
{
	struct proc_table *t = proc_table__new(8);
	uint32_t pid = (uint32_t)getpid();
	struct snapshot_task tasks[] = { { (pid_t)pid, (pid_t)pid } };
	struct elf_buildid want = { .size = 4, .data = { 0xde, 0xad, 0xbe, 0xef } };
	struct reader_calls calls = { 0 };
	struct collector c = { 0 };
	struct test_records rec;

	(void)state;
	assert_non_null(t);
	proc_table__set_read_build_ids(t, true);
	proc_table__set_build_id_reader(t, fake_reader, &calls);
	test_records__init(&rec, ST);
	feed(t, inode_mmap2(&rec, pid, 0x1000, 0x2000, "/nonexistent/lib.so", 1234, 5));
	test_records__fini(&rec);
	assert_int_equal(calls.nr, 1);
	assert_int_equal(calls.last.pid, (pid_t)pid);
	assert_int_equal(calls.last.start, 0x1000);
	assert_int_equal(calls.last.end, 0x3000);
	assert_int_equal(calls.last.maj, 8);
	assert_int_equal(calls.last.min, 1);
	assert_int_equal(calls.last.ino, 1234);
	assert_string_equal(calls.path, "/nonexistent/lib.so");
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 1);
	assert_int_equal(emit(t, tasks, 1, 1, 10, &c, NULL), 0);
	assert_int_equal(c.nr, 1);
	expect_build_id(c.rec[0], &want);
	collector_free(&c);

	proc_table__set_build_id_reader(t, NULL, NULL);
	test_records__init(&rec, ST);
	feed(t, inode_mmap2(&rec, pid, 0x8000, 0x1000, "/nonexistent/other.so", 1235, 6));
	test_records__fini(&rec);
	assert_int_equal(calls.nr, 1);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_none, 1);
	proc_table__delete(t);
}

/*
 * An id just read stands for its inode, generation included, for a while
 * (BUILDID_RECENT_TRUST_NS): the same inode mapped again is not asked for,
 * another inode or generation is.
 */
static void test_recent_ids(void **state)
{
	struct proc_table *t = proc_table__new(8);
	uint32_t pid = (uint32_t)getpid();
	struct reader_calls calls = { 0 };
	struct test_records rec;
	struct test_mmap m = { .misc = PERF_RECORD_MISC_USER,
			       .pid = pid,
			       .tid = pid,
			       .start = 0x1000,
			       .len = 0x1000,
			       .maj = 8,
			       .min = 1,
			       .ino = 1234,
			       .ino_generation = 7,
			       .prot = PROT_READ | PROT_EXEC,
			       .flags = MAP_PRIVATE,
			       .filename = "/nonexistent/lib.so",
			       .time = 5,
			       .id = 1 };

	(void)state;
	assert_non_null(t);
	proc_table__set_read_build_ids(t, true);
	proc_table__set_build_id_reader(t, fake_reader, &calls);
	test_records__init(&rec, ST);
	for (int i = 0; i < 3; i++, m.start += 0x10000, m.time++)
		feed(t, test_records__mmap2(&rec, &m));
	assert_int_equal(calls.nr, 1);
	m.ino_generation = 8;
	feed(t, test_records__mmap2(&rec, &m));
	m.ino = 1235;
	feed(t, test_records__mmap2(&rec, &m));
	test_records__fini(&rec);
	assert_int_equal(calls.nr, 3);
	assert_int_equal(proc_table__stats(t)->nr_build_ids_read, 5);
	proc_table__delete(t);
}

/*
 * Trusted for BUILDID_RECENT_TRUST_NS from its read, by all 24 bytes of the
 * key; past half of it, the first to find it is asked to renew it, once
 * per read.
 */
static void test_recent_expiry(void **state)
{
	const uint64_t trust = BUILDID_RECENT_TRUST_NS, at = 5000000000ull;
	struct buildid_recent *r = buildid_recent__new();
	struct elf_buildid id = { .size = 2, .data = { 1, 2 } }, got;
	uint8_t key[24] = { 8, 0, 0, 0, 1, 0, 0, 0, 0xd2, 0x04 }, other[24];
	bool renew;

	(void)state;
	assert_non_null(r);
	assert_int_equal(buildid_recent__find(r, key, at, &got, &renew), -ENOENT);
	buildid_recent__add(r, key, at, &id);
	assert_int_equal(buildid_recent__find(r, key, at + trust / 2 - 1, &got, &renew), 0);
	assert_false(renew);
	assert_memory_equal(&got, &id, sizeof(id));
	assert_int_equal(buildid_recent__find(r, key, at + trust / 2, &got, &renew), 0);
	assert_true(renew);
	assert_int_equal(buildid_recent__find(r, key, at + trust - 1, &got, &renew), 0);
	assert_false(renew);
	assert_int_equal(buildid_recent__find(r, key, at + trust, &got, &renew), -ENOENT);
	/* Read again: trusted anew, and renewed anew. */
	buildid_recent__add(r, key, at + trust, &id);
	assert_int_equal(buildid_recent__find(r, key, at + trust * 3 / 2, &got, &renew), 0);
	assert_true(renew);
	/* A clock that went back trusts nothing. */
	assert_int_equal(buildid_recent__find(r, key, at - 1, &got, &renew), -ENOENT);
	memcpy(other, key, sizeof(other));
	other[16] = 1; /* the generation */
	assert_int_equal(buildid_recent__find(r, other, at + trust, &got, &renew), -ENOENT);
	buildid_recent__delete(r);
}

/* Four objects whose keys share a set stay, the fifth takes the oldest's way. */
static void test_recent_ways(void **state)
{
	struct buildid_recent *r = buildid_recent__new();
	struct elf_buildid id = { .size = 1 }, got;
	uint8_t keys[5][24] = { { 0 } };
	uint64_t now = 1000;
	bool renew;

	(void)state;
	assert_non_null(r);
	/* Keys differing only past the hashed device and inode: one set. */
	for (int i = 0; i < 5; i++) {
		keys[i][16] = (uint8_t)(i + 1);
		keys[i][8] = 1;
		id.data[0] = (uint8_t)i;
		buildid_recent__add(r, keys[i], now + (uint64_t)i, &id);
	}
	assert_int_equal(buildid_recent__find(r, keys[0], now + 5, &got, &renew), -ENOENT);
	for (int i = 1; i < 5; i++) {
		assert_int_equal(buildid_recent__find(r, keys[i], now + 5, &got, &renew), 0);
		assert_int_equal(got.data[0], i);
	}
	buildid_recent__delete(r);
}

/* The one opener: map_files first; a path only if it is the file, regular, not deleted. */
static void test_open_mapping(void **state)
{
	struct proc_table_mapping m = { 0 };
	struct elf_buildid id;
	struct deleted_map d;
	struct stat st, null_st;
	char exe[4096], name[96];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int fd;

	(void)state;
	assert_true(n > 0);
	exe[n] = '\0';
	map_deleted_copy(&d);
	/* Mapped, deleted, its path another file: map_files has the one mapped. */
	snprintf(name, sizeof(name), "%s (deleted)", d.path);
	m = (struct proc_table_mapping){ .pid = getpid(),
					 .start = (uintptr_t)d.addr,
					 .end = (uintptr_t)d.addr + d.len,
					 .path = name };
	fd = proc_table__open_mapping(&m, &st);
	assert_true(fd >= 0);
	assert_int_equal(elf_buildid__read_fd(fd, &id), 0);
	assert_memory_equal(&id, &d.id, sizeof(id));
	close(fd);
	/* Not mapped there: a deleted name is not looked up. */
	m.start = m.end = 0x1000;
	assert_int_equal(proc_table__open_mapping(&m, &st), -ENOENT);
	/* By path: the same inode, else -ESTALE; with none, unchecked. */
	assert_int_equal(stat(exe, &st), 0);
	m = (struct proc_table_mapping){
		.maj = major(st.st_dev), .min = minor(st.st_dev), .ino = st.st_ino, .path = exe
	};
	fd = proc_table__open_mapping(&m, &st);
	assert_true(fd >= 0);
	close(fd);
	m.ino++;
	assert_int_equal(proc_table__open_mapping(&m, &st), -ESTALE);
	m.ino = 0;
	fd = proc_table__open_mapping(&m, &st);
	assert_true(fd >= 0);
	close(fd);
	m.path = NULL;
	assert_int_equal(proc_table__open_mapping(&m, &st), -ENOENT);
	/* Not a regular file: libelf would read a device without end. */
	assert_int_equal(stat("/dev/zero", &null_st), 0);
	m = (struct proc_table_mapping){ .maj = major(null_st.st_dev),
					 .min = minor(null_st.st_dev),
					 .ino = null_st.st_ino,
					 .path = "/dev/zero" };
	assert_int_equal(proc_table__open_mapping(&m, &st), -ENOEXEC);
	munmap(d.addr, d.len);
	unlink(d.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_of_deleted_file),
		cmocka_unit_test(test_path_checked_by_inode),
		cmocka_unit_test(test_cache_sees_rewrite),
		cmocka_unit_test(test_reading_off),
		cmocka_unit_test(test_seeded),
		cmocka_unit_test(test_reader),
		cmocka_unit_test(test_open_mapping),
		cmocka_unit_test(test_recent_ids),
		cmocka_unit_test(test_recent_expiry),
		cmocka_unit_test(test_recent_ways),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
