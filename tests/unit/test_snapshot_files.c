// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for snapshot_files__write: a full disk at every step it takes
 * (each write, fsync, link and rename, found by counting them in a good
 * run), and a failing close() of each file in turn, leave nothing under a
 * final name, no temporary and no open file, and the dump reports the
 * failure, for both ways of creating files (O_TMPFILE, and hidden names
 * where a file system lacks it). The calls are wrapped with -Wl,--wrap;
 * close() by tests/lib/close_inject.c.
 */
#include <dirent.h>
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "close_inject.h"
#include "tmpfile_inject.h"
#include "perf_record.h"
#include "snapshot.h"
#include "dump_figures.h"
#include "snapshot_files.h"
#include "snapshot_json.h"
#include "tracing_meta.h"
#include "test_dir.h"
#include "test_records.h"
#include "wrap.h"

#define TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)

static char dir[64], out[128], tracing[128];

/* The step to fail (-1: none), the steps counted, and O_TMPFILE refused. */
static int fail_at = -1, steps;
static bool counting;
static const char *failed_call; /* the call that failed, for messages */

static bool fail_now(const char *what)
{
	if (!counting)
		return false;
	/* Atomic: the data files are written by concurrent threads. */
	if (__atomic_fetch_add(&steps, 1, __ATOMIC_SEQ_CST) != fail_at)
		return false;
	failed_call = what;
	errno = ENOSPC;
	return true;
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return fail_now("pwrite") ? -1 : __real_pwrite(fd, buf, n, off);
}

ssize_t __wrap_pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return fail_now("pwrite64") ? -1 : __real_pwrite64(fd, buf, n, off);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
	return fail_now("write") ? -1 : __real_write(fd, buf, n);
}

int __wrap_fsync(int fd)
{
	return fail_now("fsync") ? -1 : __real_fsync(fd);
}

int __wrap_renameat2(int olddirfd, const char *from, int newdirfd, const char *to,
		     unsigned int flags)
{
	return fail_now("renameat2") ? -1 : __real_renameat2(olddirfd, from, newdirfd, to, flags);
}

int __wrap_linkat(int olddirfd, const char *old, int newdirfd, const char *new, int flags)
{
	return fail_now("linkat") ? -1 : __real_linkat(olddirfd, old, newdirfd, new, flags);
}

/*
 * The sidecar goes through stdio, whose buffer reaches the disk at fclose.
 * Streams read from (/proc) are not steps: only written ones can fill a disk.
 */
int __wrap_fclose(FILE *f)
{
	int flags = fcntl(fileno(f), F_GETFL);
	bool written = flags >= 0 && (flags & O_ACCMODE) != O_RDONLY;
	int r = __real_fclose(f);

	return written && fail_now("fclose") ? EOF : r;
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(__real_fclose(f), 0);
}

