// SPDX-License-Identifier: GPL-2.0-only
/* pb: see pb.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define WIRE_LEN	 2
#define NESTED_LEN_BYTES 4
#define NESTED_MAX	 ((1u << (7 * NESTED_LEN_BYTES)) - 1)

void pb_buf__fini(struct pb_buf *b)
{
	free(b->data);
	*b = (struct pb_buf){ 0 };
}

uint8_t *pb_buf__reserve(struct pb_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err)
		return NULL;
	if (b->len + n <= b->cap)
		return b->data + b->len;
	cap = b->cap ? b->cap : 4096;
	while (cap < b->len + n)
		cap *= 2;
	p = realloc(b->data, cap);
	if (!p) {
		b->err = -ENOMEM;
		return NULL;
	}
	b->data = p;
	b->cap = cap;
	return p + b->len;
}

void pb__raw(struct pb_buf *b, const void *data, size_t len)
{
	uint8_t *p = pb_buf__reserve(b, len);

	if (p && len) {
		memcpy(p, data, len);
		b->len += len;
	}
}

void pb__varint_raw(struct pb_buf *b, uint64_t v)
{
	uint8_t *p = pb_buf__reserve(b, 10);

	if (p)
		b->len += pb__put_varint(p, v);
}

void pb__bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len)
{
	uint8_t *p = pb_buf__reserve(b, 15 + len);

	if (!p)
		return;
	p += pb__put_varint(p, (uint64_t)field << 3 | WIRE_LEN);
	p += pb__put_varint(p, len);
	if (len)
		memcpy(p, data, len);
	b->len = (size_t)(p - b->data) + len;
}

void pb__str(struct pb_buf *b, uint32_t field, const char *s)
{
	pb__bytes(b, field, s, strlen(s));
}

pb_nested pb__begin(struct pb_buf *b, uint32_t field)
{
	uint8_t *p = pb_buf__reserve(b, 5 + NESTED_LEN_BYTES);
	size_t at;

	if (!p)
		return 0;
	p += pb__put_varint(p, (uint64_t)field << 3 | WIRE_LEN);
	at = (size_t)(p - b->data);
	b->len = at + NESTED_LEN_BYTES;
	return at;
}

void pb__end(struct pb_buf *b, pb_nested n)
{
	size_t len;
	uint8_t *p;

	if (b->err)
		return;
	len = b->len - n - NESTED_LEN_BYTES;
	if (len > NESTED_MAX) {
		b->err = -E2BIG;
		return;
	}
	p = b->data + n;
	for (int i = 0; i < NESTED_LEN_BYTES; i++) {
		p[i] = (uint8_t)((len & 0x7f) | (i < NESTED_LEN_BYTES - 1 ? 0x80 : 0));
		len >>= 7;
	}
}
