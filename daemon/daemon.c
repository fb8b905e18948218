// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon: opening and closing the recording, reloading the configuration,
 * and what follows each dump (log, status, retention, upload, post_command).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "capture.h"
#include "cleanup.h"
#include "config.h"
#include "control.h"
#include "daemon.h"
#include "log.h"
#include "post_command.h"
#include "procinfo.h"
#include "retention.h"
#include "service.h"
#include "sideband.h"
#include "upload.h"
#include "trigger.h"
#include "snapshot_name.h"
#include "tracing_meta.h"

static void update_status(struct daemon *d)
{
	const char *last = !d->have_last ? NULL : d->last.error ? "failed" : d->last.files.paths[0];

	/* STATUS= is one short line: a long path is cut, not the counts. */
	snprintf(d->status, sizeof(d->status),
		 "recording %zu events on %d CPUs; %lu snapshots%s%.300s", d->cfg->nr_events,
		 capture__nr_cpus(d->cap), d->snapshots, last ? "; last " : "", last ? last : "");
	service__status("%s", d->status);
}

/*
 * The tracepoint metadata every snapshot of @cfg needs: the formats of its
 * tracepoints, [capture]'s and the triggers', and the ring-buffer headers
 * when trace.dat is written. Read from tracefs once, not in every dump.
 */
static int read_tracing(const struct perfsnapd_config *cfg, struct tracing_meta **ret)
{
	_cleanup_free_ const char **names = calloc(cfg->nr_events + cfg->nr_triggers + 1,
						   sizeof(*names));
	size_t nr = 0;
	int r = 0;

	*ret = NULL;
	if (!names)
		return log_errno(-ENOMEM, "tracepoint formats");
	for (size_t i = 0; i < cfg->nr_events; i++)
		if (cfg->events[i].is_tracepoint)
			names[nr++] = cfg->events[i].name;
	for (size_t i = 0; i < cfg->nr_triggers; i++)
		if (cfg->triggers[i].kind == TRIGGER_KIND_EVENT)
			names[nr++] = cfg->triggers[i].event.name;
	if (nr || (cfg->formats & SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_TRACEDAT)))
		r = tracing_meta__read(NULL, names, nr, ret);
	return r < 0 ? log_errno(r, "cannot read the tracepoint formats from tracefs") : 0;
}

/**
 * daemon__start_recording - open the events, the side-band and the dumper
 * @d: the daemon, with its configuration loaded
 *
 * Returns 0 or -errno (logged); on failure nothing stays open.
 */
int daemon__start_recording(struct daemon *d)
{
	int r;

	/* Read once here, not inside the first dump. */
	if (procinfo__load_kernel_symbols() < 0)
		log_warning("kernel addresses are hidden (/proc/sys/kernel/kptr_restrict): "
			    "kernel frames will not resolve; run as root or with CAP_SYSLOG");
	r = read_tracing(d->cfg, &d->tracing);
	if (r == 0)
		r = capture__open(d->cfg, &d->cap);
	if (r == 0 && d->cfg->sideband)
		r = sideband__new(d->cap, d->cfg, d->base, &d->sb);
	/* Sampling starts once the side-band knows every task alive. */
	if (r == 0)
		capture__start(d->cap);
	if (r == 0)
		r = dump__new(d->cap, d->sb, d->cfg, &d->compress, d->base, d->argc, d->argv,
			      daemon__dump_done, d, &d->dump);
	if (r == 0)
		dump__set_tracing(d->dump, d->tracing);
	if (r == 0 && d->triggers)
		dump__set_collect(d->dump, trigger_set__collect, d->triggers);
	if (r < 0)
		daemon__stop_recording(d);
	else
		update_status(d);
	return r;
}

/**
 * daemon__stop_recording - finish a dump in flight, then close everything
 * @d: the daemon
 */