static int setup(void **state)
{
	char path[192];

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_snapshot_files.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(tracing, sizeof(tracing), "%s/tracing", dir);
	snprintf(path, sizeof(path), "%s/events", tracing);
	if (mkdir(out, 0700) || mkdir(tracing, 0700) || mkdir(path, 0700))
		return -1;
	/* What trace.dat needs of tracefs when no tracepoint is recorded. */
	snprintf(path, sizeof(path), "%s/events/header_page", tracing);
	write_text(path, "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			 "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n");
	snprintf(path, sizeof(path), "%s/events/header_event", tracing);
	write_text(path, "# compressed entry header\n\ttype_len    :    5 bits\n"
			 "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return test_dir__remove(dir);
}

/* Two CPUs of cpu-clock samples, sealed, spilled outside the output directory. */
static struct snapshot *new_snapshot(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .size = sizeof(a),
				     .sample_type = TYPE,
				     .sample_id_all = 1 };
	struct snapshot *s = snapshot__new();
	struct tracing_meta *m = NULL;
	uint64_t ids[] = { 10, 11 };
	struct test_records r;

	assert_non_null(s);
	test_records__init(&r, TYPE);
	/* What trace.dat needs, read once as the daemon does when recording starts. */
	assert_int_equal(tracing_meta__read(tracing, NULL, 0, &m), 0);
	snapshot__set_tracing(s, m);
	tracing_meta__put(m);
	assert_int_equal(snapshot__add_event(s, &a, "cpu-clock", ids, 2), 0);
	assert_int_equal(snapshot__open_spill(s, dir), 0);
	for (uint32_t cpu = 0; cpu < 2; cpu++) {
		assert_int_equal(snapshot__begin_chunk(s, (int)cpu, false), 0);
		for (uint64_t i = 0; i < 200; i++) {
			const struct perf_event_header *h;

			test_records__reset(&r);
			h = test_records__sample(&r, &(struct test_sample){
							     .id = ids[cpu],
							     .pid = 100 + cpu,
							     .tid = 100 + cpu,
							     .time = 1000 + i * 2 + cpu,
							     .cpu = cpu,
						     });
			assert_int_equal(snapshot__append(s, h, h->size), 0);
		}
		assert_int_equal(snapshot__end_chunk(s), 0);
	}
	assert_int_equal(snapshot__seal(s), 0);
	test_records__fini(&r);
	return s;
}

static int write_files(const struct snapshot *s, int compress, struct dump_figures *f)
{
	static const char *const argv[] = { "perfsnapd", NULL };
	struct snapshot_files_params p = {
		.perfdata = { .argc = 1, .argv = argv, .clock_res_ns = 1 },
		.nr_cpus = 2,
	};

	memset(f, 0, sizeof(*f));
	snprintf(f->directory, sizeof(f->directory), "%s", out);
	snprintf(f->stem, sizeof(f->stem), "host-20240101-120000.000-1");
	snprintf(f->reason, sizeof(f->reason), "test");
	snprintf(f->hostname, sizeof(f->hostname), "host");
	f->formats = SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_PERFDATA) |
		     SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_TRACEDAT);
	f->compressed = compress;
	return snapshot_files__write(s, &p, f);
}

static int open_fds(void)
{
	return test_dir__count("/proc/self/fd") - 1; /* less opendir's own */
}

/* A good run's step count, then each of them failing in turn. */
static void fail_every_step(bool tmpfile_missing, int compress)
{
	struct dump_figures res;
	struct snapshot *s = new_snapshot();
	int total, fds = open_fds(), r;

	tmpfile_inject_refuse = tmpfile_missing;
	/* A first run reads what is read once per process (kallsyms). */
	assert_int_equal(write_files(s, compress, &res), 0);
	for (int i = 0; i < res.files.nr_paths; i++)
		assert_int_equal(unlink(res.files.paths[i]), 0);
	counting = true;
	fail_at = -1;
	steps = 0;
	r = write_files(s, compress, &res);
	counting = false;
	assert_int_equal(r, 0);
	assert_int_equal(res.files.nr_paths, 3);
	assert_int_equal(test_dir__count(out), 3);
	total = steps;
	/* Data files, two fsyncs or more, three publications and the sidecar. */
	assert_true(total >= 9);
	for (int i = 0; i < res.files.nr_paths; i++)
		assert_int_equal(unlink(res.files.paths[i]), 0);

	for (fail_at = 0; fail_at < total; fail_at++) {
		counting = true;
		steps = 0;
		r = write_files(s, compress, &res);
		counting = false;
		if (r != -ENOSPC)
			fail_msg("step %d of %d (%s): returned %d, want -ENOSPC", fail_at, total,
				 failed_call, r);
		if (test_dir__count(out) != 0)
			fail_msg("step %d of %d (%s): %d files left", fail_at, total, failed_call,
				 test_dir__count(out));
		assert_int_equal(open_fds(), fds);
	}
	fail_at = -1;
	tmpfile_inject_refuse = false;
	snapshot__delete(s);
}

static void test_enospc_tmpfile(void **state)
{
	(void)state;
	fail_every_step(false, 0);
}

static void test_enospc_tmpfile_zstd(void **state)
{
	(void)state;
	fail_every_step(false, 1);
}

static void test_enospc_named_temporaries(void **state)
{
	(void)state;
	fail_every_step(true, 0);
}

/*
 * Each close() of a written file failing in turn (EIO, as a network file
 * system's last flush may): the dump fails naming a file, and no file of
 * the snapshot is published, though the ones before it were linked.
 */
