// SPDX-License-Identifier: GPL-2.0-only
/*
 * ftrace_ring: one CPU's ftrace ring, mapped read-only through
 * trace_pipe_raw, and copied oldest sub-buffer first without consuming
 * anything. Part of the tracing layer; see ftrace_ring.h for the contract.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/trace_mmap.h>

#include "ftrace_ring.h"

/*
 * A sub-buffer starts with the kernel's struct buffer_data_page: a u64
 * time stamp, then the commit, a local_t (a long), then the events.
 */
#define SUBBUF_HEADER	 (sizeof(uint64_t) + sizeof(unsigned long))
/* Flags in the commit's high bits, set only where a reader swapped pages. */
#define RB_MISSED_EVENTS (1UL << 31)
#define RB_MISSED_STORED (1UL << 30)

/* A sub-buffer with events, as read before its bytes are copied. */
struct subbuf_ref {
	uint64_t time;
	unsigned long commit;
	size_t index;
};

struct ftrace_ring {
	const unsigned char *map; /* the meta page, then the sub-buffers */
	size_t map_len;
	size_t meta_page_size;
	size_t subbuf_size;
	size_t nr_subbufs;
	struct subbuf_ref *order; /* nr_subbufs entries, for the copy's sort */
};

/*
 * The meta page as the kernel wrote it at map time. Only the sizes are
 * read: the counters in it move only when a reader swaps pages, which
 * never happens here.
 */
static int read_meta(const void *page, size_t page_size, struct trace_buffer_meta *ret)
{
	memcpy(ret, page, sizeof(*ret));
	if (ret->meta_struct_len < offsetof(struct trace_buffer_meta, reader) ||
	    ret->meta_page_size < page_size || ret->meta_page_size % page_size ||
	    ret->subbuf_size < page_size || ret->subbuf_size % page_size || !ret->nr_subbufs)
		return -EPROTO;
	return 0;
}

/**
 * ftrace_ring__map - map one CPU's ring of a tracefs instance read-only
 * @fd: an open per_cpu/cpuN/trace_pipe_raw; the mapping holds its own
 *	reference to the file, so the caller may close it
 * @ret: the ring, set only on success
 *
 * The meta page is mapped alone first, as only it says how large the
 * whole mapping is; the kernel then lays out the meta page (padded to
 * meta_page_size, which is a sub-buffer's size, as a sub-buffer mapping
 * must start at a multiple of its own size) and every sub-buffer by id,
 * the reader page first. Mapping never consumes: only the
 * TRACE_MMAP_IOCTL_GET_READER ioctl swaps the reader page, and it is never
 * called. While mapped, the CPU's ring cannot be resized (EBUSY).
 *
 * Returns 0, -ENODEV or -EINVAL where the kernel cannot map the file
 * (before 6.10, or a boot-mapped instance), -EPROTO for a meta page that
 * makes no sense, -ENOMEM, or -errno.
 */
