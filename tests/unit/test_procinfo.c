// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for procinfo: synthesize the test process itself (and a thread
 * of it, a dead child, the kernel) and read the records back through
 * libperf's record structs and perf_record's trailer parser.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <perf/event.h>

#include "perf_record.h"
#include "procinfo.h"
#include "test_skip.h"

#define FULL_TYPE                                                                       \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
	 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)
#define TEST_COMM "pi-test-comm"
#define ANY_ADDR  UINT64_MAX

/* Collects copies of every record; fails with @fail_at's error at that record. */
struct collector {
	struct perf_event_header *rec[4096];
	size_t nr;
	size_t calls;
	size_t fail_at; /* 1-based; 0 never */
	int fail_err;
};

static int collect(void *ctx, const struct perf_event_header *rec)
{
	struct collector *c = ctx;

	c->calls++;
	if (c->fail_at && c->calls == c->fail_at)
		return c->fail_err;
	assert_true(c->nr < sizeof(c->rec) / sizeof(c->rec[0]));
	c->rec[c->nr] = malloc(rec->size);
	assert_non_null(c->rec[c->nr]);
	memcpy(c->rec[c->nr++], rec, rec->size);
	return 0;
}

static void collector_free(struct collector *c)
{
	for (size_t i = 0; i < c->nr; i++)
		free(c->rec[i]);
	c->nr = 0;
	c->calls = 0;
}

/* Every record: 8-byte sized, NUL-terminated name, trailer matching @stamp. */
static void check_common(const struct perf_event_header *h, const struct procinfo_stamp *st,
			 size_t name_off, uint32_t pid, uint32_t tid)
{
	size_t trailer = perf_record__id_trailer_size(st->sample_type);
	struct perf_record_info s;
	uint64_t id;

	assert_int_equal(h->size % 8, 0);
	assert_true(h->size >= name_off + 8 + trailer);
	assert_non_null(memchr((const char *)h + name_off, '\0', h->size - trailer - name_off));
	assert_int_equal(perf_record__parse_id_trailer(h, st->sample_type, &s), 0);
	if (st->sample_type & PERF_SAMPLE_TIME)
		assert_int_equal(s.time, st->time);
	assert_int_equal(s.id, st->id);
	if (st->sample_type & PERF_SAMPLE_TID) {
		assert_int_equal(s.pid, pid);
		assert_int_equal(s.tid, tid);
	}
	assert_int_equal(s.cpu, 0);
	assert_int_equal(perf_record__id(h, &id), 0);
	assert_int_equal(id, st->id);
}

static const struct perf_record_mmap2 *find_mmap2(const struct collector *c, const char *name,
						  uint64_t addr)
{
	for (size_t i = 0; i < c->nr; i++) {
		const struct perf_record_mmap2 *m = (const void *)c->rec[i];

		if (m->header.type != PERF_RECORD_MMAP2 || strcmp(m->filename, name))
			continue;
		if (addr == ANY_ADDR || (addr >= m->start && addr - m->start < m->len))
			return m;
	}
	return NULL;
}

static int self_maps_has(const char *what)
{
	char line[PATH_MAX + 128];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, what) != NULL;
	fclose(f);
	return found;
}

static void check_self(const struct procinfo_stamp *st)
{
	struct collector *c = calloc(1, sizeof(*c));
	const struct perf_record_comm *comm;
	const struct perf_record_mmap2 *m;
	char exe[PATH_MAX];
	pid_t pid = getpid();
	ssize_t n;

	assert_non_null(c);
	assert_int_equal(procinfo__synthesize_task(pid, pid, st, collect, c), 0);
	assert_true(c->nr >= 2);

	comm = (const void *)c->rec[0];
	assert_int_equal(comm->header.type, PERF_RECORD_COMM);
	assert_int_equal(comm->pid, pid);
	assert_int_equal(comm->tid, pid);
	assert_string_equal(comm->comm, TEST_COMM);
	check_common(&comm->header, st, offsetof(struct perf_record_comm, comm), pid, pid);

	for (size_t i = 1; i < c->nr; i++) {
		m = (const void *)c->rec[i];
		assert_int_equal(m->header.type, PERF_RECORD_MMAP2);
		assert_int_equal(m->header.misc, PERF_RECORD_MISC_USER);
		assert_int_equal(m->pid, pid);
		assert_int_equal(m->tid, pid);
		assert_true(m->prot & PROT_EXEC);
		assert_true(m->flags == MAP_PRIVATE || m->flags == MAP_SHARED);
		assert_int_equal(m->ino_generation, 0);
		assert_true(m->len > 0);
		assert_string_not_equal(m->filename, "[vsyscall]");
		check_common(&m->header, st, offsetof(struct perf_record_mmap2, filename), pid,
			     pid);
	}

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	m = find_mmap2(c, exe, (uint64_t)(uintptr_t)&check_self);
	assert_non_null(m);
	assert_int_equal(m->flags, MAP_PRIVATE);
	assert_true(m->prot & PROT_READ);
	assert_true(m->ino != 0);
	if (self_maps_has("[vdso]"))
		assert_non_null(find_mmap2(c, "[vdso]", ANY_ADDR));

	collector_free(c);
	free(c);
}

