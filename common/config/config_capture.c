// SPDX-License-Identifier: GPL-2.0-only
/*
 * config_capture: the [capture] section. The handlers of the keys that
 * check their value against the system (events against tracefs, cpus
 * against the CPUs possible), and the checks that need the whole file:
 * events required, the window's memory budget beside the rings of fixed
 * size, buffer_size's default, and the clock applied to every event. Part
 * of common/: never logs.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config-internal.h"
#include "config_value.h"
#include "event_spec.h"

#define DEFAULT_BUFFER_SIZE (4ull << 20)
#define MAX_BUFFER_SIZE	    (1ull << 30)
#define CPU_POSSIBLE	    "/sys/devices/system/cpu/possible"
#define SPACES		    " \t\r\n\v\f"

#define SIZE_ACCEPTED "a number with optional K, M or G suffix (bytes), e.g. 4M"
#define CPUS_ACCEPTED "all, or CPU numbers and ranges such as 0-3,8"

void config_capture__parse_events(struct config_reader *p, char *value)
{
	struct perfsnapd_config *cfg = p->cfg;
	char *save = NULL;
	char *token;
	char *msg;

	for (token = strtok_r(value, SPACES, &save); token; token = strtok_r(NULL, SPACES, &save)) {
		int r = event_spec__parse(token, p->tracing_dir, p->line, &cfg->events,
					  &cfg->nr_events, &msg);
		if (r == -EINVAL) {
			config_reader__diag(p, p->line, "[capture] events: %s", msg);
			p->key_failed[KEY_EVENTS] = true;
			free(msg);
		} else if (r < 0) {
			p->err = r;
			return;
		}
	}
}

void config_capture__parse_buffer_size(struct config_reader *p, char *value)
{
	int r = config_value__parse_size(value, 1, MAX_BUFFER_SIZE, &p->cfg->buffer_size);

	p->cfg->config_line_buffer_size = p->line;
	if (r == -EINVAL)
		config_reader__diag(
			p, p->line,
			"[capture] buffer_size: bad size '%s': accepted: " SIZE_ACCEPTED, value);
	else if (r < 0)
		config_reader__diag(
			p, p->line,
			"[capture] buffer_size: size '%s' out of range: accepted: 1 byte to 1G per CPU, e.g. 4M",
			value);
	if (r < 0)
		p->key_failed[KEY_BUFFER_SIZE] = true;
}

/* Reads CPU_POSSIBLE into @text and a map of CPUs. Returns 0 or -errno. */
static int read_possible_cpus(char *text, size_t size, bool **ret_map, unsigned int *ret_nr)
{
	FILE *f = fopen(CPU_POSSIBLE, "re");
	int r = 0;

	if (!f)
		return -errno;
	if (!fgets(text, size, f))
		r = -EIO;
	fclose(f);
	if (r < 0)
		return r;
	text[strcspn(text, "\n")] = '\0';
	return config_value__parse_cpu_list(text, ret_map, ret_nr);
}

void config_capture__parse_cpus(struct config_reader *p, char *value)
{
	unsigned int nr_possible = 0, bad = 0;
	bool *possible = NULL;
	char text[256];
	int r;

	if (!strcmp(value, "all"))
		return;
	p->key_failed[KEY_CPUS] = true;
	if (config_value__check_cpu_list(value)) {
		config_reader__diag(p, p->line,
				    "[capture] cpus: bad CPU list '%s': accepted: " CPUS_ACCEPTED,
				    value);
		return;
	}
	r = read_possible_cpus(text, sizeof(text), &possible, &nr_possible);
	if (r == -ENOMEM) {
		p->err = r;
		return;
	}
	if (r < 0) {
		config_reader__diag(p, p->line,
				    "[capture] cpus: cannot read " CPU_POSSIBLE
				    " to check '%s': %s: accepted: all",
				    value, strerror(-r));
		return;
	}
	r = config_value__normalize_cpus(value, possible, nr_possible, &p->cfg->cpus, &bad);
	free(possible);
	if (r == -ERANGE)
		config_reader__diag(
			p, p->line,
			"[capture] cpus: CPU %u in '%s' does not exist: accepted: all, or CPUs in " CPU_POSSIBLE
			" (%s)",
			bad, value, text);
	else if (r < 0)
		p->err = r;
	else
		p->key_failed[KEY_CPUS] = false;
}

static unsigned int buffer_pages(uint64_t size)
{
	uint64_t page = sysconf(_SC_PAGESIZE);
	uint64_t pages = (size + page - 1) / page;
	unsigned int n = 1;

	while (n < pages)
		n <<= 1;
	return n;
}

