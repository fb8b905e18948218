/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot: the model of one dump. Events (attrs, names, ids) and per-CPU
 * chunks of raw ring records go in; out come the records in time order
 * (all of them, or one CPU's) through a cursor that merges the chunks'
 * per-CPU runs, or as the rings hold them for a reader that orders them
 * itself, the tasks that appear, their names (from the snapshot's
 * own COMM and FORK records), and counts. A writer needs nothing but the
 * snapshot. Chunk bytes live in the caller's memory (ring copies within
 * the copy budget) or in an unlinked spill file, so a dump of many big
 * rings can need little RAM; only a 16-byte entry per record
 * is kept, and nothing sorts every record: a ring's records are already in
 * time order.
 */
#ifndef PERFSNAPD_SNAPSHOT_H
#define PERFSNAPD_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#include "perf_sample_layout.h"

struct snapshot;
struct tracing_meta;

/* CPU numbers at or beyond this are corrupt (and are filed under CPU -1). */
#define SNAPSHOT_MAX_CPUS 65536

struct snapshot_event {
	struct perf_event_attr attr;
	struct perf_sample_layout layout; /* of attr.sample_type */
	char *name;
	uint64_t *ids;
	size_t nr_ids;
	uint64_t nr_records; /* after __seal: records carrying one of its ids */
};

/*
 * A task the samples name. A sample of a released task carries pid and tid
 * -1; a tracepoint's one is listed by its common_pid as tid, with pid 0
 * (unknown).
 */
struct snapshot_task {
	pid_t pid, tid;
};

/* A process's command line, as the dump found it (see snapshot__set_cmdline()). */
struct snapshot_cmdline {
	pid_t pid;
	size_t len;
	char *args; /* @len bytes: the arguments, each NUL-terminated, one after another */
};

/* A task's name as the snapshot's records leave it at its end. */
struct snapshot_comm {
	pid_t tid;
	pid_t pid;     /* its process, from the same COMM or FORK */
	char comm[16]; /* TASK_COMM_LEN, NUL-terminated */
};

/* What one ring contributed. */
struct snapshot_chunk_info {
	int cpu;
	bool backward;
	bool overwritten; /* the ring had wrapped: older data was gone */
	uint64_t nr_records;
	uint64_t bytes; /* of those records, as the ring holds them */
	uint64_t first_time, last_time;
	uint64_t lost_events; /* sum of its PERF_RECORD_LOST counts */
	/* What the ring held before a window (snapshot__set_window()) cropped it. */
	uint64_t held_records;
	uint64_t held_first_time, held_last_time;
	/*
	 * snapshot__set_chunk_start(): the first time kept (0: all), and how
	 * many older records were left out.
	 */
	uint64_t start_time;
	uint64_t before_start;
};

struct snapshot_stats {
	uint64_t nr_records; /* indexed, in time order */
	uint64_t nr_samples;
	uint64_t nr_lost_records;
	uint64_t lost_events; /* sum of PERF_RECORD_LOST counts */
	uint64_t nr_dropped;  /* records with an unknown id or no time */
	uint64_t bytes;	      /* of indexed records */
	uint64_t first_time, last_time;
	/* With a window (snapshot__set_window()): */
	uint64_t nr_cropped; /* records of the rings left out, outside it */
	uint64_t cropped_bytes;
	uint64_t window_from; /* the first time kept: the window's start, or later */
	bool max_bytes_cut;   /* the size cut it, not the time */
};

/* NULL on ENOMEM. */
struct snapshot *snapshot__new(void);
void snapshot__delete(struct snapshot *s);

/* Creates the spill file (unlinked) in @dir. Returns 0 or -errno. */
int snapshot__open_spill(struct snapshot *s, const char *dir);

/* Adds an event; @attr, @name and @ids are copied. Returns 0 or -errno. */
int snapshot__add_event(struct snapshot *s, const struct perf_event_attr *attr, const char *name,
			const uint64_t *ids, size_t nr_ids);

/*
 * A chunk is the records of one ring for one CPU. @backward: the bytes are
 * a linearised copy of a write_backward ring (newest first, see
 * backward_ring.h); otherwise whole records, oldest first.
 */
int snapshot__begin_chunk(struct snapshot *s, int cpu, bool backward);
int snapshot__append(struct snapshot *s, const void *data, size_t len);
int snapshot__end_chunk(struct snapshot *s);
/* Marks the current chunk's ring as having wrapped (for coverage reports). */
int snapshot__set_chunk_overwritten(struct snapshot *s);
/* Leaves out chunk @idx's records older than @time (recording clock ns); before __seal. */
int snapshot__set_chunk_start(struct snapshot *s, size_t idx, uint64_t time);
/*
 * A whole chunk whose bytes stay in the caller's memory (borrowed until
 * snapshot__delete(); 8-byte aligned, @len a multiple of 8): no copy, no
 * spill file. @overwritten: the ring had wrapped. Returns 0 or -errno.
 */
int snapshot__add_chunk_memory(struct snapshot *s, int cpu, bool backward, const void *data,
			       size_t len, bool overwritten);

