// SPDX-License-Identifier: GPL-2.0-only
/*
 * tracedat_page: one ring-buffer page in the layout of the kernel's
 * kernel/trace/ring_buffer.c as read back by libtraceevent's kbuffer. The
 * commit word counts the record bytes only; a stored lost-events count sits
 * right after them, and the rest of the page is zero, as the kernel leaves
 * a page it hands to a reader. See tracedat_page.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tracedat_page.h"

#define TS_DELTA_MASK ((1u << TRACEDAT_TS_SHIFT) - 1)

struct tracedat_page {
	unsigned char *buf;
	size_t page_size;
	size_t used;	  /* record bytes after the page header */
	size_t cap;	  /* room for records on this page */
	uint64_t ts;	  /* the page's base time stamp */
	uint64_t last_ts; /* of the last record: deltas count from it */
	size_t nr_records;
	bool missed;
	uint64_t lost;
};

/**
 * tracedat_page__new - allocate a page builder
 * @page_size: the ring-buffer page size of the file, at least 64 bytes
 *
 * The page must be started with tracedat_page__start() before use.
 * Returns the builder, or NULL on a bad size or when out of memory.
 */
struct tracedat_page *tracedat_page__new(size_t page_size)
{
	struct tracedat_page *p;

	if (page_size < 64 || page_size % 8)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->buf = calloc(1, page_size);
	if (!p->buf) {
		free(p);
		return NULL;
	}
	p->page_size = page_size;
	return p;
}

/**
 * tracedat_page__delete - free a page builder
 * @p: the builder, or NULL
 */
void tracedat_page__delete(struct tracedat_page *p)
{
	if (!p)
		return;
	free(p->buf);
	free(p);
}

/**
 * tracedat_page__max_payload - the largest event a page can hold
 * @page_size: the page size
 *
 * Leaves room for the type_len 0 header and a stored lost-events count.
 * Returns the size in bytes.
 */
size_t tracedat_page__max_payload(size_t page_size)
{
	size_t cap = page_size - TRACEDAT_PAGE_HEADER_SIZE - sizeof(uint64_t);

	return (cap - 8) & ~(size_t)3;
}

/**
 * tracedat_page__start - begin an empty page
 * @p: the builder
 * @ts: the page's time stamp; records may not be older
 * @missed: events were lost between the previous page and this one
 * @lost: how many, or 0 if unknown (then only the flag is set)
 *
 * A lost count takes 8 bytes after the records, so less fits on the page.
 */
void tracedat_page__start(struct tracedat_page *p, uint64_t ts, bool missed, uint64_t lost)
{
	memset(p->buf, 0, p->page_size);
	p->ts = ts;
	p->last_ts = ts;
	p->used = 0;
	p->nr_records = 0;
	p->missed = missed;
	p->lost = missed ? lost : 0;
	p->cap = p->page_size - TRACEDAT_PAGE_HEADER_SIZE;
	if (p->lost)
		p->cap -= sizeof(uint64_t);
}

/**
 * tracedat_page__empty - whether the page holds no record yet
 * @p: the builder
 *
 * Returns true for a page without records.
 */
bool tracedat_page__empty(const struct tracedat_page *p)
{
	return p->nr_records == 0;
}

/* The 32-bit record header: type_len in bits 0-4, time_delta in 5-31. */
static unsigned char *put_header(unsigned char *q, uint32_t type_len, uint32_t delta)
{
	uint32_t word = (type_len & 0x1f) | (delta << 5);

	memcpy(q, &word, sizeof(word));
	return q + sizeof(word);
}

static unsigned char *put_u32(unsigned char *q, uint32_t v)
{
	memcpy(q, &v, sizeof(v));
	return q + sizeof(v);
}

/**
 * tracedat_page__add - append an event record
 * @p: a started page
 * @ts: the event's time stamp, not older than the previous record's
 * @data: the event (common_type first)
 * @size: its length; stored padded to 4 bytes
 *
 * A gap of 2^27 ns or more from the previous record goes into a
 * TIME_EXTEND record first (low 27 bits in its time_delta, the rest in its
 * array[0]). Payloads over 112 bytes use type_len 0 with the length word.
 * Returns 0, -ENOSPC when the page is full, -ERANGE when @ts is older than
 * the previous record or the gap needs more than 59 bits (start a new
 * page for either), -E2BIG if no page can hold the event, or -EINVAL.
 */
int tracedat_page__add(struct tracedat_page *p, uint64_t ts, const void *data, size_t size)
{
	size_t len = (size + 3) & ~(size_t)3, rec, ext = 0;
	unsigned char *q;
	uint64_t delta;

	if (!data || !size)
		return -EINVAL;
	if (size > tracedat_page__max_payload(p->page_size))
		return -E2BIG;
	if (ts < p->last_ts || (ts - p->last_ts) >> (TRACEDAT_TS_SHIFT + 32))
		return -ERANGE;
	delta = ts - p->last_ts;
	if (delta > TS_DELTA_MASK)
		ext = 8;
	rec = len + (len > TRACEDAT_RB_MAX_SMALL_DATA ? 8 : 4);
	if (p->used + ext + rec > p->cap)
		return -ENOSPC;

	q = p->buf + TRACEDAT_PAGE_HEADER_SIZE + p->used;
	if (ext) {
		q = put_header(q, TRACEDAT_RB_TIME_EXTEND, (uint32_t)(delta & TS_DELTA_MASK));
		q = put_u32(q, (uint32_t)(delta >> TRACEDAT_TS_SHIFT));
		delta = 0;
	}
	if (len > TRACEDAT_RB_MAX_SMALL_DATA) {
		q = put_header(q, 0, (uint32_t)delta);
		/* Like the kernel: the length counts this word too. */
		q = put_u32(q, (uint32_t)len + 4);
	} else {
		q = put_header(q, (uint32_t)(len / 4), (uint32_t)delta);
	}
	memcpy(q, data, size);
	p->used += ext + rec;
	p->last_ts = ts;
	p->nr_records++;
	return 0;
}

/**
 * tracedat_page__seal - finish the page
 * @p: a started page
 *
 * Writes the page header: the time stamp, and the commit word with the
 * record bytes and, for a page after lost events, MISSED_EVENTS (plus
 * MISSED_STORED and the count after the records when it is known).
 * Returns the page, page_size bytes, valid until the next __start.
 */
const void *tracedat_page__seal(struct tracedat_page *p)
{
	uint64_t commit = p->used;

	if (p->missed) {
		commit |= TRACEDAT_MISSED_EVENTS;
		if (p->lost) {
			memcpy(p->buf + TRACEDAT_PAGE_HEADER_SIZE + p->used, &p->lost,
			       sizeof(p->lost));
			commit |= TRACEDAT_MISSED_STORED;
		}
	}
	memcpy(p->buf, &p->ts, sizeof(p->ts));
	memcpy(p->buf + sizeof(p->ts), &commit, sizeof(commit));
	return p->buf;
}
