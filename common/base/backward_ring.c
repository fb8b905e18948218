// SPDX-License-Identifier: GPL-2.0-only
/*
 * backward_ring: linearising a paused write_backward perf ring and walking
 * the copy newest first. The copy is two memcpy calls at most, so the time
 * the ring stays paused does not depend on how many records it holds; all
 * header checks happen afterwards, on the private copy.
 */
#include <string.h>

#include "backward_ring.h"
#include "file_output.h"
#include "perf_record.h"

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
	size_t len = backward_ring__len(data_size, head);

	backward_ring__copy_range(dst, data, data_size, head, 0, len);
	return len;
}

/**
 * backward_ring__len - the length of a ring's linearised copy
 * @data_size: size of its data area, a power of two
 * @head: data_head, read after pausing it
 *
 * Returns min(bytes ever written, @data_size).
 */
size_t backward_ring__len(size_t data_size, uint64_t head)
{
	uint64_t written = (uint64_t)0 - head;

	return written < data_size ? (size_t)written : data_size;
}

/*
 * Bytes [@from, @to) of the linearised copy start at ring offset *@start
 * and run to the ring's end for the returned length; the rest, if any,
 * starts at the ring's offset 0. Returns 0 for nothing to copy.
 */
static size_t piece(size_t data_size, uint64_t head, size_t from, size_t to, size_t *start)
{
	size_t first;

	if (!data_size || from >= to)
		return 0;
	*start = (size_t)((head + from) & (data_size - 1));
	first = data_size - *start;
	return first < to - from ? first : to - from;
}

/**
 * backward_ring__copy_range - copy part of a ring's linearised copy
 * @dst: the whole copy's destination (see backward_ring__copy())
 * @data: the ring's data area
 * @data_size: its size, a power of two
 * @head: data_head, read after pausing the ring
 * @from: first byte of the part, in the linearised copy
 * @to: end of the part, at most backward_ring__len()
 *
 * Byte x of the linearised copy is byte (@head + x) mod @data_size of the
 * ring; the part is copied in at most two pieces, where it wraps.
 */
void backward_ring__copy_range(void *dst, const void *data, size_t data_size, uint64_t head,
			       size_t from, size_t to)
{
	backward_ring__copy_out((char *)dst + from, data, data_size, head, from, to);
}

/**
 * backward_ring__copy_out - copy part of a ring's linearised copy apart
 * @dst: where byte @from of the linearised copy goes; @to - @from bytes
 * @data: the ring's data area
 * @data_size: its size, a power of two
 * @head: data_head, read after pausing the ring
 * @from: first byte of the part, in the linearised copy
 * @to: end of the part, at most backward_ring__len()
 */
void backward_ring__copy_out(void *dst, const void *data, size_t data_size, uint64_t head,
			     size_t from, size_t to)
{
	size_t start, first = piece(data_size, head, from, to, &start);

	if (!first)
		return;
	memcpy(dst, (const char *)data + start, first);
	if (to - from > first)
		memcpy((char *)dst + first, data, to - from - first);
}

/**
 * backward_ring__write_range - write part of a ring's linearised copy to a file
 * @fd: the file: byte x of the copy goes to its offset x
 * @data: the ring's data area
 * @data_size: its size, a power of two
 * @head: data_head, read after pausing the ring
 * @from: first byte of the part, in the linearised copy
 * @to: end of the part, at most backward_ring__len()
 *
 * As backward_ring__copy_range(), in at most two writes.
 *
 * Returns 0 or -errno.
 */
int backward_ring__write_range(int fd, const void *data, size_t data_size, uint64_t head,
			       size_t from, size_t to)
{
	size_t start, first = piece(data_size, head, from, to, &start);
	int r;

	if (!first)
		return 0;
	r = file_output__write_at(fd, from, (const char *)data + start, first);
	if (r == 0 && to - from > first)
		r = file_output__write_at(fd, from + first, data, to - from - first);
	return r;
}

/* @len, cut to what stays of the copy once the kernel wrote @n more bytes. */
static size_t untouched(size_t len, size_t data_size, uint64_t n)
{
	return n >= data_size ? 0 : len < data_size - n ? len : data_size - (size_t)n;
}

/**
 * backward_ring__intact - the trusted part of a copy made in pieces
 * @trusted: the trusted length so far; backward_ring__len() at the pause
 *	before the first piece
 * @data_size: the ring's data size
 * @to: the piece just copied ended at @to (in the linearised copy)
 * @written: bytes the kernel had written since the pause when that copy
 *	ended (data_head moves down)
 *
 * The kernel writes on from data_head at the pause, over free space
 * first, then over the oldest bytes: the copy's byte x is overwritten by
 * the (data_size - x)-th byte written since. It comes to a piece at its
 * end, @to, so a piece is whole if the kernel had not written that far by
 * the time it was copied. Else the bytes from where the kernel had come
 * may be its new ones, and the copy is trusted only below that: the walk
 * goes newest first and cannot step over a gap. Called for each piece in
 * the order copied (a record the kernel was writing when the pause landed
 * is a piece ending at the copy's end, @written being what it wrote before
 * the resume).
 *
 * Returns the trusted length.
 */
size_t backward_ring__intact(size_t trusted, size_t data_size, size_t to, uint64_t written)
{
	size_t left = untouched(to, data_size, written);

	return left < to && left < trusted ? left : trusted;
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
	/* Its records lie back to back like any others'; only their order is backward. */
	return perf_record__next(copy, len, pos);
}
