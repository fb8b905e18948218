// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests for symbol_pack on a snapshot built by hand: one process maps
 * six objects and its samples (ips and a user callchain) hit five of them
 * and the kernel. Over a cap that holds the two smallest, the largest hit
 * is left out and named; a file perfsnapd may not read (the pack written
 * as an unprivileged user), a file that is no ELF and one that is gone
 * are counted; the object mapped but never hit is not packed; the kernel
 * goes in as the kallsyms lines of its addresses. `tar -tvf` lists the
 * archive as perf's build-id cache lays it out. With room for the largest
 * one's symbol tables but not for it whole, a copy with only those goes
 * in, naming the same symbols. /bin/true and the others are Debian's,
 * stripped: packed as they are.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <cmocka.h>

#include "dump_figures.h"
#include "elf_buildid.h"
#include "snapshot.h"
#include "symbol_pack.h"
#include "test_dir.h"
#include "test_records.h"

#define TYPE                                                                            \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_CALLCHAIN)
#define ID   7
#define PID  4242
#define KIP  0xffffffff81000150ull
#define BASE 0x400000ull
#define SPAN 0x100000ull

static char dir[64];

enum { SMALL, MID, BIG, SECRET, TEXT, GONE, UNHIT, NR_OBJ };
static const char *const src[NR_OBJ] = {
	[SMALL] = "/bin/true", [MID] = "/bin/ls", [BIG] = "/bin/bash",	 [SECRET] = "/bin/cat",
	[TEXT] = NULL,	       [GONE] = NULL,	  [UNHIT] = "/bin/echo",
};
static char path[NR_OBJ][128];
/* The snapshot's chunk: it lives in this memory (snapshot__add_chunk_memory). */
static struct test_records r;

static void copy(const char *from, const char *to, mode_t mode)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "cp %s %s && chmod %o %s", from, to, mode, to);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_symbol_pack.XXXXXX");
	if (!mkdtemp(dir) || chmod(dir, 0755) < 0)
		return -1;
	for (int i = 0; i < NR_OBJ; i++)
		snprintf(path[i], sizeof(path[i]), "%s/obj%d", dir, i);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return test_dir__remove(dir);
}

static uint64_t size_of(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_size;
}

/* The output of @cmd (run by the shell), malloc'ed. */
static char *run(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *out = calloc(1, 1 << 16);
	size_t n;

	assert_non_null(p);
	assert_non_null(out);
	n = fread(out, 1, (1 << 16) - 1, p);
	out[n] = '\0';
	pclose(p);
	return out;
}

static struct snapshot *make_snapshot(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
				     .sample_type = TYPE,
				     .sample_id_all = 1 };
	uint64_t ids[] = { ID }, chain[4];
	struct snapshot *s = snapshot__new();
	struct stat st;

	assert_non_null(s);
	assert_int_equal(snapshot__add_event(s, &a, "cpu-clock", ids, 1), 0);
	test_records__init(&r, TYPE);
	for (int i = 0; i < NR_OBJ; i++) {
		struct test_mmap m = { .pid = PID,
				       .tid = PID,
				       .start = BASE + i * SPAN,
				       .len = SPAN,
				       .prot = 5,
				       .flags = 2,
				       .filename = path[i],
				       .time = 10,
				       .id = ID };

		if (stat(path[i], &st) == 0) {
			m.maj = major(st.st_dev);
			m.min = minor(st.st_dev);
			m.ino = st.st_ino;
		}
		test_records__mmap2(&r, &m);
	}
	/* A user sample in each object but the unhit one, MID also in a callchain. */
	for (int i = 0; i < UNHIT; i++) {
		if (i == MID)
			continue;
		chain[0] = PERF_CONTEXT_USER;
		chain[1] = BASE + i * SPAN + 0x10;
		chain[2] = BASE + MID * SPAN + 0x20;
		test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_USER,
								.id = ID,
								.ip = chain[1],
								.pid = PID,
								.tid = PID,
								.time = 20 + i,
								.callchain = chain,
								.callchain_nr = 3 });
	}
	chain[0] = PERF_CONTEXT_KERNEL;
	chain[1] = KIP;
	test_records__sample(&r, &(struct test_sample){ .misc = PERF_RECORD_MISC_KERNEL,
							.id = ID,
							.ip = KIP,
							.pid = PID,
							.tid = PID,
							.time = 40,
							.callchain = chain,
							.callchain_nr = 2 });
	assert_int_equal(snapshot__add_chunk_memory(s, 0, false, r.data, r.len, false), 0);
	assert_int_equal(snapshot__seal(s), 0);
	return s;
}

