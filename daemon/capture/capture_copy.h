/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * capture_copy: the copy stage of a dump. The overwrite rings are copied in
 * rounds, as many rings a round as copy_memory holds (at least one); the
 * copies of the last round stay in memory, where the snapshot points at
 * them, those of earlier rounds go to the snapshot's unnamed spill file
 * so the memory serves the next round. The memory is the dumper's
 * resident buffer (copy_memory_resident = yes), or address space taken
 * for this dump, where each ring's copy is a memory file the kernel
 * writes (ring_copy__map_file()). ring_copy does each round's pause, copy
 * and resume.
 */
#ifndef PERFSNAPD_CAPTURE_COPY_H
#define PERFSNAPD_CAPTURE_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct capture;
struct capture_kept;
struct dump_figures;
struct ring_copy_pool;
struct snapshot;

/* One dump's copy stage: the caller sets the first four, the rest is its own. */
struct capture_copy {
	struct capture *cap;		/* whose overwrite rings */
	struct ring_copy_pool *copiers; /* the dumper's threads */
	uint64_t budget;		/* bytes of copies held in memory at once */
	void *resident;			/* the dumper's resident memory, or NULL */
	size_t resident_size;
	/* Closed rings' histories (capture__take_kept()): added after the rings. */
	struct capture_kept *const *kept;
	size_t nr_kept;

	void *mem; /* the copies of the last round: the snapshot points into it */
	size_t mem_size;
	bool mem_owned; /* taken for this dump (unmapped by capture_copy__fini()) */
	void **held;	/* other backends' copies the snapshot points into (malloc'ed) */
	size_t nr_held;
	bool taken; /* the backends with a take took their rings (capture__copy()) */
};

/*
 * Copies every overwrite ring of c->cap into @s, spilling to an unnamed
 * file in @spill_dir what does not fit, and fills @f's copy figures (its
 * rings, pauses, memory, rounds). Returns 0 or -errno.
 */
int capture_copy__run(struct capture_copy *c, struct snapshot *s, const char *spill_dir,
		      struct dump_figures *f);
/*
 * @buf (malloc'ed) holds records the snapshot points into: freed with the
 * rest by capture_copy__fini(). Returns 0, or -ENOMEM having freed it.
 */
int capture_copy__hold(struct capture_copy *c, void *buf);
/* Frees what the copy took; after the snapshot that points into it is gone. */
void capture_copy__fini(struct capture_copy *c);

/*
 * On a thread started as a dump's copy thread, once before the first
 * dump: takes, faults in and frees a little copy memory as a dump does.
 */
void capture_copy__rehearse(void);

/* Bytes of every overwrite ring of @cap. */
uint64_t capture_copy__rings_bytes(const struct capture *cap);
/* Each copier's staging for the paused parts of copy files: the largest ring's. */
size_t capture_copy__stage_bytes(const struct capture *cap);
/*
 * copy_memory_resident = yes: memory for the largest round within
 * @budget, faulted in now and held by the caller between dumps, so no
 * dump pays for the faults. Returns 0 (*ret NULL when there are no
 * rings) or -ENOMEM.
 */
int capture_copy__map_resident(const struct capture *cap, uint64_t budget, void **ret,
			       size_t *ret_size);

#endif
