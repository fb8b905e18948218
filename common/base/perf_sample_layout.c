// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_sample_layout: the fixed places of a sample_type's fields, worked
 * out once per event. See perf_sample_layout.h.
 */
#include <errno.h>
#include <string.h>

#include "perf_sample_layout.h"

/**
 * perf_sample_layout__init - where a sample_type's fixed fields are
 * @l: the layout to fill
 * @sample_type: the event's sample_type
 */
void perf_sample_layout__init(struct perf_sample_layout *l, uint64_t sample_type)
{
	/* The fixed-size fields in the kernel's order, each one u64 word. */
	static const uint64_t fixed[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,
					  PERF_SAMPLE_TID,	  PERF_SAMPLE_TIME,
					  PERF_SAMPLE_ADDR,	  PERF_SAMPLE_ID,
					  PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,
					  PERF_SAMPLE_PERIOD };
	uint16_t off = sizeof(struct perf_event_header);

	*l = (struct perf_sample_layout){
		.callchain = sample_type & PERF_SAMPLE_CALLCHAIN,
		.raw = sample_type & PERF_SAMPLE_RAW,
		.supported = !(sample_type & PERF_RECORD_UNSUPPORTED_BEFORE_RAW),
	};
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!(sample_type & fixed[i]))
			continue;
		if (fixed[i] == PERF_SAMPLE_TID)
			l->tid = off;
		else if (fixed[i] == PERF_SAMPLE_TIME)
			l->time = off;
		else if (fixed[i] == PERF_SAMPLE_CPU)
			l->cpu = off;
		off += 8;
	}
	l->fixed_end = off;
}

/**
 * perf_sample_layout__head - the task, time and CPU of a sample
 * @l: its event's layout
 * @hdr: the PERF_RECORD_SAMPLE
 * @ret: pid, tid, time and cpu set; the rest untouched
 *
 * Returns 0 or -EINVAL when the record is shorter than its fixed fields.
 */
int perf_sample_layout__head(const struct perf_sample_layout *l,
			     const struct perf_event_header *hdr, struct perf_record_info *ret)
{
	const uint8_t *p = (const uint8_t *)hdr;

	if (hdr->size < l->fixed_end)
		return -EINVAL;
	ret->pid = ret->tid = ret->cpu = 0;
	ret->time = 0;
	if (l->tid) {
		memcpy(&ret->pid, p + l->tid, 4);
		memcpy(&ret->tid, p + l->tid + 4, 4);
	}
	if (l->time)
		memcpy(&ret->time, p + l->time, 8);
	if (l->cpu)
		memcpy(&ret->cpu, p + l->cpu, 4);
	return 0;
}

/**
 * perf_sample_layout__raw - the raw payload of a sample
 * @l: its event's layout
 * @hdr: the PERF_RECORD_SAMPLE
 * @ret_raw: set to the payload, in the record
 * @ret_size: set to its length
 *
 * Returns 0, -ENODATA when the event has no PERF_SAMPLE_RAW, -EOPNOTSUPP
 * for fields before it that are not read here, or -EINVAL when truncated.
 */
int perf_sample_layout__raw(const struct perf_sample_layout *l, const struct perf_event_header *hdr,
			    const void **ret_raw, uint32_t *ret_size)
{
	const uint8_t *p = (const uint8_t *)hdr, *end = p + hdr->size;
	uint64_t nr;

	if (!l->raw)
		return -ENODATA;
	if (!l->supported)
		return -EOPNOTSUPP;
	if (hdr->size < l->fixed_end)
		return -EINVAL;
	p += l->fixed_end;
	if (l->callchain) {
		if (end - p < 8)
			return -EINVAL;
		memcpy(&nr, p, 8);
		if ((uint64_t)(end - p - 8) / 8 < nr)
			return -EINVAL;
		p += 8 + nr * 8;
	}
	if (end - p < 4)
		return -EINVAL;
	memcpy(ret_size, p, 4);
	if ((size_t)(end - p - 4) < *ret_size)
		return -EINVAL;
	*ret_raw = p + 4;
	return 0;
}
