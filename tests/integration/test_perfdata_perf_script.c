// SPDX-License-Identifier: GPL-2.0-only
/*
 * Integration test: perfdata_writer + tracing_data__build against the real
 * perf tool. Writes a sched:sched_switch perf.data (COMM records with
 * sample_id_all trailers, tracepoint samples, all features), then requires
 * `perf script` to print every sample exactly, with an empty stderr, and
 * `perf report --header-only` to show the features. Needs a readable
 * tracefs and perf (or $PERF); exits 77 (skip) without them.
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
#include <sys/utsname.h>
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
#define SAMPLE_ID 4242
#define TP_SAMPLE_TYPE                                                                  \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)
#define HOSTNAME  "perfsnap-itest-host"
#define OSRELEASE "6.18.0-perfsnap-itest"
#define NR_AVAIL  8
#define NR_ONLINE 3

/* A task the test invents: its COMM record and its switches. */
struct task {
	uint32_t pid;
	const char *comm;
};

static const struct task tasks[] = {
	{ 1111, "alpha" },
	{ 2222, "beta-worker" },
	{ 3333, "gamma/1" },
};

struct switch_sample {
	int prev; /* index in tasks[] */
	int next;
	uint32_t cpu;
	uint64_t time;
	int64_t prev_state;
	int prev_prio;
	int next_prio;
	const char *state_str; /* how perf prints prev_state */
};

static const struct switch_sample samples[] = {
	{ 0, 1, 0, 5000123456789ull, 1, 120, 120, "S" },
	{ 1, 2, 1, 5000123999001ull, 0, 120, 110, "R" },
	{ 2, 0, 0, 5000200000000ull, 2, 110, 120, "D" },
	{ 0, 2, 1, 5000200000999ull, 1, 120, 110, "S" },
	{ 2, 1, 1, 5001000000001ull, 0x101, 110, 120, "S+" },
	{ 1, 0, 0, 5002999999999ull, 0x80, 120, 120, "I" },
};

#define NR_SAMPLES (sizeof(samples) / sizeof(samples[0]))

static char tmpdir[64];
static char data_path[PATH_MAX];
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

static void write_comm(struct perfdata_writer *w, const struct task *t, uint64_t time)
{
	struct test_records r = { .sample_type = TP_SAMPLE_TYPE };
	const struct perf_event_header *h;

	h = test_records__comm(&r, &(struct test_comm){ .pid = t->pid,
							.tid = t->pid,
							.comm = t->comm,
							.time = time,
							.id = SAMPLE_ID });
	assert_int_equal(perfdata_writer__write_event(w, h), 0);
	test_records__fini(&r);
}

static void write_sample(struct perfdata_writer *w, const struct switch_sample *s)
{
	const struct task *prev = &tasks[s->prev], *next = &tasks[s->next];
	struct test_records r = { .sample_type = TP_SAMPLE_TYPE };
	const struct perf_event_header *h;
	struct sched_switch_raw raw;

	_Static_assert(sizeof(struct sched_switch_raw) == 64, "sched_switch layout");
	memset(&raw, 0, sizeof(raw));
	raw.common_type = (uint16_t)tp_id;
	raw.common_pid = (int32_t)prev->pid;
	strncpy(raw.prev_comm, prev->comm, sizeof(raw.prev_comm) - 1);
	raw.prev_pid = (int32_t)prev->pid;
	raw.prev_prio = s->prev_prio;
	raw.prev_state = s->prev_state;
	strncpy(raw.next_comm, next->comm, sizeof(raw.next_comm) - 1);
	raw.next_pid = (int32_t)next->pid;
	raw.next_prio = s->next_prio;

	/* The raw data padded as the kernel pads it: a size of 68. */
	h = test_records__sample(&r, &(struct test_sample){
					     .misc = PERF_RECORD_MISC_KERNEL,
					     .id = SAMPLE_ID,
					     .ip = 0xffffffff81234560ull,
					     .pid = prev->pid,
					     .tid = prev->pid,
					     .time = s->time,
					     .cpu = s->cpu,
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
	struct utsname uts;
	void *blob = NULL;
	size_t size = 0;

	assert_int_equal(uname(&uts), 0);
	assert_int_equal(tracing_data__build(NULL, events, 1, &blob, &size), 0);
	assert_int_equal(perfdata_writer__set_tracing_data(w, blob, size), 0);
	free(blob);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, HOSTNAME), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_OSRELEASE, OSRELEASE), 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_VERSION, "perfsnapd-itest"),
			 0);
	assert_int_equal(perfdata_writer__set_string(w, PERFDATA_FEAT_ARCH, uts.machine), 0);
	assert_int_equal(perfdata_writer__set_nrcpus(w, NR_AVAIL, NR_ONLINE), 0);
	assert_int_equal(perfdata_writer__set_cmdline(w, 3, argv), 0);
	assert_int_equal(perfdata_writer__set_clockid_res(w, 1), 0);
	assert_int_equal(
		perfdata_writer__set_sample_time(w, samples[0].time, samples[NR_SAMPLES - 1].time),
		0);
}

