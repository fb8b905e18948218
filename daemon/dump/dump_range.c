// SPDX-License-Identifier: GPL-2.0-only
/*
 * dump_range: a dump's time window (perfsnapctl dump --last/--since/
 * --until/--max-size): checked on the loop at the trigger, where the clocks
 * are read, placed in the recording clock after the copy, and what the
 * rings held of it said after the seal. See dump-internal.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "dump-internal.h"
#include "monotonic.h"
#include "recording_clock.h"
#include "snapshot.h"

/* Seconds, for a note. */
static double secs(uint64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * After a windowed __seal: which rings hold less than the window asked
 * (they had wrapped, and their oldest record is newer than its start),
 * said in the note the reply and the sidecar carry. A window the rings
 * hold nothing of fails the dump: no empty files.
 */
int dump_range__held(struct dump_job *job)
{
	struct dump_range *w = &job->fig.range;
	const struct snapshot_stats *st = snapshot__stats(job->snap);
	uint64_t oldest = UINT64_MAX, newest = 0;
	size_t n = 0, len = 0;
	char list[256] = "";

	for (size_t i = 0; i < job->fig.nr_rings && i < snapshot__nr_chunks(job->snap); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(job->snap, i);
		struct dump_ring_figures *rf = &job->fig.rings[i];
		/* A ring that never wrapped holds all since the rings opened. */
		uint64_t held = c->overwritten && c->held_records ? c->held_first_time :
								    w->recording_since_ns;
		int k;

		if (c->held_records && c->held_first_time < oldest)
			oldest = c->held_first_time;
		if (c->held_records && c->held_last_time > newest)
			newest = c->held_last_time;
		if (!w->from_ns || held <= w->from_ns)
			continue;
		rf->range_short = true;
		rf->range_reach_ns = w->to_ns != UINT64_MAX && w->to_ns > held ? w->to_ns - held :
										 0;
		w->nr_short++;
		k = snprintf(list + len, sizeof(list) - len, "%scpu%d %.3f s", n++ ? ", " : "",
			     c->cpu, secs(rf->range_reach_ns));
		if (k > 0 && (size_t)k < sizeof(list) - len)
			len += (size_t)k;
	}
	if (!st->nr_records) {
		if (oldest == UINT64_MAX)
			snprintf(w->note, sizeof(w->note), "nothing to write: the rings are empty");
		else
			snprintf(w->note, sizeof(w->note),
				 "nothing to write: the window asked ends %.3f s before the oldest "
				 "record the rings hold",
				 secs(oldest > w->to_ns ? oldest - w->to_ns : 0));
		return -ENODATA;
	}
	if (w->nr_short)
		snprintf(w->note, sizeof(w->note),
			 "the rings hold less than the window asked (%.3f s): written what they "
			 "hold, %s of it",
			 secs((uint64_t)(w->to_realtime_ns - w->from_realtime_ns)), list);
	else if (st->max_bytes_cut)
		snprintf(w->note, sizeof(w->note),
			 "--max-size kept the newest %.3f s (%" PRIu64 " of %" PRIu64
			 " records' bytes)",
			 secs(st->last_time - st->window_from), st->bytes,
			 st->bytes + st->cropped_bytes);
	return 0;
}

/*
 * Below this --max-size, what a data file holds besides the records (its
 * headers, the side-band that names the tasks) leaves too little room.
 */
#define WINDOW_MIN_MAX_SIZE (1ull << 20)

/*
 * The bytes of ring records, and of the side-band records that name their
 * tasks (sideband__naming_bytes()), a --max-size leaves room for: the rest
 * of the largest data file (perf.data: its headers and sections, the
 * formats, the build-ids) is not known before the files are written, so an
 * eighth of the size, at least 512 KiB, is kept for it (docs/decisions.md).
 */
static uint64_t window_record_bytes(uint64_t max_size)
{
	uint64_t reserve = max_size / 8;

	if (reserve < (512u << 10))
		reserve = 512u << 10;
	return max_size - reserve;
}

/*
 * Loop thread, at the trigger: checks @w and reads the recording clock
 * beside CLOCK_REALTIME and CLOCK_MONOTONIC, for dump_range__place(). Returns
 * 0 or -errno (@out->note says why).
 */
int dump_range__check(struct dump *d, struct dump_job *job, const struct control_range *w)
{
	struct dump_range *out = &job->fig.range;
	struct timespec ts;
	int r;

	out->set = true;
	job->window = *w;
	control_range__format(w, out->asked, sizeof(out->asked));
	out->max_size = w->max_size;
	r = d->clock ? recording_clock__now(d->clock, &job->at_clock) : -ENODEV;
	clock_gettime(CLOCK_REALTIME, &ts);
	job->at_mono = monotonic_ns();
	if (r < 0) {
		snprintf(out->note, sizeof(out->note),
			 "cannot read the recording clock to place the window: %s", strerror(-r));
		return r;
	}
	job->at_realtime = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	r = control_range__check(w, job->at_realtime, out->note, sizeof(out->note));
	if (r < 0)
		return r;
	if (w->max_size && w->max_size < WINDOW_MIN_MAX_SIZE) {
		snprintf(out->note, sizeof(out->note),
			 "--max-size %" PRIu64 " is too small: a snapshot's headers and the "
			 "records that name its tasks need room too (at least 1M)",
			 w->max_size);
		return -EINVAL;
	}
	out->recording_since_ns = d->opened_ns;
	if (w->max_size)
		out->max_bytes = window_record_bytes(w->max_size);
	return 0;
}

/*
 * @ns of CLOCK_REALTIME in the recording clock, by the readings at the
 * trigger. A time at or before the clock's zero (--last 1h on a machine up
 * for less) is its first nanosecond: a window's 0 means no bound, and a
 * start taken for none would leave the rings' shortfall unsaid.
 */
static uint64_t clock_at(const struct dump_job *job, int64_t realtime)
{
	int64_t back = job->at_realtime - realtime;

	if (back <= 0)
		return job->at_clock + (uint64_t)-back;
	return (uint64_t)back < job->at_clock ? job->at_clock - (uint64_t)back : 1;
}

/*
 * After the copy: the window in the recording clock. "Now" is the instant
 * the rings were paused (their newest records), which on a busy machine
 * can come well after the request: relative bounds count from it, and no
 * bound lies after it. Wall-clock bounds go through the readings taken at
 * the trigger.
 */
void dump_range__place(struct dump_job *job)
{
	const struct control_range *w = &job->window;
	struct dump_range *out = &job->fig.range;
	uint64_t paused = job->fig.first_pause_at_ns ? job->fig.first_pause_at_ns : job->at_mono;
	int64_t now_rt = job->at_realtime + (int64_t)(paused - job->at_mono);
	uint64_t now = job->at_clock + (paused - job->at_mono);
	int64_t since, until;

	/*
	 * A backend's end instant, stamped in the events' own clock (the
	 * tracefs marker), is the dump's "now" to the nanosecond: a window
	 * relative to now ends there, whole, rather than cut at the crop.
	 */
	if (job->fig.end_time && job->fig.end_time < now) {
		now_rt -= (int64_t)(now - job->fig.end_time);
		now = job->fig.end_time;
	}

	if (w->since.set) {
		since = w->since.relative ? now_rt + w->since.ns : w->since.ns;
		out->from_ns = clock_at(job, since);
		out->from_realtime_ns = since;
	}
	if (w->since.set || w->until.set) {
		until = w->until.set ? (w->until.relative ? now_rt + w->until.ns : w->until.ns) :
				       now_rt;
		if (until > now_rt)
			until = now_rt;
		out->to_ns = clock_at(job, until);
		out->to_realtime_ns = until;
	} else {
		out->to_ns = UINT64_MAX;
	}
	if (out->to_ns > now)
		out->to_ns = now;
	if (!w->since.set && !w->until.set)
		out->to_ns = UINT64_MAX;
	if (out->from_ns > out->to_ns)
		out->from_ns = out->to_ns;
}
