/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_pprof: writes a sealed snapshot's samples as a pprof profile
 * (gzipped profile.proto) for go tool pprof and the profilers that read it.
 *
 * - Sample types: per sampling event, "<event>" in "count" (its samples)
 *   and, where a sample's weight is known (PERF_SAMPLE_PERIOD, or a fixed
 *   sample_period), "<event>_period" in "nanoseconds" for cpu-clock and
 *   task-clock, "count" for any other (its period-weighted total). A
 *   tracepoint recorded with its callchain is a sampling event too (its
 *   hits, no period); a tracepoint without one is left out: a hit count
 *   without a stack is no profile. The first event is the default type.
 * - Samples: the callchain as locations, leaf first (or the sample's ip
 *   alone), with labels pid, tid and cpu (numbers) and comm (the name at
 *   that moment, from the COMM and FORK records). Equal stacks and labels
 *   are one sample.
 * - Locations: the address, its mapping and the function the symbolizer
 *   names (symbols.h: kallsyms, the mapped files' ELF symbol tables);
 *   kernel frames map to "[kernel.kallsyms]". A mapping carries the
 *   build-id of its file when the recording has it (an MMAP2 record with
 *   PERF_RECORD_MISC_MMAP_BUILD_ID, or the meta's list, e.g. perf.data's
 *   HEADER_BUILD_ID).
 * - time_nanos: the first sample's wall-clock time when the meta's clock
 *   reference allows (left unset otherwise); duration_nanos: first to last
 *   sample; period_type and period: the first event's (its mean period
 *   when it samples by frequency).
 * Part of common/: no logging.
 */
#ifndef PERFSNAPD_SNAPSHOT_PPROF_H
#define PERFSNAPD_SNAPSHOT_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct snapshot;
struct symbols_source;

/* One instant in the events' clock (attr.clockid) and CLOCK_REALTIME. */
struct pprof_clock_ref {
	bool valid;
	int clockid;
	uint64_t clock_ns, realtime_ns;
};

/* A file's build-id as the recording states it (perf.data HEADER_BUILD_ID). */
struct pprof_build_id {
	const char *filename;
	uint8_t id[20];
	uint8_t size;
};

struct pprof_meta {
	struct pprof_clock_ref clock_ref;
	/* A kallsyms text over the snapshot's and this machine's; NULL: none. */
	const char *kallsyms;
	size_t kallsyms_size;
	const struct pprof_build_id *build_ids;
	size_t nr_build_ids;
	/* Objects by build-id before their paths (a symbol pack); NULL: none. */
	const struct symbols_source *symbols;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

struct pprof_result {
	uint64_t bytes;			/* the file's size */
	uint64_t nr_samples;		/* input samples written */
	uint64_t nr_tracepoint_samples; /* of those, tracepoint hits with their stacks */
	uint64_t nr_skipped;		/* tracepoint samples without a callchain */
	uint64_t nr_invalid;		/* samples that could not be decoded */
	uint64_t nr_profile_samples;	/* distinct stacks and labels */
	uint64_t nr_locations, nr_functions, nr_mappings;
};

/*
 * Writes @s to @fd (from its current offset). A snapshot without samples
 * gives a valid profile without samples (ret->nr_samples 0; a caller that
 * wants samples says so). Returns 0 or -errno; on error the content of @fd
 * is undefined and the caller discards it.
 */
int snapshot_pprof__write(const struct snapshot *s, int fd, const struct pprof_meta *meta,
			  struct pprof_result *ret);

#endif
