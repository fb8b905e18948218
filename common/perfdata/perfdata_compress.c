// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata_compress: perf.data records -> PERF_RECORD_COMPRESSED records.
 *
 * perf (tools/perf/util/tool.c, 6.1 and later) decompresses the payload of
 * each COMPRESSED record with one zstd stream that lives for the whole
 * file, into a buffer of HEADER_COMPRESSED's mmap_len bytes, then parses
 * the records in it. So the stream is a single zstd frame here too, each
 * record ends at a flush point, and no record decompresses to more than
 * PERFDATA_COMPRESS_CHUNK bytes. Records are gathered whole into a chunk,
 * which perf copes with across records too but need not here. Part of
 * common/: no logging, every error is a negative errno.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>
#include <zstd_errors.h>
#include <perf/event.h>

#include "perfdata_compress.h"
#include "perf_record.h"

#define COMP_HEADER_SIZE sizeof(struct perf_event_header)
/* header.size is 16 bits: header plus payload must stay below 64 KiB. */
#define COMP_MAX_PAYLOAD (UINT16_MAX - COMP_HEADER_SIZE)
/* zstd's single-pass bound for a chunk, and room for flush and frame marks. */
#define COMP_OUT_SIZE	 (ZSTD_COMPRESSBOUND(PERFDATA_COMPRESS_CHUNK) + 1024)

/*
 * A whole chunk must fit one record even when zstd cannot shrink it (the
 * bound covers stored blocks, their headers and the frame header).
 */
_Static_assert(ZSTD_COMPRESSBOUND(PERFDATA_COMPRESS_CHUNK) <= COMP_MAX_PAYLOAD,
	       "a chunk's worst case does not fit one COMPRESSED record");
_Static_assert(PERFDATA_COMPRESS_CHUNK % 8 == 0, "records are 8-byte aligned");

struct perfdata_compress {
	ZSTD_CCtx *cctx;
	unsigned char *chunk; /* records not yet compressed */
	size_t chunk_len;
	unsigned char *out; /* header, then the zstd bytes of one chunk */
	int (*write)(void *ctx, const void *data, size_t len);
	void *ctx;
	int level;
	struct perfdata_compress_stats stats;
};

static int zstd_errno(size_t code)
{
	return ZSTD_getErrorCode(code) == ZSTD_error_memory_allocation ? -ENOMEM : -EIO;
}

/**
 * perfdata_compress__new - start a zstd stream for COMPRESSED records
 * @level: zstd level, 1..PERFDATA_COMPRESS_LEVEL_MAX
 * @write: receives each finished record (a COMPRESSED one, or a record too
 *         large for a chunk as it came); returns 0 or -errno
 * @ctx: passed to @write
 *
 * Returns the compressor, or NULL if memory ran out or @level or @write
 * is invalid.
 */
struct perfdata_compress *perfdata_compress__new(
	int level, int (*write)(void *ctx, const void *data, size_t len), void *ctx)
{
	struct perfdata_compress *c;

	if (level < 1 || level > PERFDATA_COMPRESS_LEVEL_MAX || !write)
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cctx = ZSTD_createCCtx();
	c->chunk = malloc(PERFDATA_COMPRESS_CHUNK);
	c->out = malloc(COMP_HEADER_SIZE + COMP_OUT_SIZE);
	if (!c->cctx || !c->chunk || !c->out ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(c->cctx, ZSTD_c_compressionLevel, level))) {
		perfdata_compress__delete(c);
		return NULL;
	}
	c->write = write;
	c->ctx = ctx;
	c->level = level;
	return c;
}

/**
 * perfdata_compress__delete - free a compressor
 * @c: the compressor, or NULL
 *
 * Records still in the chunk are dropped.
 */
void perfdata_compress__delete(struct perfdata_compress *c)
{
	if (!c)
		return;
	ZSTD_freeCCtx(c->cctx);
	free(c->chunk);
	free(c->out);
	free(c);
}

/*
 * Compresses the chunk into one COMPRESSED record. @mode is ZSTD_e_flush
 * (the frame goes on in the next record) or ZSTD_e_end (the last one).
 */
static int emit_chunk(struct perfdata_compress *c, ZSTD_EndDirective mode)
{
	struct perf_event_header h = { .type = PERF_RECORD_COMPRESSED };
	ZSTD_inBuffer in = { c->chunk, c->chunk_len, 0 };
	ZSTD_outBuffer out = { c->out + COMP_HEADER_SIZE, COMP_OUT_SIZE, 0 };
	size_t left;
	int err;

	if (!c->chunk_len)
		return 0;
	do {
		left = ZSTD_compressStream2(c->cctx, &out, &in, mode);
		if (ZSTD_isError(left))
			return zstd_errno(left);
	} while (left && out.pos < out.size);
	/* Not expected (see the bound above); the stream is unusable now. */
	if (left || in.pos < in.size || out.pos > COMP_MAX_PAYLOAD)
		return -EOVERFLOW;
	h.size = (uint16_t)(COMP_HEADER_SIZE + out.pos);
	memcpy(c->out, &h, sizeof(h));
	/* Not padded to 8 like other records: perf record does not either. */
	err = c->write(c->ctx, c->out, h.size);
	if (err)
		return err;
	c->stats.bytes_in += c->chunk_len;
	c->stats.bytes_out += h.size;
	c->stats.nr_records++;
	c->chunk_len = 0;
	return 0;
}

