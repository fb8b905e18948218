/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_writer: writes a perf.data file (the "PERFILE2" format that
 * `perf script` and `perf report` read) to an open file descriptor.
 *
 * Sequence: __new, __add_attr for every event, __begin_data,
 * __write_event(s) for every record (perf orders them by time as it
 * reads, up to each FINISHED_ROUND), the __set_* calls for
 * feature sections (any time before __finish), __finish. Each step checks
 * the writer's state, so a call out of order returns -EBADFD instead of
 * producing a file perf would misread. Attrs are written with size 128
 * (PERF_ATTR_SIZE_VER7), the newest layout perf 6.1 accepts.
 */
#ifndef PERFSNAPD_PERFDATA_WRITER_H
#define PERFSNAPD_PERFDATA_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/perf_event.h>

struct perfdata_writer;

/* Feature bits perfsnapd writes (perf's HEADER_* numbering). */
enum perfdata_feature {
	PERFDATA_FEAT_TRACING_DATA = 1,
	PERFDATA_FEAT_BUILD_ID = 2,
	PERFDATA_FEAT_HOSTNAME = 3,
	PERFDATA_FEAT_OSRELEASE = 4,
	PERFDATA_FEAT_VERSION = 5,
	PERFDATA_FEAT_ARCH = 6,
	PERFDATA_FEAT_NRCPUS = 7,
	PERFDATA_FEAT_CMDLINE = 11,
	PERFDATA_FEAT_EVENT_DESC = 12,
	PERFDATA_FEAT_SAMPLE_TIME = 21,
	PERFDATA_FEAT_CLOCKID = 23,
	PERFDATA_FEAT_COMPRESSED = 27, /* written by __finish when compressing */
};

/* The writer starts at offset 0 of @fd and never closes it. NULL on ENOMEM. */
struct perfdata_writer *perfdata_writer__new(int fd);
void perfdata_writer__delete(struct perfdata_writer *w);

/* Adds an event: its attr (copied), display name and the ids of its fds. */
int perfdata_writer__add_attr(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nr_ids);

/*
 * zstd level 1..22 for the data section (PERF_RECORD_COMPRESSED records
 * and the COMPRESSED feature, as `perf record -z` writes), 0 for none.
 * Before __begin_data.
 */
int perfdata_writer__set_compression(struct perfdata_writer *w, int level);

/* Writes header space, attrs and ids; records follow. */
int perfdata_writer__begin_data(struct perfdata_writer *w);

/* Appends one record; @event->size must be a multiple of 8. */
int perfdata_writer__write_event(struct perfdata_writer *w, const struct perf_event_header *event);
/* Appends whole records that lie back to back, @len bytes in all. */
int perfdata_writer__write_events(struct perfdata_writer *w, const void *events, size_t len);

/* Feature sections; strings are copied. */
int perfdata_writer__set_string(struct perfdata_writer *w, enum perfdata_feature feat,
				const char *value);
int perfdata_writer__set_tracing_data(struct perfdata_writer *w, const void *data, size_t size);
int perfdata_writer__set_nrcpus(struct perfdata_writer *w, uint32_t available, uint32_t online);
int perfdata_writer__set_cmdline(struct perfdata_writer *w, int argc, const char *const *argv);
int perfdata_writer__set_clockid_res(struct perfdata_writer *w, uint64_t res_ns);
int perfdata_writer__set_sample_time(struct perfdata_writer *w, uint64_t first, uint64_t last);

/*
 * Adds an entry to the BUILD_ID feature: object @name (the kernel is
 * "[kernel.kallsyms]", a module "[name]"), @misc PERF_RECORD_MISC_KERNEL or
 * _USER, @pid -1 for the host, the build-id (1 to 20 bytes).
 */
int perfdata_writer__add_build_id(struct perfdata_writer *w, int32_t pid, uint16_t misc,
				  const uint8_t *id, size_t size, const char *name);

/*
 * Flushes the compressed stream, writes EVENT_DESC (from the attrs), every
 * feature that was set, and the final header. Returns 0 or -errno; the
 * file is complete only after 0.
 */
int perfdata_writer__finish(struct perfdata_writer *w);

/* Bytes written so far (the file size after __finish). */
uint64_t perfdata_writer__size(const struct perfdata_writer *w);

#endif
