/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_schema: the tracepoints Perfetto's FtraceEvent has a typed
 * message for, and each message's scalar fields, generated at build time
 * from perfetto_trace.proto by gen_ftrace_schema.py (ftrace_schema.c in
 * the build tree). The group is the stem of the schema file that defines
 * the message (ftrace/irq.proto: "irq"), the kernel's system in most
 * cases but not all.
 */
#ifndef PERFSNAPD_FTRACE_SCHEMA_H
#define PERFSNAPD_FTRACE_SCHEMA_H

#include <stddef.h>
#include <stdint.h>

enum ftrace_schema_type {
	FTRACE_SCHEMA_INT32,
	FTRACE_SCHEMA_INT64,
	FTRACE_SCHEMA_UINT32,
	FTRACE_SCHEMA_UINT64,
	FTRACE_SCHEMA_SINT32,
	FTRACE_SCHEMA_SINT64,
	FTRACE_SCHEMA_BOOL,
	FTRACE_SCHEMA_STRING,
	FTRACE_SCHEMA_BYTES,
};

struct ftrace_schema_field {
	const char *name;
	uint32_t number;
	enum ftrace_schema_type type;
};

struct ftrace_schema_event {
	const char *group, *name;
	uint32_t number; /* in FtraceEvent */
	const struct ftrace_schema_field *fields;
	size_t nr_fields;
};

/* Sorted by name (strcmp); names are unique (FtraceEvent's field names). */
extern const struct ftrace_schema_event ftrace_schema_events[];
extern const size_t ftrace_schema_nr_events;

#endif
