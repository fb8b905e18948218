/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pftrace_out: the byte stream of a Perfetto trace file: TracePackets
 * appended one by one as Trace.packet fields, through a buffer, plain or
 * compressed whole-file as gzip (zlib) or zstd, the two the Perfetto UI
 * and trace processor open directly. Nothing but the buffer and the
 * compressor's window stays in memory.
 */
#ifndef PERFSNAPD_PFTRACE_OUT_H
#define PERFSNAPD_PFTRACE_OUT_H

#include <stddef.h>
#include <stdint.h>

enum pftrace_compression {
	PFTRACE_COMPRESS_NONE,
	PFTRACE_COMPRESS_GZIP,
	PFTRACE_COMPRESS_ZSTD,
};

struct pb_buf;
struct pftrace_out;

/* Writes to @fd from its current offset (never closed here). NULL on ENOMEM. */
struct pftrace_out *pftrace_out__new(int fd, enum pftrace_compression c);
void pftrace_out__delete(struct pftrace_out *o);

/* Appends one TracePacket whose encoded fields are @data. Returns 0 or -errno. */
int pftrace_out__packet(struct pftrace_out *o, const void *data, size_t len);
/* Appends @b as one TracePacket and empties it. Returns 0 or -errno (also @b's). */
int pftrace_out__emit(struct pftrace_out *o, struct pb_buf *b);
/* Ends the stream (compressor trailer) and writes everything. Returns 0 or -errno. */
int pftrace_out__finish(struct pftrace_out *o);
/* Bytes written to the fd so far. */
uint64_t pftrace_out__bytes(const struct pftrace_out *o);

#endif
