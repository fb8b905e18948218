// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_perfetto: snapshot -> Perfetto trace, in one pass over the
 * time-ordered records: side-band records feed the task names and the
 * maps symbols are found in, samples go out as they come (see
 * perfetto_ftrace.c and perfetto_stacks.c). The ProcessTree goes last,
 * once every name is known; trace processor sorts packets by time.
 *
 * Clocks: every timestamp of a snapshot is in one clock, its events'
 * (perf's own unless use_clockid). That clock is the trace's
 * primary_trace_clock: CLOCK_MONOTONIC, _RAW, BOOTTIME and REALTIME as
 * the builtin clocks of those names, perf's local clock as
 * BUILTIN_CLOCK_PERF (the id Perfetto gives "the perf event clock"; not
 * MONOTONIC, which it only resembles). Trace processor reads ftrace
 * bundles as BOOTTIME, so the ClockSnapshot states BOOTTIME equal to the
 * snapshot's clock: the ftrace events land on the same time line as the
 * samples. The file holds no true boottime reading.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_record.h"
#include "pb.h"
#include "perfetto_packet.h"
#include "perfetto_ftrace.h"
#include "perfetto_stacks.h"
#include "pftrace_out.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "snapshot_perfetto.h"
#include "snapshot_tasks.h"
#include "symbols.h"

#define CLOCK_ID_REALTIME      1
#define CLOCK_ID_MONOTONIC     3
#define CLOCK_ID_MONOTONIC_RAW 5
#define CLOCK_ID_BOOTTIME      6
#define CLOCK_ID_PERF	       10

#define PROGRESS_EVERY 65536

/* A task of the ProcessTree. */
struct tree_task {
	const struct snapshot_task_info *t;
	int32_t pid;				/* its process (itself when unknown) */
	uint64_t named_at;			/* no earlier than the snapshot's start */
	const struct snapshot_cmdline *cmdline; /* a process's, if the dump read it */
};

struct writer {
	const struct snapshot *s;
	const struct perfetto_meta *m;
	struct pftrace_out *o;
	struct symbols *syms;
	struct perfetto_ftrace *fc;
	struct perfetto_stacks *sc;
	struct snapshot_tasks *tasks;
	uint32_t clock_id;
	/* What each kind of ring carries ([1]: write_backward, [0]: forward). */
	bool ring_tracepoints[2], ring_samples[2];
	struct pb_buf pkt;
	struct perfetto_result res;
};

static uint32_t clock_id_of(const struct snapshot *s)
{
	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;

		if (!a->use_clockid)
			continue;
		switch (a->clockid) {
		case CLOCK_REALTIME:
			return CLOCK_ID_REALTIME;
		case CLOCK_MONOTONIC:
			return CLOCK_ID_MONOTONIC;
		case CLOCK_MONOTONIC_RAW:
			return CLOCK_ID_MONOTONIC_RAW;
		case CLOCK_BOOTTIME:
			return CLOCK_ID_BOOTTIME;
		default:
			return CLOCK_ID_PERF; /* e.g. TAI: no builtin id */
		}
	}
	return CLOCK_ID_PERF;
}

static int system_info(struct writer *w);

/*
 * Wall-clock time at @t (the snapshot's clock), from the recording's own
 * reference pair (meta clock_ref): only when that pair was read in the
 * events' clock, and the events' clock is not REALTIME itself.
 */
static bool realtime_at(const struct writer *w, uint64_t t, uint64_t *ret)
{
	const struct perfetto_clock_ref *ref = &w->m->clock_ref;
	int clockid = -1;

	for (size_t i = 0; i < snapshot__nr_events(w->s); i++) {
		const struct perf_event_attr *a = &snapshot__event(w->s, i)->attr;

		if (a->use_clockid) {
			clockid = a->clockid;
			break;
		}
	}
	if (!ref->valid || clockid < 0 || clockid != ref->clockid ||
	    w->clock_id == CLOCK_ID_REALTIME)
		return false;
	*ret = ref->realtime_ns + (t - ref->clock_ns); /* modulo 2^64: t may be earlier */
	return true;
}