void daemon__stop_recording(struct daemon *d)
{
	dump__delete(d->dump);
	d->dump = NULL;
	tracing_meta__put(d->tracing);
	d->tracing = NULL;
	sideband__delete(d->sb);
	d->sb = NULL;
	capture__close(d->cap);
	d->cap = NULL;
}

/**
 * daemon__log_recording - say what is being recorded, once it is
 * @d: the daemon
 */
void daemon__log_recording(struct daemon *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	unsigned long long ring_kib = (unsigned long long)cfg->buffer_pages *
				      (unsigned long long)sysconf(_SC_PAGESIZE) / 1024;

	log_notice("recording %zu events on %d CPUs into %d overwrite rings of %llu KiB "
		   "(%u pages) each; ring copies in up to %llu KiB of memory (%s); side-band %s; "
		   "snapshots go to %s",
		   cfg->nr_events, capture__nr_cpus(d->cap), capture__nr_rings(d->cap, true),
		   ring_kib, cfg->buffer_pages,
		   (unsigned long long)dump__copy_budget(d->dump) / 1024,
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
	if (d->cfg->upload_url && !d->up && upload__new(d->cfg, &d->up) < 0)
		log_error("upload: not started: snapshots stay in %s", d->cfg->directory);
}

void daemon__stop_upload(struct daemon *d)
{
	upload__delete(d->up);
	d->up = NULL;
}

/* After a reload: start, stop or retarget the uploader. */
static void reload_upload(struct daemon *d)
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
		log_errno(err, "cannot remove '%s/%s', left by an earlier run (%" PRIu64 " bytes)",
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
		log_errno(r, "cannot look for temporaries in '%s'", d->cfg->directory);
}

static void enforce_retention(struct daemon *d)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct snapshot_entry *deleted = NULL;
	size_t nr = 0;
	int r;

	if (!cfg->max_snapshots && !cfg->max_total_size)
		return;
	r = retention__enforce_held(cfg->directory, cfg->max_snapshots, cfg->max_total_size,
				    d->up ? upload__held : NULL, d->up, &deleted, &nr);
	if (r < 0)
		log_errno(r, "retention in '%s'", cfg->directory);
	for (size_t i = 0; i < nr; i++) {
		if (d->up && !deleted[i].error)
			upload__forget(d->up, deleted[i].stem);
		if (deleted[i].error)
			log_errno(deleted[i].error, "retention: cannot delete snapshot %s",
				  deleted[i].stem);
		else if (deleted[i].forced)
			log_warning("retention: deleted snapshot %s (%" PRIu64 " bytes) before it "
				    "was uploaded, to keep max_total_size = %" PRIu64,
				    deleted[i].stem, deleted[i].bytes, cfg->max_total_size);
		else
			log_info("retention: deleted snapshot %s (%" PRIu64 " bytes) to keep "
				 "max_snapshots = %u, max_total_size = %" PRIu64,
				 deleted[i].stem, deleted[i].bytes, cfg->max_snapshots,
				 cfg->max_total_size);
	}
	retention__free(deleted, nr);
}

/* " NAME MS" for a stage that happened, in ms after the trigger. */
static void stage(char *buf, size_t size, size_t *len, const char *name, uint64_t trigger,
		  uint64_t at)
{
	int n;

	if (!at || at < trigger || *len >= size)
		return;
	n = snprintf(buf + *len, size - *len, "%s %s %.1f", *len ? "," : "", name,
		     (double)(at - trigger) / 1e6);
	if (n > 0)
		*len = *len + (size_t)n < size ? *len + (size_t)n : size;
}

/*
 * Where a dump's time went, at info level: what to look at when a dump is
 * slow (a disk slow to fsync, a writer starved of CPU).
 */
