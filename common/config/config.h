/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config: perfsnapd.conf, parsed with inih and validated in full before
 * anything is opened. Every problem becomes one diagnostic naming the file,
 * line, key, the bad value and what is accepted; the caller prints them all
 * and exits with EX_CONFIG (78).
 */
#ifndef PERFSNAPD_CONFIG_H
#define PERFSNAPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define PERFSNAPD_DEFAULT_CONFIG "/etc/perfsnapd/perfsnapd.conf"

/* [capture] clock: the time base of every event's samples. */
enum config_clock {
	CONFIG_CLOCK_PERF,	/* perf's own (the kernel's local clock) */
	CONFIG_CLOCK_MONOTONIC, /* attr.use_clockid with CLOCK_MONOTONIC */
	CONFIG_CLOCK_BOOTTIME,	/* ... CLOCK_BOOTTIME */
	CONFIG_CLOCK_REALTIME,	/* ... CLOCK_REALTIME */
};

/* [capture] backend: what records the tracepoints without callchains. */
enum config_backend {
	CONFIG_BACKEND_AUTO,	/* a tracefs instance where the kernel maps its rings, else perf */
	CONFIG_BACKEND_PERF,	/* perf_event rings, as every other event */
	CONFIG_BACKEND_TRACEFS, /* a tracefs instance, or perfsnapd does not start */
};

/* [snapshot] compression of snapshot files. */
enum config_compression {
	CONFIG_COMPRESSION_NONE,
	CONFIG_COMPRESSION_ZSTD,
	CONFIG_COMPRESSION_AUTO, /* zstd where the last dumps say it costs less */
};

/* [snapshot] perfetto_samples: the packet a sample becomes in the .pftrace. */
enum config_perfetto_samples {
	CONFIG_PERFETTO_SAMPLES_AUTO,	     /* the one every Perfetto version reads: perf_sample */
	CONFIG_PERFETTO_SAMPLES_PERF_SAMPLE, /* PerfSample (TracePacket field 66) */
	CONFIG_PERFETTO_SAMPLES_STACK_SAMPLE, /* StackSample (field 135): Perfetto v58 on */
};

/* [snapshot] symbols: what a snapshot carries to be symbolized on another machine. */
enum config_symbols {
	CONFIG_SYMBOLS_NONE,	  /* nothing beyond the paths in the mmap records */
	CONFIG_SYMBOLS_BUILD_IDS, /* build-ids in the data files */
	CONFIG_SYMBOLS_PACK,	  /* and <stem>.symbols.tar, a perf build-id cache */
};

/* One perf event, resolved from its config text. */
struct event_spec {
	char *name;		     /* "sched:sched_switch", "cpu-clock" */
	struct perf_event_attr attr; /* type, config, sample_*, freq, callchain... */
	bool overwrite;		     /* backward ring (aux evlist) or forward (main) */
	bool is_tracepoint;
	int line; /* config line it came from */
};

/* [trigger NAME]: what makes perfsnapd dump by itself. */
enum trigger_kind {
	TRIGGER_KIND_MANUAL, /* neither event nor psi: only `perfsnapctl trigger NAME` */
	TRIGGER_KIND_EVENT,  /* a tracefs event, filtered in the kernel */
	TRIGGER_KIND_PSI,    /* a kernel PSI trigger on a pressure file */
	TRIGGER_KIND_PAIRED, /* a start and an end event, paired by key, over a threshold */
};

enum trigger_field_kind {
	TRIGGER_FIELD_INT,     /* size 1, 2, 4 or 8 */
	TRIGGER_FIELD_CHARS,   /* char NAME[size], NUL-terminated if shorter */
	TRIGGER_FIELD_DYNAMIC, /* __data_loc char[]: size 4, (length << 16) | offset */
};

/* A field of a tracepoint's record, from its format file: a key is an integer. */
struct trigger_field {
	char *name;
	uint32_t offset, size;
	bool is_signed;
	enum trigger_field_kind kind;
};

/*
 * A comparison of a field with a number, or of a string field with a
 * string: one term of a filter the BPF path runs. A glob (~) is one of
 * the string ops, by where its '*' are.
 */
enum trigger_op {
	TRIGGER_OP_EQ,
	TRIGGER_OP_NE,
	TRIGGER_OP_LT,
	TRIGGER_OP_LE,
	TRIGGER_OP_GT,
	TRIGGER_OP_GE,
	TRIGGER_OP_AND,
	TRIGGER_OP_PREFIX, /* "abc*" */
	TRIGGER_OP_SUFFIX, /* "*abc" */
	TRIGGER_OP_SUBSTR, /* "*abc*" */
	TRIGGER_OP_GLOB,   /* while parsing: ~, before it is one of the three, or EQ */
};
/* A string a term compares with, and the bytes of a field it can look at. */
#define TRIGGER_STR_MAX	 16
#define TRIGGER_STR_READ 32
struct trigger_term {
	struct trigger_field field;
	enum trigger_op op;
	int64_t value;
	char str[TRIGGER_STR_MAX + 1]; /* string fields */
};

