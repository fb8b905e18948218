/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * backward_ring: taking records out of a paused write_backward ring.
 *
 * The kernel writes a backward ring downwards from data_head, so the
 * newest record starts at data_head and older ones follow it upwards in
 * memory. The copy step is O(1) in records (pure memcpy, done while the ring
 * is paused); walking the records happens later, on the copy.
 */
#ifndef PERFSNAPD_BACKWARD_RING_H
#define PERFSNAPD_BACKWARD_RING_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

/*
 * Copies the written part of a backward ring into @dst, linearised so that
 * the newest record is at offset 0. @data/@data_size is the ring's data area
 * (a power of two), @head the data_head read after pausing it. At most
 * @data_size bytes are copied; a ring that never wrapped copies only what
 * was written. Returns the number of bytes copied.
 */
size_t backward_ring__copy(void *dst, const void *data, size_t data_size, uint64_t head);

/* How many bytes backward_ring__copy() copies for @head: min(written, @data_size). */
size_t backward_ring__len(size_t data_size, uint64_t head);

/*
 * One part of backward_ring__copy(): bytes [@from, @to) of the linearised
 * copy (0 is the newest record's first byte, @to at most __len()) to the
 * same place in @dst. The part at the end holds the oldest records, which
 * the kernel's next records overwrite first once the ring runs again: a
 * caller copies it while the ring is paused, and the rest after.
 */
void backward_ring__copy_range(void *dst, const void *data, size_t data_size, uint64_t head,
			       size_t from, size_t to);

/*
 * backward_ring__copy_range() to a buffer of its own: byte @from of the
 * linearised copy lands at @dst[0], so that a part can be held apart from
 * the copy it belongs to (a staging buffer kept between dumps).
 */
void backward_ring__copy_out(void *dst, const void *data, size_t data_size, uint64_t head,
			     size_t from, size_t to);

/*
 * backward_ring__copy_range() into a file: bytes [@from, @to) of the
 * linearised copy to the same offsets of @fd, by pwrite(), so that the
 * kernel copies them (see ring_copy__map_file()). Returns 0 or -errno.
 */
int backward_ring__write_range(int fd, const void *data, size_t data_size, uint64_t head,
			       size_t from, size_t to);

/*
 * The trusted length of a copy made in pieces while the kernel went on
 * writing, once the piece ending at @to was copied and the kernel had by
 * then written @written bytes since the pause; @trusted is the figure
 * before that piece (at first the copy's length). The walk
 * (backward_ring__next()) stops at a record cut by it.
 */
size_t backward_ring__intact(size_t trusted, size_t data_size, size_t to, uint64_t written);

/*
 * Walks a linearised copy newest first. Start with *pos = 0; returns the
 * record at *pos and advances it, or NULL at the end of valid data: an
 * unwritten (zero) header, a header smaller than itself, or the oldest record
 * whose tail the kernel had already overwritten.
 */
const struct perf_event_header *backward_ring__next(const void *copy, size_t len, size_t *pos);

#endif