/* CPUs the rings are opened on: [capture] cpus, else those online. */
static unsigned int window_cpus(const struct perfsnapd_config *cfg)
{
	bool *map = NULL;
	unsigned int nr = 0, n = 0;

	if (!cfg->cpus || config_value__parse_cpu_list(cfg->cpus, &map, &nr) < 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);

		free(map);
		return online > 0 ? (unsigned int)online : 1;
	}
	for (unsigned int i = 0; i < nr; i++)
		n += map[i];
	free(map);
	return n ? n : 1;
}

/* Pages of the rings of fixed size and of the no-overwrite history, on @nr_cpus CPUs. */
static uint64_t fixed_pages(const struct perfsnapd_config *cfg, unsigned int nr_cpus)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), fixed = 0;
	bool no_overwrite = false, triggers = false;
	unsigned int paired = 0;

	for (size_t i = 0; i < cfg->nr_events; i++)
		no_overwrite = no_overwrite || !cfg->events[i].overwrite;
	for (size_t i = 0; i < cfg->nr_triggers; i++) {
		triggers = triggers || cfg->triggers[i].kind == TRIGGER_KIND_EVENT;
		paired += cfg->triggers[i].kind == TRIGGER_KIND_PAIRED;
	}
	if (cfg->sideband || no_overwrite)
		fixed += (CONFIG_SIDEBAND_RING_PAGES + 1ull) * nr_cpus;
	if (triggers)
		fixed += (CONFIG_TRIGGER_RING_PAGES + 1ull) * nr_cpus;
	/*
	 * A paired trigger maps its fallback's rings when BPF cannot load, which
	 * is known only then: counted as if it could not, so the budget holds.
	 */
	fixed += (CONFIG_PAIRED_RING_PAGES + 1ull) * nr_cpus * paired;
	/*
	 * The recording clock's marker rings, a control page and one each: the
	 * dumper's (windows) and the hotplug watcher's, and a paired trigger's
	 * own when the events' clock is not CLOCK_MONOTONIC.
	 */
	fixed += 2 * (2ull + paired);
	/* The history fills (and takes memory) only with no-overwrite events. */
	if (no_overwrite)
		fixed += (cfg->history_size + page - 1) / page;
	return fixed;
}

/**
 * config__window_pages - the pages [capture] memory leaves the overwrite rings
 * @cfg: a configuration with window and memory
 * @nr_cpus: CPUs with rings
 *
 * memory less what perfsnapd maps or holds beside them: each CPU's forward
 * (side-band) ring and trigger ring with their control pages, paired
 * triggers' fallback rings, the recording clock's marker rings, and the
 * history of no-overwrite events when there are any. Returns the pages (control pages included), or
 * -ENOSPC when that is not even CONFIG_WINDOW_FLOOR_PAGES and its control
 * page on every CPU.
 */
int64_t config__window_pages(const struct perfsnapd_config *cfg, unsigned int nr_cpus)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), fixed = fixed_pages(cfg, nr_cpus);
	uint64_t left = cfg->memory / page > fixed ? cfg->memory / page - fixed : 0;

	if (left < (CONFIG_WINDOW_FLOOR_PAGES + 1ull) * nr_cpus)
		return -ENOSPC;
	return (int64_t)left;
}

