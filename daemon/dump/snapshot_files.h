/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_files: writes one sealed snapshot as its set of files in the
 * snapshot directory (named by snapshot_name: one per format, then the
 * sidecar "<stem>.json"), all or nothing: each is written as an unnamed file
 * (O_TMPFILE) and synced, and only when every one is complete are they
 * linked into place, so a crash at any point leaves nothing. File systems
 * without O_TMPFILE get a hidden ".<name>.tmp" instead, renamed into place;
 * a crash leaves that, and the next start removes it. On any failure
 * nothing of the snapshot remains.
 */
#ifndef PERFSNAPD_SNAPSHOT_FILES_H
#define PERFSNAPD_SNAPSHOT_FILES_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "config.h"
#include "snapshot_name.h"
#include "snapshot_perfdata.h"

struct dump_figures;
struct dump_symbol_figures;
struct snapshot;
struct symbol_cache;

#define SNAPSHOT_MAX_FILES SNAPSHOT_NR_FILES

/* What the writers need beyond the snapshot and the dump's figures. */
struct snapshot_files_params {
	struct perfdata_meta perfdata;
	int nr_cpus;
	enum config_perfetto_samples perfetto_samples;
	struct symbol_cache *symbol_cache;   /* the pack's objects; NULL: opened by path */
	struct dump_symbol_figures *symbols; /* the pack's figures, written by its thread */
	uint64_t *nr_build_ids;		     /* perf.data's BUILD_ID entries, by its thread */
};

/*
 * Writes the files of @f->formats and the sidecar for stem @f->stem in
 * @f->directory, compressed if @f->compressed (the .pftrace as @p says). Returns 0 or -errno; @f->files
 * says what was written, in place (paths) or not (failed).
 */
int snapshot_files__write(const struct snapshot *s, const struct snapshot_files_params *p,
			  struct dump_figures *f);

#endif
