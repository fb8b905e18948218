// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot-write: what the writers cost for one snapshot, without the
 * capture. Reads a perf.data (e.g. a perfsnapd snapshot of 32 MiB rings)
 * into a snapshot and times, best of RUNS: sealing it, and writing it as
 * perf.data and as trace.dat, plain and zstd, into memory (a memfd whose
 * pages are already there, so only the writer's own work counts; CPU
 * time) and into a file in DIR followed by fsync (what a dump pays on
 * that disk; wall time).
 *
 * usage: snapshot-write PERF.DATA DIR [RUNS [LEVEL|plain]]
 *   LEVEL: perf.data's zstd level (default 3; perfsnapd's is 1, and
 *          trace.dat's is always the writer's own, 1)
 *   plain: only the writes without zstd (to profile the writers)
 * With RINGS=1 in the environment the records are laid out as perfsnapd's
 * copies are, a backward ring per CPU (newest first, in memory), so the
 * seal and the cursors do what they do in a dump.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "snapshot_perfdata.h"
#include "snapshot_tracedat.h"

/*
 * CPU time of this (single-threaded) process: on a shared machine the
 * wall time of memory-only work says more about the neighbours than about
 * the writer. The file runs are timed on the wall clock (they wait for the
 * disk).
 */
static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * A new snapshot of @in's events (@in is freed) whose records are one
 * backward ring copy per CPU, newest first, in memory that is never freed:
 * the snapshot borrows it until the program ends.
 */
static struct snapshot *as_rings(struct snapshot *in)
{
	struct snapshot *s = snapshot__new();
	int max_cpu;

	if (!s || snapshot__seal(in) < 0)
		exit(1);
	for (size_t i = 0; i < snapshot__nr_events(in); i++) {
		const struct snapshot_event *e = snapshot__event(in, i);

		if (snapshot__add_event(s, &e->attr, e->name, e->ids, e->nr_ids) < 0)
			exit(1);
	}
	snapshot__set_tracing(s, (struct tracing_meta *)snapshot__tracing(in));
	max_cpu = snapshot__max_cpu(in);
	for (int cpu = 0; cpu <= max_cpu; cpu++) {
		struct snapshot_cursor *c = snapshot_cursor__new(in, cpu);
		const struct perf_event_header *h;
		size_t len = 0, at;
		uint8_t *ring;

		if (!c)
			exit(1);
		while ((h = snapshot_cursor__next(c, NULL)))
			len += h->size;
		snapshot_cursor__delete(c);
		if (!len)
			continue;
		ring = aligned_alloc(4096, (len + 4095) & ~(size_t)4095);
		c = snapshot_cursor__new(in, cpu);
		if (!ring || !c)
			exit(1);
		for (at = len; (h = snapshot_cursor__next(c, NULL));) {
			at -= h->size;
			memcpy(ring + at, h, h->size);
		}
		snapshot_cursor__delete(c);
		if (snapshot__add_chunk_memory(s, cpu, true, ring, len, true) < 0)
			exit(1);
	}
	snapshot__delete(in);
	return s;
}

static struct snapshot *load(const char *path, double *seal_ms)
{
	struct snapshot *s = snapshot__new();
	struct perfdata_reader *r;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;
	double t;

	if (fd < 0 || !s || snapshot__open_spill(s, "/tmp") < 0) {
		fprintf(stderr, "snapshot-write: cannot open '%s': %s\n", path, strerror(errno));
		exit(1);
	}
	r = perfdata_reader__new(fd);
	err = r ? perfdata_reader__read(r, s) : -ENOMEM;
	if (err) {
		fprintf(stderr, "snapshot-write: '%s': %s\n", path,
			r ? perfdata_reader__error(r) : strerror(-err));
		exit(1);
	}
	if (getenv("RINGS") && !strcmp(getenv("RINGS"), "1"))
		s = as_rings(s);
	t = cpu_ms();
	err = snapshot__seal(s);
	*seal_ms = cpu_ms() - t;
	if (err) {
		fprintf(stderr, "snapshot-write: seal: %s\n", strerror(-err));
		exit(1);
	}
	perfdata_reader__delete(r);
	close(fd);
	return s;
}

/* One write of @s as @format (0 perf.data, 1 trace.dat) to @fd; returns ms. */
static double write_one(const struct snapshot *s, int format, int level, int fd, bool sync,
			uint64_t *bytes)
{
	bool zstd = level > 0;
	struct perfdata_meta pm = { .clock_res_ns = 1, .compress_level = level };
	struct tracedat_meta tm = { .compression = zstd ? TRACEDAT_COMPRESS_ZSTD :
							  TRACEDAT_COMPRESS_NONE };
	struct perfdata_result pr;
	struct tracedat_result tr;
	double (*clock)(void) = sync ? now_ms : cpu_ms;
	double t = clock();
	int err;

	if (format == 0) {
		err = snapshot_perfdata__write(s, fd, &pm, &pr);
		*bytes = pr.bytes;
	} else {
		err = snapshot_tracedat__write(s, fd, &tm, &tr);
		*bytes = tr.bytes;
	}
	if (!err && sync && fsync(fd) < 0)
		err = -errno;
	if (err) {
		fprintf(stderr, "snapshot-write: write: %s\n", strerror(-err));
		exit(1);
	}
	return clock() - t;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "perf.data", "trace.dat" };
	int runs = argc > 3 ? atoi(argv[3]) : 5;
	bool plain = argc > 4 && !strcmp(argv[4], "plain");
	int level = argc > 4 && !plain ? atoi(argv[4]) : 3;
	double seal_ms;
	struct snapshot *s;
	char path[4096];

	if (argc < 3 || runs < 1 || level < 1 || level > 22) {
		fprintf(stderr, "usage: snapshot-write PERF.DATA DIR [RUNS [LEVEL|plain]]\n");
		return 64;
	}
	s = load(argv[1], &seal_ms);
	printf("input %s: %zu records; seal %.1f ms CPU\n", argv[1], snapshot__nr_records(s),
	       seal_ms);
	printf("%-10s %-5s %12s %16s %14s\n", "format", "zstd", "bytes", "memory (CPU ms)",
	       "file+fsync ms");
	for (int format = 0; format < 2; format++) {
		for (int zstd = 0; zstd < (plain ? 1 : 2); zstd++) {
			double mem = 1e9, disk = 1e9, t;
			uint64_t bytes = 0;
			int mfd = memfd_create("snapshot-write", MFD_CLOEXEC);

			for (int i = 0; i < runs + 1; i++) {
				/* The first run faults the memfd's pages in. */
				t = write_one(s, format, zstd ? level : 0, mfd, false, &bytes);
				if (i && t < mem)
					mem = t;
			}
			close(mfd);
			snprintf(path, sizeof(path), "%s/snapshot-write.%s", argv[2],
				 names[format]);
			for (int i = 0; i < runs; i++) {
				int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

				if (fd < 0) {
					fprintf(stderr, "snapshot-write: %s: %s\n", path,
						strerror(errno));
					return 1;
				}
				t = write_one(s, format, zstd ? level : 0, fd, true, &bytes);
				if (t < disk)
					disk = t;
				close(fd);
				unlink(path);
			}
			printf("%-10s %-5s %12llu %16.1f %14.1f\n", names[format],
			       zstd ? "yes" : "no", (unsigned long long)bytes, mem, disk);
		}
	}
	snapshot__delete(s);
	return 0;
}
