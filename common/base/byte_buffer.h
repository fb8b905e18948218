/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * byte_buffer: a growable run of bytes that file sections are assembled in
 * (feature payloads, trace.dat metadata, records to merge) before they are
 * written. Values are appended in host order: perfsnapd writes files in
 * the byte order of the machine that records.
 */
#ifndef PERFSNAPD_BYTE_BUFFER_H
#define PERFSNAPD_BYTE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

/* Zero-initialise; byte_buffer__fini() frees. */
struct byte_buffer {
	unsigned char *data;
	size_t len;
	size_t cap;
};

int byte_buffer__put(struct byte_buffer *b, const void *data, size_t len);
int byte_buffer__put_u16(struct byte_buffer *b, uint16_t v);
int byte_buffer__put_u32(struct byte_buffer *b, uint32_t v);
int byte_buffer__put_u64(struct byte_buffer *b, uint64_t v);
int byte_buffer__put_str(struct byte_buffer *b, const char *s);
int byte_buffer__set(struct byte_buffer *b, const void *data, size_t len);
void byte_buffer__fini(struct byte_buffer *b);

#endif