static void test_self(void **state)
{
	struct procinfo_stamp full = { .sample_type = FULL_TYPE, .id = 4242, .time = 987654321 };
	struct procinfo_stamp small = {
		.sample_type = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME,
		.id = 7,
		.time = 11,
	};

	(void)state;
	assert_int_equal(prctl(PR_SET_NAME, TEST_COMM, 0, 0, 0), 0);
	check_self(&full);
	check_self(&small);
}

/* An executable map of a deleted file with a long path, shared, and an anonymous one. */
static void test_special_maps(void **state)
{
	struct procinfo_stamp st = { .sample_type = FULL_TYPE, .id = 1, .time = 2 };
	struct collector *c = calloc(1, sizeof(*c));
	char dir[PATH_MAX], path[PATH_MAX], want[PATH_MAX + 16];
	const struct perf_record_mmap2 *m;
	char component[201];
	void *file_map, *anon_map;
	int fd;

	(void)state;
	assert_non_null(c);
	memset(component, 'd', sizeof(component) - 1);
	component[sizeof(component) - 1] = '\0';
	snprintf(dir, sizeof(dir), "/tmp/procinfo-test.%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	for (int i = 0; i < 5; i++) {
		size_t len = strlen(dir);

		snprintf(dir + len, sizeof(dir) - len, "/%s", component);
		assert_int_equal(mkdir(dir, 0700), 0);
	}
	assert_true((size_t)snprintf(path, sizeof(path), "%s/code.bin", dir) < sizeof(path));
	fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0700);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8192), 0);
	file_map = mmap(NULL, 8192, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 4096);
	close(fd);
	if (file_map == MAP_FAILED) {
		/* 4096 past the end is fine; a noexec /tmp is not. */
		assert_int_equal(errno, EPERM);
	}
	assert_int_equal(unlink(path), 0);
	anon_map = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(anon_map != MAP_FAILED);

	assert_int_equal(procinfo__synthesize_task(getpid(), getpid(), &st, collect, c), 0);
	if (file_map != MAP_FAILED) {
		snprintf(want, sizeof(want), "%s (deleted)", path);
		m = find_mmap2(c, want, (uint64_t)(uintptr_t)file_map);
		assert_non_null(m);
		assert_true(strnlen(m->filename, m->header.size - offsetof(struct perf_record_mmap2,
									   filename)) > 1000);
		assert_int_equal(m->flags, MAP_SHARED);
		assert_int_equal(m->pgoff, 4096);
		assert_int_equal(m->start, (uint64_t)(uintptr_t)file_map);
		assert_int_equal(m->len, 8192);
		assert_int_equal(m->prot, PROT_READ | PROT_EXEC);
		check_common(&m->header, &st, offsetof(struct perf_record_mmap2, filename),
			     getpid(), getpid());
		munmap(file_map, 8192);
	}
	m = find_mmap2(c, "//anon", (uint64_t)(uintptr_t)anon_map);
	assert_non_null(m);
	assert_int_equal(m->flags, MAP_PRIVATE);
	munmap(anon_map, 4096);

	for (int i = 0; i < 5; i++) {
		assert_int_equal(rmdir(dir), 0);
		*strrchr(dir, '/') = '\0';
	}
	assert_int_equal(rmdir(dir), 0);
	collector_free(c);
	free(c);
}

struct thread_arg {
	pthread_barrier_t ready, done;
	pid_t tid;
};

static void *thread_main(void *p)
{
	struct thread_arg *a = p;

	a->tid = gettid();
	pthread_barrier_wait(&a->ready);
	pthread_barrier_wait(&a->done);
	return NULL;
}

