// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_json: writes the sidecar JSON of a snapshot. Plain fprintf: the
 * document is small and flat, and every string is escaped here.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "snapshot.h"
#include "snapshot_json.h"

static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void put_events(const struct snapshot *s, FILE *out)
{
	fputs("  \"events\": {", out);
	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct snapshot_event *ev = snapshot__event(s, i);

		fputs(i ? ", " : "", out);
		put_string(out, ev->name);
		fprintf(out, ": %" PRIu64, ev->nr_records);
	}
	fputs("},\n", out);
}

static void put_rings(const struct snapshot *s, const struct snapshot_json_meta *meta, FILE *out)
{
	fputs("  \"rings\": [", out);
	for (size_t i = 0; i < snapshot__nr_chunks(s); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(s, i);

		fprintf(out,
			"%s\n    {\"cpu\": %d, \"kind\": \"%s\", \"records\": %" PRIu64
			", \"first_time\": %" PRIu64 ", \"last_time\": %" PRIu64
			", \"older_data_overwritten\": %s, \"lost_events\": %" PRIu64,
			i ? "," : "", c->cpu, c->backward ? "overwrite" : "forward", c->nr_records,
			c->first_time, c->last_time, c->overwritten ? "true" : "false",
			c->lost_events);
		if (i < meta->nr_ring_pauses)
			fprintf(out, ", \"pause_ns\": %" PRIu64 ", \"copy_cut_bytes\": %" PRIu64,
				meta->ring_pause_ns[i],
				meta->ring_cut_bytes ? meta->ring_cut_bytes[i] : 0);
		fputc('}', out);
	}
	fputs("\n  ],\n", out);
}

static void put_trigger(const struct snapshot_trigger *t, FILE *out)
{
	bool psi = !strcmp(t->kind, "psi");

	fputs(",\n  \"trigger\": {\"name\": ", out);
	put_string(out, t->name);
	fputs(", \"kind\": ", out);
	put_string(out, t->kind);
	if (psi) {
		fputs(", \"resource\": ", out);
		put_string(out, t->psi_resource);
		fputs(", \"threshold\": ", out);
		put_string(out, t->psi_threshold);
		fputs(", \"file\": ", out);
		put_string(out, t->psi_file);
	}
	fputs(", \"event\": ", out);
	if (t->event[0])
		put_string(out, t->event);
	else
		fputs("null", out);
	if (t->time)
		fprintf(out, ", \"time\": %" PRIu64, t->time);
	else
		fputs(", \"time\": null", out);
	if (t->pid >= 0) {
		fprintf(out, ", \"cpu\": %d, \"pid\": %d, \"tid\": %d, \"comm\": ", t->cpu, t->pid,
			t->tid);
		put_string(out, t->comm);
	} else {
		fputs(", \"cpu\": null, \"pid\": null, \"tid\": null, \"comm\": null", out);
	}
	fputc('}', out);
}

/**
 * snapshot_json__write - write the sidecar document
 * @s: a sealed snapshot
 * @meta: what the snapshot itself does not know
 * @out: destination stream
 *
 * Times are in the recording clock's nanoseconds, as in the data files.
 * Returns 0 or -errno (-EIO if the stream failed).
 */
int snapshot_json__write(const struct snapshot *s, const struct snapshot_json_meta *meta, FILE *out)
{
	const struct snapshot_stats *st = snapshot__stats(s);

	fputs("{\n  \"stem\": ", out);
	put_string(out, meta->stem);
	fputs(",\n  \"reason\": ", out);
	put_string(out, meta->reason);
	if (meta->trigger)
		put_trigger(meta->trigger, out);
	fputs(",\n  \"hostname\": ", out);
	put_string(out, meta->hostname);
	fputs(",\n  \"files\": [", out);
	for (int i = 0; i < meta->nr_files; i++) {
		fputs(i ? ", " : "", out);
		put_string(out, meta->files[i]);
	}
	fprintf(out,
		"],\n  \"records\": %" PRIu64 ",\n  \"samples\": %" PRIu64
		",\n  \"first_time\": %" PRIu64 ",\n  \"last_time\": %" PRIu64
		",\n  \"lost_events\": %" PRIu64 ",\n  \"lost_records\": %" PRIu64
		",\n  \"dropped_records\": %" PRIu64 ",\n  \"tasks\": %zu"
		",\n  \"tasks_unnamed\": %" PRIu64 ",\n  \"synthesized_records\": %" PRIu64
		",\n  \"blind_window_max_ns\": %" PRIu64 ",\n  \"blind_window_total_ns\": %" PRIu64
		",\n",
		st->nr_records, st->nr_samples, st->first_time, st->last_time, st->lost_events,
		st->nr_lost_records, st->nr_dropped, snapshot__nr_tasks(s), meta->nr_tasks_unnamed,
		meta->nr_synthesized, meta->blind_max_ns, meta->blind_total_ns);
	put_events(s, out);
	fprintf(out,
		"  \"pause_spread_ns\": %" PRIu64 ",\n  \"newest_record_spread_ns\": %" PRIu64
		",\n  \"copy_realtime\": %s,\n  \"copy_fault_ns\": %" PRIu64
		",\n  \"copy_memory_bytes\": %" PRIu64 ",\n  \"copy_spilled_bytes\": %" PRIu64
		",\n  \"copy_rounds\": %u,\n",
		meta->pause_spread_ns, meta->newest_spread_ns,
		meta->copy_realtime ? "true" : "false", meta->copy_fault_ns,
		meta->copy_memory_bytes, meta->copy_spilled_bytes, meta->copy_rounds);
	put_rings(s, meta, out);
	fprintf(out, "  \"compression\": \"%s\",\n", meta->compressed ? "zstd" : "none");
	if (meta->compress_why) {
		fputs("  \"compression_auto\": ", out);
		put_string(out, meta->compress_why);
		fputs(",\n", out);
	}
	fputs("  \"format_version\": 1\n}\n", out);
	return ferror(out) ? -EIO : 0;
}
