/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracedat_page: builds one ftrace ring-buffer page (sub-buffer) as the
 * kernel hands it to trace-cmd: a u64 time stamp, a u64 commit word with
 * the MISSED_EVENTS/MISSED_STORED flags, then records with 32-bit headers
 * (type_len:5, time_delta:27), TIME_EXTEND records for long gaps and the
 * type_len 0 form for payloads over 112 bytes. Little-endian, 64-bit long.
 * Internal to tracedat_writer; no I/O.
 */
#ifndef PERFSNAPD_TRACEDAT_PAGE_H
#define PERFSNAPD_TRACEDAT_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACEDAT_PAGE_HEADER_SIZE  16
#define TRACEDAT_RB_PADDING	   29
#define TRACEDAT_RB_TIME_EXTEND	   30
#define TRACEDAT_RB_TIME_STAMP	   31
/* The largest payload a type_len 1..28 record holds (28 words). */
#define TRACEDAT_RB_MAX_SMALL_DATA 112
#define TRACEDAT_TS_SHIFT	   27
#define TRACEDAT_MISSED_EVENTS	   (1ULL << 31)
#define TRACEDAT_MISSED_STORED	   (1ULL << 30)

struct tracedat_page;

/* A page buffer of @page_size bytes (at least 64). NULL on ENOMEM or EINVAL. */
struct tracedat_page *tracedat_page__new(size_t page_size);
void tracedat_page__delete(struct tracedat_page *p);

void tracedat_page__start(struct tracedat_page *p, uint64_t ts, bool missed, uint64_t lost);
int tracedat_page__add(struct tracedat_page *p, uint64_t ts, const void *data, size_t size);
bool tracedat_page__empty(const struct tracedat_page *p);
const void *tracedat_page__seal(struct tracedat_page *p);

/* The largest payload a page of @page_size can take (with a lost count). */
size_t tracedat_page__max_payload(size_t page_size);

#endif
