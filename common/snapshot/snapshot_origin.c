// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_origin: who asked for a snapshot. See snapshot_origin.h.
 */
#include <stdio.h>

#include "snapshot_origin.h"

const char *snapshot_origin__kind(const struct snapshot_origin *o)
{
	switch (o->kind) {
	case SNAPSHOT_ORIGIN_SIGNAL:
		return "signal";
	case SNAPSHOT_ORIGIN_CONTROL:
		return "control";
	case SNAPSHOT_ORIGIN_TRIGGER:
		return "trigger";
	case SNAPSHOT_ORIGIN_NONE:
	default:
		return "";
	}
}

/* ", pid P, uid U", as much of it as is known, into @buf. */
static void sender(const struct snapshot_origin *o, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (o->pid > 0)
		n = snprintf(buf, size, ", pid %d", (int)o->pid);
	if (o->uid >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", uid %lld", (long long)o->uid);
}

char *snapshot_origin__format(const struct snapshot_origin *o, char *buf, size_t size)
{
	char from[64];

	sender(o, from, sizeof(from));
	switch (o->kind) {
	case SNAPSHOT_ORIGIN_SIGNAL:
		snprintf(buf, size, "SIGUSR2%s", from);
		break;
	case SNAPSHOT_ORIGIN_CONTROL:
		snprintf(buf, size, "perfsnapctl%s", from);
		break;
	case SNAPSHOT_ORIGIN_TRIGGER:
		snprintf(buf, size, "trigger %s", o->trigger);
		break;
	case SNAPSHOT_ORIGIN_NONE:
	default:
		if (size)
			buf[0] = '\0';
		break;
	}
	return buf;
}
