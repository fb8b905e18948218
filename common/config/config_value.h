/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config_value: the value syntaxes of perfsnapd.conf (sizes, durations,
 * counts, yes/no, names from a list, CPU lists) as pure functions that
 * parse one value and return 0, -EINVAL (bad syntax) or -ERANGE (out of
 * bounds). They know nothing of keys or files: config turns the result into
 * a diagnostic. Also the matching formatters for --check-config.
 */
#ifndef PERFSNAPD_CONFIG_VALUES_H
#define PERFSNAPD_CONFIG_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest CPU number config_value__parse_cpu_list() accepts, plus one. */
#define CONFIG_VALUE_MAX_CPUS (1u << 20)

/* Room for any formatted size or duration, with its NUL. */
#define CONFIG_VALUE_FORMAT_MAX 32

int config_value__parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
int config_value__parse_duration(const char *s, uint64_t min_ms, uint64_t max_ms, uint64_t *ret_ms);
int config_value__parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *ret);
int config_value__parse_bool(const char *s, bool *ret);
int config_value__parse_name(const char *s, const char *const *names, unsigned int *ret);

int config_value__check_cpu_list(const char *s);
int config_value__parse_cpu_list(const char *s, bool **ret_map, unsigned int *ret_nr);
int config_value__normalize_cpus(const char *s, const bool *possible, unsigned int nr_possible,
				 char **ret, unsigned int *bad_cpu);

void config_value__format_size(uint64_t size, char *buf, size_t len);
void config_value__format_duration(uint64_t ms, char *buf, size_t len);
void config_value__join_names(const char *const *names, char *buf, size_t len);

#endif
