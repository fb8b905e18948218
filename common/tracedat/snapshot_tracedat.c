// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_tracedat: snapshot -> trace.dat, through tracedat_writer.
 *
 * Each CPU's records come straight from the snapshot's runs for that CPU,
 * in time order: tracepoint samples become events, a PERF_RECORD_LOST
 * marks the next page of its CPU. Task names come from the snapshot. Part
 * of common/: no logging.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "array_grow.h"
#include "perf_record.h"
#include "snapshot.h"
#include "snapshot_cursor.h"
#include "snapshot_tracedat.h"
#include "tracing_meta.h"

struct task_ref {
	pid_t tid, pid;
};

struct conv {
	const struct snapshot *s;
	const struct tracedat_meta *meta;
	struct tracedat_writer *w;
	struct task_ref *tasks;
	size_t nr_tasks, cap_tasks;
	uint64_t done; /* records written, for progress */
	struct tracedat_result res;
};

static int push_task(struct conv *c, pid_t tid, pid_t pid)
{
	/* Consecutive samples are mostly the same task. */
	if (tid <= 0 || (c->nr_tasks && c->tasks[c->nr_tasks - 1].tid == tid))
		return 0;
	if (array__grow((void **)&c->tasks, &c->cap_tasks, c->nr_tasks, sizeof(*c->tasks), 256))
		return -ENOMEM;
	c->tasks[c->nr_tasks++] = (struct task_ref){ .tid = tid, .pid = pid };
	return 0;
}

static int cmp_task(const void *a, const void *b)
{
	const struct task_ref *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/*
 * Every task the snapshot names; then a thread it does not name, under its
 * process's name (as perf script shows it).
 */
static int add_cmdlines(struct conv *c)
{
	int r;

	for (size_t i = 0; i < snapshot__nr_comms(c->s); i++) {
		const struct snapshot_comm *e = snapshot__comm_entry(c->s, i);

		r = tracedat_writer__add_cmdline(c->w, e->tid, e->comm);
		if (r < 0)
			return r;
		c->res.nr_cmdlines++;
	}
	if (c->nr_tasks)
		qsort(c->tasks, c->nr_tasks, sizeof(*c->tasks), cmp_task);
	for (size_t i = 0; i < c->nr_tasks; i++) {
		const struct task_ref *t = &c->tasks[i];
		const char *comm;

		if ((i && c->tasks[i - 1].tid == t->tid) || snapshot__comm(c->s, t->tid) ||
		    !(comm = snapshot__comm(c->s, t->pid)))
			continue;
		r = tracedat_writer__add_cmdline(c->w, t->tid, comm);
		if (r < 0)
			return r;
		c->res.nr_cmdlines++;
	}
	return 0;
}

/* Every format of the capture's metadata, its printk and kallsyms. */
static int add_formats(struct conv *c, const struct tracing_data_info *t)
{
	int r = 0;

	for (size_t i = 0; i < t->nr_ftrace && !r; i++)
		r = tracedat_writer__add_event_format_text(c->w, t->ftrace[i].system,
							   t->ftrace[i].text, t->ftrace[i].size);
	for (size_t i = 0; i < t->nr_events && !r; i++)
		r = tracedat_writer__add_event_format_text(c->w, t->events[i].system,
							   t->events[i].text, t->events[i].size);
	if (!r && t->printk_size)
		r = tracedat_writer__set_printk(c->w, t->printk, t->printk_size);
	if (!r && t->kallsyms_size)
		r = tracedat_writer__set_kallsyms(c->w, t->kallsyms, t->kallsyms_size);
	if (!r && c->meta->uname)
		r = tracedat_writer__set_uname(c->w, c->meta->uname);
	return r;
}

/**
 * snapshot_tracedat__trace_clock - the ftrace name of the clock a snapshot's samples use
 * @s: the snapshot
 *
 * trace.dat records the ftrace clock of its timestamps and trace-cmd shows
 * it. perf's own clock is the kernel's local clock, ftrace's "local";
 * CLOCK_MONOTONIC and CLOCK_BOOTTIME are "mono" and "boot". ftrace has no
 * realtime clock: "realtime" at least says what the timestamps are.
 *
 * Returns a static string.
 */
const char *snapshot_tracedat__trace_clock(const struct snapshot *s)
{
	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;

		if (!a->use_clockid)
			continue;
		switch (a->clockid) {
		case CLOCK_MONOTONIC:
			return "mono";
		case CLOCK_MONOTONIC_RAW:
			return "mono_raw";
		case CLOCK_BOOTTIME:
			return "boot";
		case CLOCK_TAI:
			return "tai";
		case CLOCK_REALTIME:
			return "realtime";
		default:
			return "local";
		}
	}
	return "local";
}

