// SPDX-License-Identifier: GPL-2.0-only
/*
 * control_range: the dump window's syntaxes, for perfsnapctl and
 * perfsnapd alike. See control_range.h.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control_range.h"

#define NSEC 1000000000ll

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit duration_units[] = {
	{ "ns", 1 },
	{ "us", 1000 },
	{ "ms", 1000000 },
	{ "s", 1000000000ull },
	{ "m", 60000000000ull },
	{ "h", 3600000000000ull },
};

static const struct unit size_units[] = {
	{ "", 1 },	     { "K", 1ull << 10 }, { "M", 1ull << 20 },
	{ "G", 1ull << 30 }, { "T", 1ull << 40 },
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* Digits, then an optional fraction: the whole and the fraction in 1e-9. */
static const char *parse_decimal(const char *s, uint64_t *whole, uint64_t *frac_ns)
{
	uint64_t v = 0, f = 0, scale = 100000000;

	if (!isdigit((unsigned char)*s))
		return NULL;
	for (; isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return NULL;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return NULL;
		for (; isdigit((unsigned char)*s); s++, scale /= 10)
			f += (uint64_t)(*s - '0') * scale;
	}
	*whole = v;
	*frac_ns = f;
	return s;
}

/**
 * control_range__parse_duration - a duration such as "2s" or "1.5s"
 * @s: the text
 * @ret_ns: the duration, set on success
 * @err: the message on failure
 * @errlen: its size
 *
 * Returns 0 or -EINVAL.
 */
int control_range__parse_duration(const char *s, uint64_t *ret_ns, char *err, size_t errlen)
{
	uint64_t whole, frac, ns;
	const char *unit = parse_decimal(s, &whole, &frac);

	if (!unit)
		return fail(err, errlen, "bad duration '%s' (e.g. 2s, 1.5s, 500ms, 1m)", s);
	if (!whole && !frac)
		return fail(err, errlen, "duration '%s' is zero: give a length above 0", s);
	for (size_t i = 0; i < sizeof(duration_units) / sizeof(duration_units[0]); i++) {
		uint64_t m = duration_units[i].mult;

		if (strcmp(unit, duration_units[i].name))
			continue;
		if (whole > UINT64_MAX / m / 2)
			return fail(err, errlen, "duration '%s' is too long", s);
		ns = whole * m + (uint64_t)((__uint128_t)frac * m / 1000000000u);
		if (!ns)
			return fail(err, errlen, "duration '%s' is zero: give a length above 0", s);
		*ret_ns = ns;
		return 0;
	}
	return fail(err, errlen, "duration '%s' needs a unit: ns, us, ms, s, m or h (e.g. 2s)", s);
}

/* "Z", "+01:00", "+0100", "+01", "-05:30": seconds east of UTC. */
static int parse_zone(const char *s, long *ret)
{
	long sign = *s == '-' ? -1 : 1;
	int h, m = 0, n = 0;

	if (!strcmp(s, "Z") || !strcmp(s, "z")) {
		*ret = 0;
		return 0;
	}
	if ((*s != '+' && *s != '-') || !isdigit((unsigned char)s[1]) ||
	    !isdigit((unsigned char)s[2]))
		return -EINVAL;
	h = (s[1] - '0') * 10 + (s[2] - '0');
	s += 3;
	if (*s == ':')
		s++;
	if (*s && (!isdigit((unsigned char)s[0]) || sscanf(s, "%2d%n", &m, &n) != 1 || n != 2))
		return -EINVAL;
	if (s[n] || h > 23 || m > 59)
		return -EINVAL;
	*ret = sign * (h * 3600L + m * 60L);
	return 0;
}

