// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfetto_stacks: samples as PerfSample packets (profile_packet.proto,
 * what Perfetto's own perf profiler writes and every trace processor
 * reads) or StackSample packets (stack_sample.proto, for any sampling
 * profiler, read from Perfetto v58 on). One packet sequence per event, so
 * each is its own stream (PerfSample: a perf session, with a counter track
 * per CPU named after the event; StackSample: its own counter
 * descriptor); everything that repeats (function names, mapping paths,
 * mappings, frames, callstacks; for StackSample task and execution
 * contexts too) is interned per sequence and defined in the InternedData
 * of the first packet that uses it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "perf_record.h"
#include "pb.h"
#include "perfetto_packet.h"
#include "perfetto_stacks.h"
#include "pftrace_out.h"
#include "snapshot.h"
#include "snapshot_callchain.h"
#include "symbols.h"

/* InternedData fields */
#define INT_FUNCTION_NAMES 5
#define INT_FRAMES	   6
#define INT_CALLSTACKS	   7
#define INT_BUILD_IDS	   16
#define INT_MAPPING_PATHS  17
#define INT_MAPPINGS	   19
#define INT_TASKS	   48
#define INT_EXECS	   49

#define KIND_NATIVE 1
#define KIND_KERNEL 2

#define MAX_FRAMES     1024
#define MAX_PATH_PARTS 64

enum {
	T_NAMES,
	T_PATHS,
	T_BUILD_IDS,
	T_MAPPINGS,
	T_FRAMES,
	T_CALLSTACKS,
	T_TASKS,
	T_EXECS,
	NR_TABLES
};

struct seq {
	bool started;
	struct intern_table t[NR_TABLES];
	struct pb_buf pending; /* InternedData not sent yet */
};

struct perfetto_stacks {
	const struct snapshot *s;
	struct symbols *syms;
	uint32_t clock_id;
	enum perfetto_sample_kind kind;
	struct seq *seqs; /* per event */
	size_t nr_seqs;
	struct pb_buf pkt;
	uint64_t frames[MAX_FRAMES];
};

struct perfetto_stacks *perfetto_stacks__new(const struct snapshot *s, struct symbols *syms,
					     uint32_t clock_id, enum perfetto_sample_kind kind)
{
	struct perfetto_stacks *sc = calloc(1, sizeof(*sc));

	if (!sc)
		return NULL;
	sc->s = s;
	sc->syms = syms;
	sc->clock_id = clock_id;
	sc->kind = kind;
	sc->nr_seqs = snapshot__nr_events(s);
	sc->seqs = calloc(sc->nr_seqs ? sc->nr_seqs : 1, sizeof(*sc->seqs));
	if (!sc->seqs) {
		free(sc);
		return NULL;
	}
	return sc;
}

void perfetto_stacks__delete(struct perfetto_stacks *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->nr_seqs; i++) {
		for (int t = 0; t < NR_TABLES; t++)
			intern_table__fini(&sc->seqs[i].t[t]);
		pb_buf__fini(&sc->seqs[i].pending);
	}
	free(sc->seqs);
	pb_buf__fini(&sc->pkt);
	free(sc);
}

/* StackSample.Unit of an event's period. */
static uint32_t unit_of(const struct perf_event_attr *a)
{
	if (a->type == PERF_TYPE_SOFTWARE) {
		switch (a->config) {
		case PERF_COUNT_SW_CPU_CLOCK:
		case PERF_COUNT_SW_TASK_CLOCK:
			return 1; /* UNIT_NANOSECONDS */
		case PERF_COUNT_SW_PAGE_FAULTS:
		case PERF_COUNT_SW_PAGE_FAULTS_MIN:
		case PERF_COUNT_SW_PAGE_FAULTS_MAJ:
			return 5;
		default:
			break;
		}
	} else if (a->type == PERF_TYPE_HARDWARE) {
		switch (a->config) {
		case PERF_COUNT_HW_CPU_CYCLES:
		case PERF_COUNT_HW_REF_CPU_CYCLES:
			return 2;
		case PERF_COUNT_HW_INSTRUCTIONS:
			return 3;
		case PERF_COUNT_HW_CACHE_MISSES:
			return 6;
		case PERF_COUNT_HW_CACHE_REFERENCES:
			return 7;
		case PERF_COUNT_HW_BRANCH_MISSES:
			return 8;
		default:
			break;
		}
	}
	return 9; /* UNIT_COUNT */
}

/*
 * PerfSampleDefaults.timebase: the event by name (trace processor names the
 * stream's per-CPU counter tracks after it) and its sampling interval.
 */
