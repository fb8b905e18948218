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

#include <event2/event.h>

#include "capture.h"
#include "config.h"
#include "config_value.h"
#include "control.h"
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

/* Finishes the current dumper's dump in flight, then closes its recording. */
static void close_recording(struct daemon *d)
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

/*
 * Loop: the side-band watches its rings, sampling starts, and a dumper
 * takes the rings of d->cap and d->sb, just opened. On failure they close.
 */
static int attach_recording(struct daemon *d)
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
		close_recording(d);
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
	return r < 0 ? r : attach_recording(d);
}

/* A recording a reload replaced while it dumped: it closes once its dumper is gone. */
struct retired_recording {
	struct daemon *d;
	struct capture *cap;
	struct sideband *sb;
	struct dump *dump;
	struct retired_recording *next;
};

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

/*
 * Hands the current recording to its dumper to finish what it has started,
 * and forgets it. Returns 0 or -ENOMEM.
 */
static int retire_recording(struct daemon *d)
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

static void cancel_reload(struct daemon *d);

/**
 * daemon__stop_recording - finish the dumps in flight, then close everything
 * @d: the daemon
 *
 * A reload still opening its rings is given up.
 */
void daemon__stop_recording(struct daemon *d)
{
	cancel_reload(d);
	close_recording(d);
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
			   capture__nr_rings(d->cap, true), ring_kib, pages,
			   (double)cfg->window_ms / 1e3, mem, d->sb ? "on" : "off", cfg->directory);
		return;
	}
	log_notice("recording %zu events on %d CPUs into %d overwrite rings of %llu KiB "
		   "(%u pages) each; ring copies in up to %llu KiB of memory (%s); side-band %s; "
		   "snapshots go to %s",
		   cfg->nr_events, capture__nr_cpus(d->cap), capture__nr_rings(d->cap, true),
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
static void log_stages(const struct dump_figures *f)
{
	char buf[512] = "";
	size_t len = 0;
	uint64_t t = f->trigger_at_ns;

	stage(buf, sizeof(buf), &len, "paused", t, f->first_pause_at_ns);
	stage(buf, sizeof(buf), &len, "copied", t, f->copied_at_ns);
	stage(buf, sizeof(buf), &len, "forward rings read", t, f->collected_at_ns);
	stage(buf, sizeof(buf), &len, "merged", t, f->sealed_at_ns);
	stage(buf, sizeof(buf), &len, "tasks named", t, f->named_at_ns);
	for (int k = 0; k < SNAPSHOT_NR_FILES; k++) {
		char name[64];

		snprintf(name, sizeof(name), "%s written",
			 k == SNAPSHOT_FILE_JSON    ? "sidecar" :
			 k == SNAPSHOT_FILE_SYMBOLS ? "symbol pack" :
						      snapshot_name__format((enum snapshot_file)k));
		stage(buf, sizeof(buf), &len, name, t, f->files.written_at_ns[k]);
		stage(buf, sizeof(buf), &len, "synced", t, f->files.synced_at_ns[k]);
	}
	stage(buf, sizeof(buf), &len, "in place", t, f->files.published_at_ns);
	log_debug("snapshot %s: ms after the trigger:%s", f->stem, buf);
	if (f->compress_why[0])
		log_info("snapshot %s: %s: %s", f->stem,
			 f->compressed ? "compressed with zstd" : "not compressed",
			 f->compress_why);
}

/* @bytes as an operator reads it: "812 KiB", "12.9 MiB", "1.2 GiB". */
static void format_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes < (1ull << 20))
		snprintf(buf, size, "%" PRIu64 " KiB", (bytes + 1023) / 1024);
	else if (bytes < (1ull << 30))
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1 << 20));
	else
		snprintf(buf, size, "%.1f GiB", (double)bytes / (1 << 30));
}

/* [capture] window: the CPUs whose history in the snapshot is short of it. */
static void log_short(const struct dump_figures *f)
{
	for (size_t i = 0; i < f->nr_rings; i++) {
		bool said = false;

		for (size_t k = 0; k < i; k++)
			said = said || f->rings[k].cpu == f->rings[i].cpu;
		if (!said && dump_figures__short(f, i))
			log_warning("snapshot %s: window: cpu%d reaches %.3f s of %.3f s (short)",
				    f->stem, f->rings[i].cpu, (double)f->rings[i].reach_ns / 1e9,
				    (double)f->window_ns / 1e9);
	}
}

