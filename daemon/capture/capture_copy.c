// SPDX-License-Identifier: GPL-2.0-only
/*
 * capture_copy: rounds of ring copies within the copy budget, the memory
 * they go to, and the spill of all but the last round. See capture_copy.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "capture-internal.h"
#include "capture.h"
#include "capture_copy.h"
#include "dump_figures.h"
#include "monotonic.h"
#include "ring_copy.h"
#include "snapshot.h"

uint64_t capture_copy__rings_bytes(const struct capture *cap)
{
	uint64_t sum = 0;

	for (int i = 0; i < capture__nr_rings(cap, true); i++)
		sum += capture__ring(cap, true, i)->data_size;
	return sum;
}

/**
 * capture_copy__stage_bytes - each copier's staging for the paused parts
 * @cap: the capture
 *
 * A ring's paused part at the largest, as each copier copies the rings of
 * its own CPU: one each where the daemon may run on every CPU (a copier
 * whose round holds more grows its staging then). 0 without rings.
 */
size_t capture_copy__stage_bytes(const struct capture *cap)
{
	size_t largest = 0;

	for (int i = 0; i < capture__nr_rings(cap, true); i++) {
		size_t n = ring_copy__paused_bytes(capture__ring(cap, true, i)->data_size);

		if (n > largest)
			largest = n;
	}
	return largest;
}

/* The rings of the round that starts at ring @first: as many as @budget holds, at least one. */
static size_t round_size(const struct capture *cap, size_t first, size_t nr, uint64_t budget,
			 uint64_t *ret_bytes)
{
	uint64_t bytes = capture__ring(cap, true, (int)first)->data_size;
	size_t n = 1;

	while (first + n < nr &&
	       bytes + capture__ring(cap, true, (int)(first + n))->data_size <= budget)
		bytes += capture__ring(cap, true, (int)(first + n++))->data_size;
	*ret_bytes = bytes;
	return n;
}

/* Bytes of the largest round; 0 without rings. */
static uint64_t largest_round(const struct capture *cap, uint64_t budget)
{
	size_t nr = (size_t)capture__nr_rings(cap, true);
	uint64_t largest = 0, bytes;

	for (size_t first = 0; first < nr;) {
		first += round_size(cap, first, nr, budget, &bytes);
		if (bytes > largest)
			largest = bytes;
	}
	return largest;
}

/**
 * capture_copy__map_resident - the copy memory held between dumps
 * @cap: the capture
 * @budget: bytes of copies a dump may hold in memory
 * @ret: the memory, faulted in, or NULL when there are no rings
 * @ret_size: its size
 *
 * Returns 0 or -ENOMEM.
 */
int capture_copy__map_resident(const struct capture *cap, uint64_t budget, void **ret,
			       size_t *ret_size)
{
	size_t size = largest_round(cap, budget);
	void *mem;

	*ret = NULL;
	*ret_size = 0;
	if (!size)
		return 0;
	mem = ring_copy__map(size);
	if (!mem)
		return -ENOMEM;
	ring_copy__fault_in(mem, size);
	*ret = mem;
	*ret_size = size;
	return 0;
}

/*
 * Memory for the largest round: the resident memory, or address space for
 * this dump, where each round maps a copy file per ring.
 */
static int get_memory(struct capture_copy *c, size_t size, struct dump_figures *f)
{
	uint64_t t0 = monotonic_ns();

	if (c->resident && c->resident_size >= size) {
		c->mem = c->resident;
		c->mem_size = c->resident_size;
		return 0;
	}
	c->mem = ring_copy__map(size);
	if (!c->mem)
		return -ENOMEM;
	c->mem_size = size;
	c->mem_owned = true;
	/* The mapping; the faults come with the round. */
	f->fault_ns = monotonic_ns() - t0;
	return 0;
}

/*
 * The copies of one round: spilled when more rounds follow (the memory is
 * reused), else left in memory for the snapshot to point at.
 */
static int keep_round(struct snapshot *s, const struct ring_copy_item *items, size_t nr, bool spill,
		      struct dump_figures *f)
{
	int r = 0;

