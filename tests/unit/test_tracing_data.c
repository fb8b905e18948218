// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for tracing_data: walks the TRACING_DATA blob the way perf's
 * trace-event-read.c does and compares every piece with the tracefs file
 * it came from (read here with plain stdio). Uses the real tracefs, and a
 * fake tracing dir for the @tracing_dir argument.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include <tracefs.h>

#include "test_skip.h"
#include "tracing_data.h"

struct cursor {
	const unsigned char *p;
	const unsigned char *end;
};

struct text {
	char *data;
	size_t size;
};

static struct text slurp(const char *dir, const char *file)
{
	char path[PATH_MAX];
	struct text t = { NULL, 0 };
	char chunk[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open '%s': %s", path, strerror(errno));
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		t.data = realloc(t.data, t.size + n);
		assert_non_null(t.data);
		memcpy(t.data + t.size, chunk, n);
		t.size += n;
	}
	fclose(f);
	return t;
}

static void take(struct cursor *c, void *out, size_t n)
{
	assert_true((size_t)(c->end - c->p) >= n);
	memcpy(out, c->p, n);
	c->p += n;
}

static uint32_t take_u32(struct cursor *c)
{
	uint32_t v;

	take(c, &v, 4);
	return v;
}

static uint64_t take_u64(struct cursor *c)
{
	uint64_t v;

	take(c, &v, 8);
	return v;
}

static void expect_str(struct cursor *c, const char *want)
{
	size_t n = strlen(want) + 1;

	assert_true((size_t)(c->end - c->p) >= n);
	assert_memory_equal(c->p, want, n);
	c->p += n;
}

/* A size (u32 or u64) followed by content equal to @dir/@file. */
static void expect_file(struct cursor *c, int size_bytes, const char *dir, const char *file)
{
	struct text t = slurp(dir, file);
	uint64_t size = size_bytes == 4 ? take_u32(c) : take_u64(c);

	assert_true(t.size > 0);
	assert_int_equal(size, t.size);
	assert_true((uint64_t)(c->end - c->p) >= size);
	assert_memory_equal(c->p, t.data, t.size);
	c->p += size;
	free(t.data);
}

static void expect_preamble(struct cursor *c, const char *dir)
{
	static const unsigned char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	unsigned char b[16];

	take(c, b, sizeof(magic));
	assert_memory_equal(b, magic, sizeof(magic));
	expect_str(c, "0.6");
	take(c, b, 2);
	assert_int_equal(b[0], 0); /* little endian */
	assert_int_equal(b[1], sizeof(long));
	assert_int_equal(take_u32(c), sysconf(_SC_PAGESIZE));
	expect_str(c, "header_page");
	expect_file(c, 8, dir, "events/header_page");
	expect_str(c, "header_event");
	expect_file(c, 8, dir, "events/header_event");
	assert_int_equal(take_u32(c), 0); /* ftrace formats */
}

static void expect_system(struct cursor *c, const char *dir, const char *system,
			  const char *const *events, uint32_t nr)
{
	char file[PATH_MAX];
	uint32_t i;

	expect_str(c, system);
	assert_int_equal(take_u32(c), nr);
	for (i = 0; i < nr; i++) {
		snprintf(file, sizeof(file), "events/%s/%s/format", system, events[i]);
		expect_file(c, 8, dir, file);
	}
}

static void expect_trailer(struct cursor *c, const char *dir, int has_printk)
{
	assert_int_equal(take_u32(c), 0); /* kallsyms */
	if (has_printk)
		expect_file(c, 4, dir, "printk_formats");
	else
		assert_int_equal(take_u32(c), 0);
	assert_int_equal(take_u64(c), 0); /* saved cmdlines */
	assert_ptr_equal(c->p, c->end);
}

static const char *real_dir(void)
{
	const char *dir = tracefs_tracing_dir();
	char path[PATH_MAX];

	if (!dir)
		test_skip("no tracefs");
	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", dir);
	if (access(path, R_OK))
		test_skip("cannot read the sched_switch format in tracefs");
	return dir;
}

static void test_two_systems(void **state)
{
	static const char *const events[] = { "sched:sched_switch", "raw_syscalls:sys_enter" };
	static const char *const sched[] = { "sched_switch" };
	static const char *const raw[] = { "sys_enter" };
	const char *dir = real_dir();
	void *blob = NULL;
	size_t size = 0;
	struct cursor c;

	(void)state;
	assert_int_equal(tracing_data__build(NULL, events, 2, &blob, &size), 0);
	c.p = blob;
	c.end = c.p + size;
	expect_preamble(&c, dir);
	assert_int_equal(take_u32(&c), 2);
	expect_system(&c, dir, "sched", sched, 1);
	expect_system(&c, dir, "raw_syscalls", raw, 1);
	expect_trailer(&c, dir, 1);
	free(blob);
}

