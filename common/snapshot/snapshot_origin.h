/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * snapshot_origin: who asked for a snapshot, apart from the reason they
 * gave (the sidecar's "origin", status, the journal).
 */
#ifndef PERFSNAPD_SNAPSHOT_ORIGIN_H
#define PERFSNAPD_SNAPSHOT_ORIGIN_H

#include <stddef.h>
#include <stdint.h>

enum snapshot_origin_kind {
	SNAPSHOT_ORIGIN_NONE,
	SNAPSHOT_ORIGIN_SIGNAL,	 /* SIGUSR2 */
	SNAPSHOT_ORIGIN_CONTROL, /* the control socket (perfsnapctl dump) */
	SNAPSHOT_ORIGIN_TRIGGER, /* a [trigger NAME] */
};

/* Plain data, copied by value. */
struct snapshot_origin {
	enum snapshot_origin_kind kind;
	int32_t pid;	  /* the sender or the socket's peer; 0: not known */
	int64_t uid;	  /* likewise; -1: not known */
	char trigger[72]; /* kind trigger: its name */
};

/* "signal", "control", "trigger" (or "" for none): the sidecar's origin.kind. */
const char *snapshot_origin__kind(const struct snapshot_origin *o);
/*
 * @o as an operator reads it: "SIGUSR2, pid 12, uid 0", "perfsnapctl, pid
 * 12, uid 1000", "trigger slow-read"; "" for none. Returns @buf.
 */
char *snapshot_origin__format(const struct snapshot_origin *o, char *buf, size_t size);

#endif