static void log_stages(const struct dump_report *rep)
{
	char buf[512] = "";
	size_t len = 0;
	uint64_t t = rep->trigger_ns;

	stage(buf, sizeof(buf), &len, "paused", t, rep->first_pause_ns);
	stage(buf, sizeof(buf), &len, "copied", t, rep->copied_ns);
	stage(buf, sizeof(buf), &len, "forward rings read", t, rep->collected_ns);
	stage(buf, sizeof(buf), &len, "merged", t, rep->sealed_ns);
	stage(buf, sizeof(buf), &len, "tasks named", t, rep->named_ns);
	for (int f = 0; f < SNAPSHOT_NR_FILES; f++) {
		char name[64];

		snprintf(name, sizeof(name), "%s written",
			 f == SNAPSHOT_FILE_JSON ? "sidecar" :
						   snapshot_name__format((enum snapshot_file)f));
		stage(buf, sizeof(buf), &len, name, t, rep->files.written_ns[f]);
		stage(buf, sizeof(buf), &len, "synced", t, rep->files.synced_ns[f]);
	}
	stage(buf, sizeof(buf), &len, "in place", t, rep->files.published_ns);
	log_info("snapshot %s: ms after the trigger:%s", rep->stem, buf);
	if (rep->compress_why[0])
		log_info("snapshot %s: compression auto: %s, as %s", rep->stem,
			 rep->compressed ? "zstd" : "none", rep->compress_why);
}

static void log_snapshot(const struct dump_report *rep)
{
	char events[32], bytes[32], paused[32], dumped[32], spread[32], pspread[32];
	struct log_field fields[] = {
		{ "SNAPSHOT_PATH", rep->files.paths[0] },
		{ "SNAPSHOT_EVENTS", events },
		{ "SNAPSHOT_BYTES", bytes },
		{ "PAUSED_USEC", paused },
		{ "DUMP_USEC", dumped },
		{ "RING_PAUSE_USEC", rep->ring_pauses },
		{ "RING_NEWEST_NS", rep->ring_newest },
		{ "NEWEST_SPREAD_USEC", spread },
		{ "PAUSE_SPREAD_USEC", pspread },
		{ "REASON", rep->reason },
		{ "TRIGGER", rep->trigger.name }, /* last: only for a trigger's snapshot */
	};
	size_t nr_fields = sizeof(fields) / sizeof(fields[0]) - !rep->has_trigger;

	snprintf(events, sizeof(events), "%" PRIu64, rep->nr_records);
	snprintf(bytes, sizeof(bytes), "%" PRIu64, rep->files.bytes);
	snprintf(paused, sizeof(paused), "%" PRIu64, rep->blind_max_ns / 1000);
	snprintf(dumped, sizeof(dumped), "%" PRIu64, rep->dump_ns / 1000);
	snprintf(spread, sizeof(spread), "%" PRIu64, rep->newest_spread_ns / 1000);
	snprintf(pspread, sizeof(pspread), "%" PRIu64,
		 (rep->last_pause_ns - rep->first_pause_ns) / 1000);
	log_fields(LOG_NOTICE, fields, nr_fields,
		   "snapshot %s: %" PRIu64 " events, %" PRIu64 " bytes, blind window %" PRIu64
		   " us (longest ring pause; %" PRIu64 " us over all rings), dump %" PRIu64
		   " ms, reason %s%s%s; rings paused %" PRIu64
		   " us after the trigger, within %s us, "
		   "newest records within %s us; pause per ring (CPU:us) %s",
		   rep->files.paths[0], rep->nr_records, rep->files.bytes, rep->blind_max_ns / 1000,
		   rep->blind_total_ns / 1000, rep->dump_ns / 1000000, rep->reason,
		   rep->files.nr_paths > 2 ? ", also " : "",
		   rep->files.nr_paths > 2 ? rep->files.paths[1] : "", rep->pause_delay_ns / 1000,
		   pspread, spread, rep->ring_pauses);
	if (rep->copy_cut_bytes)
		log_warning("snapshot %s: the kernel overwrote the oldest %" PRIu64
			    " bytes of the rings before they were copied; they are left out "
			    "(copy_cut_bytes per ring in the sidecar)",
			    rep->files.paths[0], rep->copy_cut_bytes);
}

