// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_name: the formats table, and making and reading snapshot file
 * names. See snapshot_name.h. No I/O, no logging.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "snapshot_name.h"

#define STAMP_LEN      19 /* "YYYYmmdd-HHMMSS.mmm" */
#define MAX_SEQ_DIGITS 20 /* UINT64_MAX */

static const struct {
	const char *format; /* in [snapshot] formats; NULL: not a data format */
	const char *suffix;
} files[SNAPSHOT_NR_FILES] = {
	[SNAPSHOT_FILE_PERFDATA] = { "perf.data", ".perf.data" },
	[SNAPSHOT_FILE_TRACEDAT] = { "trace.dat", ".trace.dat" },
	[SNAPSHOT_FILE_PERFETTO] = { "perfetto", ".pftrace" },
	[SNAPSHOT_FILE_PPROF] = { "pprof", ".pb.gz" },
	[SNAPSHOT_FILE_SYMBOLS] = { NULL, ".symbols.tar" },
	[SNAPSHOT_FILE_JSON] = { NULL, ".json" },
};

_Static_assert(SNAPSHOT_FILE_JSON == SNAPSHOT_NR_FILES - 1, "the sidecar is written last");

const char *snapshot_name__suffix(enum snapshot_file f)
{
	return (unsigned int)f < SNAPSHOT_NR_FILES ? files[f].suffix : NULL;
}

const char *snapshot_name__format(enum snapshot_file f)
{
	return (unsigned int)f < SNAPSHOT_NR_FILES ? files[f].format : NULL;
}

/**
 * snapshot_name__format_of - the file a [snapshot] formats name stands for
 * @format: e.g. "trace.dat"
 *
 * Returns the enum snapshot_file, or -EINVAL for an unknown name.
 */
int snapshot_name__format_of(const char *format)
{
	for (int i = 0; i < SNAPSHOT_NR_FILES; i++)
		if (files[i].format && !strcmp(files[i].format, format))
			return i;
	return -EINVAL;
}

static size_t longest_suffix(void)
{
	size_t max = 0;

	for (int i = 0; i < SNAPSHOT_NR_FILES; i++)
		if (strlen(files[i].suffix) > max)
			max = strlen(files[i].suffix);
	return max;
}

static bool valid_host(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || s[i] == '/')
			return false;
	return s[0] != '.';
}

/**
 * snapshot_name__make_stem - the stem of a new snapshot
 * @buf: where it goes
 * @size: the size of @buf
 * @host: this machine's name
 * @when: the trigger's wall-clock time (shown in local time, to the ms)
 * @seq: the daemon's count of dumps, so stems of one millisecond differ
 *
 * Returns 0, -EINVAL for an empty host name or one with a space, control
 * character or '/', or a leading dot, or -ENAMETOOLONG.
 */
int snapshot_name__make_stem(char *buf, size_t size, const char *host, const struct timespec *when,
			     uint64_t seq)
{
	char stamp[32];
	struct tm tm;
	int n;

	if (!valid_host(host, strlen(host)))
		return -EINVAL;
	if (!localtime_r(&when->tv_sec, &tm) ||
	    strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm) != 15)
		return -EINVAL;
	n = snprintf(buf, size, "%s-%s.%03ld-%llu", host, stamp, when->tv_nsec / 1000000,
		     (unsigned long long)seq);
	/* Every file of it, also as a hidden ".<name>.tmp", must be a valid name. */
	return n >= 0 && (size_t)n < size && (size_t)n + longest_suffix() + 5 <= NAME_MAX ?
		       0 :
		       -ENAMETOOLONG;
}