static int clock_snapshot(struct writer *w)
{
	uint64_t t0 = snapshot__stats(w->s)->first_time, wall;
	struct pb_buf *p = &w->pkt;
	pb_nested n, c;

	n = pb__begin(p, PKT_CLOCK_SNAPSHOT);
	c = pb__begin(p, 1);
	pb__varint(p, 1, w->clock_id);
	pb__varint(p, 2, t0);
	pb__end(p, c);
	if (w->clock_id != CLOCK_ID_BOOTTIME) {
		c = pb__begin(p, 1);
		pb__varint(p, 1, CLOCK_ID_BOOTTIME);
		pb__varint(p, 2, t0);
		pb__end(p, c);
	}
	if (realtime_at(w, t0, &wall)) {
		c = pb__begin(p, 1);
		pb__varint(p, 1, CLOCK_ID_REALTIME);
		pb__varint(p, 2, wall);
		pb__end(p, c);
	}
	pb__varint(p, 2, w->clock_id); /* primary_trace_clock */
	pb__end(p, n);
	pb__varint(p, PKT_TIMESTAMP, t0);
	pb__varint(p, PKT_TIMESTAMP_CLOCK_ID, w->clock_id);
	if (pftrace_out__emit(w->o, p))
		return p->err ? p->err : -EIO;
	return system_info(w);
}

static bool known(const char *s)
{
	return s && s[0];
}

/*
 * The recording machine: its machine names the syscall table that
 * sys_enter ids are looked up in, its release how prev_state is read.
 * Taken from the meta (the daemon's own uname, a perf.data header's),
 * never from this machine, which may not be the recording one.
 */
static int system_info(struct writer *w)
{
	const struct perfetto_system *sys = &w->m->system;
	struct pb_buf *p = &w->pkt;
	pb_nested n, c;

	if (!known(sys->sysname) && !known(sys->version) && !known(sys->release) &&
	    !known(sys->machine))
		return 0;
	n = pb__begin(p, PKT_SYSTEM_INFO);
	c = pb__begin(p, 1); /* utsname */
	if (known(sys->sysname))
		pb__str(p, 1, sys->sysname);
	if (known(sys->version))
		pb__str(p, 2, sys->version);
	if (known(sys->release))
		pb__str(p, 3, sys->release);
	if (known(sys->machine))
		pb__str(p, 4, sys->machine);
	pb__end(p, c);
	pb__end(p, n);
	return pftrace_out__emit(w->o, p);
}

static size_t event_index(const struct snapshot *s, const struct snapshot_event *ev)
{
	for (size_t i = 0; i < snapshot__nr_events(s); i++)
		if (snapshot__event(s, i) == ev)
			return i;
	return 0;
}

/* A sampling event: what perfetto_stacks writes, not side-band only (dummy). */
static bool is_sampling(const struct perf_event_attr *a)
{
	return a->type != PERF_TYPE_TRACEPOINT &&
	       !(a->type == PERF_TYPE_SOFTWARE && a->config == PERF_COUNT_SW_DUMMY) &&
	       (a->sample_type & (PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN));
}

/*
 * Which events share a ring: a CPU's events of one direction (perfsnapd
 * maps an overwrite and a forward ring per CPU, perf record one).
 */
static void ring_contents(struct writer *w)
{
	for (size_t i = 0; i < snapshot__nr_events(w->s); i++) {
		const struct perf_event_attr *a = &snapshot__event(w->s, i)->attr;

		if (a->type == PERF_TYPE_TRACEPOINT)
			w->ring_tracepoints[a->write_backward] = true;
		/* a tracepoint's callchain makes a sample too (record()) */
		if (is_sampling(a) ||
		    (a->type == PERF_TYPE_TRACEPOINT && (a->sample_type & PERF_SAMPLE_CALLCHAIN)))
			w->ring_samples[a->write_backward] = true;
	}
}

