// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon: opening and closing the recording, reloading the configuration,
 * and what follows each dump (log, status, retention, upload, post_command).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/statvfs.h>

#include <event2/event.h>

#include "capture.h"
#include "capture_backend.h"
#include "config.h"
#include "config_value.h"
#include "control.h"
#include "daemon-internal.h"
#include "daemon.h"
#include "log.h"
#include "post_command.h"
#include "procinfo.h"
#include "recording_open.h"
#include "retention.h"
#include "service.h"
#include "sideband.h"
#include "upload.h"
#include "snapshot_files.h"
#include "snapshot_log.h"
#include "snapshot_name.h"
#include "trigger.h"

static void update_status(struct daemon *d)
{
	const char *last = !d->have_last ? NULL : d->last.error ? "failed" : d->last.files.paths[0];

	if (!d->cap) { /* a reload could reopen neither set of rings: stopping */
		snprintf(d->status, sizeof(d->status), "not recording: the rings cannot be opened");
		service__status("%s", d->status);
		return;
	}
	/* STATUS= is one short line: a long path is cut, not the counts. */
	snprintf(d->status, sizeof(d->status),
		 "recording %zu events on %d CPUs; %lu snapshots%s%.300s", d->cfg->nr_events,
		 capture__nr_cpus(d->cap), d->snapshots, last ? "; last " : "", last ? last : "");
	service__status("%s", d->status);
}

void daemon__update_status(struct daemon *d)
{
	update_status(d);
}

void daemon__close_recording(struct daemon *d)
{
	dump__delete(d->dump);
	d->dump = NULL;
	sideband__delete(d->sb);
	d->sb = NULL;
	capture__close(d->cap);
	d->cap = NULL;
}

/* The triggers' matches, from the set the daemon has when a dump collects. */
static int collect_triggers(void *ctx, struct snapshot *s)
{
	struct daemon *d = ctx;

	return trigger_set__collect(d->triggers, s);
}

int daemon__attach_recording(struct daemon *d)
{
	int r = d->sb ? sideband__watch(d->sb, d->base) : 0;

	/* Sampling starts once the side-band knows every task alive. */
	if (r == 0)
		capture__start(d->cap);
	if (r == 0)
		r = dump__new(d->cap, d->sb, d->cfg, &d->compress, d->base, d->argc, d->argv,
			      daemon__dump_done, d, &d->dump);
	if (r == 0) {
		dump__set_collect(d->dump, collect_triggers, d);
		/* Its clock was read after capture__start(): a bound a little late, never early. */
		capture__set_start(d->cap, -1, dump__opened_at(d->dump));
	}
	if (r < 0) {
		daemon__close_recording(d);
		return r;
	}
	d->recordings++;
	update_status(d);
	return 0;
}

/**
 * daemon__start_recording - open the events, the side-band and the dumper
 * @d: the daemon, with its configuration loaded
 *
 * Returns 0 or -errno (logged); on failure nothing new stays open.
 */
int daemon__start_recording(struct daemon *d)
{
	int r;

	/* Read once here, not inside the first dump. */
	if (procinfo__load_kernel_symbols() < 0)
		log_warning("kernel addresses are hidden (/proc/sys/kernel/kptr_restrict): "
			    "kernel frames will not resolve; run as root or with CAP_SYSLOG");
	/* No other rings of ours hold locked memory now: they may be cut to fit. */
	r = recording_open__now(d->cfg, true, &d->cap, &d->sb);
	return r < 0 ? r : daemon__attach_recording(d);
}

static void on_retired(void *ctx)
{
	struct retired_recording *rr = ctx, **p;

	for (p = &rr->d->retiring; *p && *p != rr; p = &(*p)->next)
		;
	if (*p)
		*p = rr->next;
	sideband__delete(rr->sb);
	capture__close(rr->cap);
	free(rr);
}

int daemon__retire_recording(struct daemon *d)
{
	struct retired_recording *rr = calloc(1, sizeof(*rr));

	if (!rr)
		return -ENOMEM;
	*rr = (struct retired_recording){ d, d->cap, d->sb, d->dump, d->retiring };
	d->retiring = rr;
	d->cap = NULL;
	d->sb = NULL;
	d->dump = NULL;
	dump__retire(rr->dump, on_retired, rr);
	return 0;
}

/**
 * daemon__stop_recording - finish the dumps in flight, then close everything
 * @d: the daemon
 *
 * A reload still opening its rings is given up.
 */
void daemon__stop_recording(struct daemon *d)
{
	daemon__cancel_reload(d);
	daemon__close_recording(d);
	/* Each deletion finishes its dump here and unlinks it (on_retired). */
	while (d->retiring)
		dump__delete(d->retiring->dump);
}

/**
 * daemon__dumping - is a dump running?
 * @d: the daemon
 *
 * Also the dumps a reload left to finish on the rings it replaced.
 */
bool daemon__dumping(const struct daemon *d)
{
	return (d->dump && dump__busy(d->dump)) || d->retiring;
}

/**
 * daemon__log_recording - say what is being recorded, once it is
 * @d: the daemon
 */
