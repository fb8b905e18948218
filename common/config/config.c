// SPDX-License-Identifier: GPL-2.0-only
/*
 * config: what perfsnapd.conf may say. The key table, the handlers of the
 * [snapshot] and [control] keys that check their value (against the system
 * too: directories, programs, groups), the defaults, and config__load(),
 * which runs the file through config_reader and collects every problem as
 * a file:line diagnostic instead of stopping at the first. [capture] is in
 * config_capture, value syntaxes in config_values, --check-config output in
 * config_print. Part of common/: never logs.
 */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <tracefs.h>

#include "config-internal.h"
#include "config_value.h"
#include "event_spec.h"
#include "snapshot_name.h"

#define DEFAULT_DIRECTORY "/var/lib/perfsnapd"
#define DEFAULT_SOCKET	  "/run/perfsnapd/control.sock"
#define SPACES		  " \t\r\n\v\f"
#define MS_PER_DAY	  (24ull * 60 * 60 * 1000)
#define SOCKET_PATH_MAX	  (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)
#define GROUP_BUF_MAX	  (1u << 20)

#define DIR_ACCEPTED \
	"an absolute path to an existing directory perfsnapd can write and other users cannot"
#define DIR_FIX "create it or change [snapshot] directory"
#define EXEC_ACCEPTED \
	"an absolute path to an executable file (no arguments), e.g. /usr/local/sbin/upload-snapshot"
#define SOCKET_ACCEPTED "an absolute path of at most %zu bytes, e.g. " DEFAULT_SOCKET
#define GROUP_ACCEPTED \
	"an existing group (see `getent group`), or no group key so that only root may connect"
#define DAYS_ACCEPTED "with unit ms, s, m or h, at most 24h"

/*
 * A loaded config and its count of references. The count is kept beside
 * the config rather than in it, so that holders, who only ever see a
 * const struct perfsnapd_config *, have no count to touch and no field
 * to write: a config is immutable from config__load() on.
 */
struct config_ref {
	int refs;
	struct perfsnapd_config cfg;
};

/* Names and counts are stored through unsigned int. */
_Static_assert(sizeof(enum config_clock) == sizeof(unsigned int), "enum size");
_Static_assert(sizeof(enum config_backend) == sizeof(unsigned int), "enum size");
_Static_assert(sizeof(enum config_compression) == sizeof(unsigned int), "enum size");
_Static_assert(sizeof(enum config_perfetto_samples) == sizeof(unsigned int), "enum size");
_Static_assert(sizeof(enum config_symbols) == sizeof(unsigned int), "enum size");

static void parse_directory(struct config_reader *p, char *value);
static void parse_formats(struct config_reader *p, char *value);
static void parse_post_command(struct config_reader *p, char *value);
static void parse_socket(struct config_reader *p, char *value);
static void parse_group(struct config_reader *p, char *value);
static void parse_copy_memory(struct config_reader *p, char *value);
static void parse_max_total_size(struct config_reader *p, char *value);

static const char *const clock_names[] = { "perf", "monotonic", "boottime", "realtime", NULL };
static const char *const backend_names[] = { "auto", "perf", "tracefs", NULL };
static const char *const compression_names[] = { "none", "zstd", "auto", NULL };
static const char *const perfetto_samples_names[] = { "auto", "perf_sample", "stack_sample", NULL };
static const char *const symbols_names[] = { "none", "build-ids", "pack", NULL };
static const char *const bool_names[] = { "no", "yes", NULL };

#define KEY(s, n, t) .section = s, .name = n, .type = t
#define FIELD(f)     .offset = offsetof(struct perfsnapd_config, f)

/* In file order: config__print() prints them in this order. */

