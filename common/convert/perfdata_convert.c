// SPDX-License-Identifier: GPL-2.0-only
/* perfdata_convert: see perfdata_convert.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cleanup.h"
#include "perf_record.h"
#include "perfdata_convert.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_tracedat.h"
#include "symbols.h"

/**
 * perfdata_convert__write_tracedat - write a read perf.data's tracepoint
 *	samples as trace.dat
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's own tracing data and CPU count
 * @fd: destination, written from offset 0
 * @res: counts, on success
 *
 * Formats, header_page/header_event, printk and kallsyms come from the
 * input's TRACING_DATA (attached to @s by the reader), never from this
 * machine's tracefs; the trace clock from the events' clockid; task names from the snapshot's COMM and FORK records.
 * Returns 0 or -errno.
 */
int perfdata_convert__write_tracedat(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct tracedat_result *res)
{
	struct tracedat_meta meta = {
		.nr_cpus = (int)perfdata_reader__nr_cpus(r),
		.compression = o && o->compression == PFTRACE_COMPRESS_ZSTD ?
				       TRACEDAT_COMPRESS_ZSTD :
				       TRACEDAT_COMPRESS_NONE,
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
	};

	return snapshot_tracedat__write(s, fd, &meta, res);
}

/**
 * perfdata_convert__write_perfetto - write a read perf.data as a Perfetto trace
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's tracing data (formats, long size, kallsyms)
 * @fd: destination, written from its current offset
 * @o: compression and progress (may be NULL)
 * @res: counts, on success
 *
 * Tracepoint formats come from the input's TRACING_DATA (which the reader
 * attached to @s), kernel symbols from its kallsyms when it carries them,
 * else this machine's;
 * user symbols from the mapped files on this machine, as perf script does;
 * the SystemInfo from its OSRELEASE and ARCH (none without them:
 * this machine's would name the wrong syscall table); wall-clock time from
 * its CLOCK_DATA (perf record -k), never this machine's clocks.
 * Returns 0 or -errno.
 */
int perfdata_convert__write_perfetto(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct perfetto_result *res)
{
	const struct perfdata_host *host = perfdata_reader__host(r);
	size_t nr_ids = perfdata_reader__nr_build_ids(r), n = 0;
	_cleanup_free_ struct perfetto_build_id *ids = NULL;
	struct perfetto_meta meta = {
		.compression = o ? o->compression : PFTRACE_COMPRESS_NONE,
		.samples = o ? o->samples : PERFETTO_SAMPLE_PERF,
		.system = { .release = host->release, .machine = host->machine },
		.clock_ref = { .valid = host->has_clock_ref,
			       .clockid = host->clockid,
			       .clock_ns = host->clock_ref_ns,
			       .realtime_ns = host->realtime_ref_ns },
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
	};

	/* perf writes no sysname: a perf.data is Linux's */
	if (host->release[0] || host->machine[0])
		meta.system.sysname = "Linux";
	/* the snapshot carries the input's TRACING_DATA */
	if (o && o->kallsyms) {
		meta.kallsyms = o->kallsyms;
		meta.kallsyms_size = o->kallsyms_size;
	}
	/* The files' build-ids, for mappings recorded in the inode form. */
	ids = nr_ids ? calloc(nr_ids, sizeof(*ids)) : NULL;
	if (nr_ids && !ids)
		return -ENOMEM;
	for (size_t i = 0; i < nr_ids; i++) {
		const struct perfdata_build_id *b = perfdata_reader__build_id(r, i);

		if ((b->misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_USER ||
		    !strcmp(b->name, SYMBOLS_KERNEL_DSO))
			ids[n++] = (struct perfetto_build_id){ b->name, b->id, b->size };
	}
	meta.build_ids = ids;
	meta.nr_build_ids = n;
	meta.symbols = o ? o->symbols : NULL;
	return snapshot_perfetto__write(s, fd, &meta, res);
}

/**
 * perfdata_convert__write_pprof - write a read perf.data's samples as a
 *	pprof profile
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's clock reference
 * @fd: destination, written from its current offset
 * @o: kallsyms and progress (may be NULL)
 * @res: counts, on success
 *
 * Symbols as for Perfetto (the input's kallsyms, else this machine's; the
 * mapped files on this machine); wall-clock time from the input's
 * CLOCK_DATA only; build-ids from its BUILD_ID list (and its MMAP2
 * records). Returns 0 or -errno.
 */
int perfdata_convert__write_pprof(const struct snapshot *s, const struct perfdata_reader *r, int fd,
				  const struct perfdata_convert_opts *o, struct pprof_result *res)
{
	const struct perfdata_host *host = perfdata_reader__host(r);
	struct pprof_meta meta = {
		.clock_ref = { .valid = host->has_clock_ref,
			       .clockid = host->clockid,
			       .clock_ns = host->clock_ref_ns,
			       .realtime_ns = host->realtime_ref_ns },
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
	};

	struct pprof_build_id *v = NULL;
	int err;

	if (o && o->kallsyms) {
		meta.kallsyms = o->kallsyms;
		meta.kallsyms_size = o->kallsyms_size;
	}
	meta.nr_build_ids = perfdata_reader__nr_build_ids(r);
	if (meta.nr_build_ids) {
		v = calloc(meta.nr_build_ids, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < meta.nr_build_ids; i++) {
			const struct perfdata_build_id *b = perfdata_reader__build_id(r, i);

			v[i].filename = b->name;
			v[i].size = b->size;
			memcpy(v[i].id, b->id, sizeof(v[i].id));
		}
		meta.build_ids = v;
	}
	meta.symbols = o ? o->symbols : NULL;
	err = snapshot_pprof__write(s, fd, &meta, res);
	free(v);
	return err;
}
