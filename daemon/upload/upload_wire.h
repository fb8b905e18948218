/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * upload_wire: what perfsnapd and its upload helper (perfsnapd-upload)
 * say to each other over their SOCK_SEQPACKET socket. One request, one
 * reply, in turn: perfsnapd sends a PUT with the file as a descriptor
 * (SCM_RIGHTS), so the helper reads that file and no other; the helper
 * answers with the outcome. Closing the socket mid-transfer abandons it,
 * and the helper exits. Both ends are built together, so the messages are
 * plain structs of fixed size; the version field catches a stale helper.
 */
#ifndef PERFSNAPD_UPLOAD_WIRE_H
#define PERFSNAPD_UPLOAD_WIRE_H

#include <stdint.h>

#define UPLOAD_WIRE_VERSION 1
/* Where fd 3 is the socket: from perfsnapd, or from systemd (Accept=yes). */
#define UPLOAD_WIRE_FD	    3

enum upload_wire_flag {
	UPLOAD_WIRE_PATH_STYLE = 1 << 0,
	UPLOAD_WIRE_JSON = 1 << 1, /* Content-Type: application/json */
};

struct upload_wire_put {
	uint32_t version;
	uint32_t flags;
	char endpoint[512];
	char bucket[256];
	char region[64];
	char key_id[256];
	char secret[256];
	char token[4096]; /* "" when none */
	char key[2048];
};

struct upload_wire_reply {
	uint32_t version;
	uint32_t outcome; /* enum upload_outcome */
	uint64_t bytes;
	char error[256];
};

#endif