/*
 * A PERF_RECORD_LOST: records of its ring are gone, whichever of the
 * ring's events they were (the kernel reports them with the id of the
 * event that writes next). The ftrace bundle of the CPU is marked only if
 * the ring carries tracepoints, the sample stream only if it carries
 * sampling events.
 */
static int lost(struct writer *w, const struct perf_event_header *h,
		const struct snapshot_event *ev, int ring_cpu)
{
	struct perf_record_info info;
	bool backward = ev->attr.write_backward;
	uint32_t cpu;
	uint64_t nr;
	int r = 0;

	if (h->size < sizeof(*h) + 16 ||
	    perf_record__parse_id_trailer(h, ev->attr.sample_type, &info) < 0)
		return 0;
	memcpy(&nr, (const uint8_t *)(h + 1) + 8, sizeof(nr));
	w->res.lost_events += nr;
	cpu = ev->attr.sample_type & PERF_SAMPLE_CPU ? info.cpu : (uint32_t)ring_cpu;
	if (w->ring_tracepoints[backward])
		r = perfetto_ftrace__lost(w->fc, w->o, cpu);
	if (!r && w->ring_samples[backward]) {
		r = perfetto_stacks__lost(w->sc, w->o, cpu,
					  ev->attr.sample_type & PERF_SAMPLE_TIME ? info.time : 0,
					  nr);
		if (!r)
			w->res.nr_sample_lost_marks++;
	}
	return r;
}

/* @cpu: the CPU the cursor files @h under (its ring's when @h has none). */
static int record(struct writer *w, const struct perf_event_header *h, int cpu)
{
	const struct snapshot_event *ev;
	struct perf_record_info info;
	uint64_t id;
	bool tracepoint;
	int r;

	if (perf_record__id(h, &id) < 0 || !(ev = snapshot__event_by_id(w->s, id)))
		return 0;
	if (h->type == PERF_RECORD_LOST)
		return lost(w, h, ev, cpu);
	if (h->type != PERF_RECORD_SAMPLE)
		return symbols__take_record(w->syms, w->tasks, h, ev->attr.sample_type);
	if (snapshot__sample(w->s, ev, h, cpu, &info) < 0) {
		w->res.nr_invalid++;
		return 0;
	}
	tracepoint = ev->attr.type == PERF_TYPE_TRACEPOINT;
	if (tracepoint) {
		r = perfetto_ftrace__sample(w->fc, w->o, &info);
		if (r == PERFETTO_FTRACE_SKIPPED)
			return 0; /* counted in nr_cpu_skipped */
		if (r > 0)
			w->res.nr_invalid++;
		if (r)
			return r < 0 ? r : 0;
		w->res.nr_ftrace++;
		/*
		 * Recorded with its callchain (call-graph=fp, perf record -g), a
		 * tracepoint's stack is why it is recorded: it goes in as well,
		 * a StackSample of a stream named after the tracepoint, as
		 * Perfetto's own profiler does with a tracepoint timebase.
		 */
		if (!info.callchain_nr)
			return 0;
	}
	r = perfetto_stacks__sample(w->sc, w->o, event_index(w->s, ev), ev, &info, h->misc);
	if (!r && tracepoint)
		w->res.nr_tracepoint_stacks++;
	else if (!r)
		w->res.nr_samples++;
	return r;
}

/*
 * A process: its parent and its command line, as /proc gave it at the dump
 * (else, like Perfetto's own probes for a kernel thread, its name, marked
 * cmdline_is_comm).
 */