void daemon__log_recording(struct daemon *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	unsigned int pages = capture__ring_pages(d->cap);
	unsigned long long ring_kib = (unsigned long long)pages *
				      (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;

	if (capture__windowed(d->cap)) {
		char mem[CONFIG_VALUE_FORMAT_MAX];

		config_value__format_size(cfg->memory, mem, sizeof(mem));
		log_notice("recording %zu events on %d CPUs into %d overwrite rings of %llu KiB "
			   "(%u pages) each at first, each then sized for its CPU's rate to "
			   "hold the %.1f s window, all rings within %s; side-band %s; "
			   "snapshots go to %s",
			   cfg->nr_events, capture__nr_cpus(d->cap),
			   (int)capture__nr_copy_rings(d->cap), ring_kib, pages,
			   (double)cfg->window_ms / 1e3, mem, d->sb ? "on" : "off", cfg->directory);
		return;
	}
	log_notice("recording %zu events on %d CPUs into %d overwrite rings of %llu KiB "
		   "(%u pages) each; ring copies in up to %llu KiB of memory (%s); side-band %s; "
		   "snapshots go to %s",
		   cfg->nr_events, capture__nr_cpus(d->cap), (int)capture__nr_copy_rings(d->cap),
		   ring_kib, pages, (unsigned long long)dump__copy_budget(d->dump) / 1024,
		   dump__copy_buffer_size(d->dump) ? "held between dumps" : "taken at each dump",
		   d->sb ? "on" : "off", cfg->directory);
}

/**
 * daemon__start_upload - start the uploader if [upload] says so
 * @d: the daemon
 *
 * A failure is logged and recording goes on without uploads.
 */
void daemon__start_upload(struct daemon *d)
{
	if (d->cfg->upload_url && !d->up && upload__new(d->cfg, d->upload_socket, &d->up) < 0)
		log_error("upload: not started: snapshots stay in %s", d->cfg->directory);
}

void daemon__stop_upload(struct daemon *d)
{
	upload__delete(d->up);
	d->up = NULL;
}

void daemon__reload_upload(struct daemon *d)
{
	if (!d->cfg->upload_url) {
		if (d->up)
			log_notice("upload: [upload] removed: pending uploads wait in %s for it "
				   "to come back",
				   d->cfg->directory);
		daemon__stop_upload(d);
	} else if (d->up) {
		upload__set_config(d->up, d->cfg);
	} else {
		daemon__start_upload(d);
	}
}

static void log_removed(void *ctx, const char *name, uint64_t bytes, int err)
{
	const char *dir = ctx;

	if (err)
		log__errno(err, "cannot remove '%s/%s', left by an earlier run (%" PRIu64 " bytes)",
			   dir, name, bytes);
	else
		log_notice("removed '%s/%s', left by an earlier run (%" PRIu64 " bytes)", dir, name,
			   bytes);
}

/**
 * daemon__remove_temporaries - delete what a crash of an earlier run left
 * @d: the daemon, with its configuration loaded and no dump running
 *
 * Only perfsnapd's own temporary names in the snapshot directory; each one
 * is logged with its size.
 */
void daemon__remove_temporaries(struct daemon *d)
{
	int r = retention__remove_temporaries(d->cfg->directory, log_removed, d->cfg->directory);

	if (r < 0)
		log__errno(r, "cannot look for temporaries in '%s'", d->cfg->directory);
}

/*
 * max_total_size in bytes now: a share of the directory's file system is
 * taken of its size at each pass (a volume grown is a larger budget). A
 * file system that cannot be measured keeps the last figure.
 */
static uint64_t total_budget(struct daemon *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct statvfs st;

	if (!cfg->max_total_percent)
		return cfg->max_total_size;
	if (statvfs(cfg->directory, &st) == 0)
		d->total_budget = config__max_total_bytes(cfg, (uint64_t)st.f_blocks * st.f_frsize);
	else if (!d->total_budget)
		log__errno(-errno,
			   "retention: cannot measure the file system of '%s' for "
			   "max_total_size = %u%%; only max_snapshots applies until it can",
			   cfg->directory, cfg->max_total_percent);
	return d->total_budget;
}

static void enforce_retention(struct daemon *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct snapshot_entry *deleted = NULL;
	uint64_t budget = total_budget(d);
	size_t nr = 0;
	int r;

	if (!cfg->max_snapshots && !budget)
		return;
	r = retention__enforce_held(cfg->directory, cfg->max_snapshots, budget,
				    d->up ? upload__held : NULL, d->up, &deleted, &nr);
	if (r < 0)
		log__errno(r, "retention in '%s'", cfg->directory);
	for (size_t i = 0; i < nr; i++) {
		if (d->up && !deleted[i].error)
			upload__forget(d->up, deleted[i].stem);
		if (deleted[i].error)
			log__errno(deleted[i].error, "retention: cannot delete snapshot %s",
				   deleted[i].stem);
		else if (deleted[i].forced)
			log_warning("retention: deleted snapshot %s (%" PRIu64 " bytes) before it "
				    "was uploaded, to keep max_total_size = %" PRIu64,
				    deleted[i].stem, deleted[i].bytes, budget);
		else
			log_info("retention: deleted snapshot %s (%" PRIu64 " bytes) to keep "
				 "max_snapshots = %u, max_total_size = %" PRIu64,
				 deleted[i].stem, deleted[i].bytes, cfg->max_snapshots, budget);
	}
	retention__free(deleted, nr);
}

static int host_request(void *ctx, const char *reason, const struct snapshot_trigger *what,
			dump_done_fn done, void *done_ctx)
{
	struct daemon *d = ctx;
	struct snapshot_origin origin = { .kind = SNAPSHOT_ORIGIN_TRIGGER, .uid = -1 };
	int r;

	snprintf(origin.trigger, sizeof(origin.trigger), "%s", what->name);
	r = dump__trigger_by(d->dump, reason, &origin, what, done, done_ctx);

	if (r == -EAGAIN)
		d->refused++;
	return r;
}

/*
 * Before the pause, nothing slow: the side-band's name at @time as drained
 * so far, else /proc's while the task lives. The dump names the task
 * again after its own drain (dump.c), for the sidecar.
 */
static void host_comm(void *ctx, pid_t tid, uint64_t time, char *buf, size_t size)
{
	struct daemon *d = ctx;

	buf[0] = '\0';
	if (d->sb)
		sideband__comm(d->sb, tid, time, buf, size);
	if (!buf[0] && procinfo__read_comm(tid, tid, buf, size) < 0)
		buf[0] = '\0';
}

int daemon__new_triggers(struct daemon *d, const struct perfsnapd_config *cfg,
			 struct config_diags *diags, struct trigger_set **ret)
{
	const struct trigger_host host = { host_request, host_comm, d };

	return trigger_set__new(cfg, d->base, &host, diags, ret);
}

void daemon__swap_triggers(struct daemon *d, struct trigger_set *ts)
{
	trigger_set__adopt(ts, d->triggers);
	trigger_set__delete(d->triggers);
	d->triggers = ts;
}

/**
 * daemon__start_triggers - open the configured triggers
 * @d: the daemon, recording
 * @diags: what the kernel refused, at its line
 *
 * Returns 0, -EINVAL (@diags filled) or -errno (logged).
 */
int daemon__start_triggers(struct daemon *d, struct config_diags *diags)
{
	struct trigger_set *ts = NULL;
	int r = daemon__new_triggers(d, d->cfg, diags, &ts);

	if (r == 0)
		daemon__swap_triggers(d, ts);
	if (r == 0 && d->cfg->nr_triggers)
		log_info("%zu triggers armed", d->cfg->nr_triggers);
	return r;
}

/**
 * daemon__rearm_triggers - open the triggers anew, on every CPU online now
 * @d: the daemon, recording
 *
 * A CPU that went offline took its trigger events with it, and the kernel
 * does not put them back: a new set opens on the CPUs online now and takes
 * the old one's counts. Where it cannot open, the old set stays (logged).
 */
void daemon__rearm_triggers(struct daemon *d)
{
	struct config_diags diags = { 0 };
	struct trigger_set *ts = NULL;

	if (!d->cfg->nr_triggers || !d->triggers)
		return;
	if (daemon__new_triggers(d, d->cfg, &diags, &ts) == 0) {
		daemon__swap_triggers(d, ts);
		log_info("%zu triggers armed again, on every online CPU", d->cfg->nr_triggers);
	} else {
		log_error("the triggers cannot be armed on the CPU back online: they watch the "
			  "other CPUs only until the next reload");
	}
	config_diags__clear(&diags);
}

void daemon__stop_triggers(struct daemon *d)
{
	trigger_set__delete(d->triggers);
	d->triggers = NULL;
}

/**
 * daemon__dump_done - log a dump and do what follows it
 * @ctx: the daemon
 * @f: what the dump did
 */
void daemon__dump_done(void *ctx, const struct dump_figures *f)
{
	struct daemon *d = ctx;
	const char *paths[SNAPSHOT_MAX_FILES];

	if (dump_figures__copy(&d->last, f) < 0)
		log_warning("snapshot %s: out of memory: status shows no ring figures", f->stem);
	d->have_last = true;
	if (f->error) {
		d->failures++;
		log__errno(f->error,
			   "snapshot %s (%s) failed at %s: no file of it was kept; "
			   "recording continues",
			   f->stem, f->reason, f->files.failed[0] ? f->files.failed : "its files");
		update_status(d);
		return;
	}
	d->snapshots++;
	snapshot_log__summary(f);
	snapshot_log__stages(f);
	update_status(d);
	for (int i = 0; i < f->files.nr_paths; i++)
		paths[i] = f->files.paths[i];
	/* Where the dump wrote: a reload may have moved the directory since. */
	if (d->up)
		upload__add(d->up, f->directory, f->stem, paths, f->files.nr_paths, time(NULL));
	enforce_retention(d);
	if (d->cfg->post_command)
		post_command__run(d->base, d->cfg->post_command, paths, f->files.nr_paths,
				  d->cfg->post_command_timeout_ms * 1000000ull);
}