	for (size_t i = 0; i < nr && r == 0; i++) {
		const struct ring_copy_item *it = &items[i];
		/* A replaced ring's newest records are its successor's oldest: taken once. */
		size_t skip = it->ring->skip < it->len ? it->ring->skip : it->len;
		const uint8_t *buf = (const uint8_t *)it->buf + skip;
		size_t len = it->len - skip;

		if (!spill) {
			r = snapshot__add_chunk_memory(s, it->ring->cpu, true, buf, len,
						       it->wrapped);
			f->copy_memory_bytes += it->len;
			continue;
		}
		r = snapshot__begin_chunk(s, it->ring->cpu, true);
		if (r == 0)
			r = snapshot__append(s, buf, len);
		if (r == 0 && it->wrapped)
			r = snapshot__set_chunk_overwritten(s);
		if (r == 0)
			r = snapshot__end_chunk(s);
		f->copy_spilled_bytes += it->len;
	}
	return r;
}

/* Each ring's copy goes to a memory file of its own, mapped over its part of c->mem. */
static int map_files(struct capture_copy *c, struct ring_copy_item *items, size_t nr)
{
	uint64_t off = 0;

	for (size_t i = 0; i < nr; i++) {
		int fd;

		items[i].buf = (uint8_t *)c->mem + off;
		off += items[i].ring->data_size;
		if (!c->mem_owned)
			continue;
		fd = ring_copy__map_file(items[i].buf, items[i].ring->data_size);
		if (fd < 0)
			return fd;
		items[i].fd = fd;
	}
	return 0;
}

/* One round's figures, per ring (in ring order) and for the dump. */
static int count_round(const struct ring_copy_item *items, size_t first, size_t nr,
		       const struct ring_copy_stats *st, struct dump_figures *f)
{
	f->rounds++;
	f->fault_ns += st->prepare_ns;
	f->copy_threads = st->nr_threads;
	if (st->rt_error)
		f->rt_error = st->rt_error;
	for (size_t i = first; i < first + nr; i++) {
		const struct ring_copy_item *it = &items[i];
		struct dump_ring_figures *ring = &f->rings[i];

		if (it->error < 0)
			return it->error;
		if (it->copy_error < 0)
			return it->copy_error;
		ring->cpu = it->ring->cpu;
		ring->start_time = it->ring->start_time;
		ring->pause_ns = it->resumed_ns - it->paused_ns;
		ring->cut_bytes = it->cut;
		ring->replaced = it->ring->replaced;
		f->copy_bytes += it->len;
		if (!f->first_pause_at_ns || it->paused_ns < f->first_pause_at_ns)
			f->first_pause_at_ns = it->paused_ns;
		if (it->paused_ns > f->last_pause_at_ns)
			f->last_pause_at_ns = it->paused_ns;
	}
	return 0;
}

/*
 * The histories of rings closed when their CPU went offline, after the
 * live rings' chunks, as they were copied then: memory the job holds.
 */
static int add_kept(struct capture_copy *c, struct snapshot *s, struct dump_figures *f)
{
	size_t first = (size_t)capture__nr_rings(c->cap, true);
	int r = 0;

	for (size_t i = 0; i < c->nr_kept && r == 0; i++) {
		const struct capture_kept *k = c->kept[i];

		r = snapshot__add_chunk_memory(s, k->cpu, true, k->buf, k->len, k->wrapped);
		f->rings[first + i].cpu = k->cpu;
		f->rings[first + i].closed = true;
	}
	return r;
}

/**
 * capture_copy__run - copy every overwrite ring into a snapshot
 * @c: the copy stage, cap, copiers, budget and resident memory set
 * @s: the snapshot the rings go into, in ring order
 * @spill_dir: where the unnamed spill file goes
 * @f: the dump's figures, with room for every ring (dump_figures__init())
 *
 * The spill file is opened after the first pause, also when nothing is
 * spilled: the side-band history and the task names may need it, and a
 * file system under load can take long to create it.
 *
 * Returns 0 or -errno; on failure f->files.failed names the step.
 */
static int take(void *cap)
{
	return capture__take(cap);
}

int capture_copy__run(struct capture_copy *c, struct snapshot *s, const char *spill_dir,
		      struct dump_figures *f)
{
	size_t nr = (size_t)capture__nr_rings(c->cap, true);
	struct ring_copy_item *items = calloc(nr ? nr : 1, sizeof(*items));
	bool spill_open = false;
	const char *step = "the copy's ring table";
	const char *in_dir = NULL; /* the step's file is in spill_dir */
	int r = 0;

