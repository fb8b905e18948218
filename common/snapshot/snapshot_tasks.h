/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_tasks: the process records of a snapshot (COMM, FORK, EXIT,
 * MMAP, MMAP2) decoded in one place for every reader of them (the
 * Perfetto and pprof writers, the objects a snapshot hits), and the
 * names, processes and parents of the tasks they describe as a writer
 * replays them in time order. Part of the snapshot layer: no I/O.
 */
#ifndef PERFSNAPD_SNAPSHOT_TASKS_H
#define PERFSNAPD_SNAPSHOT_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define SNAPSHOT_TASKS_BUILD_ID_MAX 20
#define SNAPSHOT_TASKS_COMM_LEN	    16 /* TASK_COMM_LEN */

/*
 * One process record, its fields where the kernel lays them out. The
 * strings point into the record: valid while it is.
 */
struct snapshot_task_record {
	uint32_t type; /* PERF_RECORD_COMM, _FORK, _EXIT, _MMAP or _MMAP2 */
	uint16_t misc;
	uint64_t time;	  /* the sample_id_all trailer's (FORK, EXIT: else their own); 0: none */
	pid_t pid, tid;	  /* the task (FORK, EXIT: the child) */
	pid_t ppid, ptid; /* FORK, EXIT: the parent */
	/* COMM */
	const char *comm; /* NUL-terminated */
	bool exec;	  /* the name an exec gave (PERF_RECORD_MISC_COMM_EXEC) */
	/* MMAP, MMAP2 */
	uint64_t start, len, pgoff;
	uint32_t prot;	      /* MMAP's: PROT_READ | PROT_EXEC unless MISC_MMAP_DATA */
	uint32_t flags;	      /* MMAP's: MAP_PRIVATE */
	const uint8_t *id;    /* MMAP2: its 24 bytes of either form, as recorded; else NULL */
	const char *filename; /* NUL-terminated */
	bool has_ino;	      /* MMAP2's inode form: */
	uint32_t maj, min;
	uint64_t ino;
	uint8_t build_id_size; /* MMAP2's build-id form: 1 to 20 bytes; 0: none */
	const uint8_t *build_id;
};

/*
 * Decodes @h, a record of an event with @sample_type (its trailer is not
 * part of the names). Returns 0, -ENOMSG for a record of another type, or
 * -EINVAL for one too short or with a name not NUL-terminated.
 */
int snapshot_tasks__decode(const struct perf_event_header *h, uint64_t sample_type,
			   struct snapshot_task_record *ret);

/* A task as the records taken so far describe it. */
struct snapshot_task_info {
	int32_t tid;	   /* > 0 */
	int32_t pid;	   /* its process; 0: unknown */
	int32_t ppid;	   /* a process's parent, from its FORK, else its EXIT; 0: unknown */
	uint64_t named_at; /* time of the last COMM or FORK that named it */
	char comm[SNAPSHOT_TASKS_COMM_LEN]; /* "": not named */
};

struct snapshot_tasks;

/* NULL on ENOMEM. */
struct snapshot_tasks *snapshot_tasks__new(void);
void snapshot_tasks__delete(struct snapshot_tasks *t);
/*
 * A record, in time order: a COMM names its task; a FORK gives a new task
 * its parent's name and, for a new process, its parent process. Others
 * change nothing. Returns 0 or -ENOMEM.
 */
int snapshot_tasks__take(struct snapshot_tasks *t, const struct snapshot_task_record *rec);
/* A task the records may not name (e.g. a sample's): listed, with @pid if > 0. 0 or -ENOMEM. */
int snapshot_tasks__add(struct snapshot_tasks *t, pid_t tid, pid_t pid);
/* The task @tid, or NULL. */
const struct snapshot_task_info *snapshot_tasks__find(const struct snapshot_tasks *t, pid_t tid);
/* The name of @tid now, or NULL if none is known. */
const char *snapshot_tasks__comm(const struct snapshot_tasks *t, pid_t tid);
size_t snapshot_tasks__nr(const struct snapshot_tasks *t);
/* The tasks one by one, from *@pos = 0, in no order; NULL after the last. */
const struct snapshot_task_info *snapshot_tasks__next(const struct snapshot_tasks *t, size_t *pos);

#endif
