// SPDX-License-Identifier: GPL-2.0-only
/*
 * Integration test: a zstd-compressed perf.data (PERF_RECORD_COMPRESSED
 * records and the COMPRESSED feature) read by the real perf. Writes the
 * same sched:sched_switch records twice, plain and compressed, and needs
 * `perf script` to print exactly the same for both with an empty stderr,
 * `perf report --header-only` to show the compression, and the compressed
 * file to be smaller. Many chunks, and one record too large for a chunk.
 * Needs tracefs and a perf built with zstd (or $PERF): without them it
 * exits 77 (skip), or fails when CI=true.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <perf/event.h>
#include <tracefs.h>

#include "test_records.h"
#include "tool_run.h"
#include "perfdata_writer.h"
#include "tracing_data.h"

#define SKIP_CODE 77
#define SAMPLE_ID 5151
#define TP_SAMPLE_TYPE                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define LEVEL	      3
#define NR_SAMPLES    6000  /* about 800 KB of records: a dozen chunks */
#define ROUND	      1000  /* a FINISHED_ROUND after this many samples */
#define BIG_COMM_SIZE 65000 /* over the 63 KiB chunk: written uncompressed */
#define FIRST_TIME    7000123456789ull

struct task {
	uint32_t pid;
	const char *comm;
};

static const struct task tasks[] = {
	{ 1111, "alpha" },
	{ 2222, "beta-worker" },
	{ 3333, "gamma/1" },
	{ 4444, "delta-big-comm" }, /* its COMM record is BIG_COMM_SIZE bytes */
};

#define NR_TASKS (sizeof(tasks) / sizeof(tasks[0]))

static char tmpdir[64];
static char plain_path[PATH_MAX], zstd_path[PATH_MAX];
static const char *perf_bin = "perf";
static unsigned int tp_id;

/* sched_switch as the kernel lays it out (see its tracefs format). */
struct sched_switch_raw {
	uint16_t common_type;
	uint8_t common_flags;
	uint8_t common_preempt_count;
	int32_t common_pid;
	char prev_comm[16];
	int32_t prev_pid;
	int32_t prev_prio;
	int64_t prev_state;
	char next_comm[16];
	int32_t next_pid;
	int32_t next_prio;
};

/*
 * perf reads a COMM record's trailer from its end, so the big one is the
 * same record with zeros between the name and the trailer.
 */
static void write_comm(struct perfdata_writer *w, const struct task *t, uint64_t time, size_t size)
{
	struct test_records r = { .sample_type = TP_SAMPLE_TYPE };
	const struct perf_event_header *h;

	h = test_records__comm(&r, &(struct test_comm){ .pid = t->pid,
							.tid = t->pid,
							.comm = t->comm,
							.size = (uint16_t)size,
							.time = time,
							.id = SAMPLE_ID });
	assert_int_equal(perfdata_writer__write_event(w, h), 0);
	test_records__fini(&r);
}

static void write_sample(struct perfdata_writer *w, unsigned int i)
{
	static const int64_t states[] = { 0, 1, 2, 0x80, 0x101, 1 };
	const struct task *prev = &tasks[i % NR_TASKS], *next = &tasks[(i * 7 + 1) % NR_TASKS];
	struct test_records r = { .sample_type = TP_SAMPLE_TYPE };
	const struct perf_event_header *h;
	struct sched_switch_raw raw;

	memset(&raw, 0, sizeof(raw));
	raw.common_type = (uint16_t)tp_id;
	raw.common_pid = (int32_t)prev->pid;
	strncpy(raw.prev_comm, prev->comm, sizeof(raw.prev_comm) - 1);
	raw.prev_pid = (int32_t)prev->pid;
	raw.prev_prio = 100 + (int32_t)(i % 40);
	raw.prev_state = states[i % (sizeof(states) / sizeof(states[0]))];
	strncpy(raw.next_comm, next->comm, sizeof(raw.next_comm) - 1);
	raw.next_pid = (int32_t)next->pid;
	raw.next_prio = 120;

	h = test_records__sample(&r, &(struct test_sample){
					     .misc = PERF_RECORD_MISC_KERNEL,
					     .id = SAMPLE_ID,
					     .ip = 0xffffffff81234560ull + (i % 5) * 16,
					     .pid = prev->pid,
					     .tid = prev->pid,
					     .time = FIRST_TIME + i * 1000003ull,
					     .cpu = i % 4,
					     .period = 1,
					     .raw = &raw,
					     .raw_size = sizeof(raw),
				     });
	assert_int_equal(perfdata_writer__write_event(w, h), 0);
	test_records__fini(&r);
}