static void perf_sample_defaults(struct pb_buf *p, const struct snapshot_event *ev)
{
	pb_nested sd, tb, tp;

	sd = pb__begin(p, 12); /* perf_sample_defaults */
	tb = pb__begin(p, 1);  /* timebase */
	if (ev->attr.freq)
		pb__varint(p, 2, ev->attr.sample_freq);
	else
		pb__varint(p, 1, ev->attr.sample_period);
	if (ev->attr.type == PERF_TYPE_TRACEPOINT) {
		tp = pb__begin(p, 3);
		pb__str(p, 1, ev->name);
		pb__end(p, tp);
	}
	pb__str(p, 10, ev->name);
	pb__end(p, tb);
	pb__end(p, sd);
}

static void stack_sample_defaults(struct pb_buf *p, const struct snapshot_event *ev)
{
	pb_nested sd, pd;

	sd = pb__begin(p, 100);	     /* stack_sample_defaults */
	pb__str(p, 1, "linux.perf"); /* source */
	pd = pb__begin(p, 2);	     /* primary_descriptor */
	pb__str(p, 2, ev->name);
	pb__varint(p, 3, unit_of(&ev->attr));
	pb__end(p, pd);
	pb__end(p, sd);
}

static int start_seq(struct perfetto_stacks *sc, struct pftrace_out *o, size_t idx,
		     const struct snapshot_event *ev)
{
	struct pb_buf *p = &sc->pkt;
	pb_nested d;

	pb__varint(p, PKT_SEQ_ID, idx + 1);
	pb__varint(p, PKT_SEQ_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	d = pb__begin(p, PKT_DEFAULTS);
	pb__varint(p, 58, sc->clock_id); /* timestamp_clock_id */
	if (sc->kind == PERFETTO_SAMPLE_PERF)
		perf_sample_defaults(p, ev);
	else
		stack_sample_defaults(p, ev);
	pb__end(p, d);
	sc->seqs[idx].started = true;
	return pftrace_out__emit(o, p);
}

static uint64_t intern(struct seq *q, int table, const void *key, size_t len, bool *is_new)
{
	uint64_t iid = intern_table__get(&q->t[table], key, len, is_new);

	if (!iid)
		q->pending.err = -ENOMEM;
	return iid;
}

static uint64_t intern_string(struct seq *q, int table, uint32_t field, const char *s, size_t len)
{
	bool is_new;
	uint64_t iid = intern(q, table, s, len, &is_new);
	pb_nested n;

	if (is_new) {
		n = pb__begin(&q->pending, field);
		pb__varint(&q->pending, 1, iid);
		pb__bytes(&q->pending, 2, s, len);
		pb__end(&q->pending, n);
	}
	return iid;
}

static uint64_t intern_mapping(struct seq *q, const struct symbol_info *si, bool kernel)
{
	uint64_t key[7] = { (uintptr_t)si->dso, si->dso_start, si->dso_end, si->dso_pgoff };
	/* "/kernel" with start = end = 0 is trace processor's kernel mapping */
	const char *path = kernel ? "kernel" : si->dso, *c, *e;
	uint64_t iid, build_id = 0, parts[MAX_PATH_PARTS];
	size_t nr = 0;
	bool is_new;
	pb_nested n;

	if (kernel)
		memset(key, 0, sizeof(key));
	else if (si->build_id_size)
		memcpy(&key[4], si->build_id, si->build_id_size);
	iid = intern(q, T_MAPPINGS, key, sizeof(key), &is_new);
	if (!is_new)
		return iid;
	/* The raw bytes, which trace processor shows as hex; interned first too. */
	if (!kernel && si->build_id_size)
		build_id = intern_string(q, T_BUILD_IDS, INT_BUILD_IDS, (const char *)si->build_id,
					 si->build_id_size);
	/*
	 * path_string_ids: the path's components, which the reader joins with
	 * '/'; interned before the Mapping, which must not enclose them.
	 */
	for (c = path; *c && nr < MAX_PATH_PARTS; c = *e ? e + 1 : e) {
		e = strchr(c, '/');
		if (!e)
			e = c + strlen(c);
		if (e > c)
			parts[nr++] = intern_string(q, T_PATHS, INT_MAPPING_PATHS, c,
						    (size_t)(e - c));
	}
	n = pb__begin(&q->pending, INT_MAPPINGS);
	pb__varint(&q->pending, 1, iid);
	if (build_id)
		pb__varint(&q->pending, 2, build_id);
	if (!kernel) {
		pb__varint(&q->pending, 8, si->dso_pgoff); /* exact_offset */
		pb__varint(&q->pending, 4, si->dso_start);
		pb__varint(&q->pending, 5, si->dso_end);
	}
	for (size_t i = 0; i < nr; i++)
		pb__varint(&q->pending, 7, parts[i]);
	pb__end(&q->pending, n);
	return iid;
}

static uint64_t intern_frame(struct perfetto_stacks *sc, struct seq *q, pid_t pid,
			     const struct snapshot_frame *f)
{
	bool kernel = f->context == SNAPSHOT_CONTEXT_KERNEL;
	struct symbol_info si;
	uint64_t key[2], iid, name = 0;
	bool is_new;
	pb_nested n;

	symbols__resolve(sc->syms, pid, f, &si);
	if (!si.dso) {
		si.dso = "[unknown]";
		si.rel_pc = f->ip;
	}
	key[0] = intern_mapping(q, &si, kernel);
	key[1] = kernel ? f->ip : si.rel_pc;
	iid = intern(q, T_FRAMES, key, sizeof(key), &is_new);
	if (!is_new)
		return iid;
	if (si.name)
		name = intern_string(q, T_NAMES, INT_FUNCTION_NAMES, si.name, strlen(si.name));
	n = pb__begin(&q->pending, INT_FRAMES);
	pb__varint(&q->pending, 1, iid);
	if (name)
		pb__varint(&q->pending, 2, name);
	pb__varint(&q->pending, 3, key[0]);
	pb__varint(&q->pending, 4, key[1]);
	pb__varint(&q->pending, 7,
		   kernel || f->context == SNAPSHOT_CONTEXT_GUEST_KERNEL ? KIND_KERNEL :
									   KIND_NATIVE);
	pb__end(&q->pending, n);
	return iid;
}

/*
 * The frames (snapshot_callchain), outermost first; returns how many, and
 * the innermost one's context in *@leaf (the sample's without frames).
 */
static size_t walk(struct perfetto_stacks *sc, struct seq *q, const struct perf_record_info *info,
		   uint64_t sample_type, uint16_t misc, enum snapshot_context *leaf)
{
	struct snapshot_callchain c;
	struct snapshot_frame f;
	size_t nr = 0;

	*leaf = snapshot_callchain__context(misc);
	snapshot_callchain__begin(&c, info, sample_type, misc);
	while (nr < MAX_FRAMES && snapshot_callchain__next(&c, &f)) {
		if (!nr)
			*leaf = f.context;
		sc->frames[nr++] = intern_frame(sc, q, (pid_t)info->pid, &f);
	}
	for (size_t i = 0; i < nr / 2; i++) {
		uint64_t t = sc->frames[i];

		sc->frames[i] = sc->frames[nr - 1 - i];
		sc->frames[nr - 1 - i] = t;
	}
	return nr;
}

/*
 * StackSample.Mode of a context. PerfSample's Profiling.CpuMode numbers
 * them as the context does; this one has user and kernel the other way.
 */
static uint64_t stack_sample_mode(enum snapshot_context context)
{
	switch (context) {
	case SNAPSHOT_CONTEXT_USER:
		return 1;
	case SNAPSHOT_CONTEXT_KERNEL:
		return 2;
	case SNAPSHOT_CONTEXT_HYPERVISOR:
		return 3;
	case SNAPSHOT_CONTEXT_GUEST_USER:
		return 4;
	case SNAPSHOT_CONTEXT_GUEST_KERNEL:
		return 5;
	case SNAPSHOT_CONTEXT_UNKNOWN:
	default:
		return 0;
	}
}

/* The task and execution contexts a StackSample refers to, interned. */
static void stack_sample_contexts(struct seq *q, const struct perf_record_info *info, uint64_t st,
				  enum snapshot_context leaf, uint64_t *ret_task,
				  uint64_t *ret_exec)
{
	uint64_t key[2];
	bool is_new;
	pb_nested n;

	*ret_task = 0;
	if (st & PERF_SAMPLE_TID) {
		key[0] = info->pid;
		key[1] = info->tid;
		*ret_task = intern(q, T_TASKS, key, sizeof(key), &is_new);
		if (is_new) {
			n = pb__begin(&q->pending, INT_TASKS);
			pb__varint(&q->pending, 1, *ret_task);
			pb__varint(&q->pending, 2, info->pid);
			pb__varint(&q->pending, 3, info->tid);
			pb__end(&q->pending, n);
		}
	}
	key[0] = st & PERF_SAMPLE_CPU ? info->cpu + 1ull : 0;
	key[1] = stack_sample_mode(leaf);
	*ret_exec = intern(q, T_EXECS, key, sizeof(key), &is_new);
	if (is_new) {
		n = pb__begin(&q->pending, INT_EXECS);
		pb__varint(&q->pending, 1, *ret_exec);
		if (key[0])
			pb__varint(&q->pending, 2, info->cpu);
		if (key[1])
			pb__varint(&q->pending, 3, key[1]);
		pb__end(&q->pending, n);
	}
}

int perfetto_stacks__sample(struct perfetto_stacks *sc, struct pftrace_out *o, size_t ev_idx,
			    const struct snapshot_event *ev, const struct perf_record_info *info,
			    uint16_t misc)
{
	struct seq *q = &sc->seqs[ev_idx];
	uint64_t st = ev->attr.sample_type, task = 0, exec = 0, stack = 0;
	struct pb_buf *p = &sc->pkt;
	enum snapshot_context leaf;
	pb_nested n;
	bool is_new;
	size_t nr;
	int r;

	if (!q->started && (r = start_seq(sc, o, ev_idx, ev)))
		return r;
	nr = walk(sc, q, info, st, misc, &leaf);
	if (nr) {
		stack = intern(q, T_CALLSTACKS, sc->frames, nr * sizeof(sc->frames[0]), &is_new);
		if (is_new) {
			n = pb__begin(&q->pending, INT_CALLSTACKS);
			pb__varint(&q->pending, 1, stack);
			for (size_t i = 0; i < nr; i++)
				pb__varint(&q->pending, 2, sc->frames[i]);
			pb__end(&q->pending, n);
		}
	}
	if (sc->kind == PERFETTO_SAMPLE_STACK)
		stack_sample_contexts(q, info, st, leaf, &task, &exec);
	if (q->pending.err)
		return q->pending.err;

	pb__varint(p, PKT_TIMESTAMP, info->time);
	pb__varint(p, PKT_SEQ_ID, ev_idx + 1);
	if (q->pending.len) {
		pb__bytes(p, PKT_INTERNED_DATA, q->pending.data, q->pending.len);
		pb_buf__reset(&q->pending);
	}
	pb__varint(p, PKT_SEQ_FLAGS, SEQ_NEEDS_INCREMENTAL_STATE);
	if (sc->kind == PERFETTO_SAMPLE_PERF) {
		n = pb__begin(p, PKT_PERF_SAMPLE);
		pb__varint(p, 1, st & PERF_SAMPLE_CPU ? info->cpu : 0);
		if (st & PERF_SAMPLE_TID) {
			pb__varint(p, 2, info->pid);
			pb__varint(p, 3, info->tid);
		}
		if (stack)
			pb__varint(p, 4, stack);
		if (leaf != SNAPSHOT_CONTEXT_UNKNOWN)
			pb__varint(p, 5, leaf); /* cpu_mode */
		pb__end(p, n);
		return pftrace_out__emit(o, p);
	}
	n = pb__begin(p, PKT_STACK_SAMPLE);
	if (task)
		pb__varint(p, 2, task);
	pb__varint(p, 4, exec);
	if (stack)
		pb__varint(p, 6, stack);
	if (st & PERF_SAMPLE_PERIOD)
		pb__varint(p, 11, info->period);
	pb__end(p, n);
	return pftrace_out__emit(o, p);
}

/**
 * perfetto_stacks__lost - mark records lost on a sampling ring
 * @sc: the stack writer
 * @o: the output
 * @cpu: the ring's CPU
 * @time: when (the PERF_RECORD_LOST's time)
 * @lost: how many records
 *
 * A PerfSample carrying only cpu and kernel_records_lost, on a sequence of
 * its own (after the events'): it needs no interned state and no stream.
 * Written for StackSample output too, whose schema has no loss field.
 * Returns 0 or -errno.
 */
int perfetto_stacks__lost(struct perfetto_stacks *sc, struct pftrace_out *o, uint32_t cpu,
			  uint64_t time, uint64_t lost)
{
	struct pb_buf *p = &sc->pkt;
	pb_nested n;

	pb__varint(p, PKT_TIMESTAMP, time);
	pb__varint(p, PKT_TIMESTAMP_CLOCK_ID, sc->clock_id);
	pb__varint(p, PKT_SEQ_ID, sc->nr_seqs + 1);
	n = pb__begin(p, PKT_PERF_SAMPLE);
	pb__varint(p, 1, cpu);
	pb__varint(p, 17, lost); /* kernel_records_lost */
	pb__end(p, n);
	return pftrace_out__emit(o, p);
}
