/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_compress: turns perf.data records into PERF_RECORD_COMPRESSED
 * records the way `perf record -z` does: one zstd stream for the whole
 * data section, cut into records of less than 64 KiB. perfdata_writer
 * uses it when compression is on; it hands finished bytes to a callback.
 */
#ifndef PERFSNAPD_PERFDATA_COMPRESS_H
#define PERFSNAPD_PERFDATA_COMPRESS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The most record bytes one COMPRESSED record decompresses to. It is what
 * the HEADER_COMPRESSED feature must carry as mmap_len: perf sizes its
 * decompression buffer from it, per COMPRESSED record.
 */
#define PERFDATA_COMPRESS_CHUNK	     (63 * 1024)
#define PERFDATA_COMPRESS_LEVEL_MAX  22
/* HEADER_COMPRESSED: version, type, level, ratio, mmap_len (u32 each). */
#define PERFDATA_COMPRESS_FEAT_WORDS 5

struct perfdata_compress;

/* Byte counts for the feature's ratio, as perf record counts them. */
struct perfdata_compress_stats {
	uint64_t bytes_in;   /* records that went into the zstd stream */
	uint64_t bytes_out;  /* COMPRESSED records written, headers included */
	uint64_t nr_records; /* COMPRESSED records written */
	uint64_t nr_raw;     /* records too large for a chunk, written as they are */
};

struct perfdata_compress *perfdata_compress__new(
	int level, int (*write)(void *ctx, const void *data, size_t len), void *ctx);
void perfdata_compress__delete(struct perfdata_compress *c);

int perfdata_compress__add(struct perfdata_compress *c, const void *record, size_t len);
/* Whole records back to back, as many __add calls. */
int perfdata_compress__add_records(struct perfdata_compress *c, const void *records, size_t len);
int perfdata_compress__finish(struct perfdata_compress *c,
			      uint32_t ret_feature[PERFDATA_COMPRESS_FEAT_WORDS]);

void perfdata_compress__stats(const struct perfdata_compress *c,
			      struct perfdata_compress_stats *ret);

#endif