#define TRIGGER_TERMS_MAX 8
/*
 * A filter's program, in postfix: a byte below TRIGGER_TERMS_MAX is that
 * term's truth, the others combine the truths before them.
 */
#define TRIGGER_PROG_MAX  32
enum trigger_prog_op { TRIGGER_PROG_AND = 0xf0, TRIGGER_PROG_OR, TRIGGER_PROG_NOT };

/* One side (start or end) of a paired trigger. */
struct trigger_side {
	struct event_spec event; /* the tracepoint, forward, for the fallback's ring */
	int line;
	struct trigger_field key;
	int key_line;
	char *filter; /* kernel filter syntax, or NULL */
	int filter_line;
	/*
	 * The filter as terms (FIELD OP NUMBER, FIELD OP "STRING") combined
	 * by a program of &&, || and !, when it is that (config_filter.c);
	 * else nr_terms is -1
	 * and only the fallback (the kernel's own filter on a perf event)
	 * can apply it.
	 */
	struct trigger_term terms[TRIGGER_TERMS_MAX];
	int nr_terms;
	uint8_t prog[TRIGGER_PROG_MAX];
	int nr_prog;
};

struct trigger_spec {
	char *name;
	int line; /* of the [trigger NAME] header */
	enum trigger_kind kind;
	struct event_spec event; /* kind event: one tracepoint, forward, one sample per match */
	int event_line;
	char *filter; /* kernel filter syntax, or NULL */
	int filter_line;
	uint64_t after_ms;	   /* recording goes on this long after the match */
	uint64_t before_ms;	   /* the snapshot keeps this long before it; 0: all */
	unsigned int count;	   /* fire on the count-th match ... */
	uint64_t window_ms;	   /* ... within this long */
	unsigned int max_per_hour; /* this trigger's dumps; 0: unlimited */
	uint64_t min_interval_ms;  /* between this trigger's dumps; 0: none */
	/* kind psi */
	char *psi;	    /* the value as written: "memory some 150ms 2s" */
	char *psi_resource; /* cpu, memory, io or irq */
	bool psi_full;	    /* "full" rather than "some" */
	uint64_t psi_stall_us, psi_window_us;
	char *psi_file; /* /proc/pressure/<resource> unless psi_file says */
	int psi_line;
	/* kind paired */
	struct trigger_side start, end;
	uint64_t threshold_ns; /* > 0 */
	int threshold_line;
};

struct config_diag {
	char *file;
	int line;      /* 0 when not tied to a line */
	char *message; /* "[capture] buffer_size: bad size '4Q': accepted: ..." */
};

struct config_diags {
	struct config_diag *items;
	size_t nr;
};

/*
 * A configuration never changes once config__load() has returned it: every
 * holder has a const pointer, and it is shared by reference (config__get(),
 * config__put(), whose count is config.c's own), as the dumps, the
 * triggers and the uploader each hold the one they started with.
 */
struct perfsnapd_config {
	char *path;
	struct event_spec *events;
	size_t nr_events;
	uint64_t buffer_size;	   /* as requested, bytes */
	unsigned int buffer_pages; /* data pages per CPU ring: a power of two */
	char *cpus;		   /* NULL for all online CPUs, else "0-3,8" (normalized) */
	char *directory;
	unsigned int formats;	     /* SNAPSHOT_FILE_BIT() of each (snapshot_name.h) */
	int config_line_buffer_size; /* for reporting rounding */
	uint64_t window_ms;	     /* [capture] window: each CPU's ring holds this; 0: none */
	uint64_t memory;	     /* [capture] memory: every ring together, bytes; 0: none */

	/* [capture], continued */
	enum config_clock clock; /* already applied to every events[].attr */
	enum config_backend backend;
	uint64_t history_size;	/* bytes of no-overwrite history kept; 0: none */
	bool sideband;		/* keep names and maps of exited tasks */
	unsigned int max_tasks; /* cap of the process table */

	/* [snapshot], continued */
	enum config_compression compression;
	enum config_perfetto_samples perfetto_samples;
	enum config_symbols symbols;
	unsigned int max_snapshots;	  /* 0: unlimited */
	uint64_t max_total_size;	  /* bytes; 0: unlimited, or: */
	unsigned int max_total_percent;	  /* 1-100: of directory's file system; 0: bytes */
	uint64_t min_interval_ms;	  /* between snapshots; 0: none */
	unsigned int max_per_hour;	  /* snapshots; 0: unlimited */
	uint64_t copy_memory;		  /* bytes for ring copies; 0: auto */
	bool copy_memory_resident;	  /* keep that memory faulted in between dumps */
	char *post_command;		  /* absolute path, NULL for none */
	uint64_t post_command_timeout_ms; /* > 0 */

	/* [trigger NAME] sections, in file order */
	struct trigger_spec *triggers;
	size_t nr_triggers;

	/* [control] */
	char *control_socket; /* absolute path, always set */
	char *control_group;  /* NULL: only root may connect */
	gid_t control_gid;    /* of control_group, when set */
	/* dumps each member (a uid other than root) may ask for in an hour; 0: unlimited */
	unsigned int control_member_max_per_hour;

