// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_reload: SIGHUP and perfsnapctl reload. The new configuration is
 * applied on the same rings where the capture is unchanged; otherwise new
 * rings open on a thread while the old ones record, and the old recording
 * is retired to finish its dumps. See daemon__reload().
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

static bool same_string(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

/* True when @b can keep @a's rings: same events, sizes, CPUs, side-band and backend. */
static bool same_capture(const struct perfsnapd_config *a, const struct perfsnapd_config *b)
{
	if (a->nr_events != b->nr_events || a->buffer_pages != b->buffer_pages ||
	    a->window_ms != b->window_ms || a->memory != b->memory ||
	    !same_string(a->cpus, b->cpus) || a->sideband != b->sideband ||
	    a->max_tasks != b->max_tasks || a->history_size != b->history_size ||
	    a->backend != b->backend)
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
		daemon__reload_upload(d);
	}
	daemon__update_status(d);
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
static int reopen_idle(struct daemon *d, const struct perfsnapd_config *cfg)
{
	const struct perfsnapd_config *old = d->cfg;
	int r;

	daemon__close_recording(d);
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
static int take_new_recording(struct daemon *d, const struct perfsnapd_config *cfg,
			      struct recording_open *o)
{
	const struct perfsnapd_config *old = d->cfg;
	struct capture *cap = d->cap;
	struct sideband *sb = d->sb;
	struct dump *dump = d->dump;
	int r;

	d->cfg = cfg;
	recording_open__take(o, &d->cap, &d->sb);
	r = daemon__attach_recording(d);
	if (r == 0) {
		struct capture *ncap = d->cap;
		struct sideband *nsb = d->sb;
		struct dump *ndump = d->dump;

		d->cap = cap;
		d->sb = sb;
		d->dump = dump;
		r = daemon__retire_recording(d);
		d->cap = ncap;
		d->sb = nsb;
		d->dump = ndump;
		if (r == 0)
			return 0;
		/* Out of memory: the new recording goes, the old one stays. */
		daemon__close_recording(d);
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
	const struct perfsnapd_config *cfg;
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
	const struct perfsnapd_config *cfg = rl->cfg, *old = d->cfg;
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
		daemon__swap_triggers(d, rl->ts);
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
static void start_reopen(struct daemon *d, const struct perfsnapd_config *cfg,
			 struct trigger_set *ts, struct control_client *client, const char *changes)
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
void daemon__cancel_reload(struct daemon *d)
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
static int apply_same_rings(struct daemon *d, const struct perfsnapd_config *cfg,
			    struct trigger_set *ts, const char *changes)
{
	/* New triggers may bring tracepoints whose formats the capture lacks. */
	int r = capture__update_tracing(d->cap, cfg);

	if (r < 0) {
		trigger_set__delete(ts);
		config__put(cfg);
		return r;
	}
	dump__set_config(d->dump, cfg);
	daemon__swap_triggers(d, ts);
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
	char changes[RELOAD_CHANGES_MAX], helper[5 * PATH_MAX];
	struct config_diags diags = { 0 };
	const struct perfsnapd_config *cfg = NULL;
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
	if (r == 0 && upload__check_helper(cfg, d->upload_socket, helper, sizeof(helper)) < 0) {
		config_diags__add(&diags, d->config_path, 0, "%s", helper);
		config__put(cfg);
		r = -EINVAL;
	}
	/* Triggers first: one the kernel refuses refuses the reload. */
	if (r == 0) {
		r = daemon__new_triggers(d, cfg, &diags, &ts);
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
