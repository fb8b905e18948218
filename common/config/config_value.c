// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_value: parsers and formatters for the value syntaxes of
 * perfsnapd.conf. Each parser takes the whole value (already stripped of
 * blanks and comments) and returns 0, -EINVAL for bad syntax or -ERANGE
 * for a well-formed value outside its bounds, setting its result only on
 * success. Pure functions of common/: no I/O, no diagnostics.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_value.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct unit {
	const char *name;
	uint64_t mult;
};

/* Largest first, for formatting. */
static const struct unit size_units[] = {
	{ "T", 1ull << 40 },
	{ "G", 1ull << 30 },
	{ "M", 1ull << 20 },
	{ "K", 1ull << 10 },
};

static const struct unit duration_units[] = {
	{ "h", 3600000 },
	{ "m", 60000 },
	{ "s", 1000 },
	{ "ms", 1 },
};

/*
 * Splits "12M" into 12 and "M". Only digits may start a number, so signs,
 * blanks and "0x" are syntax errors. Returns 0, -EINVAL, or -ERANGE when
 * the number does not fit 64 bits (*@ret_suffix is still set then).
 */
static int parse_number(const char *s, uint64_t *ret, const char **ret_suffix)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	*ret_suffix = end;
	if (errno)
		return -ERANGE;
	*ret = v;
	return 0;
}

/* v * mult within [min, max]. Returns 0 or -ERANGE. */
static int scale(uint64_t v, uint64_t mult, uint64_t min, uint64_t max, uint64_t *ret)
{
	if (v > max / mult || v * mult < min)
		return -ERANGE;
	*ret = v * mult;
	return 0;
}

/**
 * config_value__parse_size - parse a byte count such as "4M"
 * @s: digits with an optional K, M, G or T suffix (either case, powers of
 *	1024); nothing else, not even blanks
 * @min: smallest accepted size in bytes
 * @max: largest accepted size in bytes
 * @ret: the size in bytes, set on success
 *
 * Returns 0, -EINVAL for bad syntax, or -ERANGE outside [@min, @max].
 */
int config_value__parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *suffix;
	uint64_t mult = 1;
	uint64_t v = 0;
	size_t i;
	int r;

	r = parse_number(s, &v, &suffix);
	if (r == -EINVAL)
		return r;
	if (*suffix) {
		for (i = 0; i < ARRAY_SIZE(size_units); i++) {
			if (toupper((unsigned char)*suffix) == size_units[i].name[0])
				mult = size_units[i].mult;
		}
		if (mult == 1 || suffix[1])
			return -EINVAL;
	}
	if (r < 0)
		return r;
	return scale(v, mult, min, max, ret);
}

/**
 * config_value__parse_duration - parse a duration such as "500ms" or "2m"
 * @s: digits followed by a unit: ms, s, m (minutes) or h; "0" needs none.
 *	Lower case only, so that "m" can never be mistaken for months or mega.
 * @min_ms: shortest accepted duration in milliseconds
 * @max_ms: longest accepted duration in milliseconds
 * @ret_ms: the duration in milliseconds, set on success
 *
 * Returns 0, -EINVAL for bad syntax (including a number other than 0
 * without a unit), or -ERANGE outside [@min_ms, @max_ms].
 */
int config_value__parse_duration(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *ret_ms)
{
	const char *suffix;
	uint64_t mult = 0;
	uint64_t v = 0;
	size_t i;
	int r;

	r = parse_number(s, &v, &suffix);
	if (r == -EINVAL)
		return r;
	for (i = 0; i < ARRAY_SIZE(duration_units); i++) {
		if (!strcmp(suffix, duration_units[i].name))
			mult = duration_units[i].mult;
	}
	if (!*suffix && r == 0 && v == 0)
		mult = 1;
	if (!mult)
		return -EINVAL;
	if (r < 0)
		return r;
	return scale(v, mult, min_ms, max_ms, ret_ms);
}

