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

#include "perf_record.h"
#include "perfdata_convert.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_tracedat.h"
#include "tracing_data.h"

/* trace-cmd's name for the clock the samples were stamped with. */
static const char *trace_clock_of(const struct snapshot *s)
{
	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;

		if (!a->use_clockid)
			continue;
		switch (a->clockid) {
		case CLOCK_MONOTONIC:
			return "mono";
		case CLOCK_MONOTONIC_RAW:
			return "mono_raw";
		case CLOCK_BOOTTIME:
			return "boot";
		case CLOCK_TAI:
			return "tai";
		default:
			return "local";
		}
	}
	return "perf";
}

/* The input's formats, so nothing is read from this machine's tracefs. */
static struct tracedat_format *formats_of(const struct tracing_data_info *t, size_t *ret_nr)
{
	struct tracedat_format *f = calloc(t->nr_ftrace + t->nr_events + 1, sizeof(*f));
	size_t n = 0;

	if (!f)
		return NULL;
	for (size_t i = 0; i < t->nr_ftrace; i++)
		f[n++] = (struct tracedat_format){ t->ftrace[i].system, t->ftrace[i].text,
						   t->ftrace[i].size };
	for (size_t i = 0; i < t->nr_events; i++)
		f[n++] = (struct tracedat_format){ t->events[i].system, t->events[i].text,
						   t->events[i].size };
	*ret_nr = n;
	return f;
}

/**
 * perfdata_convert__write_tracedat - write a read perf.data's tracepoint
 *	samples as trace.dat
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's own tracing data and CPU count
 * @fd: destination, written from offset 0
 * @res: counts, on success
 *
 * Formats, header_page/header_event, printk and kallsyms come from the
 * input, never from this machine's tracefs; the trace clock from the
 * events' clockid; task names from the snapshot's COMM and FORK records.
 * Returns 0 or -errno.
 */
int perfdata_convert__write_tracedat(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct tracedat_result *res)
{
	const struct tracing_data_info *t = perfdata_reader__tracing_data(r);
	struct tracedat_meta meta = {
		.trace_clock = trace_clock_of(s),
		.nr_cpus = (int)perfdata_reader__nr_cpus(r),
		.header_page = t->header_page,
		.header_page_size = t->header_page_size,
		.header_event = t->header_event,
		.header_event_size = t->header_event_size,
		.printk = t->printk,
		.printk_size = t->printk_size,
		.kallsyms = t->kallsyms,
		.kallsyms_size = t->kallsyms_size,
		.compression = o && o->compression == PFTRACE_COMPRESS_ZSTD ?
				       TRACEDAT_COMPRESS_ZSTD :
				       TRACEDAT_COMPRESS_NONE,
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
	};
	struct tracedat_format *formats = formats_of(t, &meta.nr_formats);
	int err;

	if (!formats)
		return -ENOMEM;
	meta.formats = formats;
	err = snapshot__write_tracedat(s, fd, &meta, res);
	free(formats);
	return err;
}

/**
 * perfdata_convert__write_perfetto - write a read perf.data as a Perfetto trace
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's tracing data (formats, long size, kallsyms)
 * @fd: destination, written from its current offset
 * @o: compression and progress (may be NULL)
 * @res: counts, on success
 *
 * Tracepoint formats come from the input's TRACING_DATA (tracefs only for
 * an input without one, whose tracepoints then must exist here), kernel
 * symbols from its kallsyms when it carries them, else this machine's;
 * user symbols from the mapped files on this machine, as perf script does.
 * Returns 0 or -errno.
 */
int perfdata_convert__write_perfetto(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct perfetto_result *res)
{
	const struct tracing_data_info *t = perfdata_reader__tracing_data(r);
	struct perfetto_meta meta = {
		.compression = o ? o->compression : PFTRACE_COMPRESS_NONE,
		.progress = o ? o->progress : NULL,
		.progress_ctx = o ? o->progress_ctx : NULL,
	};
	struct tracedat_format *formats = NULL;
	int err;

	if (t) {
		formats = formats_of(t, &meta.nr_formats);
		if (!formats)
			return -ENOMEM;
		meta.formats = formats;
		meta.long_size = t->long_size;
		if (t->kallsyms_size > 1) {
			meta.kallsyms = t->kallsyms;
			meta.kallsyms_size = t->kallsyms_size;
		}
	}
	if (o && o->kallsyms) {
		meta.kallsyms = o->kallsyms;
		meta.kallsyms_size = o->kallsyms_size;
	}
	err = snapshot__write_perfetto(s, fd, &meta, res);
	free(formats);
	return err;
}
