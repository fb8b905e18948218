// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_print: the effective configuration in config-file syntax, for
 * `perfsnapd --check-config`: every key, defaults spelled out, sizes and
 * durations in the largest exact unit. The output loads back into the same
 * configuration. Part of common/: writes only to the stream it is given.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "config-internal.h"
#include "config_value.h"
#include "event_spec.h"
#include "snapshot_name.h"

static uint64_t load_value(const struct perfsnapd_config *cfg, const struct key_desc *k)
{
	const char *field = (const char *)cfg + k->offset;

	if (k->type == VALUE_SIZE || k->type == VALUE_DURATION)
		return *(const uint64_t *)field;
	if (k->type == VALUE_BOOL)
		return *(const bool *)field;
	return *(const unsigned int *)field;
}

static void print_events(const struct perfsnapd_config *cfg, FILE *out)
{
	size_t i;

	fputs("events =", out);
	for (i = 0; i < cfg->nr_events; i++) {
		fputs(i ? "\n\t" : " ", out);
		event_spec__print(&cfg->events[i], out);
	}
	fputc('\n', out);
}

static void print_buffer_size(const struct perfsnapd_config *cfg, FILE *out)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	uint64_t rounded = cfg->buffer_pages * page;
	char size[CONFIG_VALUE_FORMAT_MAX];

	if (cfg->window_ms) {
		fputs("; buffer_size is not set: window and memory size the rings\n", out);
		return;
	}
	config_value__format_size(cfg->buffer_size, size, sizeof(size));
	fprintf(out, "buffer_size = %s", size);
	if (rounded != cfg->buffer_size) {
		config_value__format_size(rounded, size, sizeof(size));
		fprintf(out, "\t; rounded up to %s per CPU: %u pages of %llu bytes", size,
			cfg->buffer_pages, (unsigned long long)page);
	}
	fputc('\n', out);
}

static void print_cpus(const struct perfsnapd_config *cfg, FILE *out)
{
	fprintf(out, "cpus = %s\n", cfg->cpus ? cfg->cpus : "all");
}

static void print_formats(const struct perfsnapd_config *cfg, FILE *out)
{
	fputs("formats =", out);
	for (int f = 0; f < SNAPSHOT_NR_FILES; f++)
		if (snapshot_name__format(f) && (cfg->formats & SNAPSHOT_FILE_BIT(f)))
			fprintf(out, " %s", snapshot_name__format(f));
	fputc('\n', out);
}

static void print_copy_memory(const struct perfsnapd_config *cfg, FILE *out)
{
	char size[CONFIG_VALUE_FORMAT_MAX];

	if (!cfg->copy_memory) {
		fputs("copy_memory = auto	; the sum of the overwrite rings, at most 1G\n",
		      out);
		return;
	}
	config_value__format_size(cfg->copy_memory, size, sizeof(size));
	fprintf(out, "copy_memory = %s\n", size);
}

/* The keys with printers of their own. */
static void print_other(const struct perfsnapd_config *cfg, int key, FILE *out)
{
	switch (key) {
	case KEY_EVENTS:
		print_events(cfg, out);
		break;
	case KEY_BUFFER_SIZE:
		print_buffer_size(cfg, out);
		break;
	case KEY_CPUS:
		print_cpus(cfg, out);
		break;
	case KEY_FORMATS:
		print_formats(cfg, out);
		break;
	case KEY_COPY_MEMORY:
		print_copy_memory(cfg, out);
		break;
	default: /* printed by the table */
		break;
	}
}

/* Prints one key as "key = value", with what 0 means; an unset string as a comment. */
static void print_key(const struct perfsnapd_config *cfg, const struct key_desc *k, FILE *out)
{
	char text[CONFIG_VALUE_FORMAT_MAX];
	const char *s;
	uint64_t v;

	if (k->type == VALUE_OTHER) {
		print_other(cfg, k - config_keys, out);
		return;
	}
	if (k->type == VALUE_STRING) {
		s = *(char *const *)((const char *)cfg + k->offset);
		if (s)
			fprintf(out, "%s = %s\n", k->name, s);
		else
			fprintf(out, "; %s is %s\n", k->name, k->zero ? k->zero : "not set");
		return;
	}
	if (k == &config_keys[KEY_MAX_TOTAL_SIZE] && cfg->max_total_percent) {
		fprintf(out, "%s = %u%%\t; of the directory's file system\n", k->name,
			cfg->max_total_percent);
		return;
	}
	v = load_value(cfg, k);
	if (k->type == VALUE_SIZE)
		config_value__format_size(v, text, sizeof(text));
	else if (k->type == VALUE_DURATION)
		config_value__format_duration(v, text, sizeof(text));
	else if (k->type == VALUE_COUNT)
		snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	else
		snprintf(text, sizeof(text), "%s", k->names[v]);
	fprintf(out, "%s = %s", k->name, text);
	if (!v && k->zero)
		fprintf(out, "\t; %s", k->zero);
	fputc('\n', out);
}

/**
 * config__print - print the effective configuration
 * @cfg: loaded config
 * @out: stream to print to
 *
 * Prints every key in config-file syntax, for `perfsnapd --check-config`:
 * events after glob expansion, one per line, each with its terms; defaults
 * spelled out, sizes and durations with the largest exact unit; buffer_size
 * as requested, with a comment when pages rounding changed it; keys with no
 * value (post_command, group) as comments; [upload] without url as one
 * comment. Secrets from the credentials file are never printed. The output loads back into the
 * same configuration.
 */
void config__print(const struct perfsnapd_config *cfg, FILE *out)
{
	int k;

	fprintf(out, "; effective configuration from %s\n", cfg->path);
	for (k = 0; k < NR_KEYS; k++) {
		if (!k || strcmp(config_keys[k].section, config_keys[k - 1].section))
			fprintf(out, "%s[%s]\n", k ? "\n" : "", config_keys[k].section);
		/* Without url the other [upload] keys are refused: not printed. */
		if (!cfg->upload_url && k > KEY_UPLOAD_URL &&
		    !strcmp(config_keys[k].section, "upload"))
			continue;
		print_key(cfg, &config_keys[k], out);
	}
	for (size_t i = 0; i < cfg->nr_triggers; i++)
		config_trigger__print(&cfg->triggers[i], out);
}
