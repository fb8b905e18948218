/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_writer-internal: the writer's layout, shared by perfdata_writer.c
 * (the file: header, attrs, records, the feature table) and
 * perfdata_writer_features.c (the feature payloads). Not for other modules.
 */
#ifndef PERFSNAPD_PERFDATA_WRITER_INTERNAL_H
#define PERFSNAPD_PERFDATA_WRITER_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

#include "byte_buffer.h"
#include "file_output.h"
#include "perfdata_writer.h"

/* perf 6.1 refuses attrs larger than its own struct, which is VER7. */
#define FILE_ATTR_SIZE PERF_ATTR_SIZE_VER7
/* perf pads header strings (with their NUL) to this many bytes. */
#define NAME_ALIGN     64
/* Features perfsnapd uses: the first 32 bits of perf's 256-bit bitmap. */
#define FEAT_SLOTS     32

enum writer_state {
	WRITER_ATTRS,  /* taking __add_attr */
	WRITER_DATA,   /* header and attrs written, taking records */
	WRITER_DONE,   /* __finish succeeded */
	WRITER_FAILED, /* a write failed: the file is unusable */
};

struct writer_attr {
	struct perf_event_attr attr;
	char *name;
	uint64_t *ids;
	size_t nr_ids;
};

/* A growable byte buffer for feature payloads. */
struct perfdata_writer {
	struct file_output out;
	enum writer_state state;
	struct writer_attr *attrs;
	size_t nr_attrs;
	size_t attrs_cap;
	uint64_t data_offset;
	struct byte_buffer feat[FEAT_SLOTS];
	struct perfdata_compress *zc; /* NULL: records go to the file as they are */
};

/* perfdata_writer.c */
void perfdata_writer__file_attr(const struct writer_attr *a, unsigned char out[FILE_ATTR_SIZE]);

/* perfdata_writer_features.c */
int perfdata_writer_features__set(struct perfdata_writer *w, enum perfdata_feature feat,
				  struct byte_buffer *b);
int perfdata_writer_features__build_event_desc(struct perfdata_writer *w);

#endif