const struct key_desc config_keys[NR_KEYS] = {
	[KEY_EVENTS] = { KEY("capture", "events", VALUE_OTHER),
			 .parse = config_capture__parse_events, .multiline = true },
	[KEY_BUFFER_SIZE] = { KEY("capture", "buffer_size", VALUE_OTHER),
			      .parse = config_capture__parse_buffer_size },
	[KEY_CPUS] = { KEY("capture", "cpus", VALUE_OTHER), .parse = config_capture__parse_cpus },
	[KEY_CLOCK] = { KEY("capture", "clock", VALUE_NAME), FIELD(clock), .names = clock_names },
	[KEY_BACKEND] = { KEY("capture", "backend", VALUE_NAME), FIELD(backend),
			  .def = CONFIG_BACKEND_PERF, .names = backend_names },
	[KEY_HISTORY_SIZE] = { KEY("capture", "history_size", VALUE_SIZE), FIELD(history_size),
			       .max = 1ull << 30, .def = 16ull << 20, .zero = "keep none",
			       .accepted =
				       "0 (keep none) to 1G, with optional K, M or G suffix (bytes), e.g. 16M" },
	[KEY_SIDEBAND] = { KEY("capture", "sideband", VALUE_BOOL), FIELD(sideband), .def = true,
			   .names = bool_names, .accepted = "yes or no" },
	[KEY_MAX_TASKS] = { KEY("capture", "max_tasks", VALUE_COUNT), FIELD(max_tasks), .min = 64,
			    .max = 16777216, .def = 65536,
			    .accepted = "a number from 64 to 16777216, e.g. 65536" },
	[KEY_WINDOW] = { KEY("capture", "window", VALUE_DURATION), FIELD(window_ms),
			 .max = 60ull * 60 * 1000, .zero = "none: every ring is buffer_size",
			 .accepted = "0 (none) or a number with unit ms, s, m or h, at most 1h, "
				     "e.g. 10s, with memory and without buffer_size" },
	[KEY_MEMORY] = { KEY("capture", "memory", VALUE_SIZE), FIELD(memory), .max = 1ull << 40,
			 .zero = "none: every ring is buffer_size",
			 .accepted = "0 (none) to 1T, with optional K, M, G or T suffix (bytes), "
				     "e.g. 256M, with window and without buffer_size" },
	[KEY_DIRECTORY] = { KEY("snapshot", "directory", VALUE_STRING), FIELD(directory),
			    .parse = parse_directory },
	[KEY_FORMATS] = { KEY("snapshot", "formats", VALUE_OTHER), .parse = parse_formats,
			  .multiline = true },
	[KEY_COMPRESSION] = { KEY("snapshot", "compression", VALUE_NAME), FIELD(compression),
			      .def = CONFIG_COMPRESSION_AUTO, .names = compression_names },
	[KEY_PERFETTO_SAMPLES] = { KEY("snapshot", "perfetto_samples", VALUE_NAME),
				   FIELD(perfetto_samples), .def = CONFIG_PERFETTO_SAMPLES_AUTO,
				   .names = perfetto_samples_names },
	[KEY_SYMBOLS] = { KEY("snapshot", "symbols", VALUE_NAME), FIELD(symbols),
			  .def = CONFIG_SYMBOLS_BUILD_IDS, .names = symbols_names },
	[KEY_MAX_SNAPSHOTS] = { KEY("snapshot", "max_snapshots", VALUE_COUNT), FIELD(max_snapshots),
				.max = 1000000, .zero = "unlimited",
				.accepted = "0 (unlimited) or a number up to 1000000, e.g. 100" },
	[KEY_MAX_TOTAL_SIZE] = { KEY("snapshot", "max_total_size", VALUE_SIZE),
				 FIELD(max_total_size), .max = 1ull << 40, .zero = "unlimited",
				 .parse = parse_max_total_size,
				 .accepted =
					 "0 (unlimited) to 1T, with optional K, M, G or T suffix "
					 "(bytes), e.g. 10G, or 1% to 100% of the directory's "
					 "file system, e.g. 10%" },
	[KEY_MIN_INTERVAL] = { KEY("snapshot", "min_interval", VALUE_DURATION),
			       FIELD(min_interval_ms), .max = MS_PER_DAY, .zero = "none",
			       .accepted = "0 (none) or a number " DAYS_ACCEPTED ", e.g. 10s" },
	[KEY_MAX_PER_HOUR] = { KEY("snapshot", "max_per_hour", VALUE_COUNT), FIELD(max_per_hour),
			       .max = 3600, .zero = "unlimited",
			       .accepted = "0 (unlimited) or a number up to 3600, e.g. 60" },
	[KEY_POST_COMMAND] = { KEY("snapshot", "post_command", VALUE_STRING), FIELD(post_command),
			       .parse = parse_post_command,
			       .zero = "not set: no command runs after a snapshot" },
	[KEY_POST_COMMAND_TIMEOUT] = { KEY("snapshot", "post_command_timeout", VALUE_DURATION),
				       FIELD(post_command_timeout_ms), .min = 1, .max = MS_PER_DAY,
				       .def = 60 * 1000,
				       .accepted = "more than 0: a number " DAYS_ACCEPTED
						   ", e.g. 60s" },
	[KEY_COPY_MEMORY] = { KEY("snapshot", "copy_memory", VALUE_OTHER),
			      .parse = parse_copy_memory },
	[KEY_COPY_MEMORY_RESIDENT] = { KEY("snapshot", "copy_memory_resident", VALUE_BOOL),
				       FIELD(copy_memory_resident), .names = bool_names,
				       .accepted = "yes or no" },
	[KEY_SOCKET] = { KEY("control", "socket", VALUE_STRING), FIELD(control_socket),
			 .parse = parse_socket },
	[KEY_GROUP] = { KEY("control", "group", VALUE_STRING), FIELD(control_group),
			.parse = parse_group, .zero = "not set: only root may connect" },
	[KEY_MEMBER_MAX_PER_HOUR] = { KEY("control", "member_max_per_hour", VALUE_COUNT),
				      FIELD(control_member_max_per_hour), .max = 64, .def = 4,
				      .zero = "unlimited",
				      .accepted = "0 (unlimited) or a number up to 64, e.g. 4" },
	[KEY_UPLOAD_URL] = { KEY("upload", "url", VALUE_STRING), FIELD(upload_url),
			     .parse = config_upload__parse_url,
			     .zero = "not set: snapshots stay on this host" },
	[KEY_UPLOAD_ENDPOINT] = { KEY("upload", "endpoint", VALUE_STRING), FIELD(upload_endpoint),
				  .parse = config_upload__parse_endpoint, .zero = "not set" },
	[KEY_UPLOAD_REGION] = { KEY("upload", "region", VALUE_STRING), FIELD(upload_region),
				.parse = config_upload__parse_region, .zero = "not set" },
	[KEY_UPLOAD_PATH_STYLE] = { KEY("upload", "path_style", VALUE_BOOL),
				    FIELD(upload_path_style), .names = bool_names,
				    .accepted = "yes or no" },
	[KEY_UPLOAD_CREDENTIALS] = { KEY("upload", "credentials", VALUE_STRING),
				     FIELD(upload_credentials),
				     .parse = config_upload__parse_credentials, .zero = "not set" },
	[KEY_UPLOAD_KEEP_LOCAL] = { KEY("upload", "keep_local", VALUE_BOOL),
				    FIELD(upload_keep_local), .def = true, .names = bool_names,
				    .accepted = "yes or no" },
	[KEY_UPLOAD_RETRY_MIN] = { KEY("upload", "retry_min", VALUE_DURATION),
				   FIELD(upload_retry_min_ms), .min = 1, .max = MS_PER_DAY,
				   .def = 1000,
				   .accepted = "more than 0: a number " DAYS_ACCEPTED ", e.g. 1s" },
	[KEY_UPLOAD_RETRY_MAX] = { KEY("upload", "retry_max", VALUE_DURATION),
				   FIELD(upload_retry_max_ms), .min = 1, .max = MS_PER_DAY,
				   .def = 5 * 60 * 1000,
				   .accepted = "more than 0: a number " DAYS_ACCEPTED ", e.g. 5m" },
};