/**
 * config_value__parse_count - parse a plain decimal number
 * @s: digits only
 * @min: smallest accepted value
 * @max: largest accepted value
 * @ret: the number, set on success
 *
 * Returns 0, -EINVAL for bad syntax, or -ERANGE outside [@min, @max].
 */
int config_value__parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	const char *suffix;
	uint64_t v = 0;
	int r;

	r = parse_number(s, &v, &suffix);
	if (r == -EINVAL || (r == 0 && *suffix))
		return -EINVAL;
	if (r < 0)
		return r;
	return scale(v, 1, min, max, ret);
}

/**
 * config_value__parse_bool - parse "yes" or "no"
 * @s: the value, exactly "yes" or "no"
 * @ret: true for yes, set on success
 *
 * Returns 0 or -EINVAL.
 */
int config_value__parse_bool(const char *s, bool *ret)
{
	static const char *const names[] = { "no", "yes", NULL };
	unsigned int i;
	int r;

	r = config_value__parse_name(s, names, &i);
	if (r == 0)
		*ret = i == 1;
	return r;
}

/**
 * config_value__parse_name - find a value in a fixed list of names
 * @s: the value, compared exactly (case matters)
 * @names: accepted names, ending with NULL
 * @ret: index of @s in @names, set on success
 *
 * Returns 0 or -EINVAL.
 */
int config_value__parse_name(const char *s, const char *const *names, unsigned int *ret)
{
	unsigned int i;

	for (i = 0; names[i]; i++) {
		if (!strcmp(s, names[i])) {
			*ret = i;
			return 0;
		}
	}
	return -EINVAL;
}

static int parse_cpu_number(const char **s, unsigned int *ret)
{
	const char *p = *s + strspn(*s, " \t");
	unsigned long v;
	char *end;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || v > INT_MAX)
		return -EINVAL;
	*s = end + strspn(end, " \t");
	*ret = v;
	return 0;
}

/*
 * Takes the next "N" or "N-M" off a CPU list, with its comma. Returns 0 with
 * the range, 1 at the end of the list, -EINVAL on a syntax error.
 */
static int next_cpu_range(const char **s, unsigned int *first, unsigned int *last)
{
	if (!**s)
		return 1;
	if (parse_cpu_number(s, first))
		return -EINVAL;
	*last = *first;
	if (**s == '-') {
		(*s)++;
		if (parse_cpu_number(s, last) || *last < *first)
			return -EINVAL;
	}
	if (**s == ',') {
		(*s)++;
		if (!(*s)[strspn(*s, " \t")])
			return -EINVAL;
	} else if (**s) {
		return -EINVAL;
	}
	return 0;
}

/**
 * config_value__check_cpu_list - check the syntax of a CPU list
 * @s: "N" and "N-M" items separated by commas, blanks allowed around them,
 *	such as "0-3, 8"; not empty
 *
 * Returns 0 or -EINVAL.
 */
int config_value__check_cpu_list(const char *s)
{
	unsigned int first, last;
	const char *p = s;
	int r;

	while ((r = next_cpu_range(&p, &first, &last)) == 0)
		;
	return r < 0 || p == s ? -EINVAL : 0;
}

/**
 * config_value__parse_cpu_list - turn a CPU list into a map
 * @s: a CPU list as for config_value__check_cpu_list(), such as the
 *	contents of /sys/devices/system/cpu/possible without the newline
 * @ret_map: set to a malloc'ed array of *@ret_nr flags, true for each CPU
 *	in the list
 * @ret_nr: set to the highest CPU listed plus one
 *
 * Returns 0, -EINVAL for bad syntax, -ERANGE for a CPU number of
 * CONFIG_VALUE_MAX_CPUS or more, or -ENOMEM.
 */
