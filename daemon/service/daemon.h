/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * daemon: the running perfsnapd's state, shared by main.c (the life
 * cycle), daemon.c (recording, reload, what happens after each dump) and
 * daemon_commands.c (the answers to perfsnapctl).
 */
#ifndef PERFSNAPD_DAEMON_H
#define PERFSNAPD_DAEMON_H

#include <stdbool.h>
#include <stdint.h>

#include "compress_policy.h"
#include "dump.h"

struct capture;
struct control;
struct control_client;
struct event;
struct event_base;
struct perfsnapd_config;
struct sideband;
struct upload;
struct trigger_set;
struct member_budget;
struct config_diags;
struct retired_recording;
struct reload;
struct hotplug;

struct daemon {
	const char *config_path;
	const char *upload_socket; /* --upload-socket; NULL: perfsnapd starts the helper */
	int argc;
	const char *const *argv;
	struct event_base *base;
	const struct perfsnapd_config *cfg;
	struct capture *cap;
	struct sideband *sb;
	struct dump *dump;
	struct compress_policy compress; /* compression = auto's figures: outlive a dumper */
	struct control *ctl;
	struct upload *up; /* NULL without [upload] */
	struct trigger_set *triggers;
	struct member_budget *members; /* the control group's dumps in the last hour */
	/* Recordings a reload replaced, finishing their dumps on their own rings. */
	struct retired_recording *retiring;
	/* A reload whose new rings are opening (NULL when none); a SIGHUP meanwhile: */
	struct reload *reloading;
	bool reload_again;
	struct hotplug *hotplug;  /* watches the CPUs going offline and coming back */
	struct ring_sizer *sizer; /* [capture] window: sizes each CPU's ring */
	unsigned long recordings; /* captures attached so far: a new one is told by it */
	unsigned long snapshots, failures, refused;
	uint64_t total_budget;	  /* max_total_size = N%: in bytes, as last measured */
	struct dump_figures last; /* of the last dump, kept (dump_figures__copy()) */
	bool have_last;
	char status[512]; /* the current STATUS= text */
};

/* Deletes the temporaries an earlier run left in the snapshot directory. */
void daemon__remove_temporaries(struct daemon *d);
int daemon__start_recording(struct daemon *d);
/* At exit: finishes every dump in flight (also of replaced recordings), closes all. */
void daemon__stop_recording(struct daemon *d);
void daemon__log_recording(struct daemon *d);

/*
 * Re-reads the configuration. A bad one is refused (errors logged, and
 * sent to @client when given) and the old one keeps running. @client is
 * answered when the reload is done, which for new rings is later.
 */
void daemon__reload(struct daemon *d, struct control_client *client);

/* The uploader, when [upload] is configured; a failure to start is logged. */
void daemon__start_upload(struct daemon *d);
void daemon__stop_upload(struct daemon *d);
/*
 * Opens the triggers of d->cfg. A filter or PSI threshold the kernel
 * refuses goes into @diags and gives -EINVAL; other errors are logged.
 */
int daemon__start_triggers(struct daemon *d, struct config_diags *diags);
void daemon__stop_triggers(struct daemon *d);
/* A CPU came back online: the triggers open anew on every online CPU. */
void daemon__rearm_triggers(struct daemon *d);

int daemon__start_control(struct daemon *d);
void daemon__stop_control(struct daemon *d);

/* STATUS= again: the CPUs recorded changed. */
void daemon__update_status(struct daemon *d);

/* Called by the dumper after every dump. */
void daemon__dump_done(void *ctx, const struct dump_figures *f);
/* True while any dump runs, a replaced recording's included. */
bool daemon__dumping(const struct daemon *d);

#endif
