// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for buildid_reader, the side-band's build-id reads on a thread
 * of their own: reads are answered in order with the file's build-id; a
 * read that does not end (elf_buildid__read_fd() wrapped at link time to
 * wait until the test lets it go) holds neither a dump's wait, beyond its
 * timeout, nor the reader's delete, which cancels what waits; the queue
 * is bounded.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <cmocka.h>

#include "buildid_reader.h"
#include "elf_buildid.h"
#include "monotonic.h"
#include "proc_table.h"

int __real_elf_buildid__read_fd(int fd, struct elf_buildid *ret);
int __wrap_elf_buildid__read_fd(int fd, struct elf_buildid *ret);

static pthread_mutex_t gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cond = PTHREAD_COND_INITIALIZER;
static bool gate_closed;
static int nr_in_read;

/* A read that ends only when the test opens the gate. */
int __wrap_elf_buildid__read_fd(int fd, struct elf_buildid *ret)
{
	pthread_mutex_lock(&gate_lock);
	nr_in_read++;
	pthread_cond_broadcast(&gate_cond);
	while (gate_closed)
		pthread_cond_wait(&gate_cond, &gate_lock);
	nr_in_read--;
	pthread_mutex_unlock(&gate_lock);
	return __real_elf_buildid__read_fd(fd, ret);
}

static void gate(bool closed)
{
	pthread_mutex_lock(&gate_lock);
	gate_closed = closed;
	pthread_cond_broadcast(&gate_cond);
	pthread_mutex_unlock(&gate_lock);
}

static void wait_in_read(void)
{
	pthread_mutex_lock(&gate_lock);
	while (!nr_in_read)
		pthread_cond_wait(&gate_cond, &gate_lock);
	pthread_mutex_unlock(&gate_lock);
}

struct answer {
	struct pt_mapping *waiting;
	int err;
	struct elf_buildid id;
};

struct answers {
	struct answer v[8];
	size_t nr, total;
};

static void take(void *arg, struct pt_mapping *waiting, int err, const struct elf_buildid *id)
{
	struct answers *a = arg;

	if (a->nr < 8)
		a->v[a->nr++] = (struct answer){ .waiting = waiting,
						 .err = err,
						 .id = id ? *id : (struct elf_buildid){ 0 } };
	a->total++;
}

/* This test's own executable, by path and inode (no process: pid 0). */
static struct proc_table_mapping self(char *path, size_t size)
{
	struct proc_table_mapping m = { 0 };
	struct stat st;
	ssize_t n = readlink("/proc/self/exe", path, size - 1);

	assert_true(n > 0);
	path[n] = '\0';
	assert_int_equal(stat(path, &st), 0);
	m.path = path;
	m.ino = st.st_ino;
	m.maj = major(st.st_dev);
	m.min = minor(st.st_dev);
	return m;
}

#define TOKEN(n) ((struct pt_mapping *)(uintptr_t)(n))

static void test_reads_answered_in_order(void **state)
{
	char path[4096];
	struct proc_table_mapping m = self(path, sizeof(path)), gone = m;
	struct elf_buildid want;
	struct answers a = { 0 };
	struct buildid_reader *r;

	(void)state;
	assert_int_equal(elf_buildid__read_path(path, &want), 0);
	gone.ino++;
	assert_int_equal(buildid_reader__new(NULL, &r), 0);
	assert_int_equal(buildid_reader__queue(r, &m, TOKEN(1)), 0);
	assert_int_equal(buildid_reader__queue(r, &gone, TOKEN(2)), 0);
	assert_int_equal(buildid_reader__wait(r, 5000), 0);
	buildid_reader__answers(r, take, &a);
	assert_int_equal(a.nr, 2);
	assert_ptr_equal(a.v[0].waiting, TOKEN(1));
	assert_int_equal(a.v[0].err, 0);
	assert_memory_equal(&a.v[0].id, &want, sizeof(want));
	/* Another file at the path now: no id, rather than a wrong one. */
	assert_ptr_equal(a.v[1].waiting, TOKEN(2));
	assert_int_equal(a.v[1].err, -ESTALE);
	buildid_reader__delete(r, take, &a);
	assert_int_equal(a.total, 2);
}

static void test_stuck_read_holds_no_caller(void **state)
{
	char path[4096];
	struct proc_table_mapping m = self(path, sizeof(path));
	struct buildid_reader_stats st;
	struct answers a = { 0 };
	struct buildid_reader *r;
	uint64_t t0;

	(void)state;
	gate(true);
	assert_int_equal(buildid_reader__new(NULL, &r), 0);
	assert_int_equal(buildid_reader__queue(r, &m, TOKEN(1)), 0);
	assert_int_equal(buildid_reader__queue(r, &m, TOKEN(2)), 0);
	/* As a drain ends: a few reads queued wake the thread only then. */
	buildid_reader__kick(r);
	wait_in_read();
	assert_int_equal(buildid_reader__wait(r, 50), -ETIMEDOUT);
	buildid_reader__stats(r, &st);
	assert_true(st.busy_ns >= 50000000);
	assert_int_equal(st.queued, 2);
	/* Late already: the next dump does not wait for it again. */
	t0 = monotonic_ns();
	assert_int_equal(buildid_reader__wait(r, 50), -ETIMEDOUT);
	assert_true(monotonic_ns() - t0 < 40000000);
	buildid_reader__answers(r, take, &a);
	assert_int_equal(a.nr, 0);
	/* Both cancelled; the read in progress is left to its thread. */
	buildid_reader__delete(r, take, &a);
	assert_int_equal(a.nr, 2);
	assert_int_equal(a.v[0].err, -ECANCELED);
	assert_int_equal(a.v[1].err, -ECANCELED);
	gate(false);
}

static void test_queue_bounded(void **state)
{
	char path[4096];
	struct proc_table_mapping m = self(path, sizeof(path));
	struct buildid_reader_stats st;
	struct answers a = { 0 };
	struct buildid_reader *r;
	size_t taken = 0;
	int err = 0;

	(void)state;
	gate(true);
	assert_int_equal(buildid_reader__new(NULL, &r), 0);
	while (taken < 100000 && (err = buildid_reader__queue(r, &m, TOKEN(taken + 1))) == 0)
		taken++;
	assert_int_equal(err, -EAGAIN);
	assert_true(taken >= 1024 && taken < 100000);
	buildid_reader__stats(r, &st);
	assert_int_equal(st.full, 1);
	gate(false);
	assert_int_equal(buildid_reader__wait(r, 10000), 0);
	buildid_reader__answers(r, take, &a);
	assert_int_equal(a.total, taken);
	assert_int_equal(a.v[0].err, 0);
	/* Room again once the answers are taken. */
	assert_int_equal(buildid_reader__queue(r, &m, TOKEN(1)), 0);
	buildid_reader__delete(r, take, &a);
	assert_int_equal(a.total, taken + 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_answered_in_order),
		cmocka_unit_test(test_stuck_read_holds_no_caller),
		cmocka_unit_test(test_queue_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
