/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_json: the sidecar "<stem>.json" that says what a snapshot
 * covers: why it was taken, the files, events per type, and per CPU ring
 * the time span of its data and whether older data had been overwritten.
 */
#ifndef PERFSNAPD_SNAPSHOT_JSON_H
#define PERFSNAPD_SNAPSHOT_JSON_H

#include <stdio.h>

struct dump_figures;
struct snapshot;

/* Writes the JSON document for a sealed snapshot. Returns 0 or -errno. */
int snapshot_json__write(const struct snapshot *s, const struct dump_figures *f, FILE *out);

#endif