int snapshot_name__file(char *buf, size_t size, const char *stem, enum snapshot_file f)
{
	const char *suffix = snapshot_name__suffix(f);
	int n;

	if (!suffix)
		return -EINVAL;
	n = snprintf(buf, size, "%s%s", stem, suffix);
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

/**
 * snapshot_name__path - where one file of a snapshot goes
 * @buf: where the path goes
 * @size: the size of @buf
 * @dir: the snapshot directory
 * @stem: the snapshot's stem
 * @f: which file
 *
 * Returns 0, -EINVAL for an unknown @f, or -ENAMETOOLONG.
 */
int snapshot_name__path(char *buf, size_t size, const char *dir, const char *stem,
			enum snapshot_file f)
{
	const char *suffix = snapshot_name__suffix(f);
	int n;

	if (!suffix)
		return -EINVAL;
	n = snprintf(buf, size, "%s/%s%s", dir, stem, suffix);
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int snapshot_name__temp_path(char *buf, size_t size, const char *dir, const char *stem,
			     enum snapshot_file f)
{
	const char *suffix = snapshot_name__suffix(f);
	int n;

	if (!suffix)
		return -EINVAL;
	n = snprintf(buf, size, "%s/.%s%s.tmp", dir, stem, suffix);
	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

static bool is_spill(const char *name)
{
	size_t prefix = strlen(SNAPSHOT_NAME_SPILL_TEMPLATE) - 6;

	if (strncmp(name, SNAPSHOT_NAME_SPILL_TEMPLATE, prefix) || strlen(name + prefix) != 6)
		return false;
	for (name += prefix; *name; name++)
		if (!((*name >= '0' && *name <= '9') || (*name >= 'a' && *name <= 'z') ||
		      (*name >= 'A' && *name <= 'Z')))
			return false;
	return true;
}

/**
 * snapshot_name__is_temporary - recognise a temporary perfsnapd makes
 * @name: a file name (no directory)
 *
 * Returns true for ".<snapshot file name>.tmp", ".<stem>.upload.tmp" (an
 * upload state being rewritten) and a spill file's ".perfsnapd-spill.XXXXXX",
 * the only names a crash can leave behind.
 */
bool snapshot_name__is_temporary(const char *name)
{
	char inner[NAME_MAX + 1];
	size_t len = strnlen(name, NAME_MAX + 1);
	struct snapshot_name n;

	if (is_spill(name))
		return true;
	if (name[0] != '.' || len < 6 || len > NAME_MAX || strcmp(name + len - 4, ".tmp"))
		return false;
	memcpy(inner, name + 1, len - 5);
	inner[len - 5] = '\0';
	if (snapshot_name__parse(inner, &n) == 0)
		return true;
	len -= 5;
	return len > 7 && !strcmp(inner + len - 7, ".upload") &&
	       snapshot_name__parse_stem(inner, len - 7, &n) == 0;
}

static bool digits(const char *s, size_t n, unsigned int max)
{
	unsigned int v = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned int)(s[i] - '0');
	}
	return v <= max;
}

/* "YYYYmmdd-HHMMSS.mmm", as make_stem writes it (60: a leap second). */
static bool valid_stamp(const char *s)
{
	return digits(s, 4, 9999) && digits(s + 4, 2, 12) && digits(s + 6, 2, 31) && s[8] == '-' &&
	       digits(s + 9, 2, 23) && digits(s + 11, 2, 59) && digits(s + 13, 2, 60) &&
	       s[15] == '.' && digits(s + 16, 3, 999);
}

/**
 * snapshot_name__parse_stem - read a stem back
 * @stem: its text (need not be NUL-terminated)
 * @len: its length
 * @ret: host length and sequence number, on success
 *
 * Returns 0, or -EINVAL if make_stem could not have made it.
 */
int snapshot_name__parse_stem(const char *stem, size_t len, struct snapshot_name *ret)
{
	uint64_t seq = 0;
	size_t q;

	/* From the right: "-<seq>", then "-YYYYmmdd-HHMMSS.mmm", then a host. */
	for (q = len; q > 0 && stem[q - 1] >= '0' && stem[q - 1] <= '9'; q--)
		;
	if (q == len || len - q > MAX_SEQ_DIGITS || q < STAMP_LEN + 3 || stem[q - 1] != '-')
		return -EINVAL;
	for (size_t i = q; i < len; i++) {
		unsigned int d = (unsigned int)(stem[i] - '0');

		if (seq > (UINT64_MAX - d) / 10)
			return -EINVAL;
		seq = seq * 10 + d;
	}
	q -= 1 + STAMP_LEN;
	if (!valid_stamp(stem + q) || stem[q - 1] != '-' || !valid_host(stem, q - 1))
		return -EINVAL;
	*ret = (struct snapshot_name){
		.file = SNAPSHOT_NR_FILES, .stem_len = len, .host_len = q - 1, .seq = seq
	};
	return 0;
}

/**
 * snapshot_name__parse - recognise a snapshot file name
 * @name: a file name (no directory)
 * @ret: its file, stem length, host length and sequence number, on success
 *
 * Returns 0, or -EINVAL if perfsnapd did not name it so (every dotfile,
 * and so every temporary, included).
 */
int snapshot_name__parse(const char *name, struct snapshot_name *ret)
{
	size_t len = strnlen(name, NAME_MAX + 1);

	if (len > NAME_MAX)
		return -EINVAL;
	for (int i = 0; i < SNAPSHOT_NR_FILES; i++) {
		size_t sl = strlen(files[i].suffix);

		if (len <= sl || strcmp(name + len - sl, files[i].suffix))
			continue;
		if (snapshot_name__parse_stem(name, len - sl, ret) < 0)
			return -EINVAL;
		ret->file = (enum snapshot_file)i;
		return 0;
	}
	return -EINVAL;
}