static void store_value(struct perfsnapd_config *cfg, const struct key_desc *k, uint64_t v)
{
	char *field = (char *)cfg + k->offset;

	if (k->type == VALUE_SIZE || k->type == VALUE_DURATION)
		*(uint64_t *)field = v;
	else if (k->type == VALUE_BOOL)
		*(bool *)field = v;
	else
		*(unsigned int *)field = v;
}

/* Sizes, durations, counts, yes/no and names, with one message each. */
static void parse_typed(struct config_reader *p, int key, const char *value)
{
	static const char *const nouns[] = {
		[VALUE_SIZE] = "size",	[VALUE_DURATION] = "duration", [VALUE_COUNT] = "number",
		[VALUE_BOOL] = "value", [VALUE_NAME] = "value",
	};
	const struct key_desc *k = &config_keys[key];
	char names[128];
	unsigned int i = 0;
	bool yes = false;
	uint64_t v = 0;
	int r;

	if (k->type == VALUE_SIZE)
		r = config_value__parse_size(value, k->min, k->max, &v);
	else if (k->type == VALUE_DURATION)
		r = config_value__parse_duration(value, k->min, k->max, &v);
	else if (k->type == VALUE_COUNT)
		r = config_value__parse_count(value, k->min, k->max, &v);
	else if (k->type == VALUE_BOOL)
		r = config_value__parse_bool(value, &yes);
	else
		r = config_value__parse_name(value, k->names, &i);
	if (r == 0) {
		store_value(p->cfg, k, k->type == VALUE_BOOL ? yes : k->names ? i : v);
		return;
	}
	p->key_failed[key] = true;
	if (!k->accepted)
		config_value__join_names(k->names, names, sizeof(names));
	if (r == -ERANGE)
		config_reader__diag(p, p->line, "[%s] %s: %s '%s' out of range: accepted: %s",
				    k->section, k->name, nouns[k->type], value, k->accepted);
	else
		config_reader__diag(p, p->line, "[%s] %s: bad %s '%s': accepted: %s", k->section,
				    k->name, nouns[k->type], value,
				    k->accepted ? k->accepted : names);
}

