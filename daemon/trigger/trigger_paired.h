/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * trigger_paired: one paired trigger at work, measured by the BPF program
 * (paired_bpf) or, where that cannot load, in user space (paired_ring),
 * the reason logged. Reports each pair over the threshold with its times
 * in the recording clock, and the figures perfsnapctl status prints.
 * PERFSNAPD_PAIRED_NO_BPF=1 in the environment forces the fallback (for
 * tests and benchmarks).
 */
#ifndef PERFSNAPD_TRIGGER_PAIRED_H
#define PERFSNAPD_TRIGGER_PAIRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log2_hist.h"

struct event_base;
struct perfsnapd_config;
struct trigger_paired;
struct trigger_spec;

struct paired_hit {
	uint64_t key, duration_ns;
	uint64_t start_time, end_time; /* recording clock */
	uint64_t end_mono;	       /* end_time in CLOCK_MONOTONIC where measured so, else 0 */
	int start_cpu, end_cpu, start_pid, end_pid;
};

typedef void (*paired_hit_fn)(void *arg, const struct paired_hit *hit);

struct paired_figures {
	bool bpf; /* measured in the kernel */
	uint64_t pairs, outliers, max_ns;
	uint64_t lost; /* the fallback's events lost to full rings */
	uint64_t late; /* the fallback's starts that came after their time was paired */
	struct log2_hist hist;
};

/*
 * Returns 0; -EINVAL when the verifier refused the program (@why holds its
 * words, for a diagnostic at the trigger's line); or -errno (logged).
 */
int trigger_paired__new(const struct trigger_spec *sp, const struct perfsnapd_config *cfg,
			struct event_base *base, paired_hit_fn fn, void *arg, char *why,
			size_t why_size, struct trigger_paired **ret);
void trigger_paired__delete(struct trigger_paired *tp);
void trigger_paired__figures(struct trigger_paired *tp, struct paired_figures *ret);

#endif