int config_value__parse_cpu_list(const char *s, bool **ret_map, unsigned int *ret_nr)
{
	unsigned int first, last, max = 0;
	const char *p;
	bool *map;

	if (config_value__check_cpu_list(s))
		return -EINVAL;
	for (p = s; next_cpu_range(&p, &first, &last) == 0;)
		max = last > max ? last : max;
	if (max >= CONFIG_VALUE_MAX_CPUS)
		return -ERANGE;
	map = calloc(max + 1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (p = s; next_cpu_range(&p, &first, &last) == 0;)
		while (first <= last)
			map[first++] = true;
	*ret_map = map;
	*ret_nr = max + 1;
	return 0;
}

/* Writes @map as "0-3,8". Returns a malloc'ed string or NULL. */
static char *format_cpus(const bool *map, unsigned int nr)
{
	char *buf = NULL;
	size_t size = 0;
	unsigned int i, j;
	FILE *f;

	f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	for (i = 0; i < nr; i = j) {
		if (!map[i]) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < nr && map[j]; j++)
			;
		fprintf(f, "%s%u", ftell(f) ? "," : "", i);
		if (j - 1 > i)
			fprintf(f, "-%u", j - 1);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/**
 * config_value__normalize_cpus - check a CPU list against the CPUs there are
 * @s: a CPU list as for config_value__check_cpu_list()
 * @possible: map of the CPUs that exist, from config_value__parse_cpu_list()
 * @nr_possible: number of entries in @possible
 * @ret: set to a malloc'ed canonical list: sorted, merged, without blanks
 *	or repeats ("3,0-2, 1" gives "0-3")
 * @bad_cpu: set to the first CPU of @s not in @possible, on -ERANGE
 *
 * Returns 0, -EINVAL for bad syntax, -ERANGE for a CPU that does not exist,
 * or -ENOMEM.
 */
int config_value__normalize_cpus(const char *s, const bool *possible, unsigned int nr_possible,
				 char **ret, unsigned int *bad_cpu)
{
	unsigned int first, last;
	const char *p;
	char *text;
	bool *map;

	if (config_value__check_cpu_list(s))
		return -EINVAL;
	map = calloc(nr_possible ? nr_possible : 1, sizeof(*map));
	if (!map)
		return -ENOMEM;
	for (p = s; next_cpu_range(&p, &first, &last) == 0;) {
		for (; first <= last; first++) {
			if (first >= nr_possible || !possible[first]) {
				*bad_cpu = first;
				free(map);
				return -ERANGE;
			}
			map[first] = true;
		}
	}
	text = format_cpus(map, nr_possible);
	free(map);
	if (!text)
		return -ENOMEM;
	*ret = text;
	return 0;
}

/* Formats @v in the largest of @units (largest first) that divides it; 0 bare. */
static void format_units(uint64_t v, const struct unit *units, size_t nr, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < nr && v; i++) {
		if (!(v % units[i].mult)) {
			snprintf(buf, len, "%llu%s", (unsigned long long)(v / units[i].mult),
				 units[i].name);
			return;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
}

/**
 * config_value__format_size - format a size as config_value__parse_size() reads it
 * @size: bytes
 * @buf: output, at least CONFIG_VALUE_FORMAT_MAX bytes for any size
 * @len: size of @buf
 *
 * Uses the largest suffix that is exact: "4M", "1T", "5000", "0".
 */
void config_value__format_size(uint64_t size, char *buf, size_t len)
{
	format_units(size, size_units, ARRAY_SIZE(size_units), buf, len);
}

/**
 * config_value__format_duration - format a duration as config_value__parse_duration() reads it
 * @ms: milliseconds
 * @buf: output, at least CONFIG_VALUE_FORMAT_MAX bytes for any duration
 * @len: size of @buf
 *
 * Uses the largest unit that is exact: "2m", "90s", "1500ms", "0".
 */
void config_value__format_duration(uint64_t ms, char *buf, size_t len)
{
	format_units(ms, duration_units, ARRAY_SIZE(duration_units), buf, len);
}

/**
 * config_value__join_names - list names for an "accepted:" message
 * @names: names ending with NULL
 * @buf: output: "a, b, c", cut short (still terminated) if it does not fit
 * @len: size of @buf, at least 1
 */
void config_value__join_names(const char *const *names, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; names[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
}