	/* [upload]: snapshots go to S3-compatible storage when upload_url is set */
	char *upload_url;	  /* "s3://bucket/prefix/{host}/" as written */
	char *upload_bucket;	  /* from upload_url */
	char *upload_prefix;	  /* object key prefix; may hold {host} and {date} */
	char *upload_endpoint;	  /* "https://host[:port]"; set when upload_url is */
	char *upload_region;	  /* set when upload_url is */
	bool upload_path_style;	  /* endpoint/bucket/key instead of bucket.endpoint/key */
	char *upload_credentials; /* path of the shared-credentials file */
	char *upload_key_id;	  /* secrets from it: never printed nor logged */
	char *upload_secret;
	char *upload_token; /* NULL without aws_session_token */
	bool upload_keep_local;
	uint64_t upload_retry_min_ms; /* first retry delay; doubles up to retry_max */
	uint64_t upload_retry_max_ms;
};

/*
 * Parses and validates @path. Tracepoints are looked up under @tracing_dir
 * (NULL: the system's tracefs). Returns 0 and a config holding one
 * reference in *ret, -EINVAL with every problem appended to @diags, or
 * -errno if the file cannot be read (also reported in @diags).
 */
int config__load(const char *path, const char *tracing_dir, const struct perfsnapd_config **ret,
		 struct config_diags *diags);
/* Another reference (thread-safe); returns @cfg. NULL is fine. */
const struct perfsnapd_config *config__get(const struct perfsnapd_config *cfg);
/* Drops a reference; the last frees. NULL is fine. */
void config__put(const struct perfsnapd_config *cfg);

/* The trigger named @name, or NULL. */
const struct trigger_spec *config__trigger(const struct perfsnapd_config *cfg, const char *name);
/* "manual", "event", "psi" or "paired". */
const char *config__trigger_kind_name(enum trigger_kind kind);

/* Prints the effective configuration in config-file syntax. */
void config__print(const struct perfsnapd_config *cfg, FILE *out);
/*
 * What differs from @old to @new, "[snapshot] max_snapshots, [trigger oom]
 * added", into @buf ("" if nothing). Returns how many differ, or -errno.
 */
int config__changes(const struct perfsnapd_config *old, const struct perfsnapd_config *new,
		    char *buf, size_t size);

/* Data pages of each CPU's forward ring (side-band, no-overwrite events) beside window rings. */
#define CONFIG_SIDEBAND_RING_PAGES 256
/* Data pages of each CPU's ring for the trigger events. */
#define CONFIG_TRIGGER_RING_PAGES  8
/* Per CPU, of a paired trigger's fallback rings (daemon/trigger/paired_ring.c). */
#define CONFIG_PAIRED_RING_PAGES   256
/* The smallest overwrite ring [capture] window gives a CPU. */
#define CONFIG_WINDOW_FLOOR_PAGES  16
/*
 * The pages [capture] memory leaves the overwrite rings of @nr_cpus CPUs
 * (control pages included) once the forward, trigger and history memory is
 * taken; -ENOSPC when it does not hold CONFIG_WINDOW_FLOOR_PAGES on each.
 */
int64_t config__window_pages(const struct perfsnapd_config *cfg, unsigned int nr_cpus);

/* copy_memory = auto: the sum of the overwrite rings, at most this. */
#define CONFIG_COPY_MEMORY_AUTO_MAX (1ull << 30)
/*
 * The bytes a dump may hold ring copies in: copy_memory, or for auto the
 * sum of @rings_bytes up to CONFIG_COPY_MEMORY_AUTO_MAX.
 */
uint64_t config__copy_memory(const struct perfsnapd_config *cfg, uint64_t rings_bytes);

/*
 * The bytes max_total_size allows: as given, or its share of a file system
 * of @fs_bytes (the directory's, as statvfs() gives it now). 0: unlimited.
 */
uint64_t config__max_total_bytes(const struct perfsnapd_config *cfg, uint64_t fs_bytes);

/*
 * Longest line other than a comment, in bytes (inih's line buffer less its
 * newline and NUL); perfsnapd.conf(5) says so. Comments may be longer.
 */
#define CONFIG_LINE_MAX 197

/*
 * Largest configuration file read, in bytes: far more than any real one,
 * so that a path to a device or a runaway file is refused, not read
 * without end.
 */
#define CONFIG_FILE_MAX (1024 * 1024)

/* Diagnostics printed (or logged) at most; the rest are counted. */
#define CONFIG_DIAGS_PRINT_MAX 20

/* Prints each diagnostic as "file:line: message", the first 20 of them. */
void config_diags__print(const struct config_diags *diags, FILE *out);
void config_diags__clear(struct config_diags *diags);

/*
 * Appends one diagnostic, e.g. for an event that later fails to open, at
 * its event_spec.line. Returns 0 or -ENOMEM.
 */
int config_diags__add(struct config_diags *diags, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
