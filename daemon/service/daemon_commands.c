// SPDX-License-Identifier: GPL-2.0-only
/*
 * daemon_commands: the daemon's answers to perfsnapctl over the control
 * socket: dump (answered when the dump is done), status, list, reload.
 * status and list show each snapshot's upload state when [upload] is on.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "capture_backend.h"
#include "capture_tracefs.h"
#include "config.h"
#include "config_value.h"
#include "control.h"
#include "control_range.h"
#include "daemon.h"
#include "log.h"
#include "member_budget.h"
#include "monotonic.h"
#include "retention.h"
#include "ring_sizer.h"
#include "sideband.h"
#include "upload.h"
#include "trigger.h"
#include "trigger_paired.h"

static void dump_answered(void *ctx, const struct dump_figures *rep)
{
	struct control_client *client = ctx;

	if (rep->error && rep->range.note[0]) {
		control_client__done(client, rep->error, "snapshot not written: %s",
				     rep->range.note);
		return;
	}
	if (rep->error) {
		control_client__done(client, rep->error, "snapshot failed: %s",
				     strerror(-rep->error));
		return;
	}
	for (int i = 0; i < rep->files.nr_paths; i++)
		control_client__add_line(client, "%s", rep->files.paths[i]);
	/* perfsnapctl prints it apart from the paths (stderr). */
	if (rep->range.note[0])
		control_client__add_line(client, "note: %s", rep->range.note);
	control_client__done(client, 0, NULL);
}

/*
 * A member of the control group (not root) asking for a dump: within its
 * own hourly budget, and leaving a quarter of max_per_hour to triggers
 * and root. Answers @client when refused.
 */
static bool member_may_dump(struct daemon *d, struct control_client *client, uid_t uid)
{
	unsigned int max = d->cfg->max_per_hour, reserve = (max + 3) / 4;
	uint64_t wait = 0;
	int r;

	if (uid == 0)
		return true;
	if (!d->members && !(d->members = member_budget__new())) {
		control_client__done(client, -ENOMEM, NULL);
		return false;
	}
	r = member_budget__check(d->members, uid, d->cfg->control_member_max_per_hour,
				 monotonic_ns(), &wait);
	if (r == -EDQUOT)
		control_client__done(client, r,
				     "refused: uid %u has asked for its %u dumps of the last hour "
				     "([control] member_max_per_hour); the next in %llu s",
				     (unsigned int)uid, d->cfg->control_member_max_per_hour,
				     (unsigned long long)(wait / 1000000000 + 1));
	else if (r < 0)
		control_client__done(client, r,
				     "refused: %d members have dumped in the last hour, the most "
				     "perfsnapd keeps count of",
				     MEMBER_BUDGET_UIDS);
	else if (max && d->dump && dump__starts_last_hour(d->dump) + reserve >= max)
		control_client__done(client, -EAGAIN,
				     "refused: the last %u of max_per_hour = %u are kept for "
				     "triggers and root",
				     reserve, max);
	else
		return true;
	d->refused++;
	return false;
}

static void member_charge(struct daemon *d, uid_t uid)
{
	if (uid != 0 && d->members && d->cfg->control_member_max_per_hour)
		member_budget__charge(d->members, uid, monotonic_ns());
}

/* "dump [--since=T] [--until=T] [--max-size=N] [--] [reason]": the window first. */
static void ctl_dump(void *ctx, const char *args, struct control_client *client)
{
	struct daemon *d = ctx;
	char why[128], err[CONTROL_RANGE_ERROR_MAX];
	struct control_range w;
	const char *reason = "";
	struct snapshot_origin origin = { .kind = SNAPSHOT_ORIGIN_CONTROL };
	struct timespec now;
	pid_t pid;
	uid_t uid;
	int r;

	r = control_range__parse_options(args ? args : "", &w, &reason, err, sizeof(err));
	clock_gettime(CLOCK_REALTIME, &now);
	if (r == 0)
		r = control_range__check(&w, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, err,
					 sizeof(err));
	if (r < 0) {
		control_client__done(client, r, "dump: %s", err);
		return;
	}
	/* The operator's words as written; who asked is the origin's. */
	snprintf(why, sizeof(why), "%s", *reason ? reason : "perfsnapctl");
	control_client__peer(client, &pid, &uid);
	if (!member_may_dump(d, client, uid))
		return;
	origin.pid = (int32_t)pid;
	origin.uid = uid;
	r = dump__request(d->dump, why, &origin, NULL, control_range__is_set(&w) ? &w : NULL,
			  dump_answered, client);
	if (r >= 0)
		member_charge(d, uid);
	if (r == -EAGAIN) {
		d->refused++;
		control_client__done(client, r, "refused: max_per_hour = %u reached",
				     d->cfg->max_per_hour);
	} else if (r < 0) {
		control_client__done(client, r, NULL);
	}
}

