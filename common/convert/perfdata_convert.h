/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_convert: a perf.data read by perfdata_reader, as trace.dat, a
 * Perfetto trace or a pprof profile: the conversion perfsnap-convert makes (and the fuzz target exercises), with
 * everything taken from the input rather than from the converting machine.
 */
#ifndef PERFSNAPD_PERFDATA_CONVERT_H
#define PERFSNAPD_PERFDATA_CONVERT_H

#include "snapshot_perfetto.h"
#include "snapshot_pprof.h"
#include "snapshot_tracedat.h"

struct perfdata_reader;
struct snapshot;

/* Optional hooks of a conversion. */
struct perfdata_convert_opts {
	enum pftrace_compression compression; /* Perfetto only */
	enum perfetto_sample_kind samples;    /* Perfetto only */
	/* Perfetto and pprof: a kallsyms text to use over the input's and this machine's */
	const char *kallsyms;
	size_t kallsyms_size;
	/* Perfetto and pprof: objects by build-id before their paths (symbol_store) */
	const struct symbols_source *symbols;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
};

int perfdata_convert__write_tracedat(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct tracedat_result *res);
int perfdata_convert__write_perfetto(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, const struct perfdata_convert_opts *o,
				     struct perfetto_result *res);
int perfdata_convert__write_pprof(const struct snapshot *s, const struct perfdata_reader *r, int fd,
				  const struct perfdata_convert_opts *o, struct pprof_result *res);

#endif