/* A thread that is not the leader gets a COMM and nothing else. */
static void test_thread(void **state)
{
	struct procinfo_stamp st = { .sample_type = FULL_TYPE, .id = 5, .time = 6 };
	struct collector *c = calloc(1, sizeof(*c));
	const struct perf_record_comm *comm;
	struct thread_arg a;
	pthread_t th;

	(void)state;
	assert_non_null(c);
	pthread_barrier_init(&a.ready, NULL, 2);
	pthread_barrier_init(&a.done, NULL, 2);
	assert_int_equal(pthread_create(&th, NULL, thread_main, &a), 0);
	pthread_barrier_wait(&a.ready);
	assert_int_equal(pthread_setname_np(th, "pi-worker"), 0);

	assert_int_equal(procinfo__tgid(a.tid), getpid());
	assert_int_equal(procinfo__synthesize_task(getpid(), a.tid, &st, collect, c), 0);
	assert_int_equal(c->nr, 1);
	comm = (const void *)c->rec[0];
	assert_int_equal(comm->header.type, PERF_RECORD_COMM);
	assert_int_equal(comm->pid, getpid());
	assert_int_equal(comm->tid, a.tid);
	assert_string_equal(comm->comm, "pi-worker");
	check_common(&comm->header, &st, offsetof(struct perf_record_comm, comm), getpid(), a.tid);
	collector_free(c);

	/* pid <= 0: looked up from the thread. */
	assert_int_equal(procinfo__synthesize_task(0, a.tid, &st, collect, c), 0);
	assert_int_equal(c->nr, 1);
	assert_int_equal(((const struct perf_record_comm *)c->rec[0])->pid, getpid());
	collector_free(c);

	pthread_barrier_wait(&a.done);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&a.ready);
	pthread_barrier_destroy(&a.done);
	free(c);
}

static void test_gone(void **state)
{
	struct procinfo_stamp st = { .sample_type = FULL_TYPE, .id = 1, .time = 1 };
	struct collector c = { .nr = 0 };
	pid_t child;
	int status;

	(void)state;
	child = fork();
	assert_true(child >= 0);
	if (!child)
		_exit(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_int_equal(procinfo__synthesize_task(child, child, &st, collect, &c), -ESRCH);
	assert_int_equal(c.calls, 0);
	assert_int_equal(procinfo__tgid(child), -ESRCH);
	assert_int_equal(procinfo__tgid(getpid()), getpid());
}

/* _text, and the end of the kernel image as perf sees it, read by the test itself. */
static uint64_t kallsyms_text(uint64_t *ret_end)
{
	char line[512], name[128], type;
	unsigned long long addr;
	uint64_t text = 0, etext = 0, edata = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, "_text"))
			text = addr;
		else if (!strcmp(name, "_etext"))
			etext = addr;
		else if (!strcmp(name, "_edata"))
			edata = addr;
	}
	fclose(f);
	if (ret_end)
		*ret_end = edata ? edata : etext ? etext : UINT64_MAX;
	return text;
}

static void test_emitter_error(void **state)
{
	struct procinfo_stamp st = { .sample_type = FULL_TYPE, .id = 1, .time = 1 };
	struct collector *c = calloc(1, sizeof(*c));
	size_t all;

	(void)state;
	assert_non_null(c);
	assert_int_equal(procinfo__synthesize_task(getpid(), getpid(), &st, collect, c), 0);
	all = c->calls;
	assert_true(all >= 3);
	collector_free(c);

	/* On the COMM: nothing else is tried. */
	c->fail_at = 1;
	c->fail_err = -ECANCELED;
	assert_int_equal(procinfo__synthesize_task(getpid(), getpid(), &st, collect, c),
			 -ECANCELED);
	assert_int_equal(c->calls, 1);
	collector_free(c);

	/* On the second MMAP2: the walk stops there. */
	c->fail_at = 3;
	c->fail_err = -ENOSPC;
	assert_int_equal(procinfo__synthesize_task(getpid(), getpid(), &st, collect, c), -ENOSPC);
	assert_int_equal(c->calls, 3);
	assert_int_equal(c->nr, 2);
	collector_free(c);

	/* And for the kernel map. */
	c->fail_at = 1;
	c->fail_err = -EIO;
	if (kallsyms_text(NULL))
		assert_int_equal(procinfo__synthesize_kernel_mmap(&st, collect, c), -EIO);
	collector_free(c);
	free(c);
}

