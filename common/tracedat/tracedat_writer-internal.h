/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedat_writer internals shared by tracedat_writer.c (the API, the
 * metadata it collects, the per-CPU page stream) and tracedat_writer_file.c
 * (buffered output, section headers, compression, and the sections written
 * by __finish). Not for other modules.
 */
#ifndef PERFSNAPD_TRACEDAT_WRITER_INTERNAL_H
#define PERFSNAPD_TRACEDAT_WRITER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <zstd.h>

#include "byte_buffer.h"
#include "file_output.h"
#include "tracedat_writer.h"

#define TDW_SECTION_HEADER_SIZE 16
/*
 * zstd level 1: on a busy 32 MiB-per-CPU snapshot it compressed the
 * FLYRECORD pages both faster and smaller than level 3
 * (docs/decisions.md).
 */
#define TDW_ZSTD_LEVEL		1
/*
 * FLYRECORD pages are compressed in chunks of this many. trace-cmd record
 * uses 10; each chunk is a zstd frame that trace-cmd's reader takes whole
 * whatever its size, and at 160 pages (640 KiB) zstd compresses a dump's
 * trace.dat faster and smaller than at 10 (docs/decisions.md).
 */
#define TDW_PAGES_PER_CHUNK	160
#define TDW_SEC_FL_COMPRESS	1

/* Section and option ids (trace-cmd's enum tracecmd_file_options). */
enum {
	TDW_OPT_DONE = 0,
	TDW_OPT_BUFFER = 3,
	TDW_OPT_TRACECLOCK = 4,
	TDW_OPT_UNAME = 5,
	TDW_OPT_CPUCOUNT = 8,
	TDW_OPT_VERSION = 9,
	TDW_SEC_STRINGS = 15,
	TDW_SEC_HEADER_INFO = 16,
	TDW_SEC_FTRACE_EVENTS = 17,
	TDW_SEC_EVENT_FORMATS = 18,
	TDW_SEC_KALLSYMS = 19,
	TDW_SEC_PRINTK = 20,
	TDW_SEC_CMDLINES = 21,
};

enum tdw_state {
	TDW_OPEN,   /* between CPUs: metadata and __begin_cpu */
	TDW_CPU,    /* inside __begin_cpu .. __end_cpu */
	TDW_DONE,   /* __finish succeeded */
	TDW_FAILED, /* a write failed: the file is unusable */
};

struct tdw_cmdline {
	pid_t pid;
	size_t seq; /* later additions win */
	char *comm;
};

struct tdw_cpu {
	uint64_t offset;
	uint64_t size;
	bool done;
};

struct tracedat_writer {
	struct file_output out;
	enum tdw_state state;
	uint64_t options_ptr; /* where the first OPTIONS offset goes */

	size_t page_size;
	int nr_cpus;
	enum tracedat_compression compression;
	ZSTD_CCtx *zctx;
	char *tracing_dir;
	char *trace_clock;
	struct tracefs_instance *inst;
	struct byte_buffer header_page, header_event, kallsyms, printk;
	bool have_headers, have_printk;
	char *uname, *version;

	struct tracing_formats *formats;
	struct tdw_cmdline *cmdlines;
	size_t nr_cmdlines, cap_cmdlines;
	struct byte_buffer strings;

	uint64_t fly_offset; /* 0 until the FLYRECORD header is out */
	struct tdw_cpu *cpus;
	int cpu;	  /* the CPU between __begin_cpu and __end_cpu */
	bool cpu_started; /* its first page went out */
	bool page_started;
	bool pending_missed; /* events lost before the next event */
	uint64_t pending_lost;
	struct tracedat_page *page;
	struct byte_buffer chunk; /* pages waiting for compression */
	uint32_t nr_chunks;
};

int tracedat_writer__append(struct tracedat_writer *w, const void *data, size_t len);
int tracedat_writer__patch(struct tracedat_writer *w, uint64_t offset, const void *data,
			   size_t len);
int tracedat_writer__flush(struct tracedat_writer *w);
uint64_t tracedat_writer__pos(const struct tracedat_writer *w);
int tracedat_writer__pad_to_page(struct tracedat_writer *w);
int tracedat_writer__section_header(struct tracedat_writer *w, uint16_t id, uint16_t flags,
				    const char *desc, uint64_t size);
int tracedat_writer__compress(struct tracedat_writer *w, const void *data, size_t len,
			      struct byte_buffer *out);
int tracedat_writer__write_initial_header(struct tracedat_writer *w);
int tracedat_writer__write_metadata(struct tracedat_writer *w);

#endif