	if (!items)
		r = -ENOMEM;
	else if (nr + c->nr_kept > f->nr_rings)
		r = -EINVAL;
	for (size_t i = 0; r == 0 && i < nr; i++) {
		items[i].ring = capture__ring(c->cap, true, (int)i);
		items[i].fd = -1;
	}
	if (r == 0 && nr) {
		step = "the address space for the ring copies";
		r = get_memory(c, largest_round(c->cap, c->budget), f);
	}
	for (size_t first = 0; r == 0 && first < nr;) {
		struct ring_copy_stats st;
		uint64_t bytes;
		size_t n = round_size(c->cap, first, nr, c->budget, &bytes);

		step = "a memory file for a ring's copy";
		in_dir = NULL;
		r = map_files(c, items + first, n);
		/* The other backends' instant: on the copier that pauses these rings, just before. */
		if (r == 0 && !c->taken) {
			c->taken = true;
			ring_copy_pool__before_pause(c->copiers, take, c->cap);
		}
		if (r == 0) {
			step = "the copy of the rings";
			r = ring_copy__round(c->copiers, items + first, n, &st);
			if (r == 0 && st.before_error) {
				step = "the tracefs instance's marker";
				r = st.before_error;
			}
			/* The copy thread's real-time start was for the first pause. */
			if (first == 0)
				ring_copy__leave_realtime();
		}
		/* The views hold the files; a later round maps its own over them. */
		for (size_t i = first; i < first + n; i++)
			if (items[i].fd >= 0) {
				close(items[i].fd);
				items[i].fd = -1;
			}
		if (r == 0)
			r = count_round(items, first, n, &st, f);
		if (r == 0 && !spill_open) {
			step = "the spill file";
			in_dir = spill_dir;
			r = snapshot__open_spill(s, spill_dir);
			spill_open = true;
		}
		if (r == 0) {
			bool spill = first + n < nr;

			step = spill ? "the spill file" : "the snapshot's chunk table";
			in_dir = spill ? spill_dir : NULL;
			r = keep_round(s, items + first, n, spill, f);
		}
		first += n;
	}
	ring_copy__leave_realtime(); /* also where no round ran */
	if (r == 0 && !spill_open) {
		step = "the spill file";
		in_dir = spill_dir;
		r = snapshot__open_spill(s, spill_dir);
	}
	if (r == 0 && c->nr_kept) {
		step = "the snapshot's chunk table";
		in_dir = NULL;
		r = add_kept(c, s, f);
	}
	if (r < 0)
		snprintf(f->files.failed, sizeof(f->files.failed), "%s%s%s%s", step,
			 in_dir ? " (unnamed, in '" : "", in_dir ? in_dir : "", in_dir ? "')" : "");
	free(items);
	return r;
}

/* One copy file's first MiBs: the kernel's paths for them run before the first dump. */
#define REHEARSAL_BYTES (2u << 20)

void capture_copy__rehearse(void)
{
	struct ring_copy_item *items = calloc(1, sizeof(*items)); /* this thread's malloc arena */
	void *mem = ring_copy__map(REHEARSAL_BYTES);
	int fd = mem ? ring_copy__map_file(mem, REHEARSAL_BYTES) : -1;

	if (fd >= 0) {
		(void)madvise(mem, REHEARSAL_BYTES, MADV_POPULATE_WRITE);
		close(fd);
	}
	if (mem)
		munmap(mem, REHEARSAL_BYTES);
	free(items);
}

/**
 * capture_copy__fini - free the memory a dump's copies took
 * @c: the copy stage
 *
 * The resident memory stays the dumper's.
 */
void capture_copy__fini(struct capture_copy *c)
{
	if (c->mem_owned && c->mem)
		munmap(c->mem, c->mem_size);
	c->mem = NULL;
	c->mem_owned = false;
	for (size_t i = 0; i < c->nr_held; i++)
		free(c->held[i]);
	free(c->held);
	c->held = NULL;
	c->nr_held = 0;
}

/**
 * capture_copy__hold - keep a backend's records until the snapshot is gone
 * @c: the copy stage
 * @buf: malloc'ed records a chunk of the snapshot points into
 *
 * Returns 0, or -ENOMEM having freed @buf.
 */
int capture_copy__hold(struct capture_copy *c, void *buf)
{
	void **v = realloc(c->held, (c->nr_held + 1) * sizeof(*v));

	if (!v) {
		free(buf);
		return -ENOMEM;
	}
	c->held = v;
	c->held[c->nr_held++] = buf;
	return 0;
}
