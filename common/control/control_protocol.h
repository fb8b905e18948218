/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * control_protocol: what perfsnapd and its clients (perfsnapctl) agree on
 * about the control socket. A client sends one request line, "<command>
 * [argument]\n"; the daemon answers with reply lines and a last line that
 * is "ok" or "error <text>". A data line that would read as one of those
 * is sent with a leading space.
 */
#ifndef PERFSNAPD_CONTROL_PROTOCOL_H
#define PERFSNAPD_CONTROL_PROTOCOL_H

#include <stdbool.h>
#include <string.h>

#define CONTROL_DEFAULT_PATH	   "/run/perfsnapd/control.sock"
/* Longest request line, newline included. */
#define CONTROL_MAX_LINE	   1024
/* Longest reply line; longer ones are cut. */
#define CONTROL_MAX_REPLY_LINE	   8192
/* Most bytes one reply may hold; past it the reply ends in an error. */
#define CONTROL_MAX_REPLY	   (1024 * 1024)
#define CONTROL_DEFAULT_TIMEOUT_MS 10000

/* Request commands. */
#define CONTROL_CMD_DUMP    "dump"
#define CONTROL_CMD_TRIGGER "trigger"
#define CONTROL_CMD_STATUS  "status"
#define CONTROL_CMD_LIST    "list"
#define CONTROL_CMD_RELOAD  "reload"

/* Final reply lines. */
#define CONTROL_REPLY_OK    "ok"
#define CONTROL_REPLY_ERROR "error"

/* True for a line that ends a reply: "ok", "error" or "error <text>". */
static inline bool control_protocol__is_final(const char *line)
{
	return !strcmp(line, CONTROL_REPLY_OK) || !strcmp(line, CONTROL_REPLY_ERROR) ||
	       !strncmp(line, CONTROL_REPLY_ERROR " ", sizeof(CONTROL_REPLY_ERROR));
}

#endif
