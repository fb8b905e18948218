// SPDX-License-Identifier: GPL-2.0-only
/* compress_policy: see compress_policy.h. */
#include <inttypes.h>
#include <stdio.h>

#include "compress_policy.h"
#include "cpu_idle.h"
#include "dump_figures.h"

/* Fewer CPUs (0: unknown) than files: the writers take turns on them. */
static bool taking_turns(size_t nr_files, unsigned int nr_cpus)
{
	return nr_cpus && nr_cpus < nr_files;
}

static bool busy(const struct compress_policy *p)
{
	return p->looked && p->idle_pct >= 0 && p->idle_pct < COMPRESS_POLICY_BUSY_IDLE_PCT;
}

/*
 * What zstd usually costs here, in the units of compress_policy__dump_cost():
 * more where the files take turns on fewer CPUs, and where the CPUs are
 * busy (its CPU time waits for them).
 */
static uint64_t zstd_guess(const struct compress_policy *p, unsigned int nr_files,
			   unsigned int nr_cpus)
{
	uint64_t ps = COMPRESS_POLICY_ZSTD_GUESS_PS;

	if (taking_turns(nr_files, nr_cpus))
		ps = ps * nr_files / nr_cpus;
	if (busy(p))
		ps = ps * 100 / (uint64_t)(p->idle_pct > 5 ? p->idle_pct : 5);
	return ps;
}

/**
 * compress_policy__look - how idle the writers' CPUs were since the last look
 * @p: the policy
 * @idle_ticks: /proc/stat's idle and iowait ticks of those CPUs now
 * @total_ticks: all their ticks now
 */
void compress_policy__look(struct compress_policy *p, uint64_t idle_ticks, uint64_t total_ticks)
{
	struct cpu_idle before = { p->idle_ticks, p->total_ticks };
	struct cpu_idle now = { idle_ticks, total_ticks };
	int pct = p->looked ? cpu_idle__pct(&before, &now) : -1;

	/*
	 * Too few ticks since the last look to say (dumps back to back): the
	 * last figure stands and the span goes on from that look. Taking "not
	 * known" instead made the second of two quick dumps on a starved CPU
	 * guess zstd at an idle machine's cost.
	 */
	if (p->looked && pct < 0 && total_ticks >= p->total_ticks && idle_ticks >= p->idle_ticks &&
	    idle_ticks - p->idle_ticks <= total_ticks - p->total_ticks)
		return;
	p->idle_pct = pct;
	p->looked = true;
	p->idle_ticks = idle_ticks;
	p->total_ticks = total_ticks;
}

/* @slower is at most COMPRESS_POLICY_SAME_PCT above @faster. */
static bool same_speed(uint64_t slower, uint64_t faster)
{
	return slower * 100 <= faster * (100 + COMPRESS_POLICY_SAME_PCT);
}

static bool fresh(const struct compress_mode_figure *f, uint64_t now_ns)
{
	return f->measured && now_ns - f->at_ns <= COMPRESS_POLICY_VALID_NS;
}

/* ps as ns with two decimals: "1.34 ns". */
static void ns_str(uint64_t ps, char *buf, size_t size)
{
	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64 " ns", ps / 1000, ps % 1000 / 10);
}

/* One mode's figure for the reason: "1.34 ns a byte, 12 s ago", or "not measured". */
static void figure_str(const struct compress_mode_figure *f, uint64_t now_ns, char *buf,
		       size_t size)
{
	char ns[32];

	if (!f->measured) {
		snprintf(buf, size, "not measured");
		return;
	}
	ns_str(f->ps_per_byte, ns, sizeof(ns));
	snprintf(buf, size, "%s a byte, %" PRIu64 " s ago", ns, (now_ns - f->at_ns) / 1000000000u);
}

/**
 * compress_policy__choose - compress the next dump or not
 * @p: the policy
 * @now_ns: the dump's start, CLOCK_MONOTONIC
 * @nr_files: the data files it writes
 * @nr_cpus: the CPUs their writers may run on, 0 if unknown
 * @why: set to the reason
 * @why_size: its size
 *
 * Returns true for zstd.
 */