static void process_entry(struct pb_buf *p, const struct tree_task *t, const char *name)
{
	const struct snapshot_cmdline *c = t->cmdline;
	pb_nested e = pb__begin(p, 1);

	pb__varint(p, 1, (uint64_t)(int64_t)t->pid);
	if (t->t->ppid > 0)
		pb__varint(p, 2, (uint64_t)(int64_t)t->t->ppid);
	if (c) {
		for (size_t at = 0; at < c->len; at += strlen(c->args + at) + 1)
			pb__str(p, 3, c->args + at);
	} else if (name[0]) {
		pb__str(p, 3, name);
		pb__varint(p, 9, 1); /* cmdline_is_comm */
	}
	pb__end(p, e);
}

static int by_tid(const void *a, const void *b)
{
	const struct tree_task *x = a, *y = b;

	return x->t->tid < y->t->tid ? -1 : x->t->tid > y->t->tid;
}

static int by_named_at(const void *a, const void *b)
{
	const struct tree_task *x = a, *y = b;

	return x->named_at < y->named_at ? -1 : x->named_at > y->named_at;
}

/* One ProcessTree of @nr tasks, stamped @time. */
static int tree_packet(struct writer *w, const struct tree_task *tasks, size_t nr, uint64_t time)
{
	struct pb_buf *p = &w->pkt;
	pb_nested n = pb__begin(p, PKT_PROCESS_TREE), e;

	for (size_t i = 0; i < nr; i++) {
		const struct tree_task *t = &tasks[i];
		const char *name = t->t->comm;

		if (!name[0])
			name = snapshot__comm(w->s, t->t->tid);
		if (!name)
			name = "";
		if (t->t->tid == t->pid)
			process_entry(p, t, name);
		e = pb__begin(p, 2);
		pb__varint(p, 1, (uint64_t)(int64_t)t->t->tid);
		pb__varint(p, 3, (uint64_t)(int64_t)t->pid);
		if (name[0])
			pb__str(p, 2, name);
		pb__end(p, e);
		w->res.nr_tasks++;
	}
	pb__end(p, n);
	pb__varint(p, PKT_TIMESTAMP, time);
	pb__varint(p, PKT_TIMESTAMP_CLOCK_ID, w->clock_id);
	return pftrace_out__emit(w->o, p);
}

/* The tasks of the tree, sorted by tid; the processes' command lines. */
static struct tree_task *tree_tasks(struct writer *w, size_t *ret_nr)
{
	uint64_t t0 = snapshot__stats(w->s)->first_time;
	const struct snapshot_task_info *e;
	struct tree_task *v, key, *t;
	struct snapshot_task_info k;
	size_t nr = 0, pos = 0;

	for (size_t i = 0; i < snapshot__nr_tasks(w->s); i++) {
		const struct snapshot_task *st = snapshot__task(w->s, i);

		if (snapshot_tasks__add(w->tasks, st->tid, st->pid) < 0 ||
		    (st->pid != st->tid && snapshot_tasks__add(w->tasks, st->pid, st->pid) < 0))
			return NULL;
	}
	v = calloc(snapshot_tasks__nr(w->tasks) + 1, sizeof(*v));
	if (!v)
		return NULL;
	while ((e = snapshot_tasks__next(w->tasks, &pos)))
		v[nr++] = (struct tree_task){ .t = e,
					      .pid = e->pid ? e->pid : e->tid,
					      .named_at = e->named_at < t0 ? t0 : e->named_at };
	qsort(v, nr, sizeof(*v), by_tid);
	/* Only for the processes the tree lists. */
	for (size_t i = 0; i < snapshot__nr_cmdlines(w->s); i++) {
		const struct snapshot_cmdline *c = snapshot__cmdline(w->s, i);

		k.tid = c->pid;
		key.t = &k;
		t = bsearch(&key, v, nr, sizeof(*v), by_tid);
		if (t && t->pid == t->t->tid)
			t->cmdline = c;
	}
	*ret_nr = nr;
	return v;
}

/*
 * Every task the snapshot saw, named: processes (tid == pid) and threads.
 * Each is stamped when its last COMM or FORK named it (no earlier than the
 * snapshot's start): a process forked in the span must not appear before
 * its fork, or trace processor, seeing its task_newtask later, makes it a
 * second process of the same pid. So one tree per such time, in order.
 */