/* The least memory that holds the smallest ring on @nr_cpus CPUs, in bytes. */
static uint64_t window_min_memory(const struct perfsnapd_config *cfg, unsigned int nr_cpus)
{
	return (fixed_pages(cfg, nr_cpus) + (CONFIG_WINDOW_FLOOR_PAGES + 1ull) * nr_cpus) *
	       (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * window and memory go together and replace buffer_size; the budget must
 * hold the smallest ring on every CPU beside the rings of fixed size.
 */
static void check_window(struct config_reader *p)
{
	struct perfsnapd_config *cfg = p->cfg;
	unsigned int nr_cpus;

	if (p->key_failed[KEY_WINDOW] || p->key_failed[KEY_MEMORY] ||
	    (!cfg->window_ms && !cfg->memory))
		return;
	if (p->key_line[KEY_BUFFER_SIZE]) {
		int line = p->key_line[KEY_WINDOW] > p->key_line[KEY_MEMORY] ?
				   p->key_line[KEY_WINDOW] :
				   p->key_line[KEY_MEMORY];

		config_reader__diag(
			p,
			line > p->key_line[KEY_BUFFER_SIZE] ? line : p->key_line[KEY_BUFFER_SIZE],
			"[capture] %s: buffer_size (line %d) sizes every ring alike, window and memory size each CPU's ring for the window: accepted: one of the two ways; remove buffer_size or window and memory",
			cfg->window_ms ? "window" : "memory", p->key_line[KEY_BUFFER_SIZE]);
		return;
	}
	if (!cfg->window_ms || !cfg->memory) {
		config_reader__diag(
			p, p->key_line[cfg->window_ms ? KEY_WINDOW : KEY_MEMORY],
			"[capture] %s: needs %s: accepted: both, e.g. window = 10s and memory = 256M",
			cfg->window_ms ? "window" : "memory", cfg->window_ms ? "memory" : "window");
		return;
	}
	nr_cpus = window_cpus(cfg);
	if (config__window_pages(cfg, nr_cpus) < 0)
		config_reader__diag(
			p, p->key_line[KEY_WINDOW],
			"[capture] window: memory = %llu KiB cannot hold the window on even the smallest ring (%u pages) of each of the %u CPUs beside the side-band, trigger and history rings: accepted: memory of at least %llu KiB, or fewer [capture] cpus",
			(unsigned long long)(cfg->memory >> 10), CONFIG_WINDOW_FLOOR_PAGES, nr_cpus,
			(unsigned long long)(window_min_memory(cfg, nr_cpus) >> 10));
}

/**
 * config_capture__finish - [capture] checks and defaults that need the whole file
 * @p: the parser, after the last line
 *
 * events must name at least one event; window and memory go together,
 * instead of buffer_size, and must leave room for the smallest ring on
 * every CPU. Without them buffer_size defaults to 4M.
 */
void config_capture__finish(struct config_reader *p)
{
	struct perfsnapd_config *cfg = p->cfg;

	if (!cfg->nr_events && !p->key_failed[KEY_EVENTS])
		config_reader__diag(
			p, p->key_line[KEY_EVENTS],
			"[capture] events: no events: accepted: tracepoints such as sched:sched_switch (globs allowed) or software events such as cpu-clock, space-separated");
	check_window(p);
	if (!p->key_line[KEY_BUFFER_SIZE] && !cfg->window_ms)
		cfg->buffer_size = DEFAULT_BUFFER_SIZE;
	if (cfg->buffer_size)
		cfg->buffer_pages = buffer_pages(cfg->buffer_size);
}

/* Puts every event on the configured clock; "events" may come before "clock". */
static void apply_clock(struct perfsnapd_config *cfg)
{
	static const clockid_t ids[] = {
		[CONFIG_CLOCK_MONOTONIC] = CLOCK_MONOTONIC,
		[CONFIG_CLOCK_BOOTTIME] = CLOCK_BOOTTIME,
		[CONFIG_CLOCK_REALTIME] = CLOCK_REALTIME,
	};
	size_t i;

	if (cfg->clock == CONFIG_CLOCK_PERF)
		return;
	for (i = 0; i < cfg->nr_events; i++) {
		cfg->events[i].attr.use_clockid = 1;
		cfg->events[i].attr.clockid = ids[cfg->clock];
	}
}

/*
 * The kernel stamps tracepoints only with NMI-safe clocks: perf_event_open()
 * refuses CLOCK_REALTIME for them (EINVAL), so say so here, at the line.
 */
static void check_realtime(struct config_reader *p)
{
	const struct perfsnapd_config *cfg = p->cfg;

	if (cfg->clock != CONFIG_CLOCK_REALTIME)
		return;
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (cfg->events[i].is_tracepoint) {
			config_reader__diag(
				p, p->key_line[KEY_CLOCK],
				"[capture] clock: 'realtime' cannot stamp tracepoints such as %s (the kernel allows only NMI-safe clocks for them): accepted with tracepoints: perf, monotonic, boottime",
				cfg->events[i].name);
			return;
		}
}

/*
 * A tracefs instance stamps events with an ftrace clock, and none is
 * CLOCK_REALTIME: say so at the backend's line rather than at start.
 */
static void check_backend(struct config_reader *p)
{
	const struct perfsnapd_config *cfg = p->cfg;

	if (cfg->backend == CONFIG_BACKEND_TRACEFS && cfg->clock == CONFIG_CLOCK_REALTIME)
		config_reader__diag(
			p, p->key_line[KEY_BACKEND],
			"[capture] backend: 'tracefs' cannot stamp events with clock = realtime (no ftrace clock is): accepted with realtime: perf, auto (which keeps perf)");
}

/**
 * config_capture__finish_clock - put every event on [capture] clock
 * @p: the parser, after the last line
 *
 * After the whole file: events may come before clock.
 */
void config_capture__finish_clock(struct config_reader *p)
{
	check_realtime(p);
	check_backend(p);
	apply_clock(p->cfg);
}
