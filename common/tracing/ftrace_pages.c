// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_pages: the events of copied ftrace sub-buffers as perf samples.
 * libtraceevent's kbuffer decodes the events and their times; each page
 * is walked here first with bounds checks, as kbuffer trusts the lengths
 * it reads. Part of the tracing layer; see ftrace_pages.h.
 */
#include <errno.h>
#include <string.h>

#include <linux/perf_event.h>
#include <traceevent/kbuffer.h>

#include "cleanup.h"
#include "ftrace_pages.h"

/* struct buffer_data_page: a u64 time stamp, a long commit, the events. */
#define SUBBUF_HEADER	 (sizeof(uint64_t) + sizeof(unsigned long))
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)

/* The ring buffer's event header: type_len in the low 5 bits of a u32. */
#define TYPE_LEN_PADDING     29
#define TYPE_LEN_TIME_EXTEND 30
#define TYPE_LEN_TIME_STAMP  31

/* perf_event_header.size is a u16, and records are 8-byte aligned. */
#define RECORD_MAX (UINT16_MAX & ~7u)

struct sample_head {
	struct perf_event_header header;
	uint64_t id;
	uint64_t ip;
	uint64_t time;
	uint32_t raw_size;
} __attribute__((packed));

static uint32_t load_u32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Walks the events in @data[0, @size) by their headers, as kbuffer will,
 * and checks that each lies inside, is 4-byte aligned and moves forward.
 * kbuffer itself reads whatever a length says, and its inner loop over
 * paddings and time stamps would never end on a length that points back.
 */
static int check_events(const unsigned char *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		uint32_t type_len, len = 0;
		uint64_t next;

		if (size - off < 4)
			return -EPROTO;
		type_len = load_u32(data + off) & 31;
		if (type_len == 0 || type_len >= TYPE_LEN_PADDING) {
			if (size - off < 8)
				return -EPROTO;
			len = load_u32(data + off + 4);
		}
		if (type_len == TYPE_LEN_PADDING) {
			/* A discarded event: array[0] is its length less the header. */
			next = off + 4 + (uint64_t)len;
		} else if (type_len >= TYPE_LEN_TIME_EXTEND) {
			next = off + 8;
		} else if (type_len == 0) {
			/* A large event: array[0] is its data's length plus 4. */
			if (len < 4)
				return -EPROTO;
			next = off + 8 + (((uint64_t)len - 4 + 3) & ~(uint64_t)3);
		} else {
			next = off + 4 + 4 * (uint64_t)type_len;
		}
		if (next > size || next % 4 || next <= off)
			return -EPROTO;
		off = (size_t)next;
	}
	return 0;
}

static const struct ftrace_pages_event *find_event(const struct ftrace_pages_event *events,
						   size_t nr, uint16_t type)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (events[mid].type == type)
			return &events[mid];
		if (events[mid].type < type)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * One event as a sample, built in @rec: the raw data padded with zeroes
 * so that its u32 size and it end on an 8-byte boundary, as perf does.
 */
static size_t make_record(uint64_t *rec, const struct ftrace_pages_event *e, uint64_t time,
			  const void *data, size_t size)
{
	size_t raw = ((4 + size + 7) & ~(size_t)7) - 4;
	struct sample_head h = {
		.header = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_KERNEL },
		.id = e->id,
		.ip = e->ip,
		.time = time,
		.raw_size = (uint32_t)raw,
	};
	unsigned char *p = (unsigned char *)rec;

	h.header.size = (uint16_t)(sizeof(h) + raw);
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), data, size);
	memset(p + sizeof(h) + size, 0, raw - size);
	return sizeof(h) + raw;
}

static void kbuffer_freep(struct kbuffer **kb)
{
	kbuffer_free(*kb);
}

/* What one call of ftrace_pages__records() walks with. */
struct walk {
	struct kbuffer *kb;
	size_t subbuf_size;
	const struct ftrace_pages_event *events;
	size_t nr_events;
	uint64_t until;
	ftrace_pages_fn fn;
	void *ctx;
	struct ftrace_pages_info *info;
};

/*
 * The size of a sub-buffer's events, from its commit, and its missed
 * events counted. They are read here, not with kbuffer_missed_events(),
 * which reports them only where the first item is an event, not a time
 * stamp.
 */
static int page_size(const struct walk *w, const unsigned char *page, size_t *ret)
{
	const size_t capacity = w->subbuf_size - SUBBUF_HEADER;
	unsigned long commit, size;

	memcpy(&commit, page + sizeof(uint64_t), sizeof(commit));
	size = commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED);
	if (size > capacity)
		return -EPROTO;
	if (commit & RB_MISSED_EVENTS) {
		unsigned long missed = 1; /* lost, but the kernel had no room to say how many */

		if (commit & RB_MISSED_STORED) {
			if (capacity - size < sizeof(missed))
				return -EPROTO;
			memcpy(&missed, page + SUBBUF_HEADER + size, sizeof(missed));
		}
		w->info->missed_events += missed;
	}
	*ret = size;
	return 0;
}

