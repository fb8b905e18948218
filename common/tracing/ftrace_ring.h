/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * ftrace_ring: one CPU's ring of a tracefs instance, mapped read-only
 * (per_cpu/cpuN/trace_pipe_raw, Linux 6.10 on; the layout is
 * <linux/trace_mmap.h>: a meta page, then nr_subbufs sub-buffers of
 * subbuf_size bytes each, in no particular order). Nothing is consumed:
 * the reader page is never swapped, so each copy holds the whole ring
 * again (docs/decisions.md, "A tracefs-instance backend").
 */
#ifndef PERFSNAPD_FTRACE_RING_H
#define PERFSNAPD_FTRACE_RING_H

#include <stddef.h>
#include <stdint.h>

struct ftrace_ring;

/*
 * Maps the ring behind @fd, an open trace_pipe_raw (the ring keeps its
 * own reference: the caller may close @fd). Returns 0, -ENODEV or
 * -EINVAL where the kernel cannot map it, -EPROTO for a meta page that
 * makes no sense, or -errno.
 */
int ftrace_ring__map(int fd, struct ftrace_ring **ret);
/* Unmaps; NULL is fine. */
void ftrace_ring__unmap(struct ftrace_ring *r);

size_t ftrace_ring__subbuf_size(const struct ftrace_ring *r);
size_t ftrace_ring__nr_subbufs(const struct ftrace_ring *r);
/* The most ftrace_ring__copy() writes: every sub-buffer. */
size_t ftrace_ring__bytes(const struct ftrace_ring *r);

struct ftrace_ring_copy_info {
	size_t nr_subbufs;   /* copied: those holding events */
	uint64_t first_time; /* of the oldest sub-buffer's header; 0 with none */
	uint64_t last_time;  /* of the newest sub-buffer's header */
};

/*
 * ftrace_ring__copy - the sub-buffers that hold events, oldest first
 * @r: the ring, its instance stopped (tracing_on 0)
 * @buf: room for @len bytes, a whole number of sub-buffers
 * @len: at most ftrace_ring__bytes()
 * @ret_len: the bytes written (nr_subbufs * subbuf_size)
 * @info: what was copied
 *
 * Each sub-buffer's commit is read before its bytes and written into the
 * copy, so an event a writer committed during the copy is left out whole.
 * Where @len cannot hold them all, the newest that fit are kept. Nothing
 * is allocated; one thread at a time may copy a ring.
 * Returns 0, -EINVAL where @len holds no sub-buffer, or -EPROTO for a
 * commit larger than a sub-buffer.
 */
int ftrace_ring__copy(const struct ftrace_ring *r, void *buf, size_t len, size_t *ret_len,
		      struct ftrace_ring_copy_info *info);

#endif