/**
 * config__set_key - run a key's handler on its value
 * @p: the parser, at the line of the value
 * @key: the key (enum config_key)
 * @value: the value without blanks and comment; the handler may change it
 *
 * A bad value becomes a diagnostic at p->line and marks the key failed.
 */
void config__set_key(struct config_reader *p, int key, char *value)
{
	if (config_keys[key].parse)
		config_keys[key].parse(p, value);
	else
		parse_typed(p, key, value);
}

/* A size, as any, or a share of the directory's file system ("10%"). */
static void parse_max_total_size(struct config_reader *p, char *value)
{
	const struct key_desc *k = &config_keys[KEY_MAX_TOTAL_SIZE];
	size_t len = strlen(value);
	uint64_t v;
	int r;

	if (!len || value[len - 1] != '%') {
		p->cfg->max_total_percent = 0;
		parse_typed(p, KEY_MAX_TOTAL_SIZE, value);
		return;
	}
	value[len - 1] = '\0';
	r = config_value__parse_count(value, 1, 100, &v);
	if (r == 0) {
		p->cfg->max_total_percent = (unsigned int)v;
		p->cfg->max_total_size = 0;
		return;
	}
	p->key_failed[KEY_MAX_TOTAL_SIZE] = true;
	if (r == -ERANGE)
		config_reader__diag(p, p->line, "[%s] %s: share '%s%%' out of range: accepted: %s",
				    k->section, k->name, value, k->accepted);
	else
		config_reader__diag(p, p->line, "[%s] %s: bad share '%s%%': accepted: %s",
				    k->section, k->name, value, k->accepted);
}

/**
 * config__max_total_bytes - what max_total_size allows now
 * @cfg: the configuration
 * @fs_bytes: the size of the directory's file system
 */
uint64_t config__max_total_bytes(const struct perfsnapd_config *cfg, uint64_t fs_bytes)
{
	uint64_t v;

	if (!cfg->max_total_percent)
		return cfg->max_total_size;
	v = (uint64_t)((unsigned __int128)fs_bytes * cfg->max_total_percent / 100);
	/* At least a byte: a share of nothing is not "unlimited". */
	return v ? v : 1;
}

static void parse_copy_memory(struct config_reader *p, char *value)
{
	int r;

	if (!strcmp(value, "auto")) {
		p->cfg->copy_memory = 0;
		return;
	}
	r = config_value__parse_size(value, 4096, 1ull << 40, &p->cfg->copy_memory);
	if (r < 0) {
		config_reader__diag(
			p, p->line,
			"[snapshot] copy_memory: bad size '%s': accepted: auto, or 4K to "
			"1T with optional K, M, G or T suffix (bytes), e.g. 256M",
			value);
		p->key_failed[KEY_COPY_MEMORY] = true;
	}
}

