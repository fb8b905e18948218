/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dump_figures: what one dump did, in one place. The dumper fills it in
 * once, stage by stage, and everything that tells of a dump reads it: the
 * sidecar (snapshot_json), the log and journal line, `perfsnapctl status`
 * and the clients waiting for the dump. A new figure is added here, filled
 * where it is measured, and printed where it is wanted.
 *
 * Stage stamps (*_at_ns) are CLOCK_MONOTONIC; durations are ns; record
 * times are in the recording clock, as in the data files.
 */
#ifndef PERFSNAPD_DUMP_FIGURES_H
#define PERFSNAPD_DUMP_FIGURES_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "snapshot_name.h"
#include "snapshot_origin.h"
#include "snapshot_trigger.h"

/*
 * The window a dump was asked for (perfsnapctl dump --last, --since,
 * --until, --max-size; a trigger's before), resolved at the trigger.
 */
struct dump_range {
	bool set;
	char asked[96];		 /* the request's options, as perfsnapd read them */
	uint64_t from_ns, to_ns; /* recording clock; to_ns UINT64_MAX: up to the pause */
	int64_t from_realtime_ns, to_realtime_ns; /* the same in CLOCK_REALTIME; 0: none */
	uint64_t max_size;			  /* bytes of each data file; 0: none */
	uint64_t max_bytes;			  /* of records, within max_size */
	uint64_t recording_since_ns; /* when these rings opened: none holds older records */
	int nr_short;		     /* rings that hold less than asked */
	char note[512]; /* what the operator should know: a shortfall, or why it failed */
};

/* One overwrite ring of the dump, in ring (= chunk) order. */
struct dump_ring_figures {
	int cpu;
	uint64_t pause_ns;	 /* from its pause to its resume */
	uint64_t cut_bytes;	 /* its oldest bytes the kernel overwrote before their copy */
	bool has_records;	 /* else newest_time means nothing */
	uint64_t newest_time;	 /* of its newest record */
	bool closed;		 /* the history of a ring closed when its CPU went offline */
	bool range_short;	 /* holds less than the dump's window asked */
	uint64_t range_reach_ns; /* with range_short: how far back from the window's end it holds */
	bool replaced; /* [capture] window: a ring a resize replaced, beside its successor */
	bool instance; /* a tracefs instance's ring: its chunk is made of its pages */
	uint64_t instance_lost; /* ... events it could not store since it opened (its stats) */
	uint64_t
		reach_ns; /* its CPU's: the trigger less its oldest record (dump_figures__set_reach) */
	bool reach_cut;	     /* ... and the ring with that record had wrapped */
	uint64_t start_time; /* recording clock: since when all its events record; 0: not known */
};

/* A span a CPU was not recorded (it was offline), in the recording clock. */
struct dump_offline_span {
	int cpu;
	uint64_t from_ns, to_ns; /* 0: not known; to_ns 0 also while it lasts */
	bool ended;
};

/* Spans a dump states (the newest). */
#define DUMP_OFFLINE_MAX 16

/* The files, as snapshot_files writes them. */
struct dump_file_figures {
	/* Once in place: the data files in snapshot_name's order, the sidecar last. */
	char paths[SNAPSHOT_NR_FILES][PATH_MAX];
	int nr_paths;
	uint64_t bytes; /* all files together */
	/* Per file kind: its bytes written, its fsync done (0: not). */
	uint64_t written_at_ns[SNAPSHOT_NR_FILES], synced_at_ns[SNAPSHOT_NR_FILES];
	uint64_t published_at_ns; /* every file linked into place, the directory synced */
	/*
	 * Per file kind, from its start to its fsync's end: running, waiting
	 * for a CPU, or blocked (the disk, mostly).
	 */
	uint64_t cost_ns[SNAPSHOT_NR_FILES];
	/* Per file kind, the time its thread ran on a CPU over the same span. */
	uint64_t run_ns[SNAPSHOT_NR_FILES];
	char failed[PATH_MAX + 32]; /* on failure, what could not be written */
};

/* Objects the symbol pack lists by name (the largest left out first). */
#define DUMP_SYMBOLS_LISTED 8

/* The symbol pack ([snapshot] symbols = pack), as symbol_pack writes it. */
struct dump_symbol_figures {
	uint64_t nr_objects;	  /* objects the samples hit, each once */
	uint64_t nr_packed;	  /* in the pack, whole */
	uint64_t nr_symbols_only; /* in the pack as their symbol tables: too big whole */
	uint64_t nr_unreadable;	  /* perfsnapd may not read them */
	uint64_t nr_missing;	  /* gone (not held, and not at their path) or replaced */
	uint64_t nr_no_buildid;	  /* without a build-id: perf cannot look them up */
	uint64_t nr_over_cap;	  /* left out: over the pack's size cap */
	uint64_t over_cap_bytes;
	struct {
		char path[240];
		uint64_t bytes;
	} over_cap[DUMP_SYMBOLS_LISTED]; /* the largest of them */
	uint64_t nr_kernel_symbols;	 /* kallsyms lines packed; 0: none */
	int kernel_error;		 /* why the kernel's are not (-errno), 0 */
	uint64_t pack_ns;		 /* finding the objects and writing the pack */
};