/* One CPU's stream: begun at its first event or LOST record. */
struct cpu_out {
	int cpu;
	bool begun;
	uint64_t pending; /* lost counts not yet shown by an event */
};

static int cpu_begin(struct conv *c, struct cpu_out *o)
{
	int r;

	if (o->begun || o->cpu < 0)
		return o->cpu < 0 ? -ENODATA : 0;
	r = tracedat_writer__begin_cpu(c->w, o->cpu);
	o->begun = r == 0;
	return r;
}

static int write_lost(struct conv *c, struct cpu_out *o, const struct perf_event_header *h)
{
	uint64_t lost;
	int r;

	if (h->size < sizeof(*h) + 16)
		return 0;
	r = cpu_begin(c, o);
	if (r < 0)
		return r == -ENODATA ? 0 : r;
	memcpy(&lost, (const uint8_t *)(h + 1) + 8, sizeof(lost));
	o->pending += lost;
	return tracedat_writer__add_lost(c->w, lost);
}

/* A tracepoint sample's raw record, trimmed to what ftrace stores. */
static int write_sample(struct conv *c, struct cpu_out *o, const struct perf_event_header *h,
			const struct snapshot_event *ev)
{
	uint64_t st = ev->attr.sample_type;
	struct perf_record_info info;
	int32_t tid;
	pid_t pid;
	size_t size;
	int r;

	if (ev->attr.type != PERF_TYPE_TRACEPOINT || !(st & PERF_SAMPLE_RAW)) {
		c->res.nr_skipped++;
		return 0;
	}
	if (o->cpu < 0 || perf_sample_layout__head(&ev->layout, h, &info) < 0 ||
	    perf_sample_layout__raw(&ev->layout, h, &info.raw, &info.raw_size) < 0 ||
	    info.raw_size < 8) {
		c->res.nr_invalid++;
		return 0;
	}
	/* common_pid: the task trace-cmd looks up in CMDLINES. */
	memcpy(&tid, (const uint8_t *)info.raw + 4, sizeof(tid));
	/* A compact record's process comes from the COMM and FORK records. */
	pid = (st & PERF_SAMPLE_TID) ? ((int32_t)info.tid == tid ? (pid_t)info.pid : -1) :
				       snapshot__tgid(c->s, (pid_t)tid);
	r = push_task(c, (pid_t)tid, pid >= 0 ? pid : (pid_t)tid);
	if (r == 0)
		r = cpu_begin(c, o);
	if (r < 0)
		return r;
	size = tracedat_writer__event_size(c->w, info.raw, info.raw_size);
	r = tracedat_writer__add_event(c->w, info.time, info.raw, size);
	if (r == -E2BIG || r == -EINVAL) {
		c->res.nr_invalid++; /* larger than a ring-buffer page */
		return 0;
	}
	if (r < 0)
		return r;
	c->res.nr_events++;
	c->res.lost_events += o->pending;
	o->pending = 0;
	return 0;
}

