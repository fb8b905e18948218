// SPDX-License-Identifier: GPL-2.0-only
/*
 * backward_ring: linearising a paused write_backward perf ring and walking
 * the copy newest first. The copy is two memcpy calls at most, so the time
 * the ring stays paused does not depend on how many records it holds; all
 * header checks happen afterwards, on the private copy.
 */
#include <string.h>

#include "backward_ring.h"

/**
 * backward_ring__copy - linearise a paused backward ring
 * @dst: destination, at least min(@data_size, bytes written) bytes; should
 *	 be 8-byte aligned so that backward_ring__next() can hand out records
 * @data: the ring's data area (the page after the user page)
 * @data_size: size of @data, a power of two
 * @head: data_head, read after pausing the ring
 *
 * The kernel moves data_head down by each record's size, starting at 0, so
 * (u64)0 - @head is the number of bytes ever written and the newest record
 * starts at @head & (@data_size - 1). The bytes from there up to the end of
 * the written part (wrapping at the end of @data) are copied to @dst, so
 * that the newest record lands at offset 0 and older ones follow it.
 *
 * Returns the number of bytes copied.
 */
size_t backward_ring__copy(void *dst, const void *data, size_t data_size, uint64_t head)
{
	uint64_t written = (uint64_t)0 - head;
	size_t len, start, first;

	if (!data_size)
		return 0;
	len = written < data_size ? (size_t)written : data_size;
	start = (size_t)(head & (data_size - 1));
	first = data_size - start;
	if (first > len)
		first = len;
	memcpy(dst, (const char *)data + start, first);
	if (len > first)
		memcpy((char *)dst + first, data, len - first);
	return len;
}

/**
 * backward_ring__next - next record of a linearised backward ring
 * @copy: the bytes backward_ring__copy() produced (8-byte aligned)
 * @len: its return value
 * @pos: cursor; start at 0
 *
 * Records come newest first. The walk stops at an unwritten (zero) header,
 * at a header whose size is smaller than itself or not a multiple of 8, and
 * at a record running past @len: that is the oldest one, whose tail the
 * kernel already overwrote with newer records.
 *
 * Returns the record at *@pos and advances *@pos past it, or NULL at the end.
 */
const struct perf_event_header *backward_ring__next(const void *copy, size_t len, size_t *pos)
{
	const struct perf_event_header *hdr;

	if (*pos > len || len - *pos < sizeof(*hdr))
		return NULL;
	hdr = (const struct perf_event_header *)((const char *)copy + *pos);
	if (hdr->size < sizeof(*hdr) || hdr->size % 8 || hdr->size > len - *pos)
		return NULL;
	*pos += hdr->size;
	return hdr;
}
