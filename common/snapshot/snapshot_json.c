// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_json: writes the sidecar JSON of a snapshot. Plain fprintf: the
 * document is small and flat, and every string is escaped here.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dump_figures.h"
#include "snapshot.h"
#include "snapshot_json.h"
#include "snapshot_name.h"
#include "text.h"

/*
 * A JSON string of @s. A byte that is not part of a valid UTF-8 sequence
 * (a task name is the kernel's bytes, cut at 15) is written as U+FFFD, so
 * the document is always valid JSON.
 */
static void put_string(FILE *out, const char *s)
{
	fputc('"', out);
	while (s && *s) {
		unsigned char c = (unsigned char)*s;
		size_t len = text__utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else if (len == 0)
			fputs("\\ufffd", out);
		else
			fwrite(s, 1, len, out);
		s += len ? len : 1;
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

/* A time of a span: null where it is not known, or has not come yet. */
static void put_time(FILE *out, const char *name, uint64_t ns)
{
	if (ns)
		fprintf(out, "\"%s\": %" PRIu64, name, ns);
	else
		fprintf(out, "\"%s\": null", name);
}

/* The spans @cpu was offline, if it was. */
static void put_offline(const struct dump_figures *f, int cpu, FILE *out)
{
	bool first = true;

	for (size_t i = 0; cpu >= 0 && i < f->nr_offline; i++) {
		const struct dump_offline_span *sp = &f->offline[i];

		if (sp->cpu != cpu)
			continue;
		fputs(first ? ", \"offline\": [{" : ", {", out);
		put_time(out, "from_ns", sp->from_ns);
		fputs(", ", out);
		put_time(out, "to_ns", sp->ended ? sp->to_ns : 0);
		fputc('}', out);
		first = false;
	}
	if (!first)
		fputc(']', out);
}

static void put_reach(const struct dump_figures *f, size_t i, FILE *out)
{
	if (i >= f->nr_rings)
		return;
	fprintf(out, ", \"reach_ns\": %" PRIu64, f->rings[i].reach_ns);
	if (f->window_ns)
		fprintf(out, ", \"window_ns\": %" PRIu64 ", \"short\": %s", f->window_ns,
			dump_figures__short(f, i) ? "true" : "false");
}

/* Who asked, apart from the reason they gave: a field of its own. */
static void put_origin(const struct snapshot_origin *o, FILE *out)
{
	if (o->kind == SNAPSHOT_ORIGIN_NONE)
		return;
	fputs(",\n  \"origin\": {\"kind\": ", out);
	put_string(out, snapshot_origin__kind(o));
	if (o->pid > 0)
		fprintf(out, ", \"pid\": %d", (int)o->pid);
	if (o->uid >= 0)
		fprintf(out, ", \"uid\": %lld", (long long)o->uid);
	if (o->kind == SNAPSHOT_ORIGIN_TRIGGER) {
		fputs(", \"trigger\": ", out);
		put_string(out, o->trigger);
	}
	fputc('}', out);
}

static void put_rings(const struct snapshot *s, const struct dump_figures *f, FILE *out)
{
	fputs("  \"rings\": [", out);
	for (size_t i = 0; i < snapshot__nr_chunks(s); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(s, i);

		fprintf(out,
			"%s\n    {\"cpu\": %d, \"kind\": \"%s\", \"records\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"first_time\": %" PRIu64
			", \"last_time\": %" PRIu64
			", \"older_data_overwritten\": %s, \"lost_events\": %" PRIu64,
			i ? "," : "", c->cpu,
			c->backward				? "overwrite" :
			i < f->nr_rings && f->rings[i].instance ? "tracefs" :
								  "forward",
			c->nr_records, c->bytes, c->first_time, c->last_time,
			c->overwritten ? "true" : "false", c->lost_events);
		if (c->before_start)
			fprintf(out,
				", \"all_events_since\": %" PRIu64
				", \"records_before_all_events\": %" PRIu64,
				c->start_time, c->before_start);
		if (i < f->nr_rings)
			fprintf(out, ", \"pause_ns\": %" PRIu64 ", \"copy_cut_bytes\": %" PRIu64,
				f->rings[i].pause_ns, f->rings[i].cut_bytes);
		if (i < f->nr_rings && f->rings[i].closed)
			fputs(", \"closed\": true", out);
		if (f->range.set)
			fprintf(out,
				", \"held_records\": %" PRIu64 ", \"held_first_time\": %" PRIu64
				", \"held_last_time\": %" PRIu64 ", \"window_short\": %s",
				c->held_records, c->held_first_time, c->held_last_time,
				i < f->nr_rings && f->rings[i].range_short ? "true" : "false");
		if (f->range.set && i < f->nr_rings && f->rings[i].range_short)
			fprintf(out, ", \"window_reach_ns\": %" PRIu64, f->rings[i].range_reach_ns);
		if (i < f->nr_rings && f->rings[i].replaced)
			fputs(", \"replaced\": true", out);
		if (i < f->nr_rings && f->rings[i].instance)
			fprintf(out, ", \"lost_since_open\": %" PRIu64, f->rings[i].instance_lost);
		if (c->backward || (i < f->nr_rings && f->rings[i].instance))
			put_reach(f, i, out);
		put_offline(f, c->cpu, out);
		fputc('}', out);
	}
	fputs("\n  ],\n", out);
}

/*
 * The window asked for and the one kept: each ring's own span is its
 * first_time and last_time, what it held before the crop its held_*.
 */
static void put_window(const struct snapshot *s, const struct dump_range *w, FILE *out)
{
	const struct snapshot_stats *st = snapshot__stats(s);

	fputs("  \"window\": {\"asked\": ", out);
	put_string(out, w->asked);
	fprintf(out, ", \"from_ns\": %" PRIu64 ", \"to_ns\": ", w->from_ns);
	if (w->to_ns == UINT64_MAX)
		fputs("null", out);
	else
		fprintf(out, "%" PRIu64, w->to_ns);
	fprintf(out, ", \"from_realtime_ns\": %" PRId64 ", \"to_realtime_ns\": %" PRId64,
		w->from_realtime_ns, w->to_realtime_ns);
	fprintf(out,
		", \"max_size\": %" PRIu64 ", \"max_record_bytes\": %" PRIu64
		", \"kept_from_ns\": %" PRIu64 ", \"max_size_cut\": %s"
		", \"cropped_records\": %" PRIu64 ", \"cropped_bytes\": %" PRIu64
		", \"recording_since_ns\": %" PRIu64 ", \"short_rings\": %d, \"note\": ",
		w->max_size, w->max_bytes, st->window_from, st->max_bytes_cut ? "true" : "false",
		st->nr_cropped, st->cropped_bytes, w->recording_since_ns, w->nr_short);
	if (w->note[0])
		put_string(out, w->note);
	else
		fputs("null", out);
	fputs("},\n", out);
}

/* The pair that fired and the trigger's distribution so far, in log2 buckets of us. */
static void put_paired(const struct snapshot_trigger *t, FILE *out)
{
	const size_t nr = sizeof(t->hist) / sizeof(t->hist[0]);
	size_t first = nr, last = 0;
	bool comma = false;

	fputs(", \"start_event\": ", out);
	put_string(out, t->start_event);
	fprintf(out,
		", \"duration_ns\": %" PRIu64 ", \"key\": %" PRId64 ", \"start_time\": %" PRIu64
		", \"end_time\": %" PRIu64 ", \"threshold_ns\": %" PRIu64 ", \"pairs\": %" PRIu64
		", \"max_ns\": %" PRIu64 ", \"histogram_usecs\": [",
		t->duration_ns, (int64_t)t->key, t->start_time, t->end_time, t->threshold_ns,
		t->pairs, t->max_ns);
	for (size_t i = 0; i < nr; i++)
		if (t->hist[i]) {
			first = first < i ? first : i;
			last = i;
		}
	for (size_t i = first; i < nr && i <= last; i++) {
		fprintf(out, "%s{\"low\": %llu, \"high\": %llu, \"count\": %" PRIu64 "}",
			comma ? ", " : "", i ? 1ull << i : 0ull, (2ull << i) - 1, t->hist[i]);
		comma = true;
	}
	fputc(']', out);
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
	if (t->paused_after_ns)
		fprintf(out, ", \"paused_after_ns\": %" PRIu64, t->paused_after_ns);
	if (t->pid >= 0) {
		fprintf(out, ", \"cpu\": %d, \"pid\": %d, \"tid\": %d, \"comm\": ", t->cpu, t->pid,
			t->tid);
		put_string(out, t->comm);
	} else {
		fputs(", \"cpu\": null, \"pid\": null, \"tid\": null, \"comm\": null", out);
	}
	fprintf(out, ", \"before_ms\": %" PRIu64 ", \"after_ms\": %" PRIu64, t->before_ms,
		t->after_ms);
	if (!strcmp(t->kind, "paired"))
		put_paired(t, out);
	fputc('}', out);
}

/* The base names of the data files, in snapshot_name's order, as snapshot_files makes them. */
static void put_files(const struct dump_figures *f, FILE *out)
{
	char name[NAME_MAX + 1];
	bool first = true;

	fputs(",\n  \"files\": [", out);
	for (int k = 0; k < SNAPSHOT_FILE_JSON; k++) {
		if (!(f->formats & SNAPSHOT_FILE_BIT(k)) ||
		    snapshot_name__file(name, sizeof(name), f->stem, (enum snapshot_file)k) < 0)
			continue;
		fputs(first ? "" : ", ", out);
		put_string(out, name);
		first = false;
	}
	fputc(']', out);
}

/*
 * The symbol pack: what it holds, and what it leaves out and why (the
 * largest objects over its cap by name).
 */
static void put_symbols(const struct dump_symbol_figures *y, FILE *out)
{
	size_t listed = y->nr_over_cap < DUMP_SYMBOLS_LISTED ? y->nr_over_cap : DUMP_SYMBOLS_LISTED;

	fprintf(out,
		"  \"symbols\": {\"objects\": %" PRIu64 ", \"packed\": %" PRIu64
		", \"symbols_only\": %" PRIu64 ", \"unreadable\": %" PRIu64
		", \"missing\": %" PRIu64 ", \"without_build_id\": %" PRIu64
		", \"over_cap\": %" PRIu64 ", \"over_cap_bytes\": %" PRIu64
		", \"over_cap_largest\": [",
		y->nr_objects, y->nr_packed, y->nr_symbols_only, y->nr_unreadable, y->nr_missing,
		y->nr_no_buildid, y->nr_over_cap, y->over_cap_bytes);
	for (size_t i = 0; i < listed; i++) {
		fputs(i ? ", {\"path\": " : "{\"path\": ", out);
		put_string(out, y->over_cap[i].path);
		fprintf(out, ", \"bytes\": %" PRIu64 "}", y->over_cap[i].bytes);
	}
	fprintf(out, "], \"kernel_symbols\": %" PRIu64, y->nr_kernel_symbols);
	if (y->kernel_error) {
		fputs(", \"kernel_error\": ", out);
		put_string(out, strerror(-y->kernel_error));
	}
	fprintf(out, ", \"pack_ns\": %" PRIu64 "},\n", y->pack_ns);
}

/**
 * snapshot_json__write - write the sidecar document
 * @s: a sealed snapshot
 * @f: the dump's figures so far (the files are not in place yet)
 * @out: destination stream
 *
 * Times are in the recording clock's nanoseconds, as in the data files.
 * Returns 0 or -errno (-EIO if the stream failed).
 */
int snapshot_json__write(const struct snapshot *s, const struct dump_figures *f, FILE *out)
{
	const struct snapshot_stats *st = snapshot__stats(s);

	fputs("{\n  \"stem\": ", out);
	put_string(out, f->stem);
	fputs(",\n  \"reason\": ", out);
	put_string(out, f->reason);
	put_origin(&f->origin, out);
	if (f->has_trigger)
		put_trigger(&f->trigger, out);
	fputs(",\n  \"hostname\": ", out);
	put_string(out, f->hostname);
	put_files(f, out);
	fprintf(out,
		",\n  \"records\": %" PRIu64 ",\n  \"samples\": %" PRIu64
		",\n  \"first_time\": %" PRIu64 ",\n  \"last_time\": %" PRIu64
		",\n  \"lost_events\": %" PRIu64 ",\n  \"lost_records\": %" PRIu64
		",\n  \"dropped_records\": %" PRIu64 ",\n  \"tasks\": %zu"
		",\n  \"tasks_unnamed\": %" PRIu64 ",\n  \"synthesized_records\": %" PRIu64
		",\n  \"build_ids\": %" PRIu64 ",\n  \"blind_window_max_ns\": %" PRIu64
		",\n  \"blind_window_total_ns\": %" PRIu64 ",\n",
		st->nr_records, st->nr_samples, st->first_time, st->last_time, st->lost_events,
		st->nr_lost_records, st->nr_dropped, snapshot__nr_tasks(s), f->nr_tasks_unnamed,
		f->nr_synthesized, f->nr_build_ids, dump_figures__blind_max_ns(f),
		dump_figures__blind_total_ns(f));
	put_events(s, out);
	fprintf(out,
		"  \"pause_spread_ns\": %" PRIu64 ",\n  \"newest_record_spread_ns\": %" PRIu64
		",\n  \"copy_realtime\": %s,\n  \"copy_fault_ns\": %" PRIu64
		",\n  \"copy_memory_bytes\": %" PRIu64 ",\n  \"copy_spilled_bytes\": %" PRIu64
		",\n  \"copy_rounds\": %u,\n",
		dump_figures__pause_spread_ns(f), dump_figures__newest_spread_ns(f),
		f->rt_error ? "false" : "true", f->fault_ns, f->copy_memory_bytes,
		f->copy_spilled_bytes, f->rounds);
	put_rings(s, f, out);
	if (f->range.set)
		put_window(s, &f->range, out);
	fprintf(out, "  \"compression\": \"%s\",\n", f->compressed ? "zstd" : "none");
	/* Every Perfetto version opens gzip; zstd only from v58, so it is asked for by name. */
	if (f->formats & SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_PERFETTO))
		fprintf(out, "  \"pftrace_compression\": \"%s\",\n",
			!f->compressed	? "none" :
			f->pftrace_zstd ? "zstd" :
					  "gzip");
	if (f->formats & SNAPSHOT_FILE_BIT(SNAPSHOT_FILE_SYMBOLS))
		put_symbols(&f->symbols, out);
	if (f->compress_why[0]) {
		fputs("  \"compression_auto\": ", out);
		put_string(out, f->compress_why);
		fputs(",\n", out);
	}
	fputs("  \"format_version\": 1\n}\n", out);
	return ferror(out) ? -EIO : 0;
}
