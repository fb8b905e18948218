// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_log: what the log says of each snapshot written: its files,
 * blind window and spread, what it held less than asked, and how long
 * each stage took after the trigger.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dump_figures.h"
#include "log.h"
#include "snapshot_log.h"

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
void snapshot_log__stages(const struct dump_figures *f)
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

/*
 * [capture] window: the CPUs whose history in the snapshot is short of it.
 * A crop's shortfall is its range note's (dump_range__held()).
 */
static void log_short(const struct dump_figures *f)
{
	if (f->range.set)
		return;
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
void snapshot_log__summary(const struct dump_figures *f)
{
	char events[32], bytes[32], paused[32], total[32], delay[32], dumped[32], spread[32];
	char pspread[32], size[32], pauses[512], newest[1024], duration[32], key[32], origin[128];
	char asked[160] = "";
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
		{ "ORIGIN", origin },
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
	snapshot_origin__format(&f->origin, origin, sizeof(origin));
	/* The reason is the operator's words: the line says whose. */
	if (f->origin.kind == SNAPSHOT_ORIGIN_CONTROL)
		snprintf(asked, sizeof(asked), " (%s)", origin);
	log__fields(LOG_NOTICE, fields, nr_fields,
		    "snapshot %s: %" PRIu64 " events, %s in %d files, dump %" PRIu64
		    " ms, blind %.1f ms, reason %s%s",
		    f->files.paths[0], f->nr_records, size, f->files.nr_paths, f->dump_ns / 1000000,
		    (double)blind / 1e6, f->reason, asked);
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
