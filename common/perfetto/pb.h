/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pb: the protobuf wire format, as far as a Perfetto trace needs it:
 * varint and length-delimited fields appended to a growable buffer, and
 * nested messages whose length is patched in when they end. Errors are
 * sticky (the first -errno is kept, later calls do nothing), so a message
 * is built without checking every field and checked once.
 *
 * A nested length is written as a fixed 4-byte (redundantly continued)
 * varint, as Perfetto's own protozero does: valid protobuf, and it saves
 * building every submessage in a buffer of its own. A message is at most
 * 2^28 - 1 bytes.
 */
#ifndef PERFSNAPD_PB_H
#define PERFSNAPD_PB_H

#include <stddef.h>
#include <stdint.h>

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	int err; /* 0 or the first -errno */
};

/* A nested message in progress: where its length goes. */
typedef size_t pb_nested;

void pb_buf__fini(struct pb_buf *b);
static inline void pb_buf__reset(struct pb_buf *b)
{
	b->len = 0;
}

/* Room for @n more bytes; NULL (and b->err set) when out of memory. */
uint8_t *pb_buf__reserve(struct pb_buf *b, size_t n);

void pb__raw(struct pb_buf *b, const void *data, size_t len);
void pb__varint_raw(struct pb_buf *b, uint64_t v);
static inline size_t pb__put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/* Integer, bool and enum fields; a negative int takes 10 bytes. Inline: the hot path. */
static inline void pb__varint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	uint8_t *p = b->len + 15 <= b->cap ? b->data + b->len : pb_buf__reserve(b, 15);

	if (!p)
		return;
	p += pb__put_varint(p, (uint64_t)field << 3);
	p += pb__put_varint(p, v);
	b->len = (size_t)(p - b->data);
}
void pb__bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);
void pb__str(struct pb_buf *b, uint32_t field, const char *s);

pb_nested pb__begin(struct pb_buf *b, uint32_t field);
void pb__end(struct pb_buf *b, pb_nested n);

/* Bytes a varint of @v takes. */
static inline size_t pb__varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

#endif
