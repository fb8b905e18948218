/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_sample_layout: where a sample_type puts the fixed fields of its
 * SAMPLEs, for reading many records of one event quickly.
 */
#ifndef PERFSNAPD_PERF_SAMPLE_LAYOUT_H
#define PERFSNAPD_PERF_SAMPLE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "perf_record.h"

/*
 * Where the SAMPLEs of one sample_type keep the fields at fixed places
 * (IDENTIFIER to PERIOD), in bytes from the header, 0 when absent. Worked
 * out once per event, it reads a record's time, task, CPU or raw data
 * without walking sample_type bit by bit for each of a snapshot's records.
 */
struct perf_sample_layout {
	uint16_t tid, time, cpu;
	uint16_t fixed_end; /* the callchain, else the raw data, starts here */
	bool callchain, raw;
	bool supported; /* nothing before RAW that __parse_sample refuses (READ) */
};

void perf_sample_layout__init(struct perf_sample_layout *l, uint64_t sample_type);

/*
 * Sets pid, tid, time and cpu of @ret (0 when absent; nothing else) from
 * a SAMPLE laid out as @l. Returns 0 or -EINVAL for a truncated record.
 */
int perf_sample_layout__head(const struct perf_sample_layout *l,
			     const struct perf_event_header *hdr, struct perf_record_info *ret);

/*
 * The PERF_SAMPLE_RAW payload of a SAMPLE laid out as @l. Returns 0,
 * -ENODATA without one, -EOPNOTSUPP as __parse_sample, or -EINVAL for a
 * truncated record.
 */
int perf_sample_layout__raw(const struct perf_sample_layout *l, const struct perf_event_header *hdr,
			    const void **ret_raw, uint32_t *ret_size);

#endif