/* The events of one sub-buffer, its header checked and its events walked. */
static int page_records(const struct walk *w, const unsigned char *page)
{
	const unsigned char *data = page + SUBBUF_HEADER;
	struct ftrace_pages_info *info = w->info;
	uint64_t rec[RECORD_MAX / sizeof(uint64_t)];
	unsigned long long ts;
	size_t size;
	void *ev;
	int r;

	r = page_size(w, page, &size);
	if (r < 0 || !size)
		return r;
	r = check_events(data, size);
	if (r < 0)
		return r;

	/* kbuffer only reads the page, but its API takes it non-const. */
	if (kbuffer_load_subbuffer(w->kb, (void *)(uintptr_t)page) < 0)
		return -EPROTO;
	for (ev = kbuffer_read_event(w->kb, &ts); ev; ev = kbuffer_next_event(w->kb, &ts)) {
		const struct ftrace_pages_event *e;
		int esize = kbuffer_event_size(w->kb);
		size_t at = (size_t)((const unsigned char *)ev - data);
		uint16_t type;
		size_t len;

		if (esize < (int)sizeof(type) || at > size || (size_t)esize > size - at ||
		    sizeof(struct sample_head) + (size_t)esize + 7 > RECORD_MAX)
			return -EPROTO;
		memcpy(&type, ev, sizeof(type));
		e = find_event(w->events, w->nr_events, type);
		if (!e) {
			info->nr_unknown++;
			continue;
		}
		if (ts > w->until) {
			info->nr_after++;
			continue;
		}
		len = make_record(rec, e, ts, ev, (size_t)esize);
		r = w->fn(w->ctx, rec, len);
		if (r < 0)
			return r;
		if (!info->nr_events++)
			info->first_time = ts;
		info->last_time = ts;
	}
	return 0;
}

/**
 * ftrace_pages__records - the events of one CPU's sub-buffers, as samples
 * @pages: sub-buffers of @subbuf_size bytes each, oldest first; those
 *	   with a commit of 0 are skipped
 * @len: their bytes, a whole number of sub-buffers
 * @subbuf_size: the ring's
 * @events: the tracepoints, sorted by type
 * @nr_events: their number
 * @until: events newer than this (ns, the ring's clock) are left out
 * @fn: called for each record, in time order
 * @ctx: for @fn
 * @info: counts (zeroed first)
 *
 * Each record is a PERF_RECORD_SAMPLE of FTRACE_PAGES_SAMPLE_TYPE: the
 * header, the event's id, its ip, its time, then PERF_SAMPLE_RAW: a u32 size and
 * the event's bytes from common_type on (a multiple of 4, as the ring
 * stores them), zero-padded so that the size and the bytes fill whole
 * u64s. The record passed to @fn lives on the stack until @fn returns.
 * A sub-buffer's missed-events count (only a consumed ring has one) adds
 * to @info; where the kernel set the flag but had no room for the count,
 * it adds 1.
 *
 * Returns 0, -EINVAL for a @len or @subbuf_size that make no sense,
 * -EPROTO for a sub-buffer whose commit or events do not fit in it (the
 * records before it have been passed to @fn), -ENOMEM, or @fn's error.
 */
int ftrace_pages__records(const void *pages, size_t len, size_t subbuf_size,
			  const struct ftrace_pages_event *events, size_t nr_events, uint64_t until,
			  ftrace_pages_fn fn, void *ctx, struct ftrace_pages_info *info)
{
	_cleanup_(kbuffer_freep) struct kbuffer *kb = NULL;
	const unsigned char *p = pages;
	struct walk w = {
		.subbuf_size = subbuf_size,
		.events = events,
		.nr_events = nr_events,
		.until = until,
		.fn = fn,
		.ctx = ctx,
		.info = info,
	};

	memset(info, 0, sizeof(*info));
	if (subbuf_size <= SUBBUF_HEADER || subbuf_size % 8 || len % subbuf_size)
		return -EINVAL;
	if (!len)
		return 0;
	/* The kernel's long, as the sub-buffer header's commit is one. */
	kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			   KBUFFER_ENDIAN_SAME_AS_HOST);
	if (!kb)
		return -ENOMEM;
	w.kb = kb;
	for (size_t off = 0; off < len; off += subbuf_size) {
		int r = page_records(&w, p + off);

		if (r < 0)
			return r;
	}
	return 0;
}
