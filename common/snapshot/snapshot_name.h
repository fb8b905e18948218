/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_name: the one place that knows what a snapshot's files are
 * called. A snapshot is a stem, "<host>-YYYYmmdd-HHMMSS.mmm-<seq>", and one
 * file per format plus the sidecar: "<stem>.perf.data", "<stem>.trace.dat",
 * "<stem>.pftrace", "<stem>.pb.gz" (pprof), the symbol pack "<stem>.symbols.tar",
 * "<stem>.json", and the temporaries of both. The table in snapshot_name.c lists the formats (the name
 * [snapshot] formats accepts, the suffix); a new format is one entry there
 * and one constant here, before the sidecar.
 */
#ifndef PERFSNAPD_SNAPSHOT_NAME_H
#define PERFSNAPD_SNAPSHOT_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* The files of a snapshot, in the order they are written: the sidecar last. */
enum snapshot_file {
	SNAPSHOT_FILE_PERFDATA,
	SNAPSHOT_FILE_TRACEDAT,
	SNAPSHOT_FILE_PERFETTO,
	SNAPSHOT_FILE_PPROF,
	SNAPSHOT_FILE_SYMBOLS, /* the symbol pack: [snapshot] symbols = pack, not a format */
	SNAPSHOT_FILE_JSON,
	SNAPSHOT_NR_FILES,
};

/* A set of files (or of formats, in the configuration) as bits. */
#define SNAPSHOT_FILE_BIT(f) (1u << (f))

/* What a snapshot file's name says. */
struct snapshot_name {
	enum snapshot_file file;
	size_t stem_len;
	size_t host_len; /* the stamp starts after it and a '-' */
	uint64_t seq;
};

/* ".perf.data"; NULL past the table. */
const char *snapshot_name__suffix(enum snapshot_file f);
/* The name [snapshot] formats uses ("perf.data"), NULL for the pack and the sidecar. */
const char *snapshot_name__format(enum snapshot_file f);
/* The file of a format name, or -EINVAL. */
int snapshot_name__format_of(const char *format);

/*
 * "<host>-YYYYmmdd-HHMMSS.mmm-<seq>" with @when in local time. Returns 0,
 * -EINVAL for a host name that parse would not read back, or -ENAMETOOLONG.
 */
int snapshot_name__make_stem(char *buf, size_t size, const char *host, const struct timespec *when,
			     uint64_t seq);
/* "<dir>/<stem><suffix>". Returns 0 or -ENAMETOOLONG. */
int snapshot_name__path(char *buf, size_t size, const char *dir, const char *stem,
			enum snapshot_file f);
/* "<stem><suffix>", the file's name in its directory. Returns 0 or -ENAMETOOLONG. */
int snapshot_name__file(char *buf, size_t size, const char *stem, enum snapshot_file f);

/*
 * "<dir>/.<stem><suffix>.tmp": where a file is written on a file system
 * without O_TMPFILE. Returns 0 or -ENAMETOOLONG.
 */
int snapshot_name__temp_path(char *buf, size_t size, const char *dir, const char *stem,
			     enum snapshot_file f);

/* A snapshot's spill file where O_TMPFILE is missing: mkostemp() fills the X's. */
#define SNAPSHOT_NAME_SPILL_TEMPLATE ".perfsnapd-spill.XXXXXX"

/*
 * Whether @name is a temporary perfsnapd makes: a hidden ".<file>.tmp" of
 * a snapshot file or a spill file. Only these can a crash leave behind.
 */
bool snapshot_name__is_temporary(const char *name);

/*
 * Reads a file name (no directory) back into stem and file. Only names of
 * exactly this shape are snapshot files (never a dotfile). Returns 0 or
 * -EINVAL.
 */
int snapshot_name__parse(const char *name, struct snapshot_name *ret);
/* The same for a stem alone (->file is SNAPSHOT_NR_FILES). */
int snapshot_name__parse_stem(const char *stem, size_t len, struct snapshot_name *ret);

#endif
