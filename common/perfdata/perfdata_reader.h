/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_reader: reads a perf.data file ("PERFILE2" with a 104-byte
 * header: attrs, ids, data and feature sections; needs a seekable fd) or a
 * pipe-mode stream (a 16-byte header, then attrs, features and tracing data
 * as records among the others) into a snapshot, for a converter; records
 * compressed with zstd (perf record -z, PERF_RECORD_COMPRESSED) too. Part of
 * common/: it never logs; it keeps one message saying what was wrong and
 * at which input offset.
 *
 * The snapshot model wants PERF_SAMPLE_IDENTIFIER. Files written by perf
 * often have PERF_SAMPLE_ID or one event without any id, so the reader
 * adds IDENTIFIER to every event's sample_type and the id to every record
 * that lacks it, locating the event as perf does (evsel id_pos/is_pos; a
 * lone event owns every record; a side-band record with id 0 belongs to the
 * first event). Records keep their input order; snapshot__seal sorts them.
 */
#ifndef PERFSNAPD_PERFDATA_READER_H
#define PERFSNAPD_PERFDATA_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perfdata_reader;
struct snapshot;
struct tracing_data_info;

struct perfdata_reader_stats {
	uint64_t nr_records;	  /* kernel records handed to the snapshot */
	uint64_t nr_samples;	  /* of which samples */
	uint64_t nr_out_of_range; /* samples outside the time range, left out */
	uint64_t nr_unattributed; /* records no event can be found for, left out */
	uint64_t nr_user_records; /* perf's own records (attrs, features, rounds...) */
	uint64_t bytes;		  /* input bytes read */
};

/* A reader for @fd (not closed by the reader). NULL on ENOMEM. */
struct perfdata_reader *perfdata_reader__new(int fd);
void perfdata_reader__delete(struct perfdata_reader *r);

/* Keeps only samples with @start <= time <= @end. Returns 0 or -EINVAL. */
int perfdata_reader__set_time_range(struct perfdata_reader *r, uint64_t start, uint64_t end);

/* Calls @cb(@ctx, input offset, end of records or 0 for a pipe) while reading. */
void perfdata_reader__set_progress(struct perfdata_reader *r,
				   void (*cb)(void *ctx, uint64_t done, uint64_t total), void *ctx);

/*
 * Reads the whole input into @s (spill file open, not sealed): one chunk
 * of records, then one event per attr with its name. Returns 0, -EPROTO
 * (or -EINVAL) for malformed input, -EPROTONOSUPPORT for a format it does
 * not read (big-endian, old magic), -ENODATA for an empty input, or
 * another -errno; then
 * perfdata_reader__error() says what and where.
 */
int perfdata_reader__read(struct perfdata_reader *r, struct snapshot *s);

/* The message of the last failure ("" if none): "offset 0x1a8: ...". */
const char *perfdata_reader__error(const struct perfdata_reader *r);

/* After __read. */
bool perfdata_reader__is_pipe(const struct perfdata_reader *r);
/* The parsed TRACING_DATA, or NULL if the input had none. */
const struct tracing_data_info *perfdata_reader__tracing_data(const struct perfdata_reader *r);
/* The recording machine as the header names it; "" where it does not. */
struct perfdata_host {
	char hostname[65]; /* HEADER_HOSTNAME (utsname.nodename) */
	char release[65];  /* HEADER_OSRELEASE */
	char machine[65];  /* HEADER_ARCH (utsname.machine) */
	/*
	 * HEADER_CLOCK_DATA (perf record -k): one instant read in the events'
	 * clock (clockid) and in CLOCK_REALTIME; has_clock_ref when present.
	 */
	bool has_clock_ref;
	int32_t clockid;
	uint64_t clock_ref_ns, realtime_ref_ns;
};
const struct perfdata_host *perfdata_reader__host(const struct perfdata_reader *r);
/* A file's build-id as HEADER_BUILD_ID (or a pipe-mode BUILD_ID record) states it. */
struct perfdata_build_id {
	int32_t pid;   /* -1: the kernel's host machine, as perf writes it */
	uint16_t misc; /* cpumode (PERF_RECORD_MISC_KERNEL, _USER, ...) */
	uint8_t size;  /* bytes of id used (20 when the record does not say) */
	uint8_t id[20];
	char *filename;
};
/* After __read: the build-ids the input lists (none: NULL, *ret_nr 0). */
const struct perfdata_build_id *perfdata_reader__build_ids(const struct perfdata_reader *r,
							   size_t *ret_nr);
/* CPUs online when recorded (NRCPUS feature, at most 65536), or 0 if unknown. */
uint32_t perfdata_reader__nr_cpus(const struct perfdata_reader *r);
const struct perfdata_reader_stats *perfdata_reader__stats(const struct perfdata_reader *r);

#endif