static void test_grouping(void **state)
{
	static const char *const events[] = {
		"sched:sched_switch", "raw_syscalls:sys_enter", "sched:sched_wakeup",
		"sched:sched_switch", "raw_syscalls:sys_exit",
	};
	static const char *const sched[] = { "sched_switch", "sched_wakeup" };
	static const char *const raw[] = { "sys_enter", "sys_exit" };
	const char *dir = real_dir();
	void *blob = NULL;
	size_t size = 0;
	struct cursor c;

	(void)state;
	assert_int_equal(tracing_data__build(dir, events, 5, &blob, &size), 0);
	c.p = blob;
	c.end = c.p + size;
	expect_preamble(&c, dir);
	assert_int_equal(take_u32(&c), 2);
	expect_system(&c, dir, "sched", sched, 2);
	expect_system(&c, dir, "raw_syscalls", raw, 2);
	expect_trailer(&c, dir, 1);
	free(blob);
}

static void test_unknown_event(void **state)
{
	static const char *const unknown[] = { "sched:sched_switch", "sched:no_such_event" };
	static const char *const no_sys[] = { "no_such_system:foo" };
	void *blob = (void *)0x1;
	size_t size = 7;

	(void)state;
	real_dir();
	assert_int_equal(tracing_data__build(NULL, unknown, 2, &blob, &size), -ENOENT);
	assert_int_equal(tracing_data__build(NULL, no_sys, 1, &blob, &size), -ENOENT);
	/* Outputs are untouched on failure. */
	assert_ptr_equal(blob, (void *)0x1);
	assert_int_equal(size, 7);
}

static void test_bad_names(void **state)
{
	static const char *const bad[][1] = {
		{ "sched_switch" }, { "sched:" }, { ":sched_switch" }, { "../sched:x" },
		{ "sched:../x" },   { "a:b:c" },  { "..:x" },	       { NULL },
	};
	void *blob;
	size_t size, i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tracing_data__build(NULL, bad[i], 1, &blob, &size), -EINVAL);
	assert_int_equal(tracing_data__build(NULL, NULL, 1, &blob, &size), -EINVAL);
	assert_int_equal(tracing_data__build(NULL, bad[0], 0, NULL, &size), -EINVAL);
	assert_int_equal(tracing_data__build("/nonexistent/tracing", NULL, 0, &blob, &size),
			 -ENOENT);
}

static void write_text(const char *dir, const char *file, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void remove_fake_dir(const char *dir)
{
	static const char *const entries[] = {
		"events/fake/ev/format",
		"events/fake/ev",
		"events/fake",
		"events/header_page",
		"events/header_event",
		"events",
		"",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, entries[i]);
		assert_int_equal(remove(path), 0);
	}
}

/* A tracing dir with just what the blob needs, and no printk_formats. */
static void test_fake_dir(void **state)
{
	static const char *const events[] = { "fake:ev" };
	char dir[] = "/tmp/perfsnap-tracing-XXXXXX", path[PATH_MAX];
	void *blob = NULL;
	size_t size = 0;
	struct cursor c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/events", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/events/fake", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/events/fake/ev", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	write_text(dir, "events/header_page",
		   "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n");
	write_text(dir, "events/header_event", "# compressed entry header\n");
	write_text(dir, "events/fake/ev/format", "name: ev\nID: 9\nformat:\n");

	assert_int_equal(tracing_data__build(dir, events, 1, &blob, &size), 0);
	c.p = blob;
	c.end = c.p + size;
	expect_preamble(&c, dir);
	assert_int_equal(take_u32(&c), 1);
	expect_system(&c, dir, "fake", (const char *const[]){ "ev" }, 1);
	expect_trailer(&c, dir, 0);
	free(blob);

	/* No events at all is a valid, if useless, blob. */
	assert_int_equal(tracing_data__build(dir, NULL, 0, &blob, &size), 0);
	c.p = blob;
	c.end = c.p + size;
	expect_preamble(&c, dir);
	assert_int_equal(take_u32(&c), 0);
	expect_trailer(&c, dir, 0);
	free(blob);

	remove_fake_dir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_systems),   cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_unknown_event), cmocka_unit_test(test_bad_names),
		cmocka_unit_test(test_fake_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