static void write_features(struct perfdata_writer *w)
{
	static const char *const events[] = { "sched:sched_switch" };
	static const char *const argv[] = { "perfsnapd", "--config", "/etc/perfsnapd.conf" };
	void *blob = NULL;
	size_t size = 0;

	assert_int_equal(tracing_data__build(NULL, events, 1, &blob, &size), 0);
	assert_int_equal(perfdata_writer__set_tracing_data(w, blob, size), 0);
	free(blob);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, "zhost"), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_OSRELEASE, "6.1.0-z"), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_VERSION, "perfsnapd"), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_ARCH, "x86_64"), 0);
	assert_int_equal(perfdata_writer__set_nrcpus(w, 4, 4), 0);
	assert_int_equal(perfdata_writer__set_cmdline(w, 3, argv), 0);
	assert_int_equal(perfdata_writer__set_clockid_res(w, 1), 0);
	assert_int_equal(perfdata_writer__set_sample_time(
				 w, FIRST_TIME, FIRST_TIME + (NR_SAMPLES - 1) * 1000003ull),
			 0);
}

/* The same records into @path, compressed at @level (0: not). */
static void write_file(const char *path, int level)
{
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	struct perf_event_attr attr;
	uint64_t id = SAMPLE_ID;
	struct perfdata_writer *w;
	unsigned int i;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = tp_id;
	attr.sample_period = 1;
	attr.sample_type = TP_SAMPLE_TYPE;
	attr.read_format = PERF_FORMAT_ID;
	attr.sample_id_all = 1;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	w = perfdata_writer__new(fd);
	assert_non_null(w);
	assert_int_equal(perfdata_writer__set_compression(w, level), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &attr, "sched:sched_switch", &id, 1), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	for (i = 0; i < NR_TASKS; i++)
		write_comm(w, &tasks[i], FIRST_TIME - 1000 + i,
			   i == NR_TASKS - 1 ? BIG_COMM_SIZE : 0);
	for (i = 0; i < NR_SAMPLES; i++) {
		write_sample(w, i);
		if (i % ROUND == ROUND - 1)
			assert_int_equal(perfdata_writer__write_event(w, &fin), 0);
	}
	assert_int_equal(perfdata_writer__write_event(w, &fin), 0);
	write_features(w);
	assert_int_equal(perfdata_writer__finish(w), 0);
	perfdata_writer__delete(w);
	assert_int_equal(close(fd), 0);
}

static int run_perf(const char *const *args, char **ret_out, char **ret_err)
{
	return tool_run__perf(tmpdir, args, ret_out, ret_err);
}

/* perf script on @path: must succeed quietly. Returns stdout. */
static char *perf_script(const char *path)
{
	const char *const args[] = { "script", "-i", path, NULL };
	char *out, *err;
	int rc;

	rc = run_perf(args, &out, &err);
	if (rc || *err)
		print_message("perf script -i %s: exit %d\nstderr:\n%s\n", path, rc, err);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	free(err);
	return out;
}

static void test_script_same_output(void **state)
{
	const struct task *big_task = &tasks[NR_TASKS - 1];
	char *plain, *zstd, *line, *save = NULL, comm[64];
	size_t n = 0, big = 0;
	unsigned int pid;

	(void)state;
	plain = perf_script(plain_path);
	zstd = perf_script(zstd_path);
	assert_string_equal(zstd, plain);
	/*
	 * Not trivially equal: every sample is there, and the task whose COMM
	 * record went out uncompressed is named by it (else perf prints ":4444").
	 */
	for (line = strtok_r(plain, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, " sched:sched_switch: prev_comm=") ||
		    sscanf(line, "%63s %u", comm, &pid) != 2)
			fail_msg("unexpected line: %s", line);
		n++;
		if (pid == big_task->pid) {
			assert_string_equal(comm, big_task->comm);
			big++;
		}
	}
	assert_int_equal(n, NR_SAMPLES);
	assert_int_equal(big, NR_SAMPLES / NR_TASKS);
	free(plain);
	free(zstd);
}

