/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc_table internals shared by proc_table.c (the table, record intake,
 * seeding) and proc_table_emit.c (replaying a span as records). Not for
 * other modules.
 */
#ifndef PERFSNAPD_PROC_TABLE_INTERNAL_H
#define PERFSNAPD_PROC_TABLE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "elf_buildid.h"
#include "proc_table.h"

#define PT_COMM_LEN    16
#define PT_NEVER       UINT64_MAX
#define PT_MAX_INHERIT 16 /* parents looked through for a child's name */

#define PT_FORKED 0x1 /* its FORK was seen: born, ppid and ptid are real */
#define PT_EXITED 0x2 /* its EXIT was seen, not just implied by a reused tid */
#define PT_PARENT 0x4 /* not forked while recording: ppid and ptid are /proc's */

/*
 * Record layouts up to the name (or trailer), as the kernel writes them:
 * what proc_table_emit.c writes (snapshot_tasks__decode() reads them).
 */
struct pt_comm_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
};

struct pt_mmap2_rec {
	struct perf_event_header header;
	uint32_t pid, tid;
	uint64_t start, len, pgoff;
	uint8_t id[24]; /* maj, min, ino, ino_generation; or a build id */
	uint32_t prot, flags;
};

struct pt_task_rec {
	struct perf_event_header header;
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

_Static_assert(sizeof(struct pt_mmap2_rec) == 72, "MMAP2 layout");
_Static_assert(sizeof(struct pt_task_rec) == 32, "FORK/EXIT layout");

/*
 * An executable mapping, shared by forked processes; immutable once made
 * but for its build-id, which a queued read fills in later.
 * With PERF_RECORD_MISC_MMAP_BUILD_ID, id is laid out as the kernel's
 * MMAP2 build-id form (size, 3 reserved bytes, the id): the build-id takes
 * the place of the device and inode, so it costs no memory of its own.
 */
/* In a mapping's misc, never a record's: a copy read to renew an id's trust. */
#define PT_MAPPING_RENEW 0x8000

struct pt_mapping {
	uint32_t refs;
	uint16_t misc; /* PERF_RECORD_MISC_MMAP_BUILD_ID, PT_MAPPING_RENEW or 0 */
	uint16_t name_len;
	uint64_t start, len, pgoff;
	uint8_t id[24];
	uint32_t prot, flags;
	char name[];
};

struct pt_map_ref {
	uint64_t from, until; /* valid in [from, until) */
	struct pt_mapping *m;
};

struct pt_comm {
	uint64_t time;
	bool exec;
	char comm[PT_COMM_LEN];
};

struct pt_task {
	struct pt_task *hnext;	     /* hash chain */
	struct pt_task *prev, *next; /* age list */
	pid_t pid, tid, ppid, ptid;  /* ppid, ptid: from the FORK, else /proc (PT_PARENT) */
	pid_t exit_ppid, exit_ptid;
	uint32_t flags;
	uint64_t born;		 /* fork time, else first seen */
	uint64_t exit_time;	 /* PT_NEVER while alive */
	struct pt_comm *comms;	 /* by time, ties in arrival order */
	struct pt_map_ref *maps; /* in arrival order; only on a leader */
	uint32_t nr_comms, cap_comms, nr_maps, cap_maps;
};

struct pt_age_list {
	struct pt_task *first, *last;
};

struct proc_table {
	struct pt_task **buckets;
	size_t mask;
	size_t max_tasks, max_comms, max_maps;
	bool read_build_ids;
	struct buildid_cache *bid_cache;    /* while the table reads itself */
	struct buildid_recent *recent;	    /* while it reads, itself or not */
	proc_table_build_id_fn reader;	    /* NULL: the table reads */
	proc_table_build_id_queue_fn queue; /* NULL: read at once */
	void *reader_ctx, *queue_ctx;
	struct pt_age_list alive, exited;
	struct proc_table_stats stats;
};

static inline size_t pt_bucket_of(const struct proc_table *t, pid_t tid)
{
	return (size_t)(((uint64_t)(uint32_t)tid * 0x9E3779B97F4A7C15ull) >> 32) & t->mask;
}

struct pt_task *proc_table__task_at(const struct proc_table *t, pid_t tid, uint64_t time);
const struct pt_comm *proc_table__task_comm_at(const struct proc_table *t, const struct pt_task *p,
					       uint64_t time);
const struct pt_comm *proc_table__task_comm_at_fork(const struct proc_table *t,
						    const struct pt_task *p);

/* Shared by proc_table.c (records) and proc_table_seed.c (/proc). */
struct pt_mapping *proc_table__mapping_new(struct proc_table *t, const char *name, size_t name_len);
int proc_table__map_add(struct proc_table *t, struct pt_task *p, struct pt_mapping *m,
			uint64_t from);
void proc_table__mapping_put(struct proc_table *t, struct pt_mapping *m);
int proc_table__comm_insert(struct proc_table *t, struct pt_task *p, uint64_t time,
			    const char *comm, bool exec);
struct pt_task *proc_table__task_new(struct proc_table *t, pid_t pid, pid_t tid, uint64_t born);
/*
 * Gives file mapping @m of @pid its build-id, if the table reads them and
 * @m came without one, and counts it in the stats either way.
 */
void proc_table__mapping_build_id(struct proc_table *t, pid_t pid, struct pt_mapping *m);

#endif