/**
 * config__copy_memory - the memory a dump may hold ring copies in
 * @cfg: the configuration
 * @rings_bytes: the sum of the overwrite rings' data sizes
 *
 * Returns copy_memory, or for auto @rings_bytes up to
 * CONFIG_COPY_MEMORY_AUTO_MAX.
 */
uint64_t config__copy_memory(const struct perfsnapd_config *cfg, uint64_t rings_bytes)
{
	if (cfg->copy_memory)
		return cfg->copy_memory;
	return rings_bytes < CONFIG_COPY_MEMORY_AUTO_MAX ? rings_bytes :
							   CONFIG_COPY_MEMORY_AUTO_MAX;
}

/* @shown: how to quote the directory in messages. */
static void check_directory(struct config_reader *p, const char *dir, const char *shown, int line)
{
	struct stat st;

	if (!*dir) {
		config_reader__diag(p, line,
				    "[snapshot] directory: empty: accepted: " DIR_ACCEPTED);
		return;
	}
	if (dir[0] != '/') {
		config_reader__diag(
			p, line,
			"[snapshot] directory: %s is not an absolute path: accepted: " DIR_ACCEPTED
			", e.g. " DEFAULT_DIRECTORY,
			shown);
		return;
	}
	if (stat(dir, &st)) {
		if (errno == ENOENT)
			config_reader__diag(p, line,
					    "[snapshot] directory: %s does not exist: " DIR_FIX,
					    shown);
		else
			config_reader__diag(p, line, "[snapshot] directory: %s: %s: " DIR_FIX,
					    shown, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		config_reader__diag(p, line,
				    "[snapshot] directory: %s is not a directory: " DIR_FIX, shown);
		return;
	}
	if (access(dir, W_OK | X_OK)) {
		config_reader__diag(
			p, line,
			"[snapshot] directory: %s is not writable: %s: make it writable for uid %u or change [snapshot] directory",
			shown, strerror(errno), (unsigned int)geteuid());
		return;
	}
	/* Snapshot names are predictable: anyone who may create files here could take them. */
	if (st.st_mode & S_IWOTH)
		config_reader__diag(
			p, line,
			"[snapshot] directory: %s is writable by every user (mode %04o), who could take the names of the next snapshots: accepted: a directory only its owner and group can write: chmod o-w it or change [snapshot] directory",
			shown, (unsigned int)(st.st_mode & 07777));
}

/* Sets *@field to a copy of @value. Returns false (and sets p->err) on ENOMEM. */
static bool set_string(struct config_reader *p, char **field, const char *value)
{
	*field = strdup(value);
	if (!*field)
		p->err = -ENOMEM;
	return *field;
}

static void parse_directory(struct config_reader *p, char *value)
{
	char *shown;

	if (!set_string(p, &p->cfg->directory, value))
		return;
	if (asprintf(&shown, "'%s'", value) < 0) {
		p->err = -ENOMEM;
		return;
	}
	check_directory(p, value, shown, p->line);
	free(shown);
}

static void parse_post_command(struct config_reader *p, char *value)
{
	const char *problem = NULL;
	struct stat st;
	int err = 0;

	if (!set_string(p, &p->cfg->post_command, value))
		return;
	if (value[0] != '/') {
		problem = " is not an absolute path";
	} else if (stat(value, &st)) {
		err = errno;
		problem = "";
	} else if (!S_ISREG(st.st_mode)) {
		problem = " is not a regular file";
	} else if (access(value, X_OK)) {
		err = errno;
		problem = " is not executable";
	}
	if (problem)
		config_reader__diag(p, p->line,
				    "[snapshot] post_command: '%s'%s%s%s: accepted: " EXEC_ACCEPTED,
				    value, problem, err ? ": " : "", err ? strerror(err) : "");
}

static void parse_socket(struct config_reader *p, char *value)
{
	size_t len = strlen(value);
	const char *problem = NULL;

	if (!set_string(p, &p->cfg->control_socket, value))
		return;
	if (value[0] != '/')
		problem = "is not an absolute path";
	else if (value[len - 1] == '/')
		problem = "names a directory, not a socket";
	else if (len > SOCKET_PATH_MAX)
		problem = "is too long for a socket address";
	if (problem)
		config_reader__diag(p, p->line,
				    "[control] socket: '%s' %s: accepted: " SOCKET_ACCEPTED, value,
				    problem, SOCKET_PATH_MAX);
}

/* Looks up group @name. Returns 0, -ENOENT if there is none, or -errno. */
static int lookup_group(const char *name, gid_t *ret_gid)
{
	long size = sysconf(_SC_GETGR_R_SIZE_MAX);
	struct group grp, *found = NULL;
	char *buf = NULL;
	int r;

	for (size = size > 0 ? size : 1024;; size *= 2) {
		char *bigger = realloc(buf, size);

		if (!bigger) {
			free(buf);
			return -ENOMEM;
		}
		buf = bigger;
		r = getgrnam_r(name, &grp, buf, size, &found);
		if (r != ERANGE || size >= GROUP_BUF_MAX)
			break;
	}
	if (!r && found)
		*ret_gid = grp.gr_gid;
	free(buf);
	return r ? -r : found ? 0 : -ENOENT;
}

static void parse_group(struct config_reader *p, char *value)
{
	int r;

	if (!set_string(p, &p->cfg->control_group, value))
		return;
	r = lookup_group(value, &p->cfg->control_gid);
	if (r == -ENOMEM)
		p->err = r;
	else if (r == -ENOENT)
		config_reader__diag(p, p->line,
				    "[control] group: no group '%s': accepted: " GROUP_ACCEPTED,
				    value);
	else if (r < 0)
		config_reader__diag(
			p, p->line,
			"[control] group: cannot look up '%s': %s: accepted: " GROUP_ACCEPTED,
			value, strerror(-r));
}

/* "perf.data, trace.dat (one or more, space-separated)", from snapshot_name's table. */
static const char *formats_accepted(char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int f = 0; f < SNAPSHOT_NR_FILES; f++)
		if (snapshot_name__format(f) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
					      snapshot_name__format(f));
	if (n < size)
		snprintf(buf + n, size - n, " (one or more, space-separated)");
	return buf;
}

