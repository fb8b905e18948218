/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * perfdata_convert: a perf.data read by perfdata_reader, as trace.dat: the
 * conversion perfsnap-convert makes (and the fuzz target exercises), with
 * everything taken from the input rather than from the converting machine.
 */
#ifndef PERFSNAPD_PERFDATA_CONVERT_H
#define PERFSNAPD_PERFDATA_CONVERT_H

#include "snapshot_tracedat.h"

struct perfdata_reader;
struct snapshot;

int perfdata_convert__write_tracedat(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, struct tracedat_result *res);

#endif
