// SPDX-License-Identifier: GPL-2.0-only
/* byte_buffer: see byte_buffer.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "byte_buffer.h"

/**
 * byte_buffer__put - append bytes to a growable buffer
 * @b: the buffer
 * @data: the bytes, or NULL for zeros
 * @len: how many
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__put(struct byte_buffer *b, const void *data, size_t len)
{
	if (len > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		unsigned char *p;

		while (cap - b->len < len) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		p = realloc(b->data, cap);
		if (!p)
			return -ENOMEM;
		b->data = p;
		b->cap = cap;
	}
	if (len && data)
		memcpy(b->data + b->len, data, len);
	else if (len)
		memset(b->data + b->len, 0, len);
	b->len += len;
	return 0;
}

/**
 * byte_buffer__put_u16 - append a little-endian u16
 * @b: the buffer
 * @v: the value
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__put_u16(struct byte_buffer *b, uint16_t v)
{
	return byte_buffer__put(b, &v, sizeof(v));
}

/**
 * byte_buffer__put_u32 - append a little-endian u32
 * @b: the buffer
 * @v: the value
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__put_u32(struct byte_buffer *b, uint32_t v)
{
	return byte_buffer__put(b, &v, sizeof(v));
}

/**
 * byte_buffer__put_u64 - append a little-endian u64
 * @b: the buffer
 * @v: the value
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__put_u64(struct byte_buffer *b, uint64_t v)
{
	return byte_buffer__put(b, &v, sizeof(v));
}

/**
 * byte_buffer__put_str - append a string with its NUL
 * @b: the buffer
 * @s: the string
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__put_str(struct byte_buffer *b, const char *s)
{
	return byte_buffer__put(b, s, strlen(s) + 1);
}

/**
 * byte_buffer__set - replace a buffer's content
 * @b: the buffer
 * @data: the new bytes (NULL for zeros)
 * @len: how many
 *
 * Returns 0 or -ENOMEM.
 */
int byte_buffer__set(struct byte_buffer *b, const void *data, size_t len)
{
	b->len = 0;
	return byte_buffer__put(b, data, len);
}

/**
 * byte_buffer__fini - free a buffer's memory and empty it
 * @b: the buffer
 */
void byte_buffer__fini(struct byte_buffer *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}