bool compress_policy__choose(const struct compress_policy *p, uint64_t now_ns,
			     unsigned int nr_files, unsigned int nr_cpus, char *why,
			     size_t why_size)
{
	const struct compress_mode_figure *none = &p->mode[0], *zstd = &p->mode[1];
	uint64_t guess = zstd_guess(p, nr_files, nr_cpus);
	bool series = p->dumped && now_ns - p->last_dump_ns <= COMPRESS_POLICY_VALID_NS;
	char fn[64], fz[64], usual[32];
	bool near_guess = none->measured && same_speed(none->ps_per_byte, guess);
	bool best, kept = false;

	ns_str(guess, usual, sizeof(usual));
	if (!none->measured && !zstd->measured) {
		if (taking_turns(nr_files, nr_cpus)) {
			snprintf(why, why_size,
				 "nothing measured yet: %u data files share %u CPU%s, so their "
				 "compression times would add up",
				 nr_files, nr_cpus, nr_cpus == 1 ? "" : "s");
			return false;
		}
		if (busy(p)) {
			snprintf(why, why_size,
				 "nothing measured yet: the CPUs were %d%% busy since the last "
				 "look, where zstd's CPU time would wait for them",
				 100 - p->idle_pct);
			return false;
		}
		snprintf(why, why_size,
			 "nothing measured yet: zstd costs CPU time only, usually %s a byte",
			 usual);
		return true;
	}
	if (none->measured && zstd->measured) {
		best = zstd->ps_per_byte < none->ps_per_byte;
		kept = p->dumped && p->last_compressed != best &&
		       same_speed(p->mode[p->last_compressed].ps_per_byte,
				  p->mode[best].ps_per_byte);
		if (kept)
			best = p->last_compressed;
	} else {
		best = !none->measured || none->ps_per_byte > guess;
		/* A guess must beat the last dump's own figure by as much as a figure must. */
		kept = best && near_guess && p->dumped && !p->last_compressed;
		if (kept)
			best = false;
	}
	figure_str(none, now_ns, fn, sizeof(fn));
	figure_str(zstd, now_ns, fz, sizeof(fz));
	/* zstd is worth a measuring dump only where its guess could win. */
	if (series && !fresh(&p->mode[!best], now_ns) && !(!best && busy(p) && near_guess)) {
		snprintf(why, why_size,
			 "measuring %s%s, and dumps come in a series (uncompressed %s; zstd %s)",
			 best ? "uncompressed" : "zstd",
			 p->mode[!best].measured ? " again: its figure is over 5 minutes old" :
						   ": not measured yet",
			 fn, fz);
		return !best;
	}
	if (kept && !zstd->measured && busy(p))
		snprintf(why, why_size,
			 "uncompressed as before: it writes %s, within %u%% of what zstd would "
			 "cost with the CPUs %d%% busy (%s)",
			 fn, COMPRESS_POLICY_SAME_PCT, 100 - p->idle_pct, usual);
	else if (kept && !zstd->measured)
		snprintf(why, why_size,
			 "uncompressed as before: it writes %s, within %u%% of what zstd usually "
			 "costs (%s)",
			 fn, COMPRESS_POLICY_SAME_PCT, usual);
	else if (kept)
		snprintf(why, why_size,
			 "%s as before: the two write within %u%% (uncompressed %s; zstd %s)",
			 best ? "zstd" : "uncompressed", COMPRESS_POLICY_SAME_PCT, fn, fz);
	else if (zstd->measured && none->measured)
		snprintf(why, why_size, "%s writes faster (uncompressed %s; zstd %s)",
			 best ? "zstd" : "uncompressed", fn, fz);
	else if (zstd->measured)
		snprintf(why, why_size, "zstd writes %s, uncompressed not measured", fz);
	else if (busy(p))
		snprintf(why, why_size,
			 "uncompressed writes %s, %s than zstd would cost with the CPUs %d%% "
			 "busy (%s)",
			 fn, best ? "more" : "less", 100 - p->idle_pct, usual);
	else
		snprintf(why, why_size, "uncompressed writes %s, %s than zstd usually costs (%s)",
			 fn, best ? "more" : "less", usual);
	return best;
}