struct dump_figures {
	/* What and why. */
	char stem[256];
	char reason[128];	       /* the operator's words, or what fired it */
	struct snapshot_origin origin; /* who asked */
	char hostname[128];
	char directory[PATH_MAX];
	unsigned int formats; /* SNAPSHOT_FILE_BIT() of each data file */
	bool has_trigger;     /* a [trigger NAME] asked for it: */
	struct snapshot_trigger trigger;
	struct dump_range range; /* a crop asked for, else window.set false */
	int error;		 /* 0 or -errno */

	/* The stages. */
	uint64_t trigger_at_ns, copied_at_ns, collected_at_ns, sealed_at_ns, named_at_ns;
	uint64_t first_pause_at_ns, last_pause_at_ns;
	/*
	 * Recording clock: the instant a backend stopped all its rings at
	 * (a tracefs instance's marker); records after it are left out, so
	 * every backend ends there. 0: not known, each ring ends at its pause.
	 */
	uint64_t end_time;
	uint64_t dump_ns; /* trigger to files in place */

	/* The copy of the overwrite rings. */
	struct dump_ring_figures *rings; /* owned: dump_figures__fini() */
	size_t nr_rings;
	uint64_t fault_ns; /* before the first pause: mapping, faulting in the paused parts */
	uint64_t copy_bytes, copy_memory_bytes, copy_spilled_bytes;
	unsigned int rounds; /* > 1: the rings did not fit copy_memory at once */
	int copy_threads;
	int rt_error;	    /* the copy could not run at SCHED_FIFO: -errno */
	uint64_t window_ns; /* [capture] window: what every CPU should hold; 0: none */
	struct dump_offline_span offline[DUMP_OFFLINE_MAX]; /* oldest first */
	size_t nr_offline;

	/* The snapshot. */
	uint64_t nr_records, record_bytes, lost_events;
	uint64_t index_bytes;	   /* memory for the time index */
	uint64_t nr_synthesized;   /* COMM/MMAP2/... records added to name tasks */
	uint64_t nr_build_ids;	   /* objects hit the perf.data names by build-id */
	uint64_t nr_tasks_unnamed; /* tasks with events but no known name */

	/* The files. */
	bool compressed;	/* written with zstd */
	bool pftrace_zstd;	/* a compressed .pftrace is zstd (asked for by name), else gzip */
	char compress_why[192]; /* compression = auto: why (or why not); else empty */
	struct dump_file_figures files;
	struct dump_symbol_figures symbols; /* with SNAPSHOT_FILE_SYMBOLS in formats */
};

struct snapshot;
/*
 * Each overwrite ring's reach (rings[i] is chunk i): from the trigger's
 * match, or for a dump asked for the newest record, back to the oldest
 * record its CPU has in any of its rings (a resize leaves two); for a
 * cropped dump, of what the rings held before the crop.
 */
void dump_figures__set_reach(struct dump_figures *f, const struct snapshot *s);
/*
 * Whether ring @i holds less than was asked of it: of a crop, its
 * range_short; else of f->window_ns, its history cut before it.
 */
bool dump_figures__short(const struct dump_figures *f, size_t i);

/* Empty figures with room for @nr_rings rings. Returns 0 or -ENOMEM. */
int dump_figures__init(struct dump_figures *f, size_t nr_rings);
/* Frees the rings; @f may be zeroed or initialised. */
void dump_figures__fini(struct dump_figures *f);
/* A deep copy of @src over @dst (initialised or zeroed). Returns 0 or -ENOMEM. */
int dump_figures__copy(struct dump_figures *dst, const struct dump_figures *src);

/* The longest single ring pause: the blind window. */
uint64_t dump_figures__blind_max_ns(const struct dump_figures *f);
/* Every ring's pause, summed. */
uint64_t dump_figures__blind_total_ns(const struct dump_figures *f);
/* From the first ring paused to the last. */
uint64_t dump_figures__pause_spread_ns(const struct dump_figures *f);
/* From the trigger to the first ring paused. */
uint64_t dump_figures__pause_delay_ns(const struct dump_figures *f);
/* How far apart the rings' newest records are. */
uint64_t dump_figures__newest_spread_ns(const struct dump_figures *f);
/* The rings' bytes cut off, summed. */
uint64_t dump_figures__cut_bytes(const struct dump_figures *f);

/* "CPU:us CPU:us ..." of the rings' pauses, cut to fit @size. Returns @buf. */
char *dump_figures__format_pauses(const struct dump_figures *f, char *buf, size_t size);
/* "CPU:ns ..." of the newest record of each ring that has records. Returns @buf. */
char *dump_figures__format_newest(const struct dump_figures *f, char *buf, size_t size);

#endif
