/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perf_record: reading and building perf ring-buffer records.
 *
 * perfsnapd opens every event with sample_id_all and PERF_SAMPLE_IDENTIFIER,
 * so the event id of any record sits at a fixed place: first word after the
 * header of a SAMPLE, last word of every other record. From the id the
 * caller finds the attr, and with its sample_type this module finds the
 * rest (time, cpu, pid/tid, raw payload).
 */
#ifndef PERFSNAPD_PERF_RECORD_H
#define PERFSNAPD_PERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

/* Fields perfsnapd cares about; absent ones are left 0 / NULL. */
struct perf_record_info {
	uint64_t id;
	uint64_t ip;
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu;
	uint64_t period;
	const uint64_t *callchain; /* nr entries, points into the record */
	uint64_t callchain_nr;
	const void *raw; /* PERF_SAMPLE_RAW payload */
	uint32_t raw_size;
};

/*
 * The record at *@pos of @len bytes of records lying back to back (8-byte
 * aligned), and *@pos moved past it; NULL at the end or where what is there
 * is not a whole record: fewer bytes left than a header, a size smaller
 * than a header or not a multiple of 8, or one running past @len.
 */
static inline const struct perf_event_header *perf_record__next(const void *buf, size_t len,
								size_t *pos)
{
	const struct perf_event_header *h;

	if (*pos > len || len - *pos < sizeof(*h))
		return NULL;
	h = (const struct perf_event_header *)((const char *)buf + *pos);
	if (h->size < sizeof(*h) || h->size % 8 || h->size > len - *pos)
		return NULL;
	*pos += h->size;
	return h;
}

/* Returns 0 and the identifier of @hdr, or -EINVAL if the record is too short. */
int perf_record__id(const struct perf_event_header *hdr, uint64_t *ret_id);

/*
 * Where a record written for @sample_type carries its event id, as perf's
 * evsel id_pos/is_pos: __id_pos is the u64 index after the header of a
 * SAMPLE, __is_pos the u64 index counted back from the end of any other
 * record (1 = last word). -1 when neither IDENTIFIER nor ID is set. Files
 * not written by perfsnapd may have PERF_SAMPLE_ID instead of IDENTIFIER.
 */
int perf_record__id_pos(uint64_t sample_type);
int perf_record__is_pos(uint64_t sample_type);

/*
 * Like perf_record__id() for a record of an event with @sample_type, which
 * may lack PERF_SAMPLE_IDENTIFIER. For a non-sample record the event must
 * have sample_id_all. Returns 0, -ENODATA if @sample_type carries no id,
 * or -EINVAL if the record is too short.
 */
int perf_record__id_for(const struct perf_event_header *hdr, uint64_t sample_type,
			uint64_t *ret_id);

/* Bits that may precede PERF_SAMPLE_RAW and that perfsnapd never sets. */
#define PERF_RECORD_UNSUPPORTED_BEFORE_RAW (PERF_SAMPLE_READ)

/*
 * Parses a PERF_RECORD_SAMPLE laid out for @sample_type (which must have
 * PERF_SAMPLE_IDENTIFIER). Returns 0, -EINVAL for a truncated record, or
 * -EOPNOTSUPP for sample bits perfsnapd never sets (READ, BRANCH_STACK...).
 */
int perf_record__parse_sample(const struct perf_event_header *hdr, uint64_t sample_type,
			      struct perf_record_info *ret);

/*
 * Parses the sample_id_all trailer of a non-sample record. Fills pid, tid,
 * time, cpu and id as present in @sample_type. Returns 0 or -EINVAL.
 */
int perf_record__parse_id_trailer(const struct perf_event_header *hdr, uint64_t sample_type,
				  struct perf_record_info *ret);

/* Returns 0 and the record's time (sample or trailer), or -errno. */
int perf_record__time(const struct perf_event_header *hdr, uint64_t sample_type,
		      uint64_t *ret_time);

/* Size in bytes of the sample_id_all trailer for @sample_type. */
size_t perf_record__id_trailer_size(uint64_t sample_type);

/*
 * Writes the sample_id_all trailer for @sample_type at @buf (which must have
 * perf_record__id_trailer_size() bytes) from @s. Returns the bytes written.
 */
size_t perf_record__write_id_trailer(void *buf, uint64_t sample_type,
				     const struct perf_record_info *s);

#endif
