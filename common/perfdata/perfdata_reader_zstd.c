// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_reader_zstd: PERF_RECORD_COMPRESSED (and COMPRESSED2, which
 * adds the compressed size) records, as `perf record -z` and perfsnapd's
 * perfdata_compress write them: one zstd stream across all of them, whose
 * output is a run of ordinary records that may straddle two COMPRESSED
 * records. Output is decoded through a fixed window and handed on record
 * by record, so a small input cannot make the reader allocate much.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "perfdata_reader-internal.h"

#define ZBUF_SIZE (1u << 20) /* > MAX_RECORD: a partial record always fits */

/* Hands on every whole record in the window; keeps the partial one. */
static int drain(struct perfdata_reader *r, struct snapshot *s, uint64_t offset)
{
	struct perf_event_header h;
	size_t pos = 0;
	int err = 0;

	while (!err && r->zbuf_len - pos >= sizeof(h)) {
		memcpy(&h, r->zbuf + pos, sizeof(h));
		if (h.size < sizeof(h))
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "compressed data holds a record of size %u",
						     h.size);
		if (h.size > r->zbuf_len - pos)
			break;
		if (h.type < REC_USER_TYPE_START) {
			memcpy(r->zrec, r->zbuf + pos, h.size);
			err = perfdata_reader__record_kernel(
				r, s, (struct perf_event_header *)r->zrec, offset);
		} else {
			/* perf compresses only ring data; nothing of its own to follow. */
			r->stats.nr_user_records++;
		}
		pos += h.size;
	}
	memmove(r->zbuf, r->zbuf + pos, r->zbuf_len - pos);
	r->zbuf_len -= pos;
	return err;
}

static int setup(struct perfdata_reader *r)
{
	if (r->zstd)
		return 0;
	r->zbuf = malloc(ZBUF_SIZE);
	r->zrec = malloc(MAX_RECORD + 16);
	r->zstd = ZSTD_createDStream();
	if (!r->zbuf || !r->zrec || !r->zstd)
		return -ENOMEM;
	if (ZSTD_isError(ZSTD_initDStream(r->zstd)))
		return -ENOMEM;
	return 0;
}

/**
 * perfdata_reader__decompress - take in a COMPRESSED or COMPRESSED2 record
 * @r: the reader
 * @s: the snapshot, inside its chunk
 * @h: the record
 * @offset: input offset, for messages
 *
 * Returns 0, -EPROTO for data zstd refuses or records that make no sense,
 * or -ENOMEM.
 */
int perfdata_reader__decompress(struct perfdata_reader *r, struct snapshot *s,
				const struct perf_event_header *h, uint64_t offset)
{
	ZSTD_inBuffer in = { h + 1, h->size - sizeof(*h), 0 };
	bool full;
	int err;

	r->stats.nr_user_records++;
	if (h->type == REC_COMPRESSED2) {
		uint64_t data_size = 0;

		if (in.size >= sizeof(data_size))
			memcpy(&data_size, h + 1, sizeof(data_size));
		if (in.size < sizeof(data_size) || data_size > in.size - sizeof(data_size))
			return perfdata_reader__fail(r, -EPROTO, offset,
						     "COMPRESSED2 record of %u bytes claims %llu",
						     h->size, (unsigned long long)data_size);
		in.src = (const uint8_t *)(h + 1) + sizeof(data_size);
		in.size = (size_t)data_size;
	}
	err = setup(r);
	if (err)
		return err;
	do {
		ZSTD_outBuffer out = { r->zbuf, ZBUF_SIZE, r->zbuf_len };
		size_t ret = ZSTD_decompressStream(r->zstd, &out, &in);

		if (ZSTD_isError(ret))
			return perfdata_reader__fail(r, -EPROTO, offset, "bad compressed data: %s",
						     ZSTD_getErrorName(ret));
		/* A full window may mean zstd holds more: go round again after draining. */
		full = out.pos == out.size;
		r->zbuf_len = out.pos;
		err = drain(r, s, offset);
	} while (!err && (in.pos < in.size || full));
	return err;
}

/**
 * perfdata_reader__decompress_end - check nothing is left half-decompressed
 * @r: the reader, at the end of its input
 * @offset: input offset, for messages
 *
 * Returns 0 or -EPROTO when the compressed data ended inside a record.
 */
int perfdata_reader__decompress_end(struct perfdata_reader *r, uint64_t offset)
{
	if (r->zbuf_len)
		return perfdata_reader__fail(
			r, -EPROTO, offset,
			"compressed data ends inside a record (%zu bytes): truncated?",
			r->zbuf_len);
	return 0;
}

/**
 * perfdata_reader__decompress_free - free the decompression state
 * @r: the reader
 */
void perfdata_reader__decompress_free(struct perfdata_reader *r)
{
	ZSTD_freeDStream(r->zstd);
	free(r->zbuf);
	free(r->zrec);
}