static void test_header_and_size(void **state)
{
	static const char *const args[] = { "report", "-i", zstd_path, "--header-only", NULL };
	char *out, *err, *line;
	struct stat plain, zstd;
	unsigned int ratio = 0;
	int rc;

	(void)state;
	rc = run_perf(args, &out, &err);
	if (rc || *err)
		print_message("perf report exit %d\nstderr:\n%s\n", rc, err);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	line = strstr(out, "# compressed : Zstd, level = ");
	if (!line)
		fail_msg("no compressed line in:\n%s", out);
	assert_int_equal(sscanf(line, "# compressed : Zstd, level = %d, ratio = %u", &rc, &ratio),
			 2);
	assert_int_equal(rc, LEVEL);
	assert_true(ratio >= 2);
	assert_int_equal(stat(plain_path, &plain), 0);
	assert_int_equal(stat(zstd_path, &zstd), 0);
	print_message("plain %lld bytes, zstd %lld bytes: %.2fx smaller (feature ratio %u)\n",
		      (long long)plain.st_size, (long long)zstd.st_size,
		      (double)plain.st_size / (double)zstd.st_size, ratio);
	assert_true(zstd.st_size < plain.st_size);
	free(out);
	free(err);
}

static int setup(void **state)
{
	(void)state;
	snprintf(plain_path, sizeof(plain_path), "%s/plain.data", tmpdir);
	snprintf(zstd_path, sizeof(zstd_path), "%s/zstd.data", tmpdir);
	write_file(plain_path, 0);
	write_file(zstd_path, LEVEL);
	return 0;
}

/* Also run without cmocka, when the prerequisites are missing. */
static int teardown(void **state)
{
	static const char *const names[] = { "stdout", "stderr", "plain.data", "zstd.data" };
	char path[PATH_MAX + 16];
	size_t i;

	(void)state;
	if (getenv("PERFSNAP_KEEP_TMP")) {
		print_message("kept %s\n", tmpdir);
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpdir, names[i]);
		(void)unlink(path);
	}
	(void)rmdir(tmpdir);
	return 0;
}

/* A perf without zstd prints "zstd: [ OFF ]" in its build options. */
static int perf_has_zstd(void)
{
	static const char *const args[] = { "version", "--build-options", NULL };
	char *out, *err, *p;
	int ok;

	if (run_perf(args, &out, &err) != 0) {
		free(out);
		free(err);
		return 0;
	}
	p = strstr(out, "zstd:");
	ok = p && strstr(p, "[ on  ]") == strchr(p, '[');
	free(out);
	free(err);
	return ok;
}

/* Returns 0 when perf (with zstd) and the sched_switch tracepoint are usable. */
static int find_prerequisites(void)
{
	char *text;
	int size = 0;

	if (getenv("PERF"))
		perf_bin = getenv("PERF");
	if (system("command -v \"${PERF:-perf}\" >/dev/null 2>&1") != 0) {
		fprintf(stderr, "perf not found\n");
		return -1;
	}
	if (!perf_has_zstd()) {
		fprintf(stderr, "perf is built without zstd\n");
		return -1;
	}
	text = tracefs_event_file_read(NULL, "sched", "sched_switch", "id", &size);
	if (!text) {
		fprintf(stderr, "cannot read sched:sched_switch from tracefs\n");
		return -1;
	}
	tp_id = (unsigned int)strtoul(text, NULL, 10);
	free(text);
	return tp_id ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script_same_output),
		cmocka_unit_test(test_header_and_size),
	};
	const char *ci = getenv("CI");
	char tmpl[] = "/tmp/perfsnap-ztest-XXXXXX";

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	if (find_prerequisites()) {
		teardown(NULL);
		if (ci && !strcmp(ci, "true")) {
			fprintf(stderr, "FAIL: a prerequisite is missing and CI=true\n");
			return 1;
		}
		fprintf(stderr, "SKIP\n");
		return SKIP_CODE;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