/* Most snapshots status names one by one as not yet uploaded. */
#define STATUS_MAX_WAITING 20

static void status_waiting(void *ctx, const char *stem, const struct upload_info *info)
{
	struct control_reply *reply = ctx;

	if (info->error[0])
		control_reply__add(reply, "upload %s: %s: %u attempts, last error: %s",
				   upload_state__name(info->state), stem, info->attempts,
				   info->error);
	else
		control_reply__add(reply, "upload %s: %s", upload_state__name(info->state), stem);
}

static void status_upload(struct daemon *d, struct control_reply *reply)
{
	const struct perfsnapd_config *cfg = d->cfg;
	struct upload_summary sum;

	if (!d->up) {
		control_reply__add(reply, "upload: %s",
				   cfg->upload_url ? "configured but not running (see the log)" :
						     "off");
		return;
	}
	upload__summary(d->up, &sum);
	control_reply__add(reply, "upload: s3://%s/%s at %s", cfg->upload_bucket,
			   cfg->upload_prefix, cfg->upload_endpoint);
	control_reply__add(reply, "uploads: %zu pending, %zu failing, %zu failed, %zu uploaded",
			   sum.pending, sum.failing, sum.failed, sum.uploaded);
	upload__foreach_waiting(d->up, STATUS_MAX_WAITING, status_waiting, reply);
}

static void ctl_trigger(void *ctx, const char *name, struct control_client *client)
{
	struct daemon *d = ctx;
	char why[256] = "";
	pid_t pid;
	uid_t uid;
	int r;

	control_client__peer(client, &pid, &uid);
	if (!member_may_dump(d, client, uid))
		return;
	r = d->triggers ?
		    trigger_set__fire(d->triggers, name, dump_answered, client, why, sizeof(why)) :
		    -ENOENT;
	if (r >= 0)
		member_charge(d, uid);
	if (r == -ENOENT)
		control_client__done(client, r, "no trigger '%s' in %s", name, d->cfg->path);
	else if (r < 0)
		control_client__done(client, r, "trigger %s: %s", name, *why ? why : strerror(-r));
}

/* A paired trigger's pairs, and its distribution as runqlat prints it. */
static void status_paired(struct daemon *d, size_t idx, const struct trigger_spec *sp,
			  struct control_reply *reply)
{
	struct paired_figures f;
	char line[128], lost[40] = "", late[40] = "";
	int n;

	if (!trigger_set__paired(d->triggers, idx, &f))
		return;
	if (f.lost)
		snprintf(lost, sizeof(lost), "; %" PRIu64 " events lost", f.lost);
	if (f.late)
		snprintf(late, sizeof(late), "; %" PRIu64 " starts late", f.late);
	control_reply__add(reply,
			   "trigger: %s: measured %s; %" PRIu64 " pairs seen, %" PRIu64
			   " over %" PRIu64 " us, largest %" PRIu64 " us (%" PRIu64 " ns)%s%s",
			   sp->name, f.bpf ? "in the kernel (BPF)" : "in user space (fallback)",
			   f.pairs, f.outliers, sp->threshold_ns / 1000, f.max_ns / 1000, f.max_ns,
			   lost, late);
	n = log2_hist__line(&f.hist, -1, line, sizeof(line));
	if (n)
		control_reply__add(reply, "trigger: %s: %s", sp->name, line);
	for (int i = 0; i < n; i++) {
		log2_hist__line(&f.hist, i, line, sizeof(line));
		control_reply__add(reply, "trigger: %s: %s", sp->name, line);
	}
}

static void status_triggers(struct daemon *d, struct control_reply *reply)
{
	for (size_t i = 0; i < trigger_set__nr(d->triggers); i++) {
		const struct trigger_counts *c = trigger_set__counts(d->triggers, i);
		const struct trigger_spec *sp = config__trigger(d->cfg,
								trigger_set__name(d->triggers, i));
		char last[64] = "never", what[300] = "";
		struct tm tm;

		if (c->last.tv_sec && localtime_r(&c->last.tv_sec, &tm))
			strftime(last, sizeof(last), "%Y-%m-%d %H:%M:%S", &tm);
		if (sp->kind == TRIGGER_KIND_EVENT)
			snprintf(what, sizeof(what), " %s", sp->event.name);
		else if (sp->kind == TRIGGER_KIND_PSI)
			snprintf(what, sizeof(what), " %s", sp->psi);
		else if (sp->kind == TRIGGER_KIND_PAIRED)
			snprintf(what, sizeof(what), " %s -> %s", sp->start.event.name,
				 sp->end.event.name);
		control_reply__add(reply,
				   "trigger: %s (%s%s): %" PRIu64 " matches, %" PRIu64
				   " fired, %" PRIu64 " dumps started, %" PRIu64
				   " refused, %" PRIu64 " coalesced, last %s",
				   sp->name, config__trigger_kind_name(sp->kind), what, c->matches,
				   c->fired, c->dumps, c->refused, c->coalesced, last);
		status_paired(d, i, sp, reply);
	}
}

