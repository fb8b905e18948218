/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedat_writer: writes a trace.dat version 7 file (the format of
 * trace-cmd 3.x and KernelShark) to an open file descriptor: the initial
 * header, a FLYRECORD buffer with per-CPU ring-buffer pages built from the
 * events the caller feeds in time order, one CPU after another, then the
 * metadata sections (HEADER_INFO, FTRACE_EVENTS, EVENT_FORMATS, KALLSYMS,
 * PRINTK, CMDLINES), OPTIONS and STRINGS. Little-endian, 64-bit long, this
 * machine's page size.
 *
 * Sequence: __new; __add_event_format for every recorded tracepoint;
 * __add_cmdline for every task; __set_* options; then for each CPU
 * __begin_cpu, __add_event (ascending time), __end_cpu; finally __finish.
 * Each step checks the writer's state (-EBADFD out of order). Formats,
 * cmdlines and __set_* are kept in memory and written by __finish, so they
 * may also come while or after CPUs are written. Pages go out as they fill.
 */
#ifndef PERFSNAPD_TRACEDAT_WRITER_H
#define PERFSNAPD_TRACEDAT_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracedat_writer;

enum tracedat_compression {
	TRACEDAT_COMPRESS_NONE,
	TRACEDAT_COMPRESS_ZSTD,
};

struct tracedat_params {
	const char *tracing_dir; /* NULL: the system's tracefs (header_page etc.) */
	/*
	 * header_page and header_event as text; NULL to read them from
	 * tracefs. A converter passes the ones recorded in its input.
	 */
	const char *header_page;
	size_t header_page_size;
	const char *header_event;
	size_t header_event_size;
	int nr_cpus; /* CPUs 0..nr_cpus-1; <= 0: this machine's */
	/*
	 * "local", "perf", "mono", "boot", ...; NULL: "local". trace-cmd shows
	 * seconds only for local, global, uptime, perf, mono*, tai and
	 * x86-tsc-nsec; for other clocks (boot!) it prints raw counts.
	 */
	const char *trace_clock;
	enum tracedat_compression compression; /* ZSTD: sections and 10-page chunks */
};

/* Starts a file on @fd (written from offset 0, never closed). NULL on ENOMEM or bad params. */
struct tracedat_writer *tracedat_writer__new(int fd, const struct tracedat_params *params);
void tracedat_writer__delete(struct tracedat_writer *w);

/* A recorded tracepoint, "system:event"; its format comes from tracefs. */
int tracedat_writer__add_event_format(struct tracedat_writer *w, const char *name);
/* The same with the format text given (a converter's input carries it). */
int tracedat_writer__add_event_format_text(struct tracedat_writer *w, const char *system,
					   const char *format, size_t size);

/* pid -> comm for the CMDLINES section; a later name for a pid wins. */
int tracedat_writer__add_cmdline(struct tracedat_writer *w, pid_t pid, const char *comm);

/* Options and optional sections; defaults: this machine's uname, "perfsnapd <version>",
 * empty kallsyms, tracefs printk_formats (empty if the params carry header_page). */
int tracedat_writer__set_uname(struct tracedat_writer *w, const char *uname);
int tracedat_writer__set_kallsyms(struct tracedat_writer *w, const char *text, size_t size);
int tracedat_writer__set_printk(struct tracedat_writer *w, const char *text, size_t size);

/* Events of one CPU, in ascending @ts; @data is the tracepoint's raw record
 * (common_type first), as PERF_SAMPLE_RAW carries it. Each CPU at most once. */
int tracedat_writer__begin_cpu(struct tracedat_writer *w, int cpu);
int tracedat_writer__add_event(struct tracedat_writer *w, uint64_t ts, const void *data,
			       size_t size);
/* Marks the page the next event lands on with MISSING_EVENTS and @count
 * (0: unknown). Lost events after a CPU's last event cannot be shown. */
int tracedat_writer__add_lost(struct tracedat_writer *w, uint64_t count);
int tracedat_writer__end_cpu(struct tracedat_writer *w);

/* Writes the remaining sections and options. Returns 0 or -errno. */
int tracedat_writer__finish(struct tracedat_writer *w);

/* Bytes written so far (the file size after __finish). */
uint64_t tracedat_writer__size(const struct tracedat_writer *w);

/*
 * The size ftrace would have stored for a raw event whose format was added:
 * perf pads PERF_SAMPLE_RAW to 8 bytes (with its u32 size), the ring buffer
 * does not. Unknown types keep @size.
 */
size_t tracedat_writer__event_size(const struct tracedat_writer *w, const void *data, size_t size);

#endif
