/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * control_range: the window a dump takes (perfsnapctl dump --last,
 * --since, --until, --max-size) as the user writes it, as perfsnapctl
 * sends it on the request line, and as perfsnapd reads it back. A bound
 * is a wall-clock time (CLOCK_REALTIME ns) or an offset from the dump's
 * instant (ns, never positive): only perfsnapd knows that instant (when
 * it pauses the rings), so a relative bound stays relative on the wire. Pure
 * functions: no I/O; errors are returned as -errno with a message.
 */
#ifndef PERFSNAPD_CONTROL_RANGE_H
#define PERFSNAPD_CONTROL_RANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One end of a window. */
struct control_time {
	bool set;
	bool relative; /* @ns is an offset from now (<= 0), else CLOCK_REALTIME ns */
	int64_t ns;
};

struct control_range {
	struct control_time since, until;
	uint64_t max_size; /* bytes of each data file; 0: no limit */
};

/* Room for a window's text on the request line, with its NUL. */
#define CONTROL_RANGE_WIRE_MAX 96

/* Room for an error message of these functions, with its NUL. */
#define CONTROL_RANGE_ERROR_MAX 192

/* True when @w asks for less than everything the rings hold. */
static inline bool control_range__is_set(const struct control_range *w)
{
	return w->since.set || w->until.set || w->max_size;
}

/*
 * A duration as the user writes it: digits, an optional fraction, a unit
 * (ns, us, ms, s, m, h): "2s", "1.5s", "250ms". Above zero.
 * Returns 0 or -EINVAL (@err says why).
 */
int control_range__parse_duration(const char *s, uint64_t *ret_ns, char *err, size_t errlen);
/*
 * A time: relative, a minus and a duration ("-5s"), or ISO 8601 wall
 * clock ("2026-12-05T21:40:00Z", "2026-12-05T21:40:00.250+01:00",
 * "2026-12-05 21:40:00" in local time). Returns 0 or -EINVAL.
 */
int control_range__parse_time(const char *s, struct control_time *ret, char *err, size_t errlen);
/* A size: digits and an optional K, M, G or T (binary). Above zero. Returns 0 or -EINVAL. */
int control_range__parse_size(const char *s, uint64_t *ret, char *err, size_t errlen);

/*
 * Whether @w is a window at all, with @now_ns the CLOCK_REALTIME ns that
 * relative bounds count from: no bound in the future, the start before
 * the end. Returns 0 or -EINVAL.
 */
int control_range__check(const struct control_range *w, int64_t now_ns, char *err, size_t errlen);

/* @w as request options ("--since=-2000000000 --max-size=1048576"); "" when unset. */
void control_range__format(const struct control_range *w, char *buf, size_t size);
/*
 * Reads the options control_range__format() writes at the start of
 * @args, and an optional "--" after them; *@ret_rest is what follows (the
 * reason). Returns 0 or -EINVAL (an unknown option or a bad value).
 */
int control_range__parse_options(const char *args, struct control_range *w, const char **ret_rest,
				 char *err, size_t errlen);

#endif
