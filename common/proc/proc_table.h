/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * proc_table: the history of every task, fed by the kernel's side-band
 * records (COMM, MMAP/MMAP2, FORK, EXIT) as they happen, so that a dump can
 * name tasks that exited before it. At dump time it emits, for the tasks of
 * a snapshot, the records that were true during the snapshot's time span.
 * Bounded in tasks and in history per task; lookups by tid are hashed.
 */
#ifndef PERFSNAPD_PROC_TABLE_H
#define PERFSNAPD_PROC_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "procinfo.h"
#include "snapshot.h"

/* Default history kept per task; older entries are dropped first. */
#define PROC_TABLE_MAX_COMMS 16
#define PROC_TABLE_MAX_MAPS  512

struct proc_table;

struct proc_table_stats {
	size_t nr_tasks;	      /* incarnations held now (a reused tid counts again) */
	uint64_t nr_dropped;	      /* tasks dropped to stay within max_tasks */
	uint64_t nr_history_dropped;  /* comm changes and mappings over the per-task caps */
	uint64_t nr_records;	      /* records taken by __process_record (not ignored) */
	uint64_t nr_ignored;	      /* of no use: other types, not exec, pid 0 */
	size_t bytes;		      /* approximate heap held by the table */
	uint64_t nr_build_ids_kernel; /* file mappings whose MMAP2 carried a build-id */
	uint64_t nr_build_ids_read;   /* ... read from the ELF note instead */
	uint64_t nr_build_ids_none;   /* ... with none (gone, not ELF, no note) */
	uint64_t
		nr_build_ids_waiting; /* ... queued to be read (proc_table__set_build_id_queue()) */
};

/* At most @max_tasks tasks (at least 1). NULL on ENOMEM. */
struct proc_table *proc_table__new(size_t max_tasks);
void proc_table__delete(struct proc_table *t);

/*
 * Changes the per-task caps (both at least 1) from now on; history already
 * longer is cut at its next change. Returns 0 or -EINVAL.
 */
int proc_table__set_history_limits(struct proc_table *t, size_t max_comms, size_t max_maps);

/*
 * With @on, a file mapping whose MMAP/MMAP2 (or /proc line, when seeding)
 * comes without a build-id gets the one of its ELF note, read right away
 * through /proc/PID/map_files (the file mapped, even if deleted or
 * replaced since), else through its path; it is emitted in the build-id
 * form of MMAP2 then. Off (the default), the table keeps no build-id: one
 * a record carries (the kernel gives them while another tool asks) is
 * dropped and the mapping keeps its path only.
 */
void proc_table__set_read_build_ids(struct proc_table *t, bool on);

struct elf_buildid;
struct stat;

/* A file mapping whose object is opened for its build-id. */
struct proc_table_mapping {
	pid_t pid; /* the process mapping it; 0: gone, the path only */
	uint64_t start, end;
	uint32_t maj, min; /* as the record names the file (not always as stat() does) */
	uint64_t ino;	   /* 0: not known */
	const char *path;  /* NULL: /proc/PID/map_files only */
};

/*
 * Where a table gets the build-id of a file mapping instead of reading it:
 * the daemon's symbol cache, which keeps the objects it opens, so that each
 * is opened and read once. Returns 0 or -errno, as the table's own read.
 */
typedef int (*proc_table_build_id_fn)(void *ctx, const struct proc_table_mapping *m,
				      struct elf_buildid *ret);

/*
 * From now on the table asks @fn (with @ctx) for the build-ids it would
 * read (with reading on); NULL: it reads them itself again.
 */
void proc_table__set_build_id_reader(struct proc_table *t, proc_table_build_id_fn fn, void *ctx);

/* A mapping whose build-id is being read elsewhere: opaque, held by the table. */
struct pt_mapping;

/*
 * Where a table sends the build-ids it would read, to be read off its
 * caller's thread: @m (valid during the call; copy what is kept) is to be
 * answered by proc_table__build_id_done() with @waiting. Returns 0, or
 * -errno when it cannot take it (a full queue): the mapping keeps its
 * path and inode.
 */
typedef int (*proc_table_build_id_queue_fn)(void *ctx, const struct proc_table_mapping *m,
					    struct pt_mapping *waiting);

/*
 * From now on the table queues the build-ids it would read (with reading
 * on) to @fn (with @ctx), instead of reading or asking a reader; NULL: as
 * before. Set before the table takes records; each queued mapping must be
 * answered before the table is deleted.
 */
void proc_table__set_build_id_queue(struct proc_table *t, proc_table_build_id_queue_fn fn,
				    void *ctx);

/*
 * The answer to a queued read: @err 0 with its build-id in @id, or the
 * error that kept it from being read (@id unused). The mapping takes the
 * id (records emitted from now on carry it) and the table lets go of it.
 */
void proc_table__build_id_done(struct proc_table *t, struct pt_mapping *waiting, int err,
			       const struct elf_buildid *id);

/*
 * Opens the object @m maps for reading its note: /proc/PID/map_files (the
 * very file mapped, even one deleted or replaced at its path since), else
 * @m->path if it is a regular file with @m's device and inode (a path may
 * name another file by now, and a wrong id is worse than none). With no
 * inode the path is opened unchecked: pass one only to check the build-id
 * read against one known. Sets *@ret_st. Returns the fd, -ESTALE (the path
 * names another file), -ENOEXEC (not a regular file) or -errno.
 */
int proc_table__open_mapping(const struct proc_table_mapping *m, struct stat *ret_st);

/*
 * Adds every thread in /proc that the table does not hold alive yet: its
 * comm (as ftrace names it), its parent (a thread's is its leader, as perf
 * has it) and, for a thread group leader, its executable mappings, valid from
 * @now (0: since before recording). One known only from a COMM or MMAP
 * gets the name or mappings it lacks. Returns the number of tasks added or
 * -errno if /proc cannot be read.
 */
int proc_table__seed_from_proc(struct proc_table *t, uint64_t now);

/*
 * Takes one side-band record, laid out with a sample_id_all trailer for
 * @sample_type (which must have PERF_SAMPLE_TIME). Records of other types,
 * non-executable mappings and pid 0/-1 are ignored. Records may come
 * somewhat out of time order (e.g. from per-CPU rings drained in turn).
 * Returns 0, -EINVAL for a malformed record, or -ENOMEM.
 */
int proc_table__process_record(struct proc_table *t, const struct perf_event_header *rec,
			       uint64_t sample_type);

/*
 * The comm @tid had at @time: the latest change at or before it, else
 * (none yet) the one its parent had at its fork, else the first known. NULL
 * if the tid is unknown. Valid until the next change to the table.
 */
const char *proc_table__comm_at(const struct proc_table *t, pid_t tid, uint64_t time);

/*
 * Emits, in time order, for every task of @tasks alive in [@start, @end]
 * (else the incarnation in effect at @start, if its EXIT came before: a
 * task's last events follow its EXIT): its state at @start (a FORK naming
 * its parent, if known, COMM and, for its process, the executable MMAP2s)
 * stamped @start - 1, then each COMM,
 * MMAP2, FORK and EXIT inside the span. Trailers carry @stamp's sample_type
 * and id (not its time). Sets *@ret_unknown (if not NULL) to the number of
 * tasks the table cannot name. Returns 0, the emitter's error, or -errno.
 */
int proc_table__emit_span(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr,
			  uint64_t start, uint64_t end, const struct procinfo_stamp *stamp,
			  procinfo_emit_fn emit, void *ctx, size_t *ret_unknown);

const struct proc_table_stats *proc_table__stats(const struct proc_table *t);

#endif