static void fail_every_close(bool tmpfile_missing)
{
	struct dump_figures res;
	struct snapshot *s = new_snapshot();
	int total, fds = open_fds(), r;

	tmpfile_inject_refuse = tmpfile_missing;
	assert_int_equal(write_files(s, 0, &res), 0);
	for (int i = 0; i < res.files.nr_paths; i++)
		assert_int_equal(unlink(res.files.paths[i]), 0);
	close_inject__reset();
	assert_int_equal(write_files(s, 0, &res), 0);
	total = close_inject.calls;
	/* perf.data, trace.dat and the sidecar, at least. */
	assert_true(total >= 3);
	for (int i = 0; i < res.files.nr_paths; i++)
		assert_int_equal(unlink(res.files.paths[i]), 0);

	for (int nth = 1; nth <= total; nth++) {
		close_inject__reset();
		close_inject.fail_errno = EIO;
		close_inject.fail_at = nth;
		r = write_files(s, 0, &res);
		close_inject__reset();
		if (r != -EIO)
			fail_msg("close %d of %d: returned %d, want -EIO", nth, total, r);
		if (test_dir__count(out) != 0)
			fail_msg("close %d of %d: %d files left", nth, total, test_dir__count(out));
		assert_int_equal(res.files.nr_paths, 0);
		assert_true(res.files.failed[0] != '\0');
		assert_int_equal(open_fds(), fds);
	}
	tmpfile_inject_refuse = false;
	snapshot__delete(s);
}

/* The second of the three files fails to close: the first goes again. */
static void test_close_fails_second(void **state)
{
	struct dump_figures res;
	struct snapshot *s = new_snapshot();
	int fds = open_fds();

	(void)state;
	for (int mode = 0; mode < 2; mode++) {
		tmpfile_inject_refuse = mode;
		close_inject__reset();
		close_inject.fail_errno = EIO;
		close_inject.fail_at = 2;
		assert_int_equal(write_files(s, 0, &res), -EIO);
		close_inject__reset();
		assert_int_equal(test_dir__count(out), 0);
		assert_int_equal(res.files.nr_paths, 0);
		assert_non_null(strstr(res.files.failed, ".trace.dat'"));
		assert_int_equal(open_fds(), fds);
	}
	tmpfile_inject_refuse = false;
	snapshot__delete(s);
}

static void test_close_fails_tmpfile(void **state)
{
	(void)state;
	fail_every_close(false);
}

static void test_close_fails_named_temporaries(void **state)
{
	(void)state;
	fail_every_close(true);
}

/*
 * A reason from a client and a task name from the kernel are bytes, not
 * always UTF-8: the sidecar writes each byte that is not as U+FFFD, so the
 * document stays JSON (here all ASCII, as every other byte is).
 */
static void test_sidecar_not_utf8(void **state)
{
	struct snapshot *s = new_snapshot();
	struct dump_figures f = { 0 };
	char *doc = NULL;
	size_t size = 0;
	FILE *json = open_memstream(&doc, &size);

	(void)state;
	assert_non_null(json);
	snprintf(f.stem, sizeof(f.stem), "host-20240101-120000.000-1");
	snprintf(f.reason, sizeof(f.reason), "bad\xff\xfe \x1b[31m");
	snprintf(f.hostname, sizeof(f.hostname), "host");
	f.has_trigger = true;
	snprintf(f.trigger.name, sizeof(f.trigger.name), "crash");
	snprintf(f.trigger.kind, sizeof(f.trigger.kind), "event");
	snprintf(f.trigger.event, sizeof(f.trigger.event), "signal:signal_generate");
	f.trigger.cpu = f.trigger.pid = f.trigger.tid = 1;
	/* A euro sign cut, as the kernel cuts a name at 15 bytes. */
	snprintf(f.trigger.comm, sizeof(f.trigger.comm), "price\xe2\x82");
	assert_int_equal(snapshot_json__write(s, &f, json), 0);
	assert_int_equal(fclose(json), 0);
	for (size_t i = 0; i < size; i++)
		if ((unsigned char)doc[i] >= 0x80)
			fail_msg("byte 0x%02x at %zu of the sidecar", (unsigned char)doc[i], i);
	assert_non_null(strstr(doc, "\"bad\\ufffd\\ufffd \\u001b[31m\""));
	assert_non_null(strstr(doc, "\"price\\ufffd\\ufffd\""));
	free(doc);
	snapshot__delete(s);
}

