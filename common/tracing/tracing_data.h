/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tracing_data: tracepoint metadata read from tracefs, in the forms the
 * output files need: the perf.data TRACING_DATA feature (trace-cmd's
 * "tracing" blob, version 0.6) and the pieces trace.dat repeats
 * (header_page, header_event, event formats).
 */
#ifndef PERFSNAPD_TRACING_DATA_H
#define PERFSNAPD_TRACING_DATA_H

#include <stddef.h>
#include <stdint.h>

/* One format file of a parsed blob; pointers go into the blob. */
struct tracing_data_format {
	const char *system; /* NUL-terminated ("ftrace" for ftrace formats) */
	const char *text;   /* the format file; not NUL-terminated */
	size_t size;
	const char *name; /* its "name:" value, not NUL-terminated, or NULL */
	size_t name_len;
	int64_t id; /* its "ID:" value, or -1 */
};

/* A TRACING_DATA blob taken apart by tracing_data__parse(). */
struct tracing_data_info {
	char version[8]; /* "0.5" or "0.6" */
	unsigned int long_size;
	uint32_t page_size;
	const char *header_page;
	size_t header_page_size;
	const char *header_event;
	size_t header_event_size;
	struct tracing_data_format *ftrace; /* malloc'ed array */
	size_t nr_ftrace;
	struct tracing_data_format *events; /* malloc'ed array */
	size_t nr_events;
	const char *kallsyms;
	size_t kallsyms_size;
	const char *printk;
	size_t printk_size;
	const char *cmdlines; /* version 0.6 only */
	size_t cmdlines_size;
	size_t size; /* bytes used; what follows is padding */
};

/*
 * Builds the TRACING_DATA blob for tracepoints named "system:event".
 * @tracing_dir may be NULL for the system's tracefs. On success returns 0
 * and a malloc'ed blob in *ret_data / *ret_size; otherwise -errno.
 */
int tracing_data__build(const char *tracing_dir, const char *const *events, size_t nr_events,
			void **ret_data, size_t *ret_size);

/*
 * Takes apart a TRACING_DATA blob (version 0.5 or 0.6, the host's byte
 * order) without copying it: @data must outlive *@ret. Every count and size
 * is checked against @size. Returns 0; -EPROTO for a malformed blob,
 * -EPROTONOSUPPORT for another version or byte order (with a message and
 * the blob offset in @errbuf); -ENOMEM.
 */
int tracing_data__parse(const void *data, size_t size, struct tracing_data_info *ret, char *errbuf,
			size_t errlen);

/* Frees the arrays of a parsed blob; @info may be zeroed or parsed. */
void tracing_data__release(struct tracing_data_info *info);

/* The event format whose "ID:" is @id, or NULL. */
const struct tracing_data_format *tracing_data__find_id(const struct tracing_data_info *info,
							uint64_t id);

#endif