static void parse_formats(struct config_reader *p, char *value)
{
	char *save = NULL, accepted[256];
	char *token;
	int f;

	for (token = strtok_r(value, SPACES, &save); token; token = strtok_r(NULL, SPACES, &save)) {
		f = snapshot_name__format_of(token);
		if (f >= 0) {
			p->cfg->formats |= SNAPSHOT_FILE_BIT(f);
			continue;
		}
		config_reader__diag(p, p->line,
				    "[snapshot] formats: unknown format '%s': accepted: %s", token,
				    formats_accepted(accepted, sizeof(accepted)));
		p->key_failed[KEY_FORMATS] = true;
	}
}

/* Defaults of the generic keys, before any is read. */
static void set_defaults(struct perfsnapd_config *cfg)
{
	int k;

	for (k = 0; k < NR_KEYS; k++) {
		if (config_keys[k].type != VALUE_OTHER && config_keys[k].type != VALUE_STRING)
			store_value(cfg, &config_keys[k], config_keys[k].def);
	}
}

/* Defaults and checks that need the whole file. */
static void finish_config(struct config_reader *p)
{
	struct perfsnapd_config *cfg = p->cfg;
	char accepted[256];

	config_capture__finish(p);
	if (!p->key_line[KEY_DIRECTORY]) {
		cfg->directory = strdup(DEFAULT_DIRECTORY);
		if (!cfg->directory)
			p->err = -ENOMEM;
		else
			check_directory(p, cfg->directory, "'" DEFAULT_DIRECTORY "' (the default)",
					0);
	}
	if (!p->key_line[KEY_FORMATS])
		cfg->formats = SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_PERFDATA);
	else if (!cfg->formats && !p->key_failed[KEY_FORMATS])
		config_reader__diag(p, p->key_line[KEY_FORMATS],
				    "[snapshot] formats: empty: accepted: %s",
				    formats_accepted(accepted, sizeof(accepted)));
	if (!p->key_line[KEY_SOCKET])
		set_string(p, &cfg->control_socket, DEFAULT_SOCKET);
	config_capture__finish_clock(p);
	config_upload__finish(p);
	config_trigger__finish(p);
}

