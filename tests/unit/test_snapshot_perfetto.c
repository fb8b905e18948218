// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for the Perfetto writer's ProcessTree: the parent from each
 * process's FORK (the real one or the one the dump synthesizes for a task
 * already running), the command line kept with the snapshot, and the
 * comm fallback with cmdline_is_comm. The trace is decoded here by hand.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "snapshot.h"
#include "snapshot_perfetto.h"
#include "test_records.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define ID   10

struct proc {
	int64_t pid, ppid;
	char cmdline[128]; /* arguments joined with ' ' */
	int nr_args;
	bool is_comm;
};

struct tree {
	struct proc procs[16];
	size_t nr_procs;
	struct {
		int64_t tid, tgid;
		char name[32];
	} threads[16];
	size_t nr_threads;
};

static uint64_t varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int shift = 0; *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* Calls @fn for each field of the message in [@p, @end). */
static void fields(const uint8_t *p, const uint8_t *end,
		   void (*fn)(void *ctx, uint32_t field, uint64_t v, const uint8_t *b, size_t len),
		   void *ctx)
{
	while (p < end) {
		uint64_t key = varint(&p, end), v = 0, len = 0;
		const uint8_t *b = NULL;

		switch (key & 7) {
		case 0:
			v = varint(&p, end);
			break;
		case 2:
			len = varint(&p, end);
			b = p;
			p += len;
			break;
		case 1:
			p += 8;
			break;
		case 5:
			p += 4;
			break;
		default:
			fail();
		}
		fn(ctx, (uint32_t)(key >> 3), v, b, len);
	}
}

static void on_process(void *ctx, uint32_t f, uint64_t v, const uint8_t *b, size_t len)
{
	struct proc *pr = ctx;

	if (f == 1)
		pr->pid = (int64_t)v;
	else if (f == 2)
		pr->ppid = (int64_t)v;
	else if (f == 9)
		pr->is_comm = v;
	else if (f == 3) {
		size_t at = strlen(pr->cmdline);

		snprintf(pr->cmdline + at, sizeof(pr->cmdline) - at, "%s%.*s", at ? " " : "",
			 (int)len, (const char *)b);
		pr->nr_args++;
	}
}

static void on_thread(void *ctx, uint32_t f, uint64_t v, const uint8_t *b, size_t len)
{
	struct tree *t = ctx;

	if (f == 1)
		t->threads[t->nr_threads].tid = (int64_t)v;
	else if (f == 3)
		t->threads[t->nr_threads].tgid = (int64_t)v;
	else if (f == 2)
		snprintf(t->threads[t->nr_threads].name, sizeof(t->threads[0].name), "%.*s",
			 (int)len, (const char *)b);
}

static void on_tree(void *ctx, uint32_t f, uint64_t v, const uint8_t *b, size_t len)
{
	struct tree *t = ctx;

	(void)v;
	if (f == 1) {
		assert_true(t->nr_procs < 16);
		fields(b, b + len, on_process, &t->procs[t->nr_procs++]);
	} else if (f == 2) {
		assert_true(t->nr_threads < 16);
		fields(b, b + len, on_thread, t);
		t->nr_threads++;
	}
}

static void on_packet(void *ctx, uint32_t f, uint64_t v, const uint8_t *b, size_t len)
{
	(void)v;
	if (f == 2) /* process_tree */
		fields(b, b + len, on_tree, ctx);
}

static void on_trace(void *ctx, uint32_t f, uint64_t v, const uint8_t *b, size_t len)
{
	(void)v;
	if (f == 1)
		fields(b, b + len, on_packet, ctx);
}

static void write_tree(const struct snapshot *s, struct tree *ret)
{
	struct perfetto_meta meta = { .compression = PFTRACE_COMPRESS_NONE };
	int fd = memfd_create("pftrace", MFD_CLOEXEC);
	off_t size;
	uint8_t *buf;

	assert_true(fd >= 0);
	assert_int_equal(snapshot_perfetto__write(s, fd, &meta, NULL), 0);
	size = lseek(fd, 0, SEEK_END);
	assert_true(size > 0);
	buf = malloc((size_t)size);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, (size_t)size, 0), size);
	memset(ret, 0, sizeof(*ret));
	fields(buf, buf + size, on_trace, ret);
	free(buf);
	close(fd);
}