static int host_request(void *ctx, const char *reason, const struct snapshot_trigger *what,
			dump_done_fn done, void *done_ctx)
{
	struct daemon *d = ctx;
	int r = dump__trigger_by(d->dump, reason, what, done, done_ctx);

	if (r == -EAGAIN)
		d->refused++;
	return r;
}

/* The sideband's name, else /proc's while the task lives. */
static void host_comm(void *ctx, pid_t tid, uint64_t time, char *buf, size_t size)
{
	struct daemon *d = ctx;
	char path[64];
	FILE *f;

	buf[0] = '\0';
	if (d->sb)
		sideband__comm_now(d->sb, tid, time, buf, size);
	if (buf[0])
		return;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(buf, (int)size, f))
		buf[strcspn(buf, "\n")] = '\0';
	else
		buf[0] = '\0';
	fclose(f);
}

static int new_triggers(struct daemon *d, const struct perfsnapd_config *cfg,
			struct config_diags *diags, struct trigger_set **ret)
{
	const struct trigger_host host = { host_request, host_comm, d };

	return trigger_set__new(cfg, d->base, &host, diags, ret);
}

/* Puts @ts in place of the current set, with its counts. */
static void swap_triggers(struct daemon *d, struct trigger_set *ts)
{
	trigger_set__adopt_counts(ts, d->triggers);
	if (d->dump)
		dump__set_collect(d->dump, trigger_set__collect, ts);
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
	int r = new_triggers(d, d->cfg, diags, &ts);

	if (r == 0)
		swap_triggers(d, ts);
	if (r == 0 && d->cfg->nr_triggers)
		log_info("%zu triggers armed", d->cfg->nr_triggers);
	return r;
}

void daemon__stop_triggers(struct daemon *d)
{
	if (d->dump)
		dump__set_collect(d->dump, NULL, NULL);
	trigger_set__delete(d->triggers);
	d->triggers = NULL;
}

/**
 * daemon__dump_done - log a dump and do what follows it
 * @ctx: the daemon
 * @rep: what the dump did
 */
void daemon__dump_done(void *ctx, const struct dump_report *rep)
{
	struct daemon *d = ctx;
	const char *paths[SNAPSHOT_MAX_FILES];

	d->last = *rep;
	d->have_last = true;
	/* A reload held back by this dump applies now (outside the dumper's call). */
	if (d->deferred_cfg)
		event_active(d->reopen_ev, 0, 0);
	if (rep->error) {
		d->failures++;
		log_errno(rep->error,
			  "snapshot %s (%s) failed writing %s: no file of it was kept; "
			  "recording continues",
			  rep->stem, rep->reason,
			  rep->files.failed[0] ? rep->files.failed : "its files");
		update_status(d);
		return;
	}
	d->snapshots++;
	log_snapshot(rep);
	log_stages(rep);
	update_status(d);
	if (d->up) {
		for (int i = 0; i < rep->files.nr_paths; i++)
			paths[i] = rep->files.paths[i];
		upload__add(d->up, d->cfg->directory, rep->stem, paths, rep->files.nr_paths,
			    time(NULL));
	}
	enforce_retention(d);
	if (d->cfg->post_command) {
		for (int i = 0; i < rep->files.nr_paths; i++)
			paths[i] = rep->files.paths[i];
		post_command__run(d->base, d->cfg->post_command, paths, rep->files.nr_paths,
				  d->cfg->post_command_timeout_ms * 1000000ull);
	}
}

static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* True when @b can keep @a's rings: same events, sizes, CPUs and side-band. */
static bool same_capture(const struct perfsnapd_config *a, const struct perfsnapd_config *b)
{
	if (a->nr_events != b->nr_events || a->buffer_pages != b->buffer_pages ||
	    !same_string(a->cpus, b->cpus) || a->sideband != b->sideband ||
	    a->max_tasks != b->max_tasks || a->history_size != b->history_size)
		return false;
	for (size_t i = 0; i < a->nr_events; i++)
		if (strcmp(a->events[i].name, b->events[i].name) ||
		    a->events[i].overwrite != b->events[i].overwrite ||
		    memcmp(&a->events[i].attr, &b->events[i].attr, sizeof(a->events[i].attr)))
			return false;
	return true;
}