static int process_tree(struct writer *w)
{
	size_t nr = 0;
	struct tree_task *v = tree_tasks(w, &nr);
	int r = 0;

	if (!v)
		return -ENOMEM;
	if (nr)
		qsort(v, nr, sizeof(*v), by_named_at);
	for (size_t i = 0, j; i < nr && !r; i = j) {
		for (j = i + 1; j < nr && v[j].named_at == v[i].named_at;)
			j++;
		r = tree_packet(w, v + i, j - i, v[i].named_at);
	}
	if (!nr && !r)
		r = tree_packet(w, v, 0, snapshot__stats(w->s)->first_time);
	free(v);
	return r;
}

/**
 * snapshot_perfetto__write - write a snapshot as a Perfetto trace
 * @s: a sealed snapshot
 * @fd: destination, written from its current offset (never closed)
 * @meta: compression and progress
 * @ret: sizes and counts, set on success (may be NULL)
 *
 * See snapshot_perfetto.h. Returns 0, -EINVAL without @s, @meta or a
 * valid @fd, -ENODATA for tracepoints without tracing metadata, -ENOMEM,
 * or the -errno of a write.
 */
int snapshot_perfetto__write(const struct snapshot *s, int fd, const struct perfetto_meta *meta,
			     struct perfetto_result *ret)
{
	struct writer w = { .s = s, .m = meta };
	const struct perf_event_header *h;
	struct snapshot_cursor *cur;
	size_t nr;
	int r;

	if (!s || !meta || fd < 0)
		return -EINVAL;
	w.clock_id = clock_id_of(s);
	ring_contents(&w);
	w.o = pftrace_out__new(fd, meta->compression);
	w.tasks = snapshot_tasks__new();
	w.syms = symbols__new_snapshot(s, meta->kallsyms, meta->kallsyms_size);
	if (w.syms)
		symbols__set_source(w.syms, meta->symbols);
	w.sc = w.syms ? perfetto_stacks__new(s, w.syms, w.clock_id, meta->samples) : NULL;
	r = w.o && w.sc && w.tasks ? perfetto_ftrace__new(s, &w.fc) : -ENOMEM;
	for (size_t i = 0; !r && i < meta->nr_build_ids; i++)
		r = symbols__add_build_id(w.syms, meta->build_ids[i].path, meta->build_ids[i].id,
					  meta->build_ids[i].size);
	if (!r)
		r = clock_snapshot(&w);
	nr = snapshot__nr_records(s);
	cur = r ? NULL : snapshot_cursor__new(s, SNAPSHOT_ALL_CPUS);
	if (!r && !cur)
		r = -ENOMEM;
	for (size_t i = 0; !r && (h = snapshot_cursor__next(cur, NULL)); i++) {
		r = record(&w, h, snapshot_cursor__cpu(cur));
		if (meta->progress && (i % PROGRESS_EVERY) == 0)
			meta->progress(meta->progress_ctx, i, nr);
	}
	snapshot_cursor__delete(cur);
	if (!r)
		r = perfetto_ftrace__finish(w.fc, w.o, &w.res.nr_lost_marks, &w.res.nr_cpu_skipped);
	if (!r)
		r = process_tree(&w);
	if (!r)
		r = pftrace_out__finish(w.o);
	if (!r && meta->progress)
		meta->progress(meta->progress_ctx, nr, nr);
	if (!r) {
		w.res.bytes = pftrace_out__bytes(w.o);
		if (ret)
			*ret = w.res;
	}
	perfetto_ftrace__delete(w.fc);
	perfetto_stacks__delete(w.sc);
	symbols__delete(w.syms);
	pftrace_out__delete(w.o);
	snapshot_tasks__delete(w.tasks);
	pb_buf__fini(&w.pkt);
	return r;
}