static const struct proc *find_proc(const struct tree *t, int64_t pid)
{
	for (size_t i = 0; i < t->nr_procs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}

static const char *thread_name(const struct tree *t, int64_t tid)
{
	for (size_t i = 0; i < t->nr_threads; i++)
		if (t->threads[i].tid == tid)
			return t->threads[i].name;
	return NULL;
}

static void fork_comm(struct test_records *r, uint16_t misc, uint32_t pid, uint32_t ppid,
		      uint32_t tid, const char *comm, uint64_t time)
{
	test_records__task(r, &(struct test_task){ .type = PERF_RECORD_FORK,
						   .misc = misc,
						   .pid = pid,
						   .ppid = ppid,
						   .tid = tid,
						   .ptid = ppid,
						   .time = time,
						   .id = ID });
	test_records__comm(r,
			   &(struct test_comm){
				   .pid = pid, .tid = tid, .comm = comm, .time = time, .id = ID });
}

/*
 * As a dump leaves them: tasks already running get a FORK (marked
 * FORK_EXEC) and COMM just before the span, a child forked in it its
 * real FORK; one process's command line was read from /proc.
 */
static void test_process_tree(void **state)
{
	static const char args[] = "sleep\0"
				   "31.4159\0"
				   "Web Content";
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .sample_type = TYPE,
				     .sample_id_all = 1 };
	uint64_t ids[] = { ID };
	struct snapshot *s = snapshot__new();
	struct test_records r;
	const struct proc *p;
	struct tree t;

	(void)state;
	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "dummy", ids, 1), 0);
	test_records__init(&r, TYPE);
	fork_comm(&r, PERF_RECORD_MISC_FORK_EXEC, 2, 0, 2, "kthreadd", 99);
	fork_comm(&r, PERF_RECORD_MISC_FORK_EXEC, 502, 2, 502, "kworker/0:0", 99);
	fork_comm(&r, PERF_RECORD_MISC_FORK_EXEC, 1000, 1, 1000, "bash", 99);
	fork_comm(&r, PERF_RECORD_MISC_FORK_EXEC, 1000, 1000, 1001, "bash-helper", 99);
	/* bash forks 1234, which execs sleep. */
	test_records__task(&r, &(struct test_task){ .type = PERF_RECORD_FORK,
						    .pid = 1234,
						    .ppid = 1000,
						    .tid = 1234,
						    .ptid = 1000,
						    .time = 150,
						    .id = ID });
	test_records__comm(&r, &(struct test_comm){ .misc = PERF_RECORD_MISC_COMM_EXEC,
						    .pid = 1234,
						    .tid = 1234,
						    .comm = "sleep",
						    .time = 160,
						    .id = ID });
	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	assert_int_equal(snapshot__set_cmdline(s, 1234, args, sizeof(args)), 0);
	assert_int_equal(snapshot__set_cmdline(s, 1234, "x", 1), -EINVAL); /* no NUL */
	assert_int_equal(snapshot__nr_cmdlines(s), 1);
	write_tree(s, &t);

	/* The forked child: its parent, its real command line, no cmdline_is_comm. */
	p = find_proc(&t, 1234);
	assert_non_null(p);
	assert_int_equal(p->ppid, 1000);
	assert_string_equal(p->cmdline, "sleep 31.4159 Web Content");
	assert_int_equal(p->nr_args, 3);
	assert_false(p->is_comm);
	assert_string_equal(thread_name(&t, 1234), "sleep");
	/* Running before the span: the parent its synthesized FORK gives. */
	p = find_proc(&t, 1000);
	assert_non_null(p);
	assert_int_equal(p->ppid, 1);
	assert_string_equal(p->cmdline, "bash");
	assert_true(p->is_comm);
	/* A kernel thread under kthreadd, by its bare name; kthreadd has no parent. */
	p = find_proc(&t, 502);
	assert_non_null(p);
	assert_int_equal(p->ppid, 2);
	assert_string_equal(p->cmdline, "kworker/0:0");
	assert_true(p->is_comm);
	p = find_proc(&t, 2);
	assert_non_null(p);
	assert_int_equal(p->ppid, 0);
	/* A thread: listed under its process, not as one, and named by its COMM. */
	assert_null(find_proc(&t, 1001));
	assert_string_equal(thread_name(&t, 1001), "bash-helper");
	for (size_t i = 0; i < t.nr_threads; i++)
		if (t.threads[i].tid == 1001)
			assert_int_equal(t.threads[i].tgid, 1000);
	test_records__fini(&r);
	snapshot__delete(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_process_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
