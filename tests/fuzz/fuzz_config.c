// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the config parser: each input is a perfsnapd.conf,
 * loaded by config__load() against a small fake tracefs (so the run does
 * not depend on the machine's tracepoints), then printed back and loaded
 * again from its own print, which must succeed. Every refusal must carry a
 * diagnostic. Built with clang under PERFSNAPD_FUZZ; replay_main.c drives
 * it over tests/fuzz/config_corpus in every build.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tracing_dir[64];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

/* A tracefs with two systems of two events each, under /tmp; removed at exit. */
static void remove_tracing_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tracing_dir);
	if (system(cmd))
		return;
}

static void make_tracing_dir(void)
{
	static const char *const events[] = { "sched/sched_switch", "sched/sched_wakeup",
					      "raw_syscalls/sys_enter", "raw_syscalls/sys_exit" };
	char path[256];

	snprintf(tracing_dir, sizeof(tracing_dir), "/tmp/perfsnapd-fuzz-config.%d", (int)getpid());
	snprintf(path, sizeof(path), "%s/events", tracing_dir);
	if (mkdir(tracing_dir, 0700) || mkdir(path, 0700))
		abort();
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		char id[16];

		snprintf(path, sizeof(path), "%s/events/%.*s", tracing_dir,
			 (int)(strchr(events[i], '/') - events[i]), events[i]);
		if (mkdir(path, 0700) && access(path, F_OK))
			abort();
		snprintf(path, sizeof(path), "%s/events/%s", tracing_dir, events[i]);
		if (mkdir(path, 0700))
			abort();
		snprintf(path, sizeof(path), "%s/events/%s/id", tracing_dir, events[i]);
		snprintf(id, sizeof(id), "%zu\n", 300 + i);
		write_file(path, id);
	}
	atexit(remove_tracing_dir);
}

/* Loads the config text in @fd; returns 0 or the -errno of config__load(). */
static int load(int fd, const struct perfsnapd_config **cfg, struct config_diags *d)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return config__load(path, tracing_dir, cfg, d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config_diags d = { 0 };
	const struct perfsnapd_config *cfg = NULL;
	FILE *out;
	int fd, r;

	if (!tracing_dir[0])
		make_tracing_dir();
	fd = memfd_create("fuzz-config", MFD_CLOEXEC);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size))
		abort();
	r = load(fd, &cfg, &d);
	close(fd);
	if (r == -ENOMEM)
		goto out;
	if (r && !d.nr)
		abort(); /* every refusal says why */
	if (!r) {
		const struct perfsnapd_config *again = NULL;
		struct config_diags d2 = { 0 };

		if (!cfg || !cfg->nr_events || d.nr)
			abort();
		/* What config__print() writes is a config that loads. */
		fd = memfd_create("fuzz-config-print", MFD_CLOEXEC);
		out = fd < 0 ? NULL : fdopen(dup(fd), "w");
		if (!out)
			abort();
		config__print(cfg, out);
		if (fclose(out))
			abort();
		r = load(fd, &again, &d2);
		close(fd);
		if (r && r != -ENOMEM) {
			config_diags__print(&d2, stderr);
			abort();
		}
		config__put(again);
		config_diags__clear(&d2);
	}
out:
	config__put(cfg);
	config_diags__clear(&d);
	return 0;
}
