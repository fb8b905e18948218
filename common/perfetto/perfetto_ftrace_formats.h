/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfetto_ftrace_formats: a part of perfetto_ftrace, the tracepoint
 * formats a capture carries, given to libtraceevent.
 */
#ifndef PERFSNAPD_PERFETTO_FTRACE_FORMATS_H
#define PERFSNAPD_PERFETTO_FTRACE_FORMATS_H

#include <stddef.h>

struct tep_handle;

/*
 * Parses the format @text (@size bytes) of a tracepoint of @system into
 * @tep, without its print format. A format that is not what the kernel
 * writes, or that libtraceevent cannot parse, is left out: its events
 * stay undecoded. Returns 0, or -ENOMEM.
 */
int perfetto_ftrace__add_format(struct tep_handle *tep, const char *system, const char *text,
				size_t size);

#endif
