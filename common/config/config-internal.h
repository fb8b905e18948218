/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * config internals shared by config.c (the key table, per-key handlers,
 * defaults), config_capture.c ([capture]), config_reader.c (the file, line
 * by line, through inih), config_print.c (--check-config output) and
 * config_diags.c. Not for other modules.
 */
#ifndef PERFSNAPD_CONFIG_INTERNAL_H
#define PERFSNAPD_CONFIG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

#define CONFIG_SECTIONS "[capture], [snapshot], [control], [upload], [trigger NAME]"

enum config_key {
	KEY_EVENTS,
	KEY_BUFFER_SIZE,
	KEY_CPUS,
	KEY_CLOCK,
	KEY_BACKEND,
	KEY_HISTORY_SIZE,
	KEY_SIDEBAND,
	KEY_MAX_TASKS,
	KEY_WINDOW,
	KEY_MEMORY,
	KEY_DIRECTORY,
	KEY_FORMATS,
	KEY_COMPRESSION,
	KEY_PERFETTO_SAMPLES,
	KEY_SYMBOLS,
	KEY_MAX_SNAPSHOTS,
	KEY_MAX_TOTAL_SIZE,
	KEY_MIN_INTERVAL,
	KEY_MAX_PER_HOUR,
	KEY_POST_COMMAND,
	KEY_POST_COMMAND_TIMEOUT,
	KEY_COPY_MEMORY,
	KEY_COPY_MEMORY_RESIDENT,
	KEY_SOCKET,
	KEY_GROUP,
	KEY_MEMBER_MAX_PER_HOUR,
	KEY_UPLOAD_URL,
	KEY_UPLOAD_ENDPOINT,
	KEY_UPLOAD_REGION,
	KEY_UPLOAD_PATH_STYLE,
	KEY_UPLOAD_CREDENTIALS,
	KEY_UPLOAD_KEEP_LOCAL,
	KEY_UPLOAD_RETRY_MIN,
	KEY_UPLOAD_RETRY_MAX,
	NR_KEYS
};

/* Keys of a [trigger NAME] section. */
enum trigger_key {
	TKEY_EVENT,
	TKEY_FILTER,
	TKEY_AFTER,
	TKEY_COUNT,
	TKEY_WINDOW,
	TKEY_MAX_PER_HOUR,
	TKEY_MIN_INTERVAL,
	TKEY_PSI,
	TKEY_PSI_FILE,
	TKEY_BEFORE,
	TKEY_START, /* paired triggers: config_trigger_paired.c */
	TKEY_END,
	TKEY_KEY,
	TKEY_START_KEY,
	TKEY_END_KEY,
	TKEY_START_FILTER,
	TKEY_END_FILTER,
	TKEY_THRESHOLD,
	NR_TRIGGER_KEYS
};

/*
 * How a key's value is read, stored and printed. VALUE_OTHER keys have a
 * handler and a printer of their own; VALUE_STRING keys a handler that
 * checks and stores a char *. The rest are generic: the field is a
 * uint64_t for sizes (bytes) and durations (ms), an unsigned int for counts
 * and names (enums), a bool for yes/no.
 */
enum value_type {
	VALUE_OTHER,
	VALUE_STRING,
	VALUE_SIZE,
	VALUE_DURATION,
	VALUE_COUNT,
	VALUE_BOOL,
	VALUE_NAME,
};

struct config_reader;

struct key_desc {
	const char *section;
	const char *name;
	enum value_type type;
	bool multiline; /* indented continuation lines add to the value */
	void (*parse)(struct config_reader *p, char *value); /* OTHER, STRING */
	size_t offset;		  /* of the field in perfsnapd_config, unless OTHER */
	uint64_t min, max, def;	  /* numbers: bounds and default */
	const char *const *names; /* NAME and BOOL: the values, index = field value */
	const char *accepted;	  /* numbers: what the diagnostic offers */
	const char *zero;	  /* what 0, or an unset string, means */
};

/* One config__load(): the file being read and what is known so far. */
struct config_reader {
	struct perfsnapd_config *cfg;
	struct config_diags *diags;
	const char *tracing_dir;
	FILE *file;
	char *buf; /* getline() buffer: the current line */
	size_t buf_size;
	const char *text; /* the current line, stripped */
	int line;
	bool needs_handler;	  /* not blank, comment, section or reported */
	bool handled;		  /* the handler ran for the current line */
	bool continuation;	  /* the current line continues the last key */
	bool have_key;		  /* inih's prev_name is set */
	int key;		  /* key being continued, -1 if rejected */
	int key_line[NR_KEYS];	  /* where each key was set, 0 if not */
	bool key_failed[NR_KEYS]; /* a value of the key was reported bad */
	size_t bytes;		  /* read so far, at most CONFIG_FILE_MAX */
	int err;		  /* sticky -ENOMEM, -EIO or -EFBIG */
	int trigger;		  /* cfg->triggers[] of the current section, -1 if none */
	int (*trigger_key_line)[NR_TRIGGER_KEYS]; /* per trigger, as key_line */
};

extern const struct key_desc config_keys[NR_KEYS];

/* config.c */
void config__set_key(struct config_reader *p, int key, char *value);

/* config_capture.c: the [capture] handlers, and the checks that need the whole file */
void config_capture__parse_events(struct config_reader *p, char *value);
void config_capture__parse_buffer_size(struct config_reader *p, char *value);
void config_capture__parse_cpus(struct config_reader *p, char *value);
void config_capture__finish(struct config_reader *p);
void config_capture__finish_clock(struct config_reader *p);

/* config_upload.c: the [upload] handlers, and the checks that need the whole file */
void config_upload__parse_url(struct config_reader *p, char *value);
void config_upload__parse_endpoint(struct config_reader *p, char *value);
void config_upload__parse_region(struct config_reader *p, char *value);
void config_upload__parse_credentials(struct config_reader *p, char *value);
void config_upload__finish(struct config_reader *p);
void config_upload__free(struct perfsnapd_config *cfg);

/* config_reader.c */
int config_reader__read(struct config_reader *p, size_t first_diag);
void config_reader__diag(struct config_reader *p, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* config_trigger.c */
bool config_trigger__is_section(const char *section);
void config_trigger__begin(struct config_reader *p, const char *section);
void config_trigger__set_key(struct config_reader *p, const char *name, char *value);
void config_trigger__finish(struct config_reader *p);
void config_trigger__fini(struct trigger_spec *t);
void config_trigger__print(const struct trigger_spec *t, FILE *out);

/* config_trigger_paired.c: the start/end keys of a paired trigger */
void config_trigger_paired__set_key(struct config_reader *p, struct trigger_spec *t, int key,
				    const char *value);
void config_trigger_paired__finish(struct config_reader *p, struct trigger_spec *t);
void config_trigger_paired__fini(struct trigger_spec *t);
void config_trigger_paired__print(const struct trigger_spec *t, FILE *out);

/* config_diags.c */
int config_diags__addv(struct config_diags *diags, const char *file, int line, const char *fmt,
		       va_list ap) __attribute__((format(printf, 4, 0)));
void config_diags__sort(struct config_diags *diags, size_t from);
bool config_diags__has_line(const struct config_diags *diags, size_t from, int line);

#endif