static void report_diags(const struct config_diags *diags, struct control_reply *reply)
{
	size_t more = diags->nr > CONFIG_DIAGS_PRINT_MAX ? diags->nr - CONFIG_DIAGS_PRINT_MAX : 0;

	for (size_t i = 0; i < diags->nr && i < CONFIG_DIAGS_PRINT_MAX; i++) {
		const struct config_diag *g = &diags->items[i];

		log_error("reload refused: %s:%d: %s", g->file, g->line, g->message);
		if (reply)
			control_reply__add(reply, "%s:%d: %s", g->file, g->line, g->message);
	}
	if (more) {
		log_error("reload refused: ... and %zu more errors", more);
		if (reply)
			control_reply__add(reply, "... and %zu more errors", more);
	}
}

/* New events or sizes: close the rings and open new ones (history is lost). */
static int reopen(struct daemon *d, struct perfsnapd_config *cfg, struct trigger_set *ts)
{
	struct perfsnapd_config *old = d->cfg;
	struct trigger_set *old_ts = d->triggers;
	int r;

	daemon__stop_recording(d);
	d->cfg = cfg;
	d->triggers = ts;
	r = daemon__start_recording(d);
	if (r == 0) {
		trigger_set__adopt_counts(ts, old_ts);
		trigger_set__delete(old_ts);
		config__delete(old);
		return 0;
	}
	/* The new set cannot be opened: go back to what worked. */
	log_error("reload: the new event set cannot be opened; reopening the previous one");
	d->triggers = old_ts;
	trigger_set__delete(ts);
	d->cfg = old;
	config__delete(cfg);
	if (daemon__start_recording(d) < 0) {
		log_error("reload: the previous event set cannot be reopened either: stopping");
		event_base_loopbreak(d->base);
	}
	return r;
}

static int apply_reopen(struct daemon *d, struct perfsnapd_config *cfg, struct trigger_set *ts)
{
	int r = reopen(d, cfg, ts);

	if (r == 0)
		daemon__log_recording(d);
	log_notice("reloaded '%s': %s", d->config_path,
		   r == 0 ? "event set or ring sizes changed: rings reopened, history before the "
			    "reload is gone" :
			    "failed, previous configuration restored");
	return r;
}

/* Loop: the dump that held back a reopen has reported. */
static void on_deferred_reopen(evutil_socket_t fd, short what, void *arg)
{
	struct daemon *d = arg;
	struct perfsnapd_config *cfg = d->deferred_cfg;
	struct trigger_set *ts = d->deferred_ts;

	(void)fd;
	(void)what;
	/* A dump that was pending started right after: its report fires this again. */
	if (!cfg || dump__busy(d->dump))
		return;
	d->deferred_cfg = NULL;
	d->deferred_ts = NULL;
	if (apply_reopen(d, cfg, ts) == 0) {
		if (d->ctl)
			control__set_group(d->ctl, d->cfg->control_group, d->cfg->control_gid);
		reload_upload(d);
	}
	update_status(d);
	service__ready(d->status);
}

/*
 * The dump in flight reads the rings: closing them now would make the
 * loop wait for it. The newest configuration waits instead and applies
 * when that dump reports; the loop runs on meanwhile.
 */
