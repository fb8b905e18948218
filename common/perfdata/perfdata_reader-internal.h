/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_reader-internal: the reader's layout, shared by perfdata_reader.c
 * (input, records, public API) and perfdata_reader_header.c (file header,
 * attrs, feature sections, event names). Not for other modules.
 */
#ifndef PERFSNAPD_PERFDATA_READER_INTERNAL_H
#define PERFSNAPD_PERFDATA_READER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "perfdata_reader.h"
#include "tracing_meta.h"

struct snapshot;

#define MAGIC_PERFILE2	  0x32454c4946524550ULL /* "PERFILE2", little-endian */
#define MAGIC_PERFILE2_BE 0x50455246494c4532ULL
#define MAGIC_PERFFILE	  0x454c494646524550ULL /* "PERFFILE": version 1 */
#define PIPE_HEADER_SIZE  16
#define ATTR_SIZE_VER0	  64
#define MAX_ATTR_ENTRY	  (64u << 10)
#define MAX_FEATURE_SIZE  (256u << 20)
#define MAX_RECORD	  65535u
#define INPUT_BUFFER	  (256u << 10)
#define PAYLOAD_STEP	  (1u << 20)
#define MAX_NR_CPUS	  65536u /* beyond any kernel's CONFIG_NR_CPUS */

/* perf's own record types (tools/lib/perf/include/perf/event.h). */
enum {
	REC_USER_TYPE_START = 64,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_AUXTRACE = 71,
	REC_EVENT_UPDATE = 78,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* Feature bits (tools/perf/util/header.h). */
enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_ARCH = 6,
	FEAT_CLOCK_DATA = 29,
	FEAT_NRCPUS = 7,
	FEAT_EVENT_DESC = 12,
	FEAT_BITS = 256,
};

#define EVENT_UPDATE_NAME 2

struct section {
	uint64_t offset;
	uint64_t size;
};

struct file_header {
	uint64_t magic;
	uint64_t size;
	uint64_t attr_size;
	struct section attrs;
	struct section data;
	struct section event_types;
	uint64_t features[FEAT_BITS / 64];
};

struct attr_entry {
	struct perf_event_attr attr; /* sample_type with IDENTIFIER added */
	uint64_t input_sample_type;  /* as the records were written */
	uint64_t *ids;
	size_t nr_ids;
	uint64_t canonical_id; /* written into records that lack a known id */
};

struct id_entry {
	uint64_t id;
	size_t attr;
};

struct name_entry {
	uint64_t id;
	char *name;
};

struct perfdata_reader {
	int fd;
	bool seekable;
	bool pipe;
	uint64_t file_size;

	uint8_t *buf; /* sequential input */
	size_t buf_len, buf_pos;
	uint64_t pos;	/* input offset of buf[buf_pos] */
	uint64_t limit; /* seekable: where the records end */

	struct attr_entry *attrs;
	size_t nr_attrs;
	struct id_entry *ids;
	size_t nr_ids;
	struct name_entry *names; /* EVENT_UPDATE and EVENT_DESC names by id */
	size_t nr_names;
	char **desc_names; /* EVENT_DESC names in attr order */
	size_t nr_desc_names;

	struct ZSTD_DCtx_s *zstd; /* COMPRESSED records: one stream for the input */
	uint8_t *zbuf;		  /* decompressed bytes, the last record partial */
	size_t zbuf_len;
	uint64_t *zrec; /* one decompressed record, room to add an id */

	struct tracing_meta *tracing; /* the input's TRACING_DATA, or NULL */
	uint32_t nr_cpus;
	struct perfdata_host host;	     /* HOSTNAME, OSRELEASE, ARCH */
	struct perfdata_build_id *build_ids; /* names owned */
	size_t nr_build_ids;
	uint64_t time_start, time_end;
	struct perfdata_reader_stats stats;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	char err[384];
	uint64_t rec[(MAX_RECORD + 8) / 8 + 1]; /* one record, room to add an id */
};

int perfdata_reader__fail(struct perfdata_reader *r, int err, uint64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
const struct id_entry *perfdata_reader__find_id(const struct perfdata_reader *r, uint64_t id);
int perfdata_reader__load_attr(struct perfdata_reader *r, const uint8_t *p, size_t avail,
			       struct perf_event_attr *ret, size_t *ret_size, uint64_t offset);
int perfdata_reader__add_attr(struct perfdata_reader *r, const struct perf_event_attr *attr,
			      const uint64_t *ids, size_t nr_ids, uint64_t offset);
int perfdata_reader__add_name(struct perfdata_reader *r, uint64_t id, const char *name, size_t len);
int perfdata_reader__set_tracing_data(struct perfdata_reader *r, uint8_t *data, size_t size,
				      uint64_t offset);
int perfdata_reader__process_feature(struct perfdata_reader *r, uint64_t feat, const uint8_t *data,
				     size_t size, uint64_t offset);
int perfdata_reader__read_file_header(struct perfdata_reader *r);
int perfdata_reader__record_kernel(struct perfdata_reader *r, struct snapshot *s,
				   struct perf_event_header *h, uint64_t offset);
int perfdata_reader__decompress(struct perfdata_reader *r, struct snapshot *s,
				const struct perf_event_header *h, uint64_t offset);
int perfdata_reader__decompress_end(struct perfdata_reader *r, uint64_t offset);
void perfdata_reader__decompress_free(struct perfdata_reader *r);

#endif
