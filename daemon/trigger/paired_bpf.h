/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * paired_bpf: a paired trigger measured in the kernel. The generic program
 * (bpf/paired.bpf.c) is loaded once per trigger with that trigger's key
 * fields, filter terms and threshold as read-only data, and attached to
 * the start and end tracepoints through one perf event each (a BPF program
 * on a tracepoint runs on every CPU, whatever CPU its perf event is on).
 * Only the pairs over the threshold reach user space, through a BPF ring
 * the loop reads; the histogram stays in a per-CPU map read on demand.
 */
#ifndef PERFSNAPD_PAIRED_BPF_H
#define PERFSNAPD_PAIRED_BPF_H

#include <stddef.h>

#include "paired_abi.h"

struct event_base;
struct paired_bpf;
struct trigger_spec;

typedef void (*paired_outlier_fn)(void *arg, const struct paired_outlier *o);

/*
 * Loads and attaches. Returns 0; -EINVAL when the verifier refused the
 * program (its log, shortened, in @why); another -errno when BPF cannot be
 * used here (why in @why): the caller falls back to pairing in user space.
 */
int paired_bpf__new(const struct trigger_spec *sp, struct event_base *base, paired_outlier_fn fn,
		    void *arg, char *why, size_t why_size, struct paired_bpf **ret);
void paired_bpf__delete(struct paired_bpf *pb);
/* The per-CPU statistics, summed. Returns 0 or -errno. */
int paired_bpf__stats(struct paired_bpf *pb, struct paired_stats *ret);

#endif
