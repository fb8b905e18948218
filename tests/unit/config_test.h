/* SPDX-License-Identifier: GPL-2.0-only */
/* config_test: helpers of test_config*.c (see config_test.c). */
#ifndef PERFSNAPD_CONFIG_TEST_H
#define PERFSNAPD_CONFIG_TEST_H

#include <glob.h>
#include <stdbool.h>
#include <stdint.h>

#include "config.h"

#define FORMAT(f) SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_##f)

#define CONFIG_DATA TEST_DATA_DIR "/config"

#define CONF_DIR TEST_DATA_DIR "/../../conf"

#define BASE_SAMPLE_TYPE                                                                \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
	 PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
/* A tracepoint in an overwrite ring without a callchain: see event_spec.c. */
#define COMPACT_SAMPLE_TYPE \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW)

#define expect_diag(d, file, line, ...) \
	expect_diag_(d, file, line, (const char *const[]){ __VA_ARGS__, NULL })

/* The scratch directory (made by config_test__setup) and the tracefs in use. */
extern char tmpdir[];
extern const char *tracing_dir;

const char *trace_clock_of(const struct perfsnapd_config *cfg);
char *read_all(const char *path);
char *write_conf(const char *name, const char *text, const char *from, const char *to);
char *copy_conf(const char *src, const char *from);
int load_file(const char *path, const struct perfsnapd_config **cfg, struct config_diags *d);
int load_data(const char *name, char **ret_path, const struct perfsnapd_config **cfg,
	      struct config_diags *d);
int load_text(const char *text, char **ret_path, const struct perfsnapd_config **cfg,
	      struct config_diags *d);
void dump_diags(const struct config_diags *d);
bool has_diag(const struct config_diags *d, const char *file, int line, const char *const *needles);
void expect_diag_(const struct config_diags *d, const char *file, int line,
		  const char *const *needles);
char *load_bad(const char *name, struct config_diags *d, size_t nr);
void load_good(const char *path, const struct perfsnapd_config **cfg);
uint64_t tracepoint_id(const char *sys, const char *event);
const struct event_spec *find_event(const struct perfsnapd_config *cfg, const char *name);
void check_common_attr(const struct event_spec *e);
void check_tracepoint(const struct event_spec *e, const char *sys, const char *event);
int line_of(const char *path, const char *prefix);
void check_new_defaults(const struct perfsnapd_config *cfg);
/* The keys' defaults that the shipped configuration keeps: all but the clock. */
void check_defaults_but_clock(const struct perfsnapd_config *cfg);
char *print_config(const struct perfsnapd_config *cfg);
void expect_bad_value(const char *section, const char *key, const char *value, const char *needle);
int group_setup(void **state);
int group_teardown(void **state);

#endif