static int parse_iso(const char *s, int64_t *ret_ns)
{
	struct tm tm = { 0 };
	uint64_t whole, frac = 0;
	const char *p;
	long zone = 0;
	bool local;
	time_t t;

	if (strlen(s) < 19 || (s[10] != 'T' && s[10] != 't' && s[10] != ' '))
		return -EINVAL;
	p = strptime(s, "%Y-%m-%d", &tm);
	if (p != s + 10)
		return -EINVAL;
	p = strptime(s + 11, "%H:%M:%S", &tm);
	if (!p || p != s + 19)
		return -EINVAL;
	if (*p == '.' || *p == ',') {
		char dot[32];
		size_t n = strspn(p + 1, "0123456789");

		if (!n || n > 9)
			return -EINVAL;
		snprintf(dot, sizeof(dot), "0.%.*s", (int)n, p + 1);
		if (!parse_decimal(dot, &whole, &frac))
			return -EINVAL;
		p += 1 + n;
	}
	local = !*p;
	if (!local && parse_zone(p, &zone) < 0)
		return -EINVAL;
	if (local) {
		tm.tm_isdst = -1;
		t = mktime(&tm);
	} else {
		t = timegm(&tm) - zone;
	}
	/* Nanoseconds in an int64_t end in 2262. */
	if (t == (time_t)-1 || t < 0 || t > INT64_MAX / NSEC - 1)
		return -EINVAL;
	*ret_ns = (int64_t)t * NSEC + (int64_t)frac;
	return 0;
}

/**
 * control_range__parse_time - a window's bound as the user writes it
 * @s: "-5s" (before now) or ISO 8601 wall clock
 * @ret: the bound, set on success
 * @err: the message on failure
 * @errlen: its size
 *
 * Returns 0 or -EINVAL.
 */
int control_range__parse_time(const char *s, struct control_time *ret, char *err, size_t errlen)
{
	uint64_t ns;
	int64_t abs;
	int r;

	if (*s == '-') {
		r = control_range__parse_duration(s + 1, &ns, err, errlen);
		if (r < 0)
			return r;
		if (ns > (uint64_t)INT64_MAX)
			return fail(err, errlen, "time '%s' is too far back", s);
		*ret = (struct control_time){ .set = true, .relative = true, .ns = -(int64_t)ns };
		return 0;
	}
	if (*s == '+')
		return fail(err, errlen,
			    "time '%s' is in the future: a dump takes what the rings hold, "
			    "give a time before now (e.g. -5s)",
			    s);
	if (parse_iso(s, &abs) < 0)
		return fail(err, errlen,
			    "bad time '%s' (a time before now such as -5s, or ISO 8601 such as "
			    "2026-12-05T21:40:00Z or 2026-12-05T21:40:00.5+01:00)",
			    s);
	*ret = (struct control_time){ .set = true, .ns = abs };
	return 0;
}

/**
 * control_range__parse_size - a size such as "50M"
 * @s: digits and an optional K, M, G or T
 * @ret: bytes, set on success
 * @err: the message on failure
 * @errlen: its size
 *
 * Returns 0 or -EINVAL.
 */
int control_range__parse_size(const char *s, uint64_t *ret, char *err, size_t errlen)
{
	uint64_t whole, frac;
	const char *unit = parse_decimal(s, &whole, &frac);

	if (!unit || frac)
		return fail(err, errlen, "bad size '%s' (e.g. 50M, 512K, 1G)", s);
	for (size_t i = 0; i < sizeof(size_units) / sizeof(size_units[0]); i++) {
		if (strcmp(unit, size_units[i].name))
			continue;
		if (whole > UINT64_MAX / size_units[i].mult)
			return fail(err, errlen, "size '%s' is too large", s);
		if (!whole)
			return fail(err, errlen, "size '%s' is zero: give a size above 0", s);
		*ret = whole * size_units[i].mult;
		return 0;
	}
	return fail(err, errlen, "bad size '%s': the unit is K, M, G or T (e.g. 50M)", s);
}

static int64_t resolve(const struct control_time *t, int64_t now_ns)
{
	return t->relative ? now_ns + t->ns : t->ns;
}

/**
 * control_range__check - whether a window can be taken
 * @w: the window
 * @now_ns: CLOCK_REALTIME ns, what relative bounds count from
 * @err: the message on failure
 * @errlen: its size
 *
 * Returns 0 or -EINVAL.
 */