/**
 * config__load - read and validate a perfsnapd.conf
 * @path: config file
 * @tracing_dir: tracefs mount point for tracepoint lookup; NULL for the
 *	system's (found by libtracefs)
 * @ret: set to the new config on success, holding one reference (config__put())
 * @diags: every problem found is appended here ("file:line: message"), so
 *	one run reports them all; the caller prints and clears it
 *
 * Unset keys take their defaults (see perfsnapd.conf(5)); the default
 * directory /var/lib/perfsnapd must then exist. events has no default.
 * A clock other than perf is applied to every event's attr.
 *
 * Returns 0, -EINVAL if any diagnostic was added, -errno (also as a line 0
 * diagnostic) if @path cannot be opened or read, or -ENOMEM.
 */
int config__load(const char *path, const char *tracing_dir, const struct perfsnapd_config **ret,
		 struct config_diags *diags)
{
	struct config_reader p = {
		.diags = diags, .tracing_dir = tracing_dir, .key = -1, .trigger = -1
	};
	size_t first_diag = diags->nr;
	struct config_ref *ref;
	char dir[PATH_MAX];
	int r;

	/*
	 * Asked once per load: where the caller cannot read tracefs (not
	 * root), libtracefs finds the directory anew at each call and drops
	 * the string it found the time before.
	 */
	if (!tracing_dir) {
		const char *found = tracefs_tracing_dir();

		if (found && strlen(found) < sizeof(dir)) {
			strcpy(dir, found);
			p.tracing_dir = dir;
		}
	}
	ref = calloc(1, sizeof(*ref));
	if (!ref)
		return -ENOMEM;
	ref->refs = 1;
	p.cfg = &ref->cfg;
	set_defaults(p.cfg);
	p.cfg->path = strdup(path);
	r = p.cfg->path ? config_reader__read(&p, first_diag) : -ENOMEM;
	if (r < 0)
		goto out;
	finish_config(&p);
	r = p.err;
	if (r < 0)
		goto out;
	config_diags__sort(diags, first_diag);
	if (diags->nr > first_diag) {
		r = -EINVAL;
		goto out;
	}
	*ret = p.cfg;
	p.cfg = NULL;
out:
	free(p.trigger_key_line);
	config__put(p.cfg);
	return r;
}

/*
 * The allocation config__load() made around @cfg. Not const: holders may
 * not write a config, but its count changes and the last put frees it.
 */
static struct config_ref *ref_of(const struct perfsnapd_config *cfg)
{
	return (struct config_ref *)((char *)cfg - offsetof(struct config_ref, cfg));
}

/**
 * config__get - another reference to a config
 * @cfg: the config, or NULL
 *
 * A config never changes once loaded: each holder reads it from any
 * thread, and the last reference frees it. Returns @cfg.
 */
const struct perfsnapd_config *config__get(const struct perfsnapd_config *cfg)
{
	if (cfg)
		__atomic_add_fetch(&ref_of(cfg)->refs, 1, __ATOMIC_RELAXED);
	return cfg;
}

/**
 * config__put - drop a reference to a config; the last frees it
 * @cfg: the config, or NULL
 */
void config__put(const struct perfsnapd_config *cfg)
{
	struct config_ref *ref = cfg ? ref_of(cfg) : NULL;
	size_t i;

	if (!ref || __atomic_sub_fetch(&ref->refs, 1, __ATOMIC_ACQ_REL))
		return;
	for (i = 0; i < cfg->nr_events; i++)
		event_spec__fini(&cfg->events[i]);
	free(cfg->events);
	for (i = 0; i < cfg->nr_triggers; i++)
		config_trigger__fini(&cfg->triggers[i]);
	free(cfg->triggers);
	free(cfg->path);
	free(cfg->cpus);
	free(cfg->directory);
	free(cfg->post_command);
	free(cfg->control_socket);
	free(cfg->control_group);
	config_upload__free(&ref->cfg);
	free(ref);
}