static void test_kernel_mmap(void **state)
{
	struct procinfo_stamp st = { .sample_type = FULL_TYPE, .id = 99, .time = 1234 };
	struct collector *c = calloc(1, sizeof(*c));
	const struct perf_record_mmap *m;
	uint64_t text, end;
	int r;

	(void)state;
	assert_non_null(c);
	text = kallsyms_text(&end);
	r = procinfo__synthesize_kernel_mmap(&st, collect, c);
	if (!text) {
		/* kptr_restrict hides the addresses from us. */
		assert_int_equal(r, -ENOENT);
		free(c);
		test_skip("kptr_restrict hides the kernel's addresses");
	}
	assert_int_equal(r, 0);
	assert_int_equal(c->nr, 1);
	m = (const void *)c->rec[0];
	assert_int_equal(m->header.type, PERF_RECORD_MMAP);
	assert_int_equal(m->header.misc, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(m->pid, (uint32_t)-1);
	assert_int_equal(m->tid, 0);
	assert_string_equal(m->filename, "[kernel.kallsyms]_text");
	assert_int_equal(m->start, text);
	assert_int_equal(m->pgoff, text);
	/* Like perf record: up to _edata or _etext, so modules stay out of the map. */
	assert_int_equal(m->len, end - text);
	/* perf record's own record on this machine: 40 + 24 name + trailer. */
	assert_int_equal(m->header.size, 64 + perf_record__id_trailer_size(FULL_TYPE));
	check_common(&m->header, &st, offsetof(struct perf_record_mmap, filename), (uint32_t)-1, 0);
	collector_free(c);
	free(c);
}

/* Stat lines as this machine's kernel (6.18) writes them; flags 0x4208060 has PF_WQ_WORKER. */
static void test_parse_stat(void **state)
{
	struct procinfo_stat st;

	(void)state;
	assert_int_equal(
		procinfo__parse_stat("502 (kworker/0:0-events) I 2 0 0 0 -1 69238880 0 0", &st), 0);
	assert_string_equal(st.comm, "kworker/0:0");
	assert_int_equal(st.ppid, 2);
	assert_int_equal(st.flags, 69238880);
	assert_int_equal(
		procinfo__parse_stat(
			"6288 (kworker/u8:0-ext4-rsv-conversion) I 2 0 0 0 -1 69238880 0", &st),
		0);
	assert_string_equal(st.comm, "kworker/u8:0");
	assert_int_equal(procinfo__parse_stat("9 (kworker/1:2+events) R 2 0 0 0 -1 69238880", &st),
			 0);
	assert_string_equal(st.comm, "kworker/1:2");
	/* A rescuer's name is its own; only the 15 characters the kernel keeps. */
	assert_int_equal(procinfo__parse_stat(
				 "6 (kworker/R-kvfree_rcu_reclaim) I 2 0 0 0 -1 69238880 0", &st),
			 0);
	assert_string_equal(st.comm, "kworker/R-kvfre");
	assert_int_equal(procinfo__parse_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0", &st), 0);
	assert_string_equal(st.comm, "kthreadd");
	assert_int_equal(st.ppid, 0);
	/* Not a worker: a user task may call itself anything, ')' and '-' included. */
	assert_int_equal(procinfo__parse_stat("77 (kworker/x-y) z)) S 76 77 1 0 -1 4194560 0", &st),
			 0);
	assert_string_equal(st.comm, "kworker/x-y) z)");
	assert_int_equal(st.ppid, 76);
	assert_int_equal(procinfo__parse_stat("1 (init S 0", &st), -EINVAL);
	assert_int_equal(procinfo__parse_stat("1 (init) S", &st), -EINVAL);
}

static void test_read_stat_cmdline(void **state)
{
	struct procinfo_stat st;
	char buf[4096], small[6];
	ssize_t n;

	(void)state;
	assert_int_equal(procinfo__read_stat(getpid(), getpid(), &st), 0);
	assert_int_equal(st.ppid, getppid());
	n = procinfo__read_cmdline(getpid(), buf, sizeof(buf));
	assert_true(n > 0);
	assert_int_equal(buf[n - 1], '\0');
	assert_non_null(strstr(buf, "test_procinfo"));
	/* Cut, and still NUL-terminated. */
	n = procinfo__read_cmdline(getpid(), small, sizeof(small));
	assert_int_equal(n, (ssize_t)sizeof(small));
	assert_int_equal(small[sizeof(small) - 1], '\0');
	/* kthreadd: no command line. */
	assert_int_equal(procinfo__read_cmdline(2, buf, sizeof(buf)), 0);
	assert_int_equal(procinfo__read_cmdline(-5, buf, sizeof(buf)), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self),	      cmocka_unit_test(test_special_maps),
		cmocka_unit_test(test_thread),	      cmocka_unit_test(test_gone),
		cmocka_unit_test(test_emitter_error), cmocka_unit_test(test_kernel_mmap),
		cmocka_unit_test(test_parse_stat),    cmocka_unit_test(test_read_stat_cmdline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
