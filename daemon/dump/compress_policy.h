/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * compress_policy: `compression = auto`, whether the next dump is written
 * with zstd. zstd costs CPU time and saves most of the bytes; whether
 * that pays depends on what a byte written costs now, which is not only
 * the disk's speed: on a VM whose host takes back the memory the guest
 * frees, new page cache is backed anew as it is written, and an
 * uncompressed dump's writers ran several times longer than a moment
 * before on the same disk (docs/decisions.md). So the policy measures, as a flight recorder can only between
 * rare dumps: each dump's writing time per byte of the snapshot's records,
 * per mode. That time is the slowest data file's, from its start to its
 * fsync's end, its waits for a CPU included (on a busy machine the mode
 * that needs more CPU waits longest for it: leaving those waits out made
 * zstd look cheap exactly where it was dear, docs/decisions.md), or, where
 * the writers have fewer CPUs than files (a recorder confined to one
 * CPU), if longer, the files' summed running time over those CPUs.
 *
 * The first dump after a quiet spell is the one that follows an incident,
 * and most dumps of a recorder are such: it gets the mode that measured
 * cheaper last, however long ago; where the two figures are within
 * COMPRESS_POLICY_SAME_PCT, the mode of the last dump (zstd's guess, below,
 * must beat an uncompressed last dump's figure by as much). Before anything is
 * measured it gets zstd where each data file has a CPU of its own and the
 * CPUs have time to spare (zstd's cost is CPU time, bounded and known,
 * spent in parallel; an uncompressed dump waits for a disk of unknown
 * speed), and uncompressed where the writers have fewer CPUs than files
 * (there the files take turns, and their compression times add up: a
 * recorder pinned to one CPU, docs/decisions.md) or the CPUs are busy. A mode
 * is measured again only in a series of dumps (the last one finished less
 * than VALID_NS ago), once its own figure is that old or missing: one dump
 * of the series pays for it, never the first; zstd only where its guess,
 * grown by how busy the CPUs are, could beat uncompressed writing's
 * figure. Loop thread only.
 */
#ifndef PERFSNAPD_COMPRESS_POLICY_H
#define PERFSNAPD_COMPRESS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dump_figures;

/* How long a figure stays current, and how close dumps make a series. */
#define COMPRESS_POLICY_VALID_NS      (300ull * 1000000000ull)
/*
 * What zstd usually costs, in ps of the slowest file's time per record
 * byte, before it was measured here: what it measured on this project's
 * 2-CPU VM, between what uncompressed writing costs there on a quick page
 * cache and on one the host backs anew (docs/decisions.md). Where the
 * files share fewer CPUs, their times add up: the guess grows with them.
 */
#define COMPRESS_POLICY_ZSTD_GUESS_PS 1300u
/*
 * Figures within this many percent are the same speed: the mode in use is
 * kept. Back-to-back busy dumps of one mode measure that far apart, and
 * without it auto switched on every dump of a series whose figures were
 * that close; a mode measured further behind is left at the next dump.
 */
#define COMPRESS_POLICY_SAME_PCT      10u
/*
 * Below this idle share of its CPUs since the last dump, the machine is
 * busy: zstd's CPU time would wait for a CPU, so its guess grows by the
 * share taken (at least 5% is counted as free), and the first dump is
 * uncompressed.
 */
#define COMPRESS_POLICY_BUSY_IDLE_PCT 25

struct compress_policy {
	struct compress_mode_figure {
		bool measured;
		uint64_t at_ns; /* when (CLOCK_MONOTONIC) */
		uint64_t ps_per_byte;
	} mode[2]; /* [0]: uncompressed, [1]: zstd */
	bool dumped;
	bool last_compressed; /* the mode of the last dump */
	/* The writers' CPUs' idle share since the look before (-1: unknown). */
	int idle_pct;
	bool looked;
	uint64_t idle_ticks, total_ticks; /* at the last look */
	uint64_t last_dump_ns;		  /* when the last dump finished (CLOCK_MONOTONIC) */
};

/*
 * What /proc/stat says now of the CPUs the writers may run on (cpu_idle):
 * @idle_ticks of @total_ticks; sets the idle share since the last look.
 */
void compress_policy__look(struct compress_policy *p, uint64_t idle_ticks, uint64_t total_ticks);

/*
 * True: write the dump that starts at @now_ns, of @nr_files data files,
 * with zstd; its writers may run on @nr_cpus CPUs (0: unknown). @why gets
 * a short reason for the log and the sidecar (at most @why_size bytes).
 */
bool compress_policy__choose(const struct compress_policy *p, uint64_t now_ns,
			     unsigned int nr_files, unsigned int nr_cpus, char *why,
			     size_t why_size);

/*
 * A dump finished at @now_ns, @compressed or not: its slowest data file
 * took @ns in all for @record_bytes bytes of records.
 */
void compress_policy__record(struct compress_policy *p, bool compressed, uint64_t ns,
			     uint64_t record_bytes, uint64_t now_ns);

/*
 * What a finished dump's data files cost per byte (its writers could run
 * on @nr_cpus CPUs), recorded at @now_ns: __dump_cost() of @f's files,
 * for __record(). A dump without data files records nothing.
 */
void compress_policy__learn(struct compress_policy *p, const struct dump_figures *f,
			    unsigned int nr_cpus, uint64_t now_ns);

/*
 * The @ns for __record from a dump's @nr data files, each of which took
 * @cost_ns from start to fsync, of which it ran @run_ns; @slowest (an
 * index) was synced last; the writers could run on @nr_cpus CPUs.
 */
uint64_t compress_policy__dump_cost(const uint64_t *cost_ns, const uint64_t *run_ns, size_t nr,
				    size_t slowest, unsigned int nr_cpus);

#endif