/*
 * A CPU that went offline: each of its rings lists the spans it was not
 * recorded ("offline", to_ns null while it lasts, a time not known null
 * too), the history kept from before is marked "closed", and a CPU that
 * never went offline has no "offline".
 */
static void test_sidecar_offline_spans(void **state)
{
	struct snapshot *s = new_snapshot();
	struct dump_figures f;
	char *doc = NULL, *cpu0, *cpu1;
	size_t size = 0;
	FILE *json = open_memstream(&doc, &size);

	(void)state;
	assert_non_null(json);
	assert_int_equal(dump_figures__init(&f, 2), 0);
	snprintf(f.stem, sizeof(f.stem), "host-20240101-120000.000-1");
	f.rings[0].cpu = 0;
	f.rings[1].cpu = 1;
	f.rings[1].closed = true;
	f.offline[f.nr_offline++] = (struct dump_offline_span){ 1, 1500, 2500, true };
	f.offline[f.nr_offline++] = (struct dump_offline_span){ 1, 0, 0, false };
	assert_int_equal(snapshot_json__write(s, &f, json), 0);
	assert_int_equal(fclose(json), 0);
	cpu0 = strstr(doc, "{\"cpu\": 0,");
	cpu1 = strstr(doc, "{\"cpu\": 1,");
	assert_non_null(cpu0);
	assert_non_null(cpu1);
	cpu0[strcspn(cpu0, "}")] = '\0';
	assert_null(strstr(cpu0, "offline"));
	assert_null(strstr(cpu0, "closed"));
	assert_non_null(strstr(cpu1, ", \"closed\": true, \"offline\": [{\"from_ns\": 1500, "
				     "\"to_ns\": 2500}, {\"from_ns\": null, \"to_ns\": null}]}"));
	free(doc);
	dump_figures__fini(&f);
	snapshot__delete(s);
}

/*
 * Who asked is the origin's, apart from the reason: each kind with what is
 * known of it, nothing where no one is named, and the same as text.
 */
static void test_sidecar_origin(void **state)
{
	static const struct {
		struct snapshot_origin o;
		const char *json, *text;
	} cases[] = {
		{ { SNAPSHOT_ORIGIN_CONTROL, 4242, 1000, "" },
		  "\"origin\": {\"kind\": \"control\", \"pid\": 4242, \"uid\": 1000}",
		  "perfsnapctl, pid 4242, uid 1000" },
		{ { SNAPSHOT_ORIGIN_SIGNAL, 0, 0, "" },
		  "\"origin\": {\"kind\": \"signal\", \"uid\": 0}",
		  "SIGUSR2, uid 0" },
		{ { SNAPSHOT_ORIGIN_TRIGGER, 0, -1, "slow-read" },
		  "\"origin\": {\"kind\": \"trigger\", \"trigger\": \"slow-read\"}",
		  "trigger slow-read" },
		{ { SNAPSHOT_ORIGIN_NONE, 0, -1, "" }, NULL, "" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct snapshot *s = new_snapshot();
		struct dump_figures f = { 0 };
		char *doc = NULL, text[128];
		size_t size = 0;
		FILE *json = open_memstream(&doc, &size);

		assert_non_null(json);
		snprintf(f.reason, sizeof(f.reason), "latency spike");
		f.origin = cases[i].o;
		assert_int_equal(snapshot_json__write(s, &f, json), 0);
		assert_int_equal(fclose(json), 0);
		assert_non_null(strstr(doc, "\"reason\": \"latency spike\""));
		if (cases[i].json)
			assert_non_null(strstr(doc, cases[i].json));
		else
			assert_null(strstr(doc, "\"origin\""));
		assert_string_equal(snapshot_origin__format(&cases[i].o, text, sizeof(text)),
				    cases[i].text);
		free(doc);
		snapshot__delete(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enospc_tmpfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enospc_tmpfile_zstd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_enospc_named_temporaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_second, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_tmpfile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_close_fails_named_temporaries, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_not_utf8, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_offline_spans, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sidecar_origin, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