static int defer_reopen(struct daemon *d, struct perfsnapd_config *cfg, struct trigger_set *ts)
{
	if (!d->reopen_ev) {
		d->reopen_ev = event_new(d->base, -1, 0, on_deferred_reopen, d);
		if (!d->reopen_ev) {
			trigger_set__delete(ts);
			config__delete(cfg);
			return log_errno(-ENOMEM, "reload");
		}
	}
	trigger_set__delete(d->deferred_ts);
	config__delete(d->deferred_cfg);
	d->deferred_cfg = cfg;
	d->deferred_ts = ts;
	log_notice("reloading '%s': event set or ring sizes changed; the rings reopen when "
		   "the dump in flight is done",
		   d->config_path);
	return 0;
}

/**
 * daemon__drop_deferred_reload - forget a reload still waiting for a dump
 * @d: the daemon
 */
void daemon__drop_deferred_reload(struct daemon *d)
{
	trigger_set__delete(d->deferred_ts);
	d->deferred_ts = NULL;
	config__delete(d->deferred_cfg);
	d->deferred_cfg = NULL;
	if (d->reopen_ev)
		event_free(d->reopen_ev);
	d->reopen_ev = NULL;
}

/**
 * daemon__reload - re-read the configuration file
 * @d: the daemon
 * @reply: a control client's reply to fill in, or NULL (SIGHUP)
 *
 * Settings that do not touch the event set or ring sizes apply with the
 * same rings, so no history is lost; others reopen the rings, and say so.
 * Returns 0 or -errno.
 */
int daemon__reload(struct daemon *d, struct control_reply *reply)
{
	struct config_diags diags = { 0 };
	struct perfsnapd_config *cfg = NULL;
	struct tracing_meta *tracing = NULL;
	struct trigger_set *ts = NULL;
	int r;

	service__reloading();
	r = config__load(d->config_path, NULL, &cfg, &diags);
	/* Triggers first: one the kernel refuses refuses the reload. */
	if (r == 0) {
		r = new_triggers(d, cfg, &diags, &ts);
		if (r < 0) {
			config__delete(cfg);
			if (r != -EINVAL)
				config_diags__add(&diags, d->config_path, 0,
						  "the triggers cannot be opened: %s",
						  strerror(-r));
		}
	}
	if (r < 0) {
		report_diags(&diags, reply);
		config_diags__clear(&diags);
		service__ready(d->status);
		if (reply)
			return control_reply__fail(reply, -EINVAL,
						   "configuration '%s' refused; the old one stays",
						   d->config_path);
		return -EINVAL;
	}
	if (d->deferred_cfg || (!same_capture(d->cfg, cfg) && dump__busy(d->dump))) {
		/* The newest configuration is the one that applies. */
		r = defer_reopen(d, cfg, ts);
		if (r == 0 && reply)
			control_reply__add(reply, "reloading: the rings reopen when the dump in "
						  "flight is done (events or sizes changed)");
		service__ready(d->status);
		return r;
	}
	if (same_capture(d->cfg, cfg)) {
		/* New triggers may bring tracepoints: their formats, read once now. */
		r = read_tracing(cfg, &tracing);
		if (r < 0) {
			trigger_set__delete(ts);
			config__delete(cfg);
			service__ready(d->status);
			return reply ? control_reply__fail(reply, r,
							   "cannot read the tracepoint formats; "
							   "the old configuration stays") :
				       r;
		}
		tracing_meta__put(d->tracing);
		d->tracing = tracing;
		dump__set_tracing(d->dump, tracing);
		dump__set_config(d->dump, cfg);
		swap_triggers(d, ts);
		config__delete(d->cfg);
		d->cfg = cfg;
		log_notice("reloaded '%s': same events and rings, history kept", d->config_path);
		if (reply)
			control_reply__add(reply, "reloaded: same rings, history kept");
	} else {
		r = apply_reopen(d, cfg, ts);
		if (reply && r == 0)
			control_reply__add(reply,
					   "reloaded: rings reopened (events or sizes changed)");
	}
	if (d->ctl && r == 0)
		control__set_group(d->ctl, d->cfg->control_group, d->cfg->control_gid);
	if (r == 0)
		reload_upload(d);
	update_status(d);
	service__ready(d->status);
	return r;
}