/* [capture] window: the budget, then each CPU's ring, rate and reach now. */
static void status_window(struct daemon *d, struct control_reply *reply)
{
	uint64_t now = monotonic_ns(), mapped = 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct capture_window_info info;
	char mem[CONFIG_VALUE_FORMAT_MAX], line[256];
	int resizing = 0;

	for (size_t i = 0; i < capture__window_nr_rings(d->cap); i++)
		if (capture__window_ring(d->cap, i, now, &info)) {
			mapped += (info.pages + 1ull) * page;
			if (info.replaced_pages) {
				mapped += (info.replaced_pages + 1ull) * page;
				resizing++;
			}
		}
	config_value__format_size(d->cfg->memory, mem, sizeof(mem));
	control_reply__add(reply,
			   "window: %.1f s on every CPU within memory = %s: %d overwrite rings, "
			   "%llu KiB mapped%s",
			   (double)d->cfg->window_ms / 1e3, mem,
			   (int)capture__nr_copy_rings(d->cap), (unsigned long long)mapped / 1024,
			   resizing ? " (a ring being resized and its successor both mapped)" : "");
	for (size_t i = 0; i < capture__window_nr_rings(d->cap); i++)
		if (capture__window_ring(d->cap, i, now, &info)) {
			ring_sizer__format_cpu(&info, d->cfg->window_ms, line, sizeof(line));
			control_reply__add(reply, "%s", line);
		}
}

static int ctl_status(void *ctx, struct control_reply *reply)
{
	struct daemon *d = ctx;
	const struct perfsnapd_config *cfg = d->cfg;
	const struct dump_figures *last = &d->last;
	long page = sysconf(_SC_PAGESIZE);
	const char *tracefs = capture__tracefs_instance(d->cap);
	char pauses[512], origin[128];

	control_reply__add(reply, "state: %s", daemon__dumping(d) ? "dumping" : "recording");
	control_reply__add(reply, "cpus: %d", capture__nr_cpus(d->cap));
	if (capture__windowed(d->cap))
		status_window(d, reply);
	else
		control_reply__add(reply,
				   "buffer: %llu KiB per CPU (%u pages), %d overwrite rings, %s",
				   (unsigned long long)capture__ring_pages(d->cap) *
					   (unsigned long long)page / 1024,
				   capture__ring_pages(d->cap), capture__nr_rings(d->cap, true),
				   capture__warm(d->cap) ? "warm" : "warming");
	if (tracefs)
		control_reply__add(reply,
				   "backend: tracefs instance %s for tracepoints, perf for "
				   "the rest",
				   tracefs);
	else
		control_reply__add(reply, "backend: perf");
	for (size_t i = 0; i < cfg->nr_events; i++)
		control_reply__add(
			reply, "event: %s (%s%s)", cfg->events[i].name,
			cfg->events[i].overwrite ? "overwrite" : "no-overwrite",
			tracefs && capture_tracefs__takes(&cfg->events[i]) ? ", tracefs" : "");
	if (d->sb) {
		struct sideband_stats st;

		sideband__stats(d->sb, &st);
		control_reply__add(reply,
				   "sideband: %" PRIu64 " tasks, %" PRIu64 " dropped, %" PRIu64
				   " history records",
				   st.nr_tasks, st.nr_dropped_tasks, st.history_records);
		control_reply__add(reply,
				   "build-ids: %" PRIu64 " from the kernel, %" PRIu64
				   " read from files, %" PRIu64 " unknown, %" PRIu64 " waiting",
				   st.build_ids_kernel, st.build_ids_read, st.build_ids_none,
				   st.build_ids_waiting);
		/* A file that does not answer (a hung mount) holds the reader alone. */
		if (st.build_id_busy_ns >= 1000000000)
			control_reply__add(reply, "build-ids: one read has waited %" PRIu64 " s",
					   st.build_id_busy_ns / 1000000000);
	}
	status_triggers(d, reply);
	control_reply__add(reply, "directory: %s", cfg->directory);
	control_reply__add(reply, "control clients: %u", control__nr_clients(d->ctl));
	control_reply__add(reply, "snapshots: %lu written, %lu failed, %lu refused", d->snapshots,
			   d->failures, d->refused);
	status_upload(d, reply);
	if (!d->have_last)
		return 0;
	control_reply__add(reply, "last: %s", last->error ? "failed" : last->files.paths[0]);
	control_reply__add(reply, "last reason: %s", last->reason);
	if (last->origin.kind != SNAPSHOT_ORIGIN_NONE)
		control_reply__add(reply, "last origin: %s",
				   snapshot_origin__format(&last->origin, origin, sizeof(origin)));
	if (last->range.set)
		control_reply__add(reply, "last window: %s%s%s", last->range.asked,
				   last->range.note[0] ? ": " : "", last->range.note);
	if (last->error)
		control_reply__add(reply, "last error: %s", strerror(-last->error));
	control_reply__add(
		reply, "last paused: %" PRIu64 " us (longest ring), %" PRIu64 " us (all rings)",
		dump_figures__blind_max_ns(last) / 1000, dump_figures__blind_total_ns(last) / 1000);
	control_reply__add(reply, "last pause per ring (CPU:us): %s",
			   dump_figures__format_pauses(last, pauses, sizeof(pauses)));
	control_reply__add(reply,
			   "last spread: rings paused %" PRIu64
			   " us after the trigger, within %" PRIu64
			   " us, newest records within %" PRIu64 " us",
			   dump_figures__pause_delay_ns(last) / 1000,
			   dump_figures__pause_spread_ns(last) / 1000,
			   dump_figures__newest_spread_ns(last) / 1000);
	control_reply__add(reply,
			   "last copy: %" PRIu64 " KiB in memory, %" PRIu64
			   " KiB spilled, %u round%s, %d threads, %s, %" PRIu64
			   " us before the pause",
			   last->copy_memory_bytes / 1024, last->copy_spilled_bytes / 1024,
			   last->rounds, last->rounds == 1 ? "" : "s", last->copy_threads,
			   last->rt_error ? "normal priority (SCHED_FIFO refused)" : "SCHED_FIFO",
			   last->fault_ns / 1000);
	control_reply__add(reply, "last dump: %" PRIu64 " ms", last->dump_ns / 1000000);
	control_reply__add(reply, "last bytes: %" PRIu64, last->files.bytes);
	control_reply__add(reply, "last events: %" PRIu64, last->nr_records);
	return 0;
}

