// SPDX-License-Identifier: GPL-2.0-only
/* pftrace_out: see pftrace_out.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "pb.h"
#include "pftrace_out.h"

#define BUF_SIZE   (256 * 1024)
/*
 * Levels that cost little next to the conversion itself: zstd 1, as
 * perf.data and trace.dat use here (faster and smaller than 3 on busy
 * snapshots, see docs/decisions.md); gzip 6 is zlib's default.
 */
#define ZSTD_LEVEL 1
#define GZIP_LEVEL 6

struct pftrace_out {
	int fd;
	enum pftrace_compression c;
	uint8_t *in; /* packets waiting to be compressed or written */
	size_t nr_in;
	uint8_t *out; /* compressed bytes waiting to be written */
	z_stream z;
	bool z_live;
	ZSTD_CCtx *zc;
	uint64_t bytes;
	int err;
};

static int write_all(struct pftrace_out *o, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = write(o->fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= (size_t)n;
		o->bytes += (uint64_t)n;
	}
	return 0;
}

static int deflate_some(struct pftrace_out *o, bool end)
{
	int zr, r;

	o->z.next_in = o->in;
	o->z.avail_in = (uInt)o->nr_in;
	do {
		o->z.next_out = o->out;
		o->z.avail_out = BUF_SIZE;
		zr = deflate(&o->z, end ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			return -EIO;
		r = write_all(o, o->out, BUF_SIZE - o->z.avail_out);
		if (r)
			return r;
	} while (o->z.avail_out == 0 || (end && zr != Z_STREAM_END));
	return 0;
}

static int zstd_some(struct pftrace_out *o, bool end)
{
	ZSTD_inBuffer in = { o->in, o->nr_in, 0 };
	size_t left;

	do {
		ZSTD_outBuffer out = { o->out, BUF_SIZE, 0 };
		int r;

		left = ZSTD_compressStream2(o->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left))
			return -EIO;
		r = write_all(o, o->out, out.pos);
		if (r)
			return r;
	} while (in.pos < in.size || (end && left));
	return 0;
}

static int drain(struct pftrace_out *o, bool end)
{
	int r;

	switch (o->c) {
	case PFTRACE_COMPRESS_GZIP:
		r = deflate_some(o, end);
		break;
	case PFTRACE_COMPRESS_ZSTD:
		r = zstd_some(o, end);
		break;
	case PFTRACE_COMPRESS_NONE:
	default:
		r = write_all(o, o->in, o->nr_in);
	}
	o->nr_in = 0;
	return r;
}

struct pftrace_out *pftrace_out__new(int fd, enum pftrace_compression c)
{
	struct pftrace_out *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->fd = fd;
	o->c = c;
	o->in = malloc(BUF_SIZE);
	o->out = c != PFTRACE_COMPRESS_NONE ? malloc(BUF_SIZE) : NULL;
	if (!o->in || (c != PFTRACE_COMPRESS_NONE && !o->out))
		goto fail;
	if (c == PFTRACE_COMPRESS_GZIP) {
		/* 15 + 16: a gzip header, which the Perfetto UI recognises. */
		if (deflateInit2(&o->z, GZIP_LEVEL, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
		    Z_OK)
			goto fail;
		o->z_live = true;
	} else if (c == PFTRACE_COMPRESS_ZSTD) {
		o->zc = ZSTD_createCCtx();
		if (!o->zc || ZSTD_isError(ZSTD_CCtx_setParameter(o->zc, ZSTD_c_compressionLevel,
								  ZSTD_LEVEL)))
			goto fail;
	}
	return o;
fail:
	pftrace_out__delete(o);
	return NULL;
}

void pftrace_out__delete(struct pftrace_out *o)
{
	if (!o)
		return;
	if (o->z_live)
		deflateEnd(&o->z);
	ZSTD_freeCCtx(o->zc);
	free(o->in);
	free(o->out);
	free(o);
}

static int put(struct pftrace_out *o, const void *data, size_t len)
{
	const uint8_t *p = data;

	while (len && !o->err) {
		size_t n = BUF_SIZE - o->nr_in;

		if (n > len)
			n = len;
		memcpy(o->in + o->nr_in, p, n);
		o->nr_in += n;
		p += n;
		len -= n;
		if (o->nr_in == BUF_SIZE)
			o->err = drain(o, false);
	}
	return o->err;
}

int pftrace_out__packet(struct pftrace_out *o, const void *data, size_t len)
{
	uint8_t head[16];
	size_t n = 0;
	uint64_t v = len;

	head[n++] = 1 << 3 | 2; /* Trace.packet, length-delimited */
	while (v >= 0x80) {
		head[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	head[n++] = (uint8_t)v;
	if (put(o, head, n))
		return o->err;
	return put(o, data, len);
}

int pftrace_out__finish(struct pftrace_out *o)
{
	if (!o->err)
		o->err = drain(o, true);
	return o->err;
}

uint64_t pftrace_out__bytes(const struct pftrace_out *o)
{
	return o->bytes;
}

/**
 * pftrace_out__emit - append an encoded packet and empty its buffer
 * @o: the stream
 * @b: the packet's fields; an encoding error in it is returned instead
 *
 * Returns 0 or -errno.
 */
int pftrace_out__emit(struct pftrace_out *o, struct pb_buf *b)
{
	int r = b->err ? b->err : pftrace_out__packet(o, b->data, b->len);

	pb_buf__reset(b);
	return r;
}
