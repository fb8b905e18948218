// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf_record: parsing and building the parts of perf records that depend
 * on sample_type. Layouts follow the kernel's perf_output_sample() and
 * perf_event__output_id_sample() order.
 */
#include <errno.h>
#include <string.h>

#include "perf_record.h"

/**
 * perf_record__id - find the identifier of a record
 * @hdr: record, with PERF_SAMPLE_IDENTIFIER in its event's sample_type
 * @ret_id: set to the identifier on success
 *
 * Returns 0 or -EINVAL if the record is too short to carry one.
 */
int perf_record__id(const struct perf_event_header *hdr, uint64_t *ret_id)
{
	const uint8_t *p = (const uint8_t *)hdr;

	if (hdr->size < sizeof(*hdr) + sizeof(uint64_t))
		return -EINVAL;
	if (hdr->type == PERF_RECORD_SAMPLE)
		memcpy(ret_id, p + sizeof(*hdr), sizeof(*ret_id));
	else
		memcpy(ret_id, p + hdr->size - sizeof(*ret_id), sizeof(*ret_id));
	return 0;
}

/**
 * perf_record__id_pos - where a SAMPLE carries its event id
 * @sample_type: the event's sample_type
 *
 * Returns the index of the id among the u64 words after the header, or -1
 * when @sample_type has neither PERF_SAMPLE_IDENTIFIER nor PERF_SAMPLE_ID.
 */
int perf_record__id_pos(uint64_t sample_type)
{
	static const uint64_t before_id[] = { PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					      PERF_SAMPLE_ADDR };
	int pos = 0;

	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		return 0;
	if (!(sample_type & PERF_SAMPLE_ID))
		return -1;
	for (size_t i = 0; i < sizeof(before_id) / sizeof(before_id[0]); i++)
		pos += !!(sample_type & before_id[i]);
	return pos;
}

/**
 * perf_record__is_pos - where a non-sample record carries its event id
 * @sample_type: the event's sample_type (the record has a sample_id_all trailer)
 *
 * Returns the position of the id counted back from the end in u64 words
 * (1 = the last word), or -1 when @sample_type carries no id.
 */
int perf_record__is_pos(uint64_t sample_type)
{
	int pos = 1;

	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		return 1;
	if (!(sample_type & PERF_SAMPLE_ID))
		return -1;
	/* The trailer ends ... ID, STREAM_ID, CPU. */
	pos += !!(sample_type & PERF_SAMPLE_CPU);
	pos += !!(sample_type & PERF_SAMPLE_STREAM_ID);
	return pos;
}

/**
 * perf_record__id_for - find the event id of a record without assuming IDENTIFIER
 * @hdr: the record
 * @sample_type: sample_type of its event (non-sample records: with sample_id_all)
 * @ret_id: set to the id on success
 *
 * Returns 0, -ENODATA when @sample_type carries no id, or -EINVAL when the
 * record is too short to hold it.
 */
int perf_record__id_for(const struct perf_event_header *hdr, uint64_t sample_type, uint64_t *ret_id)
{
	const uint8_t *p = (const uint8_t *)hdr;
	size_t words = hdr->size < sizeof(*hdr) ? 0 : (hdr->size - sizeof(*hdr)) / 8;
	int pos;

	if (hdr->type == PERF_RECORD_SAMPLE) {
		pos = perf_record__id_pos(sample_type);
		if (pos < 0)
			return -ENODATA;
		if ((size_t)pos >= words)
			return -EINVAL;
		memcpy(ret_id, p + sizeof(*hdr) + (size_t)pos * 8, sizeof(*ret_id));
		return 0;
	}
	pos = perf_record__is_pos(sample_type);
	if (pos < 0)
		return -ENODATA;
	if (hdr->size < sizeof(*hdr) + (size_t)pos * 8)
		return -EINVAL;
	memcpy(ret_id, p + hdr->size - (size_t)pos * 8, sizeof(*ret_id));
	return 0;
}

struct cursor {
	const uint8_t *p;
	const uint8_t *end;
};

static int take_u64(struct cursor *c, uint64_t *v)
{
	if (c->end - c->p < 8)
		return -EINVAL;
	memcpy(v, c->p, 8);
	c->p += 8;
	return 0;
}

static int take_u32_pair(struct cursor *c, uint32_t *a, uint32_t *b)
{
	if (c->end - c->p < 8)
		return -EINVAL;
	memcpy(a, c->p, 4);
	memcpy(b, c->p + 4, 4);
	c->p += 8;
	return 0;
}

/**
 * perf_record__parse_sample - parse a PERF_RECORD_SAMPLE
 * @hdr: the record
 * @sample_type: sample_type of the event that wrote it
 * @ret: filled with the fields present; others are zeroed
 *
 * Returns 0, -EINVAL for a truncated record, or -EOPNOTSUPP when a field
 * perfsnapd cannot skip precedes the raw payload.
 */
int perf_record__parse_sample(const struct perf_event_header *hdr, uint64_t sample_type,
			      struct perf_record_info *ret)
{
	struct cursor c = { (const uint8_t *)(hdr + 1), (const uint8_t *)hdr + hdr->size };
	uint64_t v;
	uint32_t res;