/**
 * perfdata_compress__add - add one record to the stream
 * @c: the compressor
 * @record: the record, a perf_event_header first
 * @len: its size in bytes
 *
 * Records are gathered until the chunk is full. A record larger than a
 * chunk (at most 64 KiB, so only a few are) is written as it is, after
 * the chunk before it: perf reads plain records between COMPRESSED ones,
 * as `perf record -z` writes its synthesized ones.
 *
 * Returns 0, -EINVAL, or -errno from zstd (-ENOMEM, -EIO) or the callback;
 * after an error the stream is unusable.
 */
int perfdata_compress__add(struct perfdata_compress *c, const void *record, size_t len)
{
	int err;

	if (!c || !record || !len)
		return -EINVAL;
	if (len > PERFDATA_COMPRESS_CHUNK - c->chunk_len) {
		err = emit_chunk(c, ZSTD_e_flush);
		if (err)
			return err;
	}
	if (len > PERFDATA_COMPRESS_CHUNK) {
		c->stats.nr_raw++;
		return c->write(c->ctx, record, len);
	}
	memcpy(c->chunk + c->chunk_len, record, len);
	c->chunk_len += len;
	return 0;
}

/**
 * perfdata_compress__add_records - add records that lie back to back
 * @c: the compressor
 * @records: whole records, each a perf_event_header first (8-byte aligned)
 * @len: their total size in bytes
 *
 * As __add for each, with one copy per chunk's worth rather than per record.
 * Returns 0, -EINVAL for a header that is not a record's or does not fit
 * @len, or what __add returns; after an error the stream is unusable.
 */
int perfdata_compress__add_records(struct perfdata_compress *c, const void *records, size_t len)
{
	const unsigned char *p = records;
	int err;

	if (!c || (!records && len))
		return -EINVAL;
	while (len) {
		size_t room = PERFDATA_COMPRESS_CHUNK - c->chunk_len, n = 0, next = 0;

		/* The whole records that fit the chunk's room. */
		while (n < len && next <= room) {
			if (!perf_record__next(p, len, &next))
				return -EINVAL;
			if (next <= room)
				n = next;
		}
		if (!n) {
			/* The next one does not fit: the chunk goes out first, or it goes raw. */
			n = next;
			err = perfdata_compress__add(c, p, n);
		} else {
			memcpy(c->chunk + c->chunk_len, p, n);
			c->chunk_len += n;
			err = 0;
		}
		if (err)
			return err;
		p += n;
		len -= n;
	}
	return 0;
}

/**
 * perfdata_compress__finish - write the records still in the chunk
 * @c: the compressor
 * @ret_feature: set to the HEADER_COMPRESSED payload on success
 *
 * The last chunk also ends the zstd frame. When a raw record came last the
 * chunk is empty and the frame stays open, as perf record always leaves
 * it: a COMPRESSED record that decompresses to nothing is an error for
 * perf. The feature is what perf 6.1 writes: version 0 (perf record never
 * sets it), type 1 (zstd), level, the ratio of bytes in to bytes out
 * rounded as perf rounds it, and mmap_len, PERFDATA_COMPRESS_CHUNK.
 *
 * Returns 0 or -errno as for perfdata_compress__add().
 */
int perfdata_compress__finish(struct perfdata_compress *c,
			      uint32_t ret_feature[PERFDATA_COMPRESS_FEAT_WORDS])
{
	const struct perfdata_compress_stats *st;
	int err;

	if (!c)
		return -EINVAL;
	err = emit_chunk(c, ZSTD_e_end);
	if (err)
		return err;
	st = &c->stats;
	ret_feature[0] = 0;
	ret_feature[1] = 1;
	ret_feature[2] = (uint32_t)c->level;
	ret_feature[3] = st->bytes_out ?
				 (uint32_t)((st->bytes_in + st->bytes_out / 2) / st->bytes_out) :
				 0;
	ret_feature[4] = PERFDATA_COMPRESS_CHUNK;
	return 0;
}

/**
 * perfdata_compress__stats - byte and record counts so far
 * @c: the compressor
 * @ret: set to the counts
 */
void perfdata_compress__stats(const struct perfdata_compress *c,
			      struct perfdata_compress_stats *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (c)
		*ret = c->stats;
}