/*
 * One short line per snapshot: where, how much, how long, how blind, why.
 * The rest goes to the journal's fields and a debug line (and is in the
 * sidecar and `perfsnapctl status`).
 */
static void log_snapshot(const struct dump_figures *f)
{
	char events[32], bytes[32], paused[32], total[32], delay[32], dumped[32], spread[32];
	char pspread[32], size[32], pauses[512], newest[1024], duration[32], key[32];
	struct log_field fields[] = {
		{ "SNAPSHOT_PATH", f->files.paths[0] },
		{ "SNAPSHOT_EVENTS", events },
		{ "SNAPSHOT_BYTES", bytes },
		{ "PAUSED_USEC", paused },
		{ "PAUSED_TOTAL_USEC", total },
		{ "PAUSE_DELAY_USEC", delay },
		{ "DUMP_USEC", dumped },
		{ "RING_PAUSE_USEC", pauses },
		{ "RING_NEWEST_NS", newest },
		{ "NEWEST_SPREAD_USEC", spread },
		{ "PAUSE_SPREAD_USEC", pspread },
		{ "REASON", f->reason },
		{ "TRIGGER", f->trigger.name },	     /* from here: only for a trigger's snapshot */
		{ "TRIGGER_DURATION_NS", duration }, /* from here: only for a paired trigger's */
		{ "TRIGGER_KEY", key },
	};
	bool paired = f->has_trigger && !strcmp(f->trigger.kind, "paired");
	size_t nr_fields = sizeof(fields) / sizeof(fields[0]) - !paired * 2 - !f->has_trigger;
	uint64_t cut = dump_figures__cut_bytes(f), blind = dump_figures__blind_max_ns(f);

	snprintf(duration, sizeof(duration), "%" PRIu64, f->trigger.duration_ns);
	snprintf(key, sizeof(key), "%" PRId64, (int64_t)f->trigger.key);
	dump_figures__format_pauses(f, pauses, sizeof(pauses));
	dump_figures__format_newest(f, newest, sizeof(newest));
	snprintf(events, sizeof(events), "%" PRIu64, f->nr_records);
	snprintf(bytes, sizeof(bytes), "%" PRIu64, f->files.bytes);
	snprintf(paused, sizeof(paused), "%" PRIu64, blind / 1000);
	snprintf(total, sizeof(total), "%" PRIu64, dump_figures__blind_total_ns(f) / 1000);
	snprintf(delay, sizeof(delay), "%" PRIu64, dump_figures__pause_delay_ns(f) / 1000);
	snprintf(dumped, sizeof(dumped), "%" PRIu64, f->dump_ns / 1000);
	snprintf(spread, sizeof(spread), "%" PRIu64, dump_figures__newest_spread_ns(f) / 1000);
	snprintf(pspread, sizeof(pspread), "%" PRIu64, dump_figures__pause_spread_ns(f) / 1000);
	format_size(f->files.bytes, size, sizeof(size));
	log_fields(LOG_NOTICE, fields, nr_fields,
		   "snapshot %s: %" PRIu64 " events, %s in %d files, dump %" PRIu64
		   " ms, blind %.1f ms, reason %s",
		   f->files.paths[0], f->nr_records, size, f->files.nr_paths, f->dump_ns / 1000000,
		   (double)blind / 1e6, f->reason);
	log_debug("snapshot %s: blind window %" PRIu64 " us (longest ring pause; %s us over all "
		  "rings); rings paused %s us after the trigger, within %s us; newest records "
		  "within %s us; pause per ring (CPU:us) %s",
		  f->stem, blind / 1000, total, delay, pspread, spread, pauses);
	log_short(f);
	if (cut)
		log_warning("snapshot %s: the kernel overwrote the oldest %" PRIu64
			    " bytes of the rings before they were copied; they are left out "
			    "(copy_cut_bytes per ring in the sidecar)",
			    f->files.paths[0], cut);
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

/* The side-band's name, else /proc's while the task lives. */
static void host_comm(void *ctx, pid_t tid, uint64_t time, char *buf, size_t size)
{
	struct daemon *d = ctx;

	buf[0] = '\0';
	if (d->sb)
		sideband__comm_now(d->sb, tid, time, buf, size);
	if (!buf[0] && procinfo__read_comm(tid, tid, buf, size) < 0)
		buf[0] = '\0';
}

static int new_triggers(struct daemon *d, struct perfsnapd_config *cfg, struct config_diags *diags,
			struct trigger_set **ret)
{
	const struct trigger_host host = { host_request, host_comm, d };

	return trigger_set__new(cfg, d->base, &host, diags, ret);
}

/* Puts @ts in place of the current set, with its counts and kept matches. */
static void swap_triggers(struct daemon *d, struct trigger_set *ts)
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
	int r = new_triggers(d, d->cfg, diags, &ts);

	if (r == 0)
		swap_triggers(d, ts);
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
	if (new_triggers(d, d->cfg, &diags, &ts) == 0) {
		swap_triggers(d, ts);
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
		log_errno(f->error,
			  "snapshot %s (%s) failed at %s: no file of it was kept; "
			  "recording continues",
			  f->stem, f->reason, f->files.failed[0] ? f->files.failed : "its files");
		update_status(d);
		return;
	}
	d->snapshots++;
	log_snapshot(f);
	log_stages(f);
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

static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* True when @b can keep @a's rings: same events, sizes, CPUs and side-band. */
static bool same_capture(const struct perfsnapd_config *a, const struct perfsnapd_config *b)
{
	if (a->nr_events != b->nr_events || a->buffer_pages != b->buffer_pages ||
	    a->window_ms != b->window_ms || a->memory != b->memory ||
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

/* What a reload changed, for its log line and its client. */
#define RELOAD_CHANGES_MAX 256

/* "changed: [snapshot] max_snapshots, ...", or "nothing changed", into @buf. */
static void describe_changes(const struct perfsnapd_config *old, const struct perfsnapd_config *new,
			     char *buf, size_t size)
{
	size_t len = strlen("changed: ");
	int n;

	memcpy(buf, "changed: ", len); /* @size: RELOAD_CHANGES_MAX */
	n = config__changes(old, new, buf + len, size - len);
	if (n == 0)
		snprintf(buf, size, "nothing changed");
	else if (n < 0)
		snprintf(buf, size, "changes not known: %s", strerror(-n));
}

static void report_diags(const struct config_diags *diags, struct control_client *client)
{
	size_t more = diags->nr > CONFIG_DIAGS_PRINT_MAX ? diags->nr - CONFIG_DIAGS_PRINT_MAX : 0;

	for (size_t i = 0; i < diags->nr && i < CONFIG_DIAGS_PRINT_MAX; i++) {
		const struct config_diag *g = &diags->items[i];

		log_error("reload refused: %s:%d: %s", g->file, g->line, g->message);
		if (client)
			control_client__add_line(client, "%s:%d: %s", g->file, g->line, g->message);
	}
	if (more) {
		log_error("reload refused: ... and %zu more errors", more);
		if (client)
			control_client__add_line(client, "... and %zu more errors", more);
	}
}

/*
 * Ends every reload: STATUS=, READY=1, and the client's answer: @fmt is
 * its last line ("ok" follows) or the text of its error.
 */
static void __attribute__((format(printf, 4, 5)))
reload_end(struct daemon *d, struct control_client *client, int r, const char *fmt, ...)
{
	char text[CONTROL_MAX_LINE];
	va_list ap;

	if (r == 0) {
		if (d->ctl)
			control__set_group(d->ctl, d->cfg->control_group, d->cfg->control_gid);
		reload_upload(d);
	}
	update_status(d);
	service__ready(d->status);
	if (!client)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (r == 0)
		control_client__add_line(client, "%s", text);
	control_client__done(client, r, "%s", text);
}

/*
 * New events or sizes, the new rings not open beside the old ones, the
 * dumper idle: close the rings and open new ones on the loop (history is
 * lost). Should they fail to open, the old ones reopen. Takes @cfg.
 */
static int reopen_idle(struct daemon *d, struct perfsnapd_config *cfg)
{
	struct perfsnapd_config *old = d->cfg;
	int r;

	close_recording(d);
	d->cfg = cfg;
	r = daemon__start_recording(d);
	if (r == 0) {
		config__put(old);
		return 0;
	}
	log_error("reload: the new event set cannot be opened; reopening the previous one");
	d->cfg = old;
	config__put(cfg);
	if (daemon__start_recording(d) < 0) {
		log_error("reload: the previous event set cannot be reopened either: stopping");
		event_base_loopbreak(d->base);
	}
	return r;
}

/*
 * The new rings, opened beside the old ones, take over: the old recording
 * retires (dump__retire()), finishing the dump in flight and the one
 * pending on the rings they were asked of. Returns 0, or -errno with the
 * old recording untouched and the new one closed.
 */
static int take_new_recording(struct daemon *d, struct perfsnapd_config *cfg,
			      struct recording_open *o)
{
	struct perfsnapd_config *old = d->cfg;
	struct capture *cap = d->cap;
	struct sideband *sb = d->sb;
	struct dump *dump = d->dump;
	int r;

	d->cfg = cfg;
	recording_open__take(o, &d->cap, &d->sb);
	r = attach_recording(d);
	if (r == 0) {
		struct capture *ncap = d->cap;
		struct sideband *nsb = d->sb;
		struct dump *ndump = d->dump;

		d->cap = cap;
		d->sb = sb;
		d->dump = dump;
		r = retire_recording(d);
		d->cap = ncap;
		d->sb = nsb;
		d->dump = ndump;
		if (r == 0)
			return 0;
		/* Out of memory: the new recording goes, the old one stays. */
		close_recording(d);
	}
	d->cfg = old;
	d->cap = cap;
	d->sb = sb;
	d->dump = dump;
	return r;
}

/* Failures to open the rings beside the old ones that closing the old ones may cure. */
static bool lacks_room(int err)
{
	return err == -ENOMEM || err == -EMFILE || err == -ENFILE || err == -EPERM ||
	       err == -ENOSPC;
}

/* A reload with new events or sizes: its rings open on a thread (recording_open). */
struct reload {
	struct perfsnapd_config *cfg;
	struct trigger_set *ts;
	struct control_client *client; /* or NULL (SIGHUP) */
	struct recording_open *open;
	char changes[RELOAD_CHANGES_MAX]; /* describe_changes() */
};

static void reload_free(struct reload *rl)
{
	recording_open__delete(rl->open);
	trigger_set__delete(rl->ts);
	config__put(rl->cfg);
	free(rl);
}

/* Loop: the new rings are open (@err 0) or could not be. */
static void finish_reopen(struct daemon *d, struct reload *rl, int err)
{
	struct perfsnapd_config *cfg = rl->cfg, *old = d->cfg;
	bool busy = dump__busy(d->dump);
	bool kept = true; /* the old recording runs on */
	int r = err;

	if (r == 0)
		r = take_new_recording(d, cfg, rl->open);
	if (r == 0) {
		config__put(old);
		rl->cfg = NULL;
		if (busy)
			log_notice("reload: the dump in flight finishes on the old rings");
	} else if (!busy && lacks_room(r)) {
		log_warning("reload: the new rings cannot be opened beside the old ones (%s): "
			    "closing the old ones first",
			    strerror(-r));
		rl->cfg = NULL;
		r = reopen_idle(d, cfg);
		kept = false;
	}
	if (r == 0) {
		swap_triggers(d, rl->ts);
		rl->ts = NULL;
		daemon__log_recording(d);
	}
	log_notice("reloaded '%s': %s; %s", d->config_path,
		   r == 0 ? "event set or ring sizes changed: rings reopened, history before the "
			    "reload is gone" :
		   kept	  ? "refused, the previous configuration stays" :
			    "failed, previous configuration restored",
		   rl->changes);
	if (r == 0)
		reload_end(d, rl->client, 0, "reloaded: rings reopened; %s", rl->changes);
	else
		reload_end(d, rl->client, r, "the new rings cannot be opened: %s; %s", strerror(-r),
			   kept ? "the previous configuration stays" :
				  "the previous configuration is restored");
	rl->client = NULL;
}

static void on_reopened(void *ctx, int err)
{
	struct daemon *d = ctx;
	struct reload *rl = d->reloading;

	finish_reopen(d, rl, err);
	d->reloading = NULL;
	reload_free(rl);
	/* A SIGHUP that came meanwhile reads the file again. */
	if (d->reload_again) {
		d->reload_again = false;
		daemon__reload(d, NULL);
	}
}

/*
 * New events or sizes: the new rings open on a thread, beside the old
 * ones, which record on, and take over when they are ready; the loop waits
 * neither for the kernel nor for the dump in flight. Takes @cfg and @ts.
 */
static void start_reopen(struct daemon *d, struct perfsnapd_config *cfg, struct trigger_set *ts,
			 struct control_client *client, const char *changes)
{
	struct reload *rl = calloc(1, sizeof(*rl));
	int r;

	if (!rl) {
		trigger_set__delete(ts);
		config__put(cfg);
		reload_end(d, client, -ENOMEM, "out of memory; the previous configuration stays");
		return;
	}
	*rl = (struct reload){ .cfg = cfg, .ts = ts, .client = client };
	snprintf(rl->changes, sizeof(rl->changes), "%s", changes);
	r = recording_open__start(cfg, d->base, on_reopened, d, &rl->open);
	d->reloading = rl;
	if (r < 0)
		on_reopened(d, r);
}

/* The reload in flight, if any, ends: at exit. */
static void cancel_reload(struct daemon *d)
{
	struct reload *rl = d->reloading;

	if (!rl)
		return;
	d->reloading = NULL;
	if (rl->client)
		control_client__done(rl->client, -ECANCELED, "perfsnapd is stopping");
	reload_free(rl);
}

/*
 * Same events and rings: the new configuration takes over at once, dumps
 * in flight keep the one they started with. Returns 0 or -errno (logged).
 */
static int apply_same_rings(struct daemon *d, struct perfsnapd_config *cfg, struct trigger_set *ts,
			    const char *changes)
{
	/* New triggers may bring tracepoints whose formats the capture lacks. */
	int r = capture__update_tracing(d->cap, cfg);

	if (r < 0) {
		trigger_set__delete(ts);
		config__put(cfg);
		return r;
	}
	dump__set_config(d->dump, cfg);
	swap_triggers(d, ts);
	config__put(d->cfg);
	d->cfg = cfg;
	log_notice("reloaded '%s': same events and rings, history kept; %s", d->config_path,
		   changes);
	return 0;
}

/**
 * daemon__reload - re-read the configuration file
 * @d: the daemon
 * @client: the control client to answer, or NULL (SIGHUP)
 *
 * Settings that do not touch the event set or ring sizes apply with the
 * same rings, so no history is lost; others reopen the rings, and say so.
 * The loop waits neither for a dump in flight nor for new rings to open:
 * @client is answered when the reload is done. One reload runs at a time.
 */
void daemon__reload(struct daemon *d, struct control_client *client)
{
	char changes[RELOAD_CHANGES_MAX];
	struct config_diags diags = { 0 };
	struct perfsnapd_config *cfg = NULL;
	struct trigger_set *ts = NULL;
	int r;

	if (d->reloading) {
		if (client)
			control_client__done(client, -EBUSY,
					     "a reload is opening new rings; try again when it "
					     "is done");
		else
			d->reload_again = true; /* the file may have changed since */
		return;
	}
	service__reloading();
	r = config__load(d->config_path, NULL, &cfg, &diags);
	/* Triggers first: one the kernel refuses refuses the reload. */
	if (r == 0) {
		r = new_triggers(d, cfg, &diags, &ts);
		if (r < 0) {
			config__put(cfg);
			if (r != -EINVAL)
				config_diags__add(&diags, d->config_path, 0,
						  "the triggers cannot be opened: %s",
						  strerror(-r));
		}
	}
	if (r < 0) {
		report_diags(&diags, client);
		config_diags__clear(&diags);
		reload_end(d, client, -EINVAL, "configuration '%s' refused; the old one stays",
			   d->config_path);
		return;
	}
	describe_changes(d->cfg, cfg, changes, sizeof(changes));
	if (!same_capture(d->cfg, cfg)) {
		start_reopen(d, cfg, ts, client, changes);
		return;
	}
	r = apply_same_rings(d, cfg, ts, changes);
	if (r < 0)
		reload_end(d, client, r,
			   "cannot read the tracepoint formats; the old configuration stays");
	else
		reload_end(d, client, 0, "reloaded: same rings, history kept; %s", changes);
}
