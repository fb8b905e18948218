// SPDX-License-Identifier: GPL-2.0-only
/*
 * trigger_paired: the BPF path first, the ring fallback second; outlier
 * times from CLOCK_MONOTONIC (the BPF program's) into the recording
 * clock. See trigger_paired.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "log.h"
#include "paired_bpf.h"
#include "paired_ring.h"
#include "recording_clock.h"
#include "trigger_paired.h"

_Static_assert(PAIRED_BUCKETS == LOG2_HIST_BUCKETS, "one histogram layout");

struct trigger_paired {
	const struct trigger_spec *sp;
	struct paired_bpf *bpf;
	struct paired_ring *ring;
	struct recording_clock *clock; /* NULL: the recording clock is CLOCK_MONOTONIC */
	paired_hit_fn fn;
	void *arg;
};

/* recording clock - CLOCK_MONOTONIC; 0 where they are one clock or it cannot be read. */
static int64_t clock_offset(struct trigger_paired *tp)
{
	int64_t offset = 0;

	if (tp->clock && recording_clock__offset(tp->clock, &offset) < 0)
		offset = 0;
	return offset;
}

static void hit(struct trigger_paired *tp, const struct paired_outlier *o, int64_t offset,
		bool mono)
{
	struct paired_hit h = {
		.key = o->key,
		.duration_ns = o->end_time - o->start_time,
		.start_time = (uint64_t)((int64_t)o->start_time + offset),
		.end_time = (uint64_t)((int64_t)o->end_time + offset),
		.end_mono = mono ? o->end_time : 0,
		.start_cpu = (int)o->start_cpu,
		.end_cpu = (int)o->end_cpu,
		.start_pid = (int)o->start_pid,
		.end_pid = (int)o->end_pid,
	};

	tp->fn(tp->arg, &h);
}

static void on_bpf_outlier(void *arg, const struct paired_outlier *o)
{
	struct trigger_paired *tp = arg;

	/* bpf_ktime_get_ns() is CLOCK_MONOTONIC. */
	hit(tp, o, clock_offset(tp), true);
}

static void on_ring_outlier(void *arg, const struct paired_outlier *o)
{
	hit(arg, o, 0, false);
}

static bool monotonic_clock(const struct perfsnapd_config *cfg)
{
	return cfg->nr_events && cfg->events[0].attr.use_clockid &&
	       cfg->events[0].attr.clockid == CLOCK_MONOTONIC;
}

int trigger_paired__new(const struct trigger_spec *sp, const struct perfsnapd_config *cfg,
			struct event_base *base, paired_hit_fn fn, void *arg, char *why,
			size_t why_size, struct trigger_paired **ret)
{
	struct trigger_paired *tp = calloc(1, sizeof(*tp));
	const char *no_bpf = getenv("PERFSNAPD_PAIRED_NO_BPF");
	int r;

	if (!tp)
		return log__errno(-ENOMEM, "trigger %s", sp->name);
	tp->sp = sp;
	tp->fn = fn;
	tp->arg = arg;
	if (!monotonic_clock(cfg) && cfg->nr_events) {
		r = recording_clock__new(cfg->events[0].attr.use_clockid,
					 cfg->events[0].attr.clockid, &tp->clock);
		if (r < 0) {
			log__errno(r, "trigger %s: cannot read the recording clock", sp->name);
			goto fail;
		}
	}
	if (no_bpf && !strcmp(no_bpf, "1")) {
		snprintf(why, why_size, "PERFSNAPD_PAIRED_NO_BPF=1 is set");
		r = -EOPNOTSUPP;
	} else {
		r = paired_bpf__new(sp, base, on_bpf_outlier, tp, why, why_size, &tp->bpf);
	}
	if (r == -EINVAL || r == -ENOMEM)
		goto fail;
	if (r == 0) {
		log_info("trigger %s: %s -> %s paired in the kernel by a BPF program", sp->name,
			 sp->start.event.name, sp->end.event.name);
		*ret = tp;
		return 0;
	}
	log_warning("trigger %s: the BPF program cannot be used (%s): pairing %s -> %s in user "
		    "space from forward rings instead, which reads every event",
		    sp->name, why, sp->start.event.name, sp->end.event.name);
	r = paired_ring__new(sp, cfg->cpus, tp->clock, base, on_ring_outlier, tp, &tp->ring);
	if (r == 0) {
		*ret = tp;
		return 0;
	}
	if (r == -EINVAL)
		snprintf(why, why_size, "the kernel refused a filter of %s or %s",
			 sp->start.event.name, sp->end.event.name);
fail:
	trigger_paired__delete(tp);
	return r;
}

void trigger_paired__delete(struct trigger_paired *tp)
{
	if (!tp)
		return;
	paired_bpf__delete(tp->bpf);
	paired_ring__delete(tp->ring);
	recording_clock__delete(tp->clock);
	free(tp);
}

void trigger_paired__figures(struct trigger_paired *tp, struct paired_figures *ret)
{
	struct paired_stats st = { 0 };

	memset(ret, 0, sizeof(*ret));
	ret->bpf = tp->bpf != NULL;
	if (tp->bpf && paired_bpf__stats(tp->bpf, &st) < 0)
		return;
	if (tp->ring)
		paired_ring__stats(tp->ring, &st, &ret->lost, &ret->late);
	ret->pairs = st.pairs;
	ret->outliers = st.outliers;
	ret->max_ns = st.max_ns;
	memcpy(ret->hist.count, st.hist, sizeof(ret->hist.count));
}