	memset(ret, 0, sizeof(*ret));
	if (hdr->size < sizeof(*hdr) || sample_type & PERF_RECORD_UNSUPPORTED_BEFORE_RAW)
		return hdr->size < sizeof(*hdr) ? -EINVAL : -EOPNOTSUPP;
	if (sample_type & PERF_SAMPLE_IDENTIFIER && take_u64(&c, &ret->id))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_IP && take_u64(&c, &ret->ip))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_TID && take_u32_pair(&c, &ret->pid, &ret->tid))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_TIME && take_u64(&c, &ret->time))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_ADDR && take_u64(&c, &v))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_ID && take_u64(&c, &ret->id))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_STREAM_ID && take_u64(&c, &v))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_CPU && take_u32_pair(&c, &ret->cpu, &res))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_PERIOD && take_u64(&c, &ret->period))
		return -EINVAL;
	if (sample_type & PERF_SAMPLE_CALLCHAIN) {
		if (take_u64(&c, &ret->callchain_nr))
			return -EINVAL;
		if ((uint64_t)(c.end - c.p) / 8 < ret->callchain_nr)
			return -EINVAL;
		ret->callchain = (const uint64_t *)c.p;
		c.p += ret->callchain_nr * 8;
	}
	if (sample_type & PERF_SAMPLE_RAW) {
		if (c.end - c.p < 4)
			return -EINVAL;
		memcpy(&ret->raw_size, c.p, 4);
		if ((size_t)(c.end - c.p - 4) < ret->raw_size)
			return -EINVAL;
		ret->raw = c.p + 4;
	}
	return 0;
}

/**
 * perf_record__id_trailer_size - size of the sample_id_all trailer
 * @sample_type: the event's sample_type
 *
 * Returns the number of bytes the kernel appends to non-sample records.
 */
size_t perf_record__id_trailer_size(uint64_t sample_type)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
					 PERF_SAMPLE_ID,  PERF_SAMPLE_STREAM_ID,
					 PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER };
	size_t size = 0;

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (sample_type & bits[i])
			size += 8;
	return size;
}

/**
 * perf_record__parse_id_trailer - parse the sample_id_all trailer
 * @hdr: a non-sample record
 * @sample_type: sample_type of the event whose id it carries
 * @ret: pid, tid, time, cpu and id as present; others zeroed
 *
 * Returns 0 or -EINVAL when the record is shorter than the trailer.
 */
int perf_record__parse_id_trailer(const struct perf_event_header *hdr, uint64_t sample_type,
				  struct perf_record_info *ret)
{
	size_t size = perf_record__id_trailer_size(sample_type);
	struct cursor c;
	uint32_t res;
	uint64_t v;

	memset(ret, 0, sizeof(*ret));
	if (hdr->size < sizeof(*hdr) + size)
		return -EINVAL;
	c.end = (const uint8_t *)hdr + hdr->size;
	c.p = c.end - size;
	if (sample_type & PERF_SAMPLE_TID)
		take_u32_pair(&c, &ret->pid, &ret->tid);
	if (sample_type & PERF_SAMPLE_TIME)
		take_u64(&c, &ret->time);
	if (sample_type & PERF_SAMPLE_ID)
		take_u64(&c, &ret->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		take_u64(&c, &v);
	if (sample_type & PERF_SAMPLE_CPU)
		take_u32_pair(&c, &ret->cpu, &res);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		take_u64(&c, &ret->id);
	return 0;
}

/**
 * perf_record__time - the time stamp of any record
 * @hdr: the record
 * @sample_type: sample_type of the event whose id it carries
 * @ret_time: set on success
 *
 * Returns 0, -ENODATA if @sample_type has no PERF_SAMPLE_TIME, or -EINVAL.
 */
int perf_record__time(const struct perf_event_header *hdr, uint64_t sample_type, uint64_t *ret_time)
{
	struct perf_record_info s;
	int r;

	if (!(sample_type & PERF_SAMPLE_TIME))
		return -ENODATA;
	if (hdr->type == PERF_RECORD_SAMPLE)
		r = perf_record__parse_sample(
			hdr,
			sample_type & ~(uint64_t)PERF_RECORD_UNSUPPORTED_BEFORE_RAW &
				~(uint64_t)(PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW),
			&s);
	else
		r = perf_record__parse_id_trailer(hdr, sample_type, &s);
	if (r < 0)
		return r;
	*ret_time = s.time;
	return 0;
}

static uint8_t *put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
	return p + 8;
}

static uint8_t *put_u32_pair(uint8_t *p, uint32_t a, uint32_t b)
{
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	return p + 8;
}

/**
 * perf_record__write_id_trailer - build a sample_id_all trailer
 * @buf: destination, perf_record__id_trailer_size(@sample_type) bytes
 * @sample_type: sample_type of the event whose id @s carries
 * @s: pid, tid, time, id and cpu to write
 *
 * Returns the number of bytes written.
 */
size_t perf_record__write_id_trailer(void *buf, uint64_t sample_type,
				     const struct perf_record_info *s)
{
	uint8_t *p = buf;

	if (sample_type & PERF_SAMPLE_TID)
		p = put_u32_pair(p, s->pid, s->tid);
	if (sample_type & PERF_SAMPLE_TIME)
		p = put_u64(p, s->time);
	if (sample_type & PERF_SAMPLE_ID)
		p = put_u64(p, s->id);
	if (sample_type & PERF_SAMPLE_STREAM_ID)
		p = put_u64(p, s->id);
	if (sample_type & PERF_SAMPLE_CPU)
		p = put_u32_pair(p, s->cpu, 0);
	if (sample_type & PERF_SAMPLE_IDENTIFIER)
		p = put_u64(p, s->id);
	return (size_t)(p - (uint8_t *)buf);
}