/* Straight from the CPU's own runs (ftrace's layout is per CPU too). */
static int write_cpu(struct conv *c, int cpu)
{
	struct snapshot_cursor *cur = snapshot_cursor__new(c->s, cpu);
	struct cpu_out o = { .cpu = cpu };
	const struct perf_event_header *h;
	int r = 0;

	if (!cur)
		return -ENOMEM;
	while (r == 0 && (h = snapshot_cursor__next(cur, NULL))) {
		const struct snapshot_event *ev = snapshot_cursor__event(cur);

		if (c->meta->progress && (++c->done % 65536) == 0)
			c->meta->progress(c->meta->progress_ctx, c->done,
					  snapshot__nr_records(c->s));
		if (!ev)
			continue;
		if (h->type == PERF_RECORD_SAMPLE)
			r = write_sample(c, &o, h, ev);
		else if (h->type == PERF_RECORD_LOST)
			r = write_lost(c, &o, h);
	}
	snapshot_cursor__delete(cur);
	if (r == 0 && o.begun)
		r = tracedat_writer__end_cpu(c->w);
	if (r == 0 && o.begun)
		c->res.lost_unplaced += o.pending;
	return r;
}

static int write_cpus(struct conv *c)
{
	int max = snapshot__max_cpu(c->s), r = 0;

	/* CPU -1 holds records with a corrupt CPU: counted, not written. */
	for (int cpu = -1; cpu <= max && r == 0; cpu++)
		r = write_cpu(c, cpu);
	return r;
}

static int write_file(struct conv *c, int fd)
{
	const struct tracing_meta *tm = snapshot__tracing(c->s);
	const struct tracing_data_info *t = tm ? tracing_meta__info(tm) : NULL;
	const struct tracedat_meta *m = c->meta;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	struct tracedat_params p = {
		.nr_cpus = m->nr_cpus > 0 ? m->nr_cpus : (conf > 0 ? (int)conf : 1),
		.trace_clock = snapshot_tracedat__trace_clock(c->s),
		.compression = m->compression,
	};
	int r;

	/* header_page and header_event describe the ring buffer the pages imitate. */
	if (!t || !t->header_page_size || !t->header_event_size)
		return -ENODATA;
	p.header_page = t->header_page;
	p.header_page_size = t->header_page_size;
	p.header_event = t->header_event;
	p.header_event_size = t->header_event_size;

	if (snapshot__max_cpu(c->s) >= p.nr_cpus)
		p.nr_cpus = snapshot__max_cpu(c->s) + 1;
	c->w = tracedat_writer__new(fd, &p);
	if (!c->w)
		return -ENOMEM;
	c->res.nr_cpus = p.nr_cpus;
	r = add_formats(c, t);
	if (r == 0)
		r = write_cpus(c);
	if (r == 0)
		r = add_cmdlines(c);
	if (r == 0)
		r = tracedat_writer__finish(c->w);
	if (r == 0)
		c->res.bytes = tracedat_writer__size(c->w);
	return r;
}

/**
 * snapshot_tracedat__write - write a snapshot's tracepoint events as trace.dat
 * @s: a sealed snapshot
 * @fd: destination, written from offset 0 (never closed)
 * @meta: compression, CPU count, uname
 * @ret: sizes and counts, set on success (may be NULL)
 *
 * Tracepoint samples (PERF_TYPE_TRACEPOINT with PERF_SAMPLE_RAW) go to the
 * FLYRECORD pages of their PERF_SAMPLE_CPU (without it, their ring's CPU,
 * else 0), each trimmed to the size ftrace would have stored. A
 * PERF_RECORD_LOST marks the next page of the CPU in its sample_id_all
 * trailer. CMDLINES hold the names of tasks the snapshot names
 * (snapshot__comm()). Headers, formats and printk come from the snapshot's
 * tracing metadata, the clock from its events (snapshot_tracedat__trace_clock()):
 * nothing is read from tracefs. Returns 0, -EINVAL without @s, @meta or a
 * valid @fd, -ENODATA without tracing metadata, -ENOMEM, or the -errno of
 * a write.
 */
int snapshot_tracedat__write(const struct snapshot *s, int fd, const struct tracedat_meta *meta,
			     struct tracedat_result *ret)
{
	struct conv c = { .s = s, .meta = meta };
	int r;

	if (!s || !meta || fd < 0)
		return -EINVAL;
	r = write_file(&c, fd);
	if (r == 0 && ret)
		*ret = c.res;
	tracedat_writer__delete(c.w);
	free(c.tasks);
	return r;
}
