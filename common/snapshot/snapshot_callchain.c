// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_callchain: see snapshot_callchain.h. A marker the kernel does
 * not define (nor perf: it drops such a chain) makes the frames after it
 * unknown, as is a cpumode past GUEST_USER: no reader resolves those.
 */
#include <linux/perf_event.h>

#include "snapshot_callchain.h"

/**
 * snapshot_callchain__context - the context of a cpumode
 * @misc: a record header's misc
 *
 * Returns the context its PERF_RECORD_MISC_CPUMODE_MASK bits name.
 */
enum snapshot_context snapshot_callchain__context(uint16_t misc)
{
	unsigned int mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;

	return mode <= PERF_RECORD_MISC_GUEST_USER ? (enum snapshot_context)mode :
						     SNAPSHOT_CONTEXT_UNKNOWN;
}

static enum snapshot_context marker_context(uint64_t marker)
{
	switch (marker) {
	case (uint64_t)PERF_CONTEXT_KERNEL:
		return SNAPSHOT_CONTEXT_KERNEL;
	case (uint64_t)PERF_CONTEXT_USER:
		return SNAPSHOT_CONTEXT_USER;
	case (uint64_t)PERF_CONTEXT_HV:
		return SNAPSHOT_CONTEXT_HYPERVISOR;
	case (uint64_t)PERF_CONTEXT_GUEST_KERNEL:
		return SNAPSHOT_CONTEXT_GUEST_KERNEL;
	case (uint64_t)PERF_CONTEXT_GUEST_USER:
		return SNAPSHOT_CONTEXT_GUEST_USER;
	default:
		return SNAPSHOT_CONTEXT_UNKNOWN;
	}
}

/**
 * snapshot_callchain__begin - start walking a sample's frames
 * @c: the walk
 * @info: the sample, parsed; it must outlive the walk
 * @sample_type: what it was parsed for: without a callchain, the ip is a
 *	frame only if PERF_SAMPLE_IP is in it
 * @misc: the sample's header's misc, the context until a marker
 */
void snapshot_callchain__begin(struct snapshot_callchain *c, const struct perf_record_info *info,
			       uint64_t sample_type, uint16_t misc)
{
	*c = (struct snapshot_callchain){
		.info = info,
		.ip_left = !info->callchain_nr && (sample_type & PERF_SAMPLE_IP),
		.context = snapshot_callchain__context(misc),
	};
}

/**
 * snapshot_callchain__next - the next frame of a walk
 * @c: the walk
 * @ret: the frame's address and context
 *
 * Returns true and the frame, or false after the outermost one.
 */
bool snapshot_callchain__next(struct snapshot_callchain *c, struct snapshot_frame *ret)
{
	if (c->ip_left) {
		c->ip_left = false;
		*ret = (struct snapshot_frame){ .ip = c->info->ip, .context = c->context };
		return true;
	}
	while (c->at < c->info->callchain_nr) {
		uint64_t ip = c->info->callchain[c->at++];

		if (ip >= (uint64_t)PERF_CONTEXT_MAX) {
			c->context = marker_context(ip);
			continue;
		}
		*ret = (struct snapshot_frame){ .ip = ip, .context = c->context };
		return true;
	}
	return false;
}
