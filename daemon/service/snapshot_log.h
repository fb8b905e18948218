/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_log: the log lines of a finished dump (daemon__dump_done()).
 */
#ifndef PERFSNAPD_SNAPSHOT_LOG_H
#define PERFSNAPD_SNAPSHOT_LOG_H

struct dump_figures;

/* The snapshot's files, blind window, spreads, pauses and shortfalls. */
void snapshot_log__summary(const struct dump_figures *f);
/* Each stage's time after the trigger, at debug level. */
void snapshot_log__stages(const struct dump_figures *f);

#endif