static void write_file(void)
{
	static const uint64_t dummy_ids[] = { SAMPLE_ID + 1, SAMPLE_ID + 2 };
	struct perf_event_attr attr, dummy;
	struct perf_event_header fin = { .type = PERF_RECORD_FINISHED_ROUND, .size = 8 };
	uint64_t id = SAMPLE_ID;
	struct perfdata_writer *w;
	size_t i;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = tp_id;
	attr.sample_period = 1;
	attr.sample_type = TP_SAMPLE_TYPE;
	attr.read_format = PERF_FORMAT_ID;
	attr.sample_id_all = 1;
	attr.disabled = 1;

	/* A second event without samples, so perf must map samples by id. */
	memset(&dummy, 0, sizeof(dummy));
	dummy.type = PERF_TYPE_SOFTWARE;
	dummy.size = sizeof(dummy);
	dummy.config = PERF_COUNT_SW_DUMMY;
	dummy.sample_period = 1;
	dummy.sample_type = TP_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW;
	dummy.read_format = PERF_FORMAT_ID;
	dummy.sample_id_all = 1;
	dummy.comm = 1;

	fd = open(data_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	w = perfdata_writer__new(fd);
	assert_non_null(w);
	assert_int_equal(perfdata_writer__add_attr(w, &dummy, "dummy:u", dummy_ids, 2), 0);
	assert_int_equal(perfdata_writer__add_attr(w, &attr, "sched:sched_switch", &id, 1), 0);
	assert_int_equal(perfdata_writer__begin_data(w), 0);
	for (i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		write_comm(w, &tasks[i], samples[0].time - 1000 + i);
	for (i = 0; i < NR_SAMPLES; i++)
		write_sample(w, &samples[i]);
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

static void expect_line(const char *line, const struct switch_sample *s)
{
	const struct task *prev = &tasks[s->prev], *next = &tasks[s->next];
	char want[512], got[512];
	char comm[64], cpu[16], time[64], event[64];
	int pid, skip = 0;

	/* "comm pid [cpu] sec.usec: sched:sched_switch: fields" */
	assert_int_equal(
		sscanf(line, "%63s %d %15s %63s %63s %n", comm, &pid, cpu, time, event, &skip), 5);
	assert_string_equal(comm, prev->comm);
	assert_int_equal(pid, prev->pid);
	snprintf(want, sizeof(want), "[%03u]", s->cpu);
	assert_string_equal(cpu, want);
	snprintf(want, sizeof(want), "%llu.%06llu:", (unsigned long long)(s->time / 1000000000),
		 (unsigned long long)(s->time % 1000000000 / 1000));
	assert_string_equal(time, want);
	assert_string_equal(event, "sched:sched_switch:");
	snprintf(want, sizeof(want),
		 "prev_comm=%s prev_pid=%u prev_prio=%d prev_state=%s ==> "
		 "next_comm=%s next_pid=%u next_prio=%d",
		 prev->comm, prev->pid, s->prev_prio, s->state_str, next->comm, next->pid,
		 s->next_prio);
	snprintf(got, sizeof(got), "%s", line + skip);
	got[strcspn(got, "\n")] = '\0';
	/* perf may pad the trace with trailing blanks. */
	while (*got && got[strlen(got) - 1] == ' ')
		got[strlen(got) - 1] = '\0';
	assert_string_equal(got, want);
}

static void test_perf_script(void **state)
{
	static const char *const args[] = { "script", "-i", data_path, NULL };
	char *out, *err, *line, *save = NULL;
	size_t n = 0;
	int rc;

	(void)state;
	rc = run_perf(args, &out, &err);
	if (rc || *err)
		print_message("perf script exit %d\nstdout:\n%s\nstderr:\n%s\n", rc, out, err);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (n >= NR_SAMPLES)
			fail_msg("extra line: %s", line);
		expect_line(line, &samples[n++]);
	}
	assert_int_equal(n, NR_SAMPLES);
	free(out);
	free(err);
}

static void expect_in(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		fail_msg("'%s' not in:\n%s", needle, text);
}

static void test_perf_header(void **state)
{
	static const char *const args[] = { "report", "-i", data_path, "--header-only", NULL };
	char *out, *err, want[128];
	int rc;

	(void)state;
	rc = run_perf(args, &out, &err);
	if (rc || *err)
		print_message("perf report exit %d\nstdout:\n%s\nstderr:\n%s\n", rc, out, err);
	assert_int_equal(rc, 0);
	assert_string_equal(err, "");
	expect_in(out, "# hostname : " HOSTNAME "\n");
	expect_in(out, "# os release : " OSRELEASE "\n");
	expect_in(out, "# perf version : perfsnapd-itest\n");
	snprintf(want, sizeof(want), "# nrcpus online : %d\n", NR_ONLINE);
	expect_in(out, want);
	snprintf(want, sizeof(want), "# nrcpus avail : %d\n", NR_AVAIL);
	expect_in(out, want);
	expect_in(out, "# cmdline : perfsnapd --config /etc/perfsnapd.conf");
	expect_in(out, "# event : name = dummy:u, , id = { 4243, 4244 }, type = 1, size = 128,");
	expect_in(out, "# event : name = sched:sched_switch, ");
	snprintf(want, sizeof(want), "id = { %d }, type = 2, size = 128, config = 0x%x,", SAMPLE_ID,
		 tp_id);
	expect_in(out, want);
	expect_in(out, "# time of first sample : 5000.123456\n");
	expect_in(out, "# time of last sample : 5002.999999\n");
	/* CLOCKID is written; perf lists what is missing. */
	if (strstr(out, "# missing features:") &&
	    strstr(strstr(out, "# missing features:"), " CLOCKID"))
		fail_msg("CLOCKID reported missing:\n%s", out);
	free(out);
	free(err);
}

static int setup(void **state)
{
	char tmpl[] = "/tmp/perfsnap-itest-XXXXXX";

	(void)state;
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(tmpdir, sizeof(tmpdir), "%s", tmpl);
	snprintf(data_path, sizeof(data_path), "%s/perf.data", tmpdir);
	write_file();
	return 0;
}

static int teardown(void **state)
{
	char path[PATH_MAX + 16];

	(void)state;
	if (getenv("PERFSNAP_KEEP_TMP")) {
		print_message("kept %s\n", tmpdir);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/stdout", tmpdir);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/stderr", tmpdir);
	(void)unlink(path);
	(void)unlink(data_path);
	(void)rmdir(tmpdir);
	return 0;
}

/* Returns 0 when perf and the sched_switch tracepoint are usable. */
static int find_prerequisites(void)
{
	char *text;
	int size = 0;

	if (getenv("PERF"))
		perf_bin = getenv("PERF");
	if (system("command -v \"${PERF:-perf}\" >/dev/null 2>&1") != 0) {
		fprintf(stderr, "SKIP: perf not found\n");
		return -1;
	}
	text = tracefs_event_file_read(NULL, "sched", "sched_switch", "id", &size);
	if (!text) {
		fprintf(stderr, "SKIP: cannot read sched:sched_switch from tracefs\n");
		return -1;
	}
	tp_id = (unsigned int)strtoul(text, NULL, 10);
	free(text);
	return tp_id ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_perf_script),
		cmocka_unit_test(test_perf_header),
	};

	if (find_prerequisites())
		return SKIP_CODE;
	return cmocka_run_group_tests(tests, setup, teardown);
}