static void test_bad_input(void **state)
{
	static const char kallsyms[] = "ffffffff81000000 T _text\n"
				       "ffffffff81000100 T hit_function\n"
				       "ffffffff81000200 t next_function\n"
				       "ffffffff81000300 T far_function\n"
				       "ffffffffa0000000 t mod_function\t[some_mod]\n";
	static const uint8_t notes[] = { 4, 0, 0,   0,	 4,   0, 0,    0,    3,	   0,
					 0, 0, 'G', 'N', 'U', 0, 0xab, 0xcd, 0xef, 0x01 };
	struct dump_symbol_figures fig;
	struct symbol_pack_params p = { 0 };
	char tar[128], ks[128], kn[128], cmd[4096], hex[2 * ELF_BUILDID_MAX + 1], want[512];
	struct elf_buildid id;
	struct snapshot *s;
	char *out;
	int fd;

	(void)state;
	copy(src[SMALL], path[SMALL], 0644);
	copy(src[MID], path[MID], 0644);
	copy(src[BIG], path[BIG], 0644);
	/* Root may read a 0600 file, and writes the pack as nobody below; others cannot read 0. */
	copy(src[SECRET], path[SECRET], geteuid() == 0 ? 0600 : 0);
	copy(src[UNHIT], path[UNHIT], 0644);
	fd = open(path[TEXT], O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	assert_true(size_of(path[SMALL]) < size_of(path[MID]));
	assert_true(size_of(path[MID]) < size_of(path[BIG]));
	snprintf(ks, sizeof(ks), "%s/kallsyms", dir);
	snprintf(kn, sizeof(kn), "%s/notes", dir);
	fd = open(ks, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(fd, kallsyms, sizeof(kallsyms) - 1), (ssize_t)sizeof(kallsyms) - 1);
	close(fd);
	fd = open(kn, O_WRONLY | O_CREAT, 0644);
	assert_int_equal(write(fd, notes, sizeof(notes)), (ssize_t)sizeof(notes));
	close(fd);

	s = make_snapshot();
	p.max_bytes = size_of(path[SMALL]) + size_of(path[MID]);
	p.kallsyms = ks;
	p.kernel_notes = kn;
	snprintf(tar, sizeof(tar), "%s/x.symbols.tar", dir);
	fd = open(tar, O_RDWR | O_CREAT, 0644);
	assert_true(fd >= 0);
	/* As a user who may not read the 0600 file (root may read anything). */
	if (geteuid() == 0)
		assert_int_equal(seteuid(65534), 0);
	assert_int_equal(symbol_pack__write(s, &p, fd, &fig), 0);
	if (getuid() == 0)
		assert_int_equal(seteuid(0), 0);
	close(fd);
	snapshot__delete(s);
	test_records__fini(&r);
	memset(&r, 0, sizeof(r));

	assert_int_equal(fig.nr_objects, 6); /* the unhit one is not one */
	assert_int_equal(fig.nr_packed, 2);
	assert_int_equal(fig.nr_unreadable, 1);
	assert_int_equal(fig.nr_no_buildid, 1);
	assert_int_equal(fig.nr_missing, 1);
	assert_int_equal(fig.nr_over_cap, 1);
	assert_int_equal(fig.over_cap_bytes, size_of(path[BIG]));
	assert_string_equal(fig.over_cap[0].path, path[BIG]);
	assert_int_equal(fig.over_cap[0].bytes, size_of(path[BIG]));
	/* _text, the symbol hit and the next one up. */
	assert_int_equal(fig.nr_kernel_symbols, 3);
	assert_int_equal(fig.kernel_error, 0);

	snprintf(cmd, sizeof(cmd), "tar -tvf %s", tar);
	out = run(cmd);
	for (int i = SMALL; i <= MID; i++) {
		assert_int_equal(elf_buildid__read_path(path[i], &id), 0);
		elf_buildid__hex(&id, hex);
		snprintf(want, sizeof(want), " %s/%s/elf\n", path[i] + 1, hex);
		assert_non_null(strstr(out, want));
		snprintf(want, sizeof(want), " .build-id/%.2s/%s -> ../../%s/%s\n", hex, hex + 2,
			 path[i] + 1, hex);
		assert_non_null(strstr(out, want));
	}
	assert_non_null(strstr(out, " [kernel.kallsyms]/abcdef01/kallsyms\n"));
	assert_non_null(strstr(out, " .build-id/ab/cdef01 -> ../../[kernel.kallsyms]/abcdef01\n"));
	for (int i = BIG; i < NR_OBJ; i++) {
		snprintf(want, sizeof(want), " %s/", path[i] + 1);
		assert_null(strstr(out, want));
	}
	free(out);
	snprintf(cmd, sizeof(cmd), "tar -xOf %s '[kernel.kallsyms]/abcdef01/kallsyms'", tar);
	out = run(cmd);
	assert_string_equal(out, "ffffffff81000000 T _text\n"
				 "ffffffff81000100 T hit_function\n"
				 "ffffffff81000200 t next_function\n");
	free(out);

	/* Room for the largest's symbol tables, not for it whole: those go in. */
	s = make_snapshot();
	p.max_bytes = size_of(path[SMALL]) + size_of(path[MID]) + size_of(path[BIG]) / 4;
	fd = open(tar, O_RDWR | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(symbol_pack__write(s, &p, fd, &fig), 0);
	close(fd);
	snapshot__delete(s);
	test_records__fini(&r);
	/* The unreadable one is readable as root. */
	assert_int_equal(fig.nr_packed, geteuid() == 0 ? 3 : 2);
	assert_int_equal(fig.nr_symbols_only, 1);
	assert_int_equal(fig.nr_over_cap, 0);
	assert_int_equal(elf_buildid__read_path(path[BIG], &id), 0);
	elf_buildid__hex(&id, hex);
	/* Smaller than a quarter, and its symbols (address, name) are the original's. */
	snprintf(
		cmd, sizeof(cmd),
		"mkdir -p %s/x && tar -xf %s -C %s/x && f=%s/x/%s/%s/elf && "
		"test $(stat -c %%s $f) -lt %llu && nm -D --defined-only $f | awk '{print $1, $3}' | sort >%s/a && "
		"nm -D --defined-only %s | awk '{print $1, $3}' | sort >%s/b && cmp %s/a %s/b && "
		"test $(wc -l <%s/a) -gt 100 && echo same",
		dir, tar, dir, dir, path[BIG] + 1, hex, (unsigned long long)size_of(path[BIG]) / 4,
		dir, path[BIG], dir, dir, dir, dir);
	out = run(cmd);
	assert_string_equal(out, "same\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