/**
 * compress_policy__dump_cost - what writing a dump's data files took
 * @cost_ns: each file's time from its start to its fsync's end
 * @run_ns: each file's time running
 * @nr: how many files
 * @slowest: the file synced last, which held the dump up
 * @nr_cpus: CPUs the writers may run on
 *
 * The files are written at once. With a CPU each, the slowest one is the
 * stage's length. With fewer CPUs they take turns on them, and the stage
 * lasts at least their summed running time over the CPUs: taking only the
 * slowest there judged zstd by one file's compression while the other
 * file waited for it. Their waits for the disk are not summed: they
 * overlap, the files' direct writes in flight together (summing them made
 * an uncompressed dump on one CPU read as dear as a far longer zstd one:
 * docs/decisions.md).
 *
 * Returns the larger of the two, in ns.
 */
uint64_t compress_policy__dump_cost(const uint64_t *cost_ns, const uint64_t *run_ns, size_t nr,
				    size_t slowest, unsigned int nr_cpus)
{
	uint64_t sum = 0, ns = slowest < nr ? cost_ns[slowest] : 0;

	for (size_t i = 0; i < nr; i++)
		sum += run_ns[i];
	if (taking_turns(nr, nr_cpus) && sum / nr_cpus > ns)
		ns = sum / nr_cpus;
	return ns;
}

/**
 * compress_policy__record - learn from a finished dump
 * @p: the policy
 * @compressed: it was written with zstd
 * @ns: its slowest data file's time, start to fsync
 * @record_bytes: the snapshot's record bytes
 * @now_ns: CLOCK_MONOTONIC
 */
void compress_policy__record(struct compress_policy *p, bool compressed, uint64_t ns,
			     uint64_t record_bytes, uint64_t now_ns)
{
	p->dumped = true;
	p->last_compressed = compressed;
	p->last_dump_ns = now_ns;
	/* A tiny dump says little about the bytes of a full one. */
	if (record_bytes < (1u << 20))
		return;
	p->mode[compressed] = (struct compress_mode_figure){
		.measured = true,
		.at_ns = now_ns,
		.ps_per_byte = ns * 1000 / record_bytes,
	};
}

/**
 * compress_policy__learn - record what a finished dump's data files cost
 * @p: the policy
 * @f: the dump's figures, its files written
 * @nr_cpus: the CPUs its writers could run on (0: unknown)
 * @now_ns: CLOCK_MONOTONIC now
 */
void compress_policy__learn(struct compress_policy *p, const struct dump_figures *f,
			    unsigned int nr_cpus, uint64_t now_ns)
{
	const struct dump_file_figures *files = &f->files;
	uint64_t last = 0, cost[SNAPSHOT_NR_FILES], run[SNAPSHOT_NR_FILES];
	size_t nr = 0, slowest = 0;

	/* The data files start together: the last one synced held the dump up. */
	for (int k = 0; k < SNAPSHOT_NR_FILES; k++) {
		/* The pack is not compressed: its cost says nothing of the mode. */
		if (k == SNAPSHOT_FILE_JSON || k == SNAPSHOT_FILE_SYMBOLS ||
		    !files->synced_at_ns[k])
			continue;
		if (files->synced_at_ns[k] > last) {
			last = files->synced_at_ns[k];
			slowest = nr;
		}
		cost[nr] = files->cost_ns[k];
		run[nr++] = files->run_ns[k];
	}
	if (nr)
		compress_policy__record(p, f->compressed,
					compress_policy__dump_cost(cost, run, nr, slowest, nr_cpus),
					f->record_bytes, now_ns);
}
