// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_sample: what a compact ring record leaves out, added back from
 * what the snapshot knows. A tracepoint records only its id, time and raw
 * payload (see docs/design.md, "Ring records"): the CPU is its ring's, the
 * task is the payload's common_pid, the process comes from the COMM and
 * FORK records, and the period of a tracepoint is its attr's.
 */
#include <errno.h>
#include <string.h>

#include "snapshot-internal.h"

/* The fixed-size fields in the kernel's order, each one u64 word. */
static const uint64_t fixed[] = { PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP,   PERF_SAMPLE_TID,
				  PERF_SAMPLE_TIME,	  PERF_SAMPLE_ADDR, PERF_SAMPLE_ID,
				  PERF_SAMPLE_STREAM_ID,  PERF_SAMPLE_CPU,  PERF_SAMPLE_PERIOD };

/**
 * snapshot_sample__file_type - the sample_type an output describes
 * @ev: an event of the snapshot
 *
 * A compact tracepoint (PERF_SAMPLE_IDENTIFIER and RAW, no callchain)
 * gains TID, CPU and PERIOD, which snapshot__sample() fills in; any other
 * event keeps its own.
 */
uint64_t snapshot_sample__file_type(const struct snapshot_event *ev)
{
	uint64_t st = ev->attr.sample_type;

	if (ev->attr.type != PERF_TYPE_TRACEPOINT || !(st & PERF_SAMPLE_IDENTIFIER) ||
	    !(st & PERF_SAMPLE_RAW) || (st & PERF_SAMPLE_CALLCHAIN) || ev->attr.freq)
		return st;
	return st | PERF_SAMPLE_TID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD;
}

/**
 * snapshot__tgid - the process of a task, from the snapshot's COMM and FORK records
 * @s: the sealed snapshot
 * @tid: the task
 *
 * Returns its pid, 0 for the idle task, or -1 when no record names it.
 */
pid_t snapshot__tgid(const struct snapshot *s, pid_t tid)
{
	const struct snapshot_comm *c;

	if (tid <= 0)
		return tid;
	c = snapshot_comm__find(s->comms, s->nr_comms, tid);
	return c && c->pid > 0 ? c->pid : -1;
}

/* Fills what @ev's sample_type leaves out of @info. */
static void fill(const struct snapshot *s, const struct snapshot_event *ev, int cpu,
		 struct perf_record_info *info, bool sample)
{
	uint64_t st = ev->attr.sample_type;
	int32_t pid;

	if (!(st & PERF_SAMPLE_CPU))
		info->cpu = cpu >= 0 ? (uint32_t)cpu : 0;
	if (!(st & PERF_SAMPLE_PERIOD) && !ev->attr.freq)
		info->period = ev->attr.sample_period;
	if (st & PERF_SAMPLE_TID)
		return;
	if (sample && info->raw && info->raw_size >= 8) {
		/* common_type (2), common_flags (1), common_preempt_count (1), common_pid */
		memcpy(&pid, (const uint8_t *)info->raw + 4, sizeof(pid));
		info->tid = (uint32_t)pid;
		info->pid = (uint32_t)snapshot__tgid(s, pid);
	} else {
		info->pid = info->tid = (uint32_t)-1;
	}
}

/**
 * snapshot__sample - parse a sample and add back what its ring left out
 * @s: the sealed snapshot
 * @ev: the sample's event
 * @h: the PERF_RECORD_SAMPLE
 * @cpu: the CPU it is filed under (snapshot_cursor__cpu())
 * @ret: every field as perf_record__parse_sample() sets it, and where the
 *	 sample_type has none: the CPU @cpu, the tid the raw payload's
 *	 common_pid, the pid snapshot__tgid() of it, the period the attr's
 *
 * Returns 0 or perf_record__parse_sample()'s error.
 */
int snapshot__sample(const struct snapshot *s, const struct snapshot_event *ev,
		     const struct perf_event_header *h, int cpu, struct perf_record_info *ret)
{
	int r = perf_record__parse_sample(h, ev->attr.sample_type, ret);

	if (r == 0)
		fill(s, ev, cpu, ret, true);
	return r;
}

static uint8_t *put_pair(uint8_t *p, uint32_t a, uint32_t b)
{
	memcpy(p, &a, 4);
	memcpy(p + 4, &b, 4);
	return p + 8;
}

static size_t widen_sample(const struct snapshot *s, const struct snapshot_event *ev,
			   const struct perf_event_header *h, int cpu, uint64_t to, uint8_t *buf)
{
	const uint8_t *src = (const uint8_t *)(h + 1);
	uint64_t from = ev->attr.sample_type;
	struct perf_record_info info;
	uint8_t *p = buf + sizeof(*h);
	size_t tail;

	if (snapshot__sample(s, ev, h, cpu, &info) < 0 || h->size < ev->layout.fixed_end)
		return 0;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		if (!(to & fixed[i]))
			continue;
		if (from & fixed[i]) {
			memcpy(p, src, 8);
			src += 8;
			p += 8;
		} else if (fixed[i] == PERF_SAMPLE_TID) {
			p = put_pair(p, info.pid, info.tid);
		} else if (fixed[i] == PERF_SAMPLE_CPU) {
			p = put_pair(p, info.cpu, 0);
		} else {
			memcpy(p, &info.period, 8);
			p += 8;
		}
	}
	tail = h->size - ev->layout.fixed_end;
	memcpy(p, (const uint8_t *)h + ev->layout.fixed_end, tail);
	return (size_t)(p - buf) + tail;
}

static size_t widen_other(const struct snapshot *s, const struct snapshot_event *ev,
			  const struct perf_event_header *h, int cpu, uint64_t to, uint8_t *buf)
{
	size_t from_size = perf_record__id_trailer_size(ev->attr.sample_type);
	struct perf_record_info info;
	size_t body;

	if (perf_record__parse_id_trailer(h, ev->attr.sample_type, &info) < 0)
		return 0;
	fill(s, ev, cpu, &info, false);
	body = h->size - from_size;
	memcpy(buf, h, body);
	return body + perf_record__write_id_trailer(buf + body, to, &info);
}

/**
 * snapshot__widen - a record as an output that keeps no ring sees it
 * @s: the sealed snapshot
 * @ev: the event whose id the record carries
 * @h: the record, in @ev's ring layout
 * @cpu: the CPU it is filed under
 * @buf: room for @h->size + SNAPSHOT_WIDEN_EXTRA bytes
 *
 * Lays the record out for snapshot_sample__file_type(@ev), with the
 * fields snapshot__sample() adds back (a non-sample record's trailer gets
 * the CPU, and pid and tid -1: unknown).
 *
 * Returns the size written to @buf, 0 when @ev's layout is already the
 * file's (use @h as it is), or -EINVAL for a record too short or too long.
 */
int snapshot__widen(const struct snapshot *s, const struct snapshot_event *ev,
		    const struct perf_event_header *h, int cpu, void *buf)
{
	uint64_t to = snapshot_sample__file_type(ev);
	struct perf_event_header *out = buf;
	size_t size;

	if (to == ev->attr.sample_type)
		return 0;
	if (h->size > UINT16_MAX - SNAPSHOT_WIDEN_EXTRA)
		return -EINVAL;
	size = h->type == PERF_RECORD_SAMPLE ? widen_sample(s, ev, h, cpu, to, buf) :
					       widen_other(s, ev, h, cpu, to, buf);
	if (!size)
		return -EINVAL;
	out->type = h->type;
	out->misc = h->misc;
	out->size = (uint16_t)size;
	return (int)size;
}