/*
 * Before __seal: keep only the rings' records stamped in [@from, @to]
 * (recording clock ns), and with @max_bytes (0: none) only the newest of
 * them whose bytes add up to @max_bytes at most. Every reader of the
 * sealed snapshot (cursors, runs, tasks, names, stats, the chunks' infos)
 * then sees only those; the chunks' held_* say what the rings held.
 * Records __add_records merges later are kept whatever their time.
 * Returns 0, or -EINVAL (@from after @to) or -EBADFD once sealed.
 */
int snapshot__set_window(struct snapshot *s, uint64_t from, uint64_t to, uint64_t max_bytes);

/*
 * The bytes of records __add_records will merge to name @nr tasks (the
 * side-band synthesized for them over [@from, @to]), an upper bound.
 */
typedef uint64_t (*snapshot_naming_fn)(void *ctx, const struct snapshot_task *tasks, size_t nr,
				       uint64_t from, uint64_t to);

/*
 * Before __seal: a window's @max_bytes then counts, besides the records,
 * what naming their tasks will add, so that the files stay within it.
 */
void snapshot__set_naming_cost(struct snapshot *s, snapshot_naming_fn fn, void *ctx);

/*
 * Indexes every record by time, filed by CPU (the record's PERF_SAMPLE_CPU,
 * else its chunk's CPU, else 0), and collects tasks. Returns 0 or -errno.
 */
int snapshot__seal(struct snapshot *s);
/*
 * How many threads __seal indexes the chunks with, the caller's included:
 * 0 (the default) one per CPU the caller may run on, at most one per chunk
 * and per MiB of records; 1 the caller alone. The index is the same.
 */
void snapshot__set_index_threads(struct snapshot *s, unsigned int n);

/*
 * After __seal: merges whole records (each with a known id) into the time
 * order, e.g. side-band COMM/MMAP2 that name the tasks. They add no tasks
 * and leave the stats' time span alone. Returns 0 or -errno.
 */
int snapshot__add_records(struct snapshot *s, const void *records, size_t len);

size_t snapshot__nr_records(const struct snapshot *s);
/* The highest CPU a record is filed under, -1 without records. */
int snapshot__max_cpu(const struct snapshot *s);
const struct snapshot_stats *snapshot__stats(const struct snapshot *s);
size_t snapshot__nr_events(const struct snapshot *s);
const struct snapshot_event *snapshot__event(const struct snapshot *s, size_t idx);
/* The event a record's id belongs to, or NULL. */
const struct snapshot_event *snapshot__event_by_id(const struct snapshot *s, uint64_t id);
size_t snapshot__nr_chunks(const struct snapshot *s);
const struct snapshot_chunk_info *snapshot__chunk(const struct snapshot *s, size_t idx);
size_t snapshot__nr_tasks(const struct snapshot *s);
const struct snapshot_task *snapshot__task(const struct snapshot *s, size_t idx);

/*
 * After __seal (kept up to date by __add_records): the tasks its COMM and
 * FORK records name, by tid. A COMM names a task, a FORK gives the child
 * its parent's name at that time; the last one in time order wins.
 */
size_t snapshot__nr_comms(const struct snapshot *s);
const struct snapshot_comm *snapshot__comm_entry(const struct snapshot *s, size_t idx);
/* The name of @tid at the snapshot's end, or NULL. */
const char *snapshot__comm(const struct snapshot *s, pid_t tid);

/*
 * Compact ring records. A tracepoint event without a callchain records
 * only PERF_SAMPLE_IDENTIFIER, TIME and RAW; what an output needs beside
 * them is added back here: the CPU from the ring the record came from,
 * the tid from the payload's common_pid, the pid from the COMM and FORK
 * records (snapshot__tgid()), the period from the attr. Call these after
 * __add_records, so that the side-band's records name the processes.
 */
/* The most snapshot__widen() adds to a record: TID, CPU and PERIOD. */
#define SNAPSHOT_WIDEN_EXTRA 24
uint64_t snapshot_sample__file_type(const struct snapshot_event *ev);
pid_t snapshot__tgid(const struct snapshot *s, pid_t tid);
int snapshot__sample(const struct snapshot *s, const struct snapshot_event *ev,
		     const struct perf_event_header *h, int cpu, struct perf_record_info *ret);
int snapshot__widen(const struct snapshot *s, const struct snapshot_event *ev,
		    const struct perf_event_header *h, int cpu, void *buf);

/*
 * The command lines of the snapshot's processes. perf.data has no record
 * for them: the dump reads them from /proc beside the records that name
 * the tasks, and a writer that can carry them (Perfetto's ProcessTree)
 * takes them from here. A snapshot read back from a file has none.
 * __set_cmdline copies @len bytes (the last one NUL); returns 0, -EINVAL
 * or -ENOMEM.
 */
int snapshot__set_cmdline(struct snapshot *s, pid_t pid, const char *args, size_t len);
size_t snapshot__nr_cmdlines(const struct snapshot *s);
const struct snapshot_cmdline *snapshot__cmdline(const struct snapshot *s, size_t idx);

/*
 * The tracepoint metadata of the capture the snapshot comes from (formats,
 * ring-buffer headers): every writer takes it from here. Needed when the
 * snapshot has tracepoint events or is written as trace.dat.
 */
void snapshot__set_tracing(struct snapshot *s, struct tracing_meta *m);
/* NULL if none was set. */
const struct tracing_meta *snapshot__tracing(const struct snapshot *s);

#endif