int ftrace_ring__map(int fd, struct ftrace_ring **ret)
{
	long page_size = sysconf(_SC_PAGESIZE);
	struct trace_buffer_meta meta;
	struct ftrace_ring *r;
	void *first, *map;
	size_t map_len;
	int err;

	if (page_size <= 0)
		return -EINVAL;
	first = mmap(NULL, (size_t)page_size, PROT_READ, MAP_SHARED, fd, 0);
	if (first == MAP_FAILED)
		return -errno;
	err = read_meta(first, (size_t)page_size, &meta);
	if (err < 0)
		goto out_first;
	if (meta.nr_subbufs > (SIZE_MAX - meta.meta_page_size) / meta.subbuf_size) {
		err = -EOVERFLOW;
		goto out_first;
	}
	map_len = meta.meta_page_size + (size_t)meta.nr_subbufs * meta.subbuf_size;
	/*
	 * Mapped while the first mapping still holds the ring, so that its
	 * size cannot change in between (the kernel refuses resizes while
	 * any mapping exists).
	 */
	map = mmap(NULL, map_len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		goto out_first;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		goto out_nomem;
	r->order = calloc(meta.nr_subbufs, sizeof(*r->order));
	if (!r->order) {
		free(r);
		goto out_nomem;
	}
	r->map = map;
	r->map_len = map_len;
	r->meta_page_size = meta.meta_page_size;
	r->subbuf_size = meta.subbuf_size;
	r->nr_subbufs = meta.nr_subbufs;
	munmap(first, (size_t)page_size);
	*ret = r;
	return 0;

out_nomem:
	err = -ENOMEM;
	munmap(map, map_len);
out_first:
	munmap(first, (size_t)page_size);
	return err;
}

/**
 * ftrace_ring__unmap - unmap a ring and free it
 * @r: the ring; NULL is fine
 *
 * The kernel frees its meta page when the last mapping of the CPU's ring
 * goes, and the ring can be resized again.
 */
void ftrace_ring__unmap(struct ftrace_ring *r)
{
	if (!r)
		return;
	munmap((void *)r->map, r->map_len);
	free(r->order);
	free(r);
}

/**
 * ftrace_ring__subbuf_size - the size of each of a ring's sub-buffers
 * @r: the ring
 *
 * Returns the size in bytes, header included.
 */
size_t ftrace_ring__subbuf_size(const struct ftrace_ring *r)
{
	return r->subbuf_size;
}

/**
 * ftrace_ring__nr_subbufs - how many sub-buffers a ring has
 * @r: the ring
 *
 * Returns the number, the reader page included.
 */
size_t ftrace_ring__nr_subbufs(const struct ftrace_ring *r)
{
	return r->nr_subbufs;
}

/**
 * ftrace_ring__bytes - the most that ftrace_ring__copy() writes
 * @r: the ring
 *
 * Returns the size of every sub-buffer together.
 */
size_t ftrace_ring__bytes(const struct ftrace_ring *r)
{
	return r->nr_subbufs * r->subbuf_size;
}

static int ref_cmp(const struct subbuf_ref *a, const struct subbuf_ref *b)
{
	if (a->time != b->time)
		return a->time < b->time ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

static void sift_down(struct subbuf_ref *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		struct subbuf_ref t;

		if (child >= n)
			return;
		if (child + 1 < n && ref_cmp(&v[child], &v[child + 1]) < 0)
			child++;
		if (ref_cmp(&v[root], &v[child]) >= 0)
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/*
 * A heap sort: in place, as glibc's qsort() may allocate, and the copy
 * runs while the instance is stopped.
 */
static void sort_refs(struct subbuf_ref *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (size_t end = n; end > 1; end--) {
		struct subbuf_ref t = v[0];

		v[0] = v[end - 1];
		v[end - 1] = t;
		sift_down(v, 0, end - 1);
	}
}

/*
 * A writer may still be committing: the commit is read once, and with
 * acquire ordering, so the events it covers are read after it.
 */
static unsigned long load_commit(const unsigned char *subbuf)
{
	const unsigned long *commit = (const void *)(subbuf + sizeof(uint64_t));

	return __atomic_load_n(commit, __ATOMIC_ACQUIRE);
}

static uint64_t load_time(const unsigned char *subbuf)
{
	return __atomic_load_n((const uint64_t *)(const void *)subbuf, __ATOMIC_RELAXED);
}

/*
 * Whether a sub-buffer still holds what was copied: a writer that had
 * reserved before the stop and crossed into the oldest sub-buffer reset
 * its commit to 0 and wrote over it, and then its time stamp changes too.
 */
static bool unchanged(const unsigned char *subbuf, const struct subbuf_ref *ref)
{
	unsigned long mask = ~(RB_MISSED_EVENTS | RB_MISSED_STORED);

	/* The copy's reads come before these, as in a seqlock's reader. */
#ifdef __SANITIZE_THREAD__
	/* TSan has no fences, and the writer is the kernel, which it cannot see. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
#else
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
#endif
	return (load_commit(subbuf) & mask) >= (ref->commit & mask) &&
	       load_time(subbuf) == ref->time;
}

/*
 * The bytes of a sub-buffer that a reader looks at: the committed events
 * and, where the kernel stored a missed-events count, the long after them.
 */
static size_t used_bytes(unsigned long commit, size_t capacity)
{
	size_t size = commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED);

	if ((commit & RB_MISSED_STORED) && capacity - size >= sizeof(unsigned long))
		size += sizeof(unsigned long);
	return size;
}

/**
 * ftrace_ring__copy - the sub-buffers that hold events, oldest first
 * @r: the ring, its instance stopped (tracing_on 0)
 * @buf: room for @len bytes
 * @len: at least one sub-buffer, at most ftrace_ring__bytes(); the rest
 *	 of a partial sub-buffer is left alone
 * @ret_len: the bytes written (a whole number of sub-buffers)
 * @info: what was copied
 *
 * The kernel numbers the sub-buffers in ring order from where the ring
 * started when it was mapped, and an overwriting ring has wrapped since,
 * so they are ordered by the time stamp in their headers (that of their
 * first event). The reader page holds events only if something consumed
 * from the ring; its events are then older than the rest, and copied too.
 *
 * Each commit is read once, with acquire ordering, before the events it
 * covers, and that value goes into the copy: an event that a writer which
 * reserved before tracing_on went 0 commits during the copy is outside it,
 * so a reader of the copy never sees a half-written event. A sub-buffer
 * that such a writer moved into and reset during the copy is left out
 * (its older events are lost to overwrite anyway). The bytes after the
 * commit are zeroed, so that no older lap's events are kept. A commit
 * larger than a sub-buffer means that the kernel's page layout is not the
 * one known here.
 *
 * Nothing is allocated: the sort uses the array made at map time, so a
 * ring may be copied by one thread at a time.
 *
 * Returns 0, -EINVAL where @len cannot hold one sub-buffer, or -EPROTO.
 */
int ftrace_ring__copy(const struct ftrace_ring *r, void *buf, size_t len, size_t *ret_len,
		      struct ftrace_ring_copy_info *info)
{
	size_t capacity = r->subbuf_size - SUBBUF_HEADER;
	const unsigned char *subbufs = r->map + r->meta_page_size;
	struct subbuf_ref *refs = r->order;
	unsigned char *out = buf;
	size_t n = 0, keep, done = 0;

	if (len < r->subbuf_size)
		return -EINVAL;
	for (size_t i = 0; i < r->nr_subbufs; i++) {
		const unsigned char *sb = subbufs + i * r->subbuf_size;
		unsigned long commit;

		commit = load_commit(sb);
		if (!(commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED)))
			continue;
		if ((commit & ~(RB_MISSED_EVENTS | RB_MISSED_STORED)) > capacity)
			return -EPROTO;
		refs[n].commit = commit;
		refs[n].time = load_time(sb);
		refs[n].index = i;
		n++;
	}
	sort_refs(refs, n);

	/* Where they do not all fit, the newest are the ones to keep. */
	keep = len / r->subbuf_size;
	if (keep > n)
		keep = n;
	for (size_t k = 0; k < keep; k++) {
		const struct subbuf_ref *ref = &refs[n - keep + k];
		const unsigned char *sb = subbufs + ref->index * r->subbuf_size;
		unsigned char *dst = out + done * r->subbuf_size;
		size_t used = used_bytes(ref->commit, capacity);

		memcpy(dst, &ref->time, sizeof(ref->time));
		memcpy(dst + sizeof(ref->time), &ref->commit, sizeof(ref->commit));
		memcpy(dst + SUBBUF_HEADER, sb + SUBBUF_HEADER, used);
		memset(dst + SUBBUF_HEADER + used, 0, capacity - used);
		if (!unchanged(sb, ref))
			continue;
		if (!done)
			info->first_time = ref->time;
		info->last_time = ref->time;
		done++;
	}
	*ret_len = done * r->subbuf_size;
	info->nr_subbufs = done;
	if (!done)
		info->first_time = info->last_time = 0;
	return 0;
}