int control_range__check(const struct control_range *w, int64_t now_ns, char *err, size_t errlen)
{
	int64_t since = w->since.set ? resolve(&w->since, now_ns) : INT64_MIN;
	int64_t until = w->until.set ? resolve(&w->until, now_ns) : now_ns;

	if ((w->since.set && w->since.relative && w->since.ns > 0) ||
	    (w->until.set && w->until.relative && w->until.ns > 0))
		return fail(err, errlen, "a relative time must be before now (e.g. -5s)");
	if (w->since.set && since >= now_ns)
		return fail(err, errlen,
			    "--since is not in the past: the rings hold only what happened "
			    "before the dump");
	if (w->since.set && since >= until)
		return fail(err, errlen,
			    "--since is not before --until: the window would be empty "
			    "(%.3f s long)",
			    (double)(until - since) / 1e9);
	return 0;
}

static size_t put_time(char *buf, size_t size, const char *name, const struct control_time *t)
{
	int n;

	if (!t->set)
		return 0;
	n = snprintf(buf, size, " --%s=%s%" PRId64, name, t->relative ? "" : "@", t->ns);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/**
 * control_range__format - a window as request options
 * @w: the window
 * @buf: out: options separated by blanks, "" for no window
 * @size: room, CONTROL_RANGE_WIRE_MAX is enough
 */
void control_range__format(const struct control_range *w, char *buf, size_t size)
{
	size_t n = 0;

	if (!size)
		return;
	buf[0] = '\0';
	n += put_time(buf + n, size - n, "since", &w->since);
	n += put_time(buf + n, size - n, "until", &w->until);
	if (w->max_size && n < size)
		snprintf(buf + n, size - n, " --max-size=%" PRIu64, w->max_size);
	if (buf[0] == ' ')
		memmove(buf, buf + 1, strlen(buf));
}

/* "@<ns>" (wall clock) or "<ns>" (relative, <= 0). */
static int read_wire_time(const char *v, size_t len, struct control_time *t)
{
	char num[32], *end;
	bool abs = len && *v == '@';
	long long x;

	if (abs) {
		v++;
		len--;
	}
	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, v, len);
	num[len] = '\0';
	errno = 0;
	x = strtoll(num, &end, 10);
	if (errno || *end || (abs && x < 0) || (!abs && x > 0))
		return -EINVAL;
	*t = (struct control_time){ .set = true, .relative = !abs, .ns = x };
	return 0;
}

/**
 * control_range__parse_options - read a window off a request line
 * @args: the request's arguments
 * @w: out: the window (zeroed first)
 * @ret_rest: out: what follows the options
 * @err: the message on failure
 * @errlen: its size
 *
 * Returns 0 or -EINVAL.
 */
int control_range__parse_options(const char *args, struct control_range *w, const char **ret_rest,
				 char *err, size_t errlen)
{
	const char *p = args;

	*w = (struct control_range){ 0 };
	for (;;) {
		size_t len, nlen;
		const char *v;
		int r = 0;

		p += strspn(p, " \t");
		if (strncmp(p, "--", 2))
			break;
		len = strcspn(p, " \t");
		if (len == 2) {
			p += 2;
			p += strspn(p, " \t");
			break;
		}
		v = memchr(p, '=', len);
		nlen = v ? (size_t)(v - p) : len;
		if (v)
			v++;
		if (v && nlen == 7 && !strncmp(p, "--since", 7))
			r = read_wire_time(v, len - 8, &w->since);
		else if (v && nlen == 7 && !strncmp(p, "--until", 7))
			r = read_wire_time(v, len - 8, &w->until);
		else if (v && nlen == 10 && !strncmp(p, "--max-size", 10)) {
			char num[32], *end;

			if (len - 11 == 0 || len - 11 >= sizeof(num))
				r = -EINVAL;
			else {
				memcpy(num, v, len - 11);
				num[len - 11] = '\0';
				errno = 0;
				w->max_size = strtoull(num, &end, 10);
				r = errno || *end || !w->max_size || num[0] == '-' ? -EINVAL : 0;
			}
		} else {
			return fail(err, errlen,
				    "unknown dump option '%.*s' (accepted: --since=, --until=, "
				    "--max-size=, --)",
				    (int)(len > 64 ? 64 : len), p);
		}
		if (r < 0)
			return fail(err, errlen, "bad dump option '%.*s'",
				    (int)(len > 64 ? 64 : len), p);
		p += len;
	}
	*ret_rest = p;
	return 0;
}