static int ctl_list(void *ctx, struct control_reply *reply)
{
	struct daemon *d = ctx;
	struct snapshot_entry *list = NULL;
	size_t nr = 0;
	int r;

	r = retention__list(d->cfg->directory, &list, &nr);
	if (r < 0)
		return control_reply__fail(reply, r, "cannot list '%s': %s", d->cfg->directory,
					   strerror(-r));
	for (size_t i = 0; i < nr; i++) {
		struct upload_info info = { .state = UPLOAD_NONE };

		if (d->up)
			upload__info(d->up, list[i].stem, &info);
		/* The reason last: it may hold spaces. */
		control_reply__add(reply, "%s %" PRIu64 " %s %s %s", list[i].stem, list[i].bytes,
				   upload_state__name(info.state),
				   list[i].compression[0] ? list[i].compression : "-",
				   list[i].reason ? list[i].reason : "-");
	}
	retention__free(list, nr);
	return 0;
}

/* Root's alone: a reload reopens the rings, and the configuration is root's file. */
static void ctl_reload(void *ctx, struct control_client *client)
{
	pid_t pid;
	uid_t uid;

	control_client__peer(client, &pid, &uid);
	if (uid != 0) {
		control_client__done(client, -EPERM,
				     "reload: only root may reload the configuration (members may "
				     "dump, trigger, status and list)");
		return;
	}
	daemon__reload(ctx, client);
}

static const struct control_ops ops = {
	.status = ctl_status,
	.list = ctl_list,
	.reload = ctl_reload,
	.dump = ctl_dump,
	.trigger = ctl_trigger,
};

/**
 * daemon__start_control - listen on the control socket
 * @d: the daemon
 *
 * Returns 0 or -errno (logged).
 */
int daemon__start_control(struct daemon *d)
{
	struct control_config cc = {
		.path = d->cfg->control_socket,
		.group = d->cfg->control_group,
		.gid = d->cfg->control_gid,
	};

	int r = control__new(d->base, &cc, &ops, d, &d->ctl);

	if (r == 0)
		log_info("control socket %s", control__socket_activated(d->ctl) ?
						      "from systemd (socket activation)" :
						      control__path(d->ctl));
	return r;
}

void daemon__stop_control(struct daemon *d)
{
	control__delete(d->ctl);
	d->ctl = NULL;
	member_budget__delete(d->members);
	d->members = NULL;
}
