// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for perfdata_reader: each input is read as a file
 * (from a memfd, so file mode and pipe mode in a file are both reached)
 * and as a stream from a pipe, into a snapshot that is then sealed, walked
 * and written as trace.dat, as a Perfetto trace and as a pprof profile the
 * way perfsnap-convert does (Perfetto and pprof with an empty kallsyms, so
 * each input does not read this machine's). Built with clang
 * under PERFSNAPD_FUZZ; replay_main.c drives it over the corpus in every
 * build.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_record.h"
#include "perfdata_convert.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "snapshot_tracedat.h"
#include "tracing_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Largest input also tried through a pipe (it must fit the pipe buffer). */
#define PIPE_MAX (1u << 20)

static void write_all(int fd, const uint8_t *data, size_t size)
{
	while (size) {
		ssize_t n = write(fd, data, size);

		if (n <= 0)
			abort();
		data += n;
		size -= (size_t)n;
	}
}

/* The conversion perfsnap-convert makes, into a memfd. */
static void write_tracedat(const struct snapshot *s, const struct perfdata_reader *r)
{
	struct tracedat_result res;
	int fd = memfd_create("fuzz-out", MFD_CLOEXEC), r2;

	if (fd < 0)
		abort();
	r2 = perfdata_convert__write_tracedat(s, r, fd, NULL, &res);
	/* What the reader accepted converts: bad input is the reader's to refuse. */
	if (r2 == -EINVAL || r2 == -EPROTO)
		abort();
	close(fd);
}

/* perfsnap-convert --to-perfetto, into a memfd; every compression now and then. */
static void write_perfetto(const struct snapshot *s, const struct perfdata_reader *r)
{
	static unsigned int turn;
	struct perfdata_convert_opts o = { .compression = turn++ % 3, .kallsyms = "" };
	struct perfetto_result res;
	int fd = memfd_create("fuzz-pftrace", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	perfdata_convert__write_perfetto(s, r, fd, &o, &res);
	close(fd);
}

/* perfsnap-convert --to-pprof, into a memfd. */
static void write_pprof(const struct snapshot *s, const struct perfdata_reader *r)
{
	struct perfdata_convert_opts o = { .kallsyms = "" };
	struct pprof_result res;
	int fd = memfd_create("fuzz-pprof", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	perfdata_convert__write_pprof(s, r, fd, &o, &res);
	close(fd);
}

/* What a converter touches after a successful read. */
static void walk(const struct snapshot *s, const struct perfdata_reader *r)
{
	const struct tracing_data_info *t = perfdata_reader__tracing_data(r);
	struct snapshot_cursor *c = snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	const struct perf_event_header *h;
	volatile uint64_t sink = 0;
	uint64_t time, last = 0;

	if (!c)
		return;
	while ((h = snapshot_cursor__next(c, &time))) {
		const struct snapshot_event *ev;
		struct perf_record_info info;
		uint64_t id;

		if (perf_record__id(h, &id) || !(ev = snapshot__event_by_id(s, id)) ||
		    ev != snapshot_cursor__event(c))
			abort(); /* the reader gives every record a known id */
		if (time < last)
			abort(); /* the merge returns records in time order */
		last = time;
		if (h->type == PERF_RECORD_SAMPLE &&
		    !perf_record__parse_sample(h, ev->attr.sample_type, &info) && info.raw)
			sink += ((const uint8_t *)info.raw)[info.raw_size ? info.raw_size - 1 : 0];
	}
	snapshot_cursor__delete(c);
	for (size_t i = 0; t && i < t->nr_events; i++)
		sink += t->events[i].size ? (uint8_t)t->events[i].text[t->events[i].size - 1] : 0;
	(void)sink;
	if (t && t->nr_events)
		write_tracedat(s, r);
	write_perfetto(s, r);
	write_pprof(s, r);
}

static void read_one(int fd, uint64_t start, uint64_t end)
{
	struct snapshot *s = snapshot__new();
	struct perfdata_reader *r = perfdata_reader__new(fd);

	if (!s || !r || snapshot__open_spill(s, "/tmp"))
		abort();
	perfdata_reader__set_time_range(r, start, end);
	if (!perfdata_reader__read(r, s)) {
		if (snapshot__seal(s))
			abort();
		walk(s, r);
	} else if (!perfdata_reader__error(r)[0]) {
		abort(); /* every failure says why */
	}
	perfdata_reader__delete(r);
	snapshot__delete(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The input's last byte picks a time range now and then. */
	uint64_t start = 0, end = UINT64_MAX;
	int fd, pipefd[2];

	if (size && data[size - 1] == 0x7f) {
		start = 1000;
		end = 2000000000000ull;
	}
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	write_all(fd, data, size);
	read_one(fd, start, end);
	close(fd);

	if (size > PIPE_MAX || pipe2(pipefd, O_CLOEXEC))
		return 0;
	if (size > 65536 && fcntl(pipefd[1], F_SETPIPE_SZ, PIPE_MAX) < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return 0;
	}
	write_all(pipefd[1], data, size);
	close(pipefd[1]);
	read_one(pipefd[0], start, end);
	close(pipefd[0]);
	return 0;
}
