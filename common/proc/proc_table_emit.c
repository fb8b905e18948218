// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table_emit: replays the table for a snapshot's span as perf records.
 * Items (state at the start, then changes) are gathered for the tasks of
 * the snapshot, sorted by time and laid out one by one in a reused buffer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "perf_record.h"
#include "proc_table-internal.h"

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

enum item_kind { ITEM_FORK, ITEM_COMM, ITEM_MAP, ITEM_EXIT };

/* One record to emit, ordered by time, then order, then seq. */
struct item {
	uint64_t time;
	uint64_t order; /* an initial mapping's own start, so newer ones win */
	size_t seq;
	const struct pt_task *task;
	const struct pt_comm *comm; /* ITEM_COMM: the task's own, or its parent's */
	uint32_t idx;		    /* into maps */
	uint8_t kind;
	bool initial;
	bool exec; /* ITEM_COMM: a change made by an exec */
};

struct emitter {
	const struct proc_table *t;
	struct item *items;
	size_t nr, cap;
	uint8_t *buf;
	size_t buf_cap;
	uint64_t start, end;
	const struct procinfo_stamp *stamp;
	procinfo_emit_fn emit;
	void *ctx;
};

struct pick {
	const struct pt_task *task;
	bool full; /* its own records too, not just its process's maps */
};

static int add_item(struct emitter *e, const struct pt_task *p, enum item_kind kind, uint32_t idx,
		    uint64_t time, bool initial)
{
	struct item *it;

	if (e->nr == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;

		it = reallocarray(e->items, cap, sizeof(*it));
		if (!it)
			return -ENOMEM;
		e->items = it;
		e->cap = cap;
	}
	it = &e->items[e->nr];
	*it = (struct item){
		.time = time, .seq = e->nr, .task = p, .idx = idx, .kind = kind, .initial = initial
	};
	if (initial && kind == ITEM_MAP)
		it->order = p->maps[idx].from;
	e->nr++;
	return 0;
}

static bool in_span(const struct emitter *e, uint64_t time)
{
	return time >= e->start && time <= e->end;
}

static int add_comm(struct emitter *e, const struct pt_task *p, const struct pt_comm *c,
		    uint64_t time, bool initial, bool exec)
{
	int r = add_item(e, p, ITEM_COMM, 0, time, initial);

	if (r == 0) {
		e->items[e->nr - 1].comm = c;
		e->items[e->nr - 1].exec = exec;
	}
	return r;
}

/*
 * The state at the start is no exec, even if an exec set it. A task with
 * no name of its own by then (or, forked in the span, at its fork) has the
 * one it inherited (see proc_table__task_comm_at()).
 */
static int collect_comms(struct emitter *e, const struct pt_task *p, bool initial)
{
	uint64_t before = e->start ? e->start - 1 : 0;
	const struct pt_comm *c = NULL;
	int64_t init = -1;
	int r = 0;

	if (!p->nr_comms || p->comms[0].time > (initial ? before : p->born))
		c = proc_table__task_comm_at_fork(e->t, p);
	if (c) {
		r = add_comm(e, p, c, initial ? before : p->born, initial, false);
	} else if (initial && p->nr_comms) {
		for (init = 0; init + 1 < p->nr_comms && p->comms[init + 1].time < e->start;)
			init++;
		r = add_comm(e, p, &p->comms[init], before, true, false);
	}
	for (uint32_t i = 0; i < p->nr_comms && r >= 0; i++)
		if (i != init && in_span(e, p->comms[i].time))
			r = add_comm(e, p, &p->comms[i], p->comms[i].time, false, p->comms[i].exec);
	return r;
}

static int collect_task(struct emitter *e, const struct pick *pk)
{
	const struct pt_task *p = pk->task;
	bool initial = !(p->flags & PT_FORKED) || p->born < e->start;
	uint64_t before = e->start ? e->start - 1 : 0;
	int r = 0;

	/*
	 * Forked before the span (or before recording), it gets the FORK perf
	 * record synthesizes for a task that already runs, before its COMM:
	 * the parent is on record (Perfetto's ProcessTree needs it).
	 */
	if (pk->full && p->flags & PT_FORKED && in_span(e, p->born))
		r = add_item(e, p, ITEM_FORK, 0, p->born, false);
	else if (pk->full && initial && p->flags & (PT_FORKED | PT_PARENT) && p->ppid > 0)
		r = add_item(e, p, ITEM_FORK, 0, before, true);
	if (pk->full && r >= 0)
		r = collect_comms(e, p, initial);
	for (uint32_t i = 0; i < p->nr_maps && r >= 0; i++) {
		const struct pt_map_ref *m = &p->maps[i];

		if (initial && m->from < e->start && m->until > e->start)
			r = add_item(e, p, ITEM_MAP, i, before, true);
		else if (in_span(e, m->from))
			r = add_item(e, p, ITEM_MAP, i, m->from, false);
	}
	if (r >= 0 && pk->full && p->flags & PT_EXITED && in_span(e, p->exit_time))
		r = add_item(e, p, ITEM_EXIT, 0, p->exit_time, false);
	return r;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->order != y->order)
		return x->order < y->order ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int pick_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)((const struct pick *)a)->task;
	uintptr_t y = (uintptr_t)((const struct pick *)b)->task;

	return x < y ? -1 : x > y;
}

/* Lays out @fixed, @name NUL-padded to 8 bytes and the trailer; emits it. */
static int put_record(struct emitter *e, const void *fixed, size_t fixed_size, const char *name,
		      const struct pt_task *p, uint64_t time)
{
	struct perf_record_info s = {
		.pid = (uint32_t)p->pid,
		.tid = (uint32_t)p->tid,
		.time = time,
		.id = e->stamp->id,
		.cpu = 0,
	};
	size_t name_len = name ? strlen(name) : 0;
	size_t name_size = name ? ALIGN8(name_len + 1) : 0;
	size_t size = fixed_size + name_size + perf_record__id_trailer_size(e->stamp->sample_type);
	struct perf_event_header *hdr;
	int r;

	if (size > UINT16_MAX)
		return -E2BIG;
	if (size > e->buf_cap) {
		uint8_t *b = realloc(e->buf, size);

		if (!b)
			return -ENOMEM;
		e->buf = b;
		e->buf_cap = size;
	}
	memcpy(e->buf, fixed, fixed_size);
	memset(e->buf + fixed_size, 0, name_size);
	if (name)
		memcpy(e->buf + fixed_size, name, name_len);
	perf_record__write_id_trailer(e->buf + fixed_size + name_size, e->stamp->sample_type, &s);
	hdr = (struct perf_event_header *)e->buf;
	hdr->size = (uint16_t)size;
	r = e->emit(e->ctx, hdr);
	return r < 0 ? r : 0;
}

static int emit_comm(struct emitter *e, const struct item *it)
{
	const struct pt_task *p = it->task;
	struct pt_comm_rec f = {
		.header = { .type = PERF_RECORD_COMM,
			    .misc = it->exec ? PERF_RECORD_MISC_COMM_EXEC : 0 },
		.pid = (uint32_t)p->pid,
		.tid = (uint32_t)p->tid,
	};

	return put_record(e, &f, sizeof(f), it->comm->comm, p, it->time);
}

static int emit_mmap2(struct emitter *e, const struct item *it)
{
	const struct pt_task *p = it->task;
	const struct pt_mapping *m = p->maps[it->idx].m;
	struct pt_mmap2_rec f = {
		.header = { .type = PERF_RECORD_MMAP2, .misc = PERF_RECORD_MISC_USER | m->misc },
		.pid = (uint32_t)p->pid,
		.tid = (uint32_t)p->pid,
		.start = m->start,
		.len = m->len,
		.pgoff = m->pgoff,
		.prot = m->prot,
		.flags = m->flags,
	};

	memcpy(f.id, m->id, sizeof(f.id));
	return put_record(e, &f, sizeof(f), m->name, p, it->time);
}

static int emit_task(struct emitter *e, const struct item *it)
{
	const struct pt_task *p = it->task;
	bool fork = it->kind == ITEM_FORK;
	/* perf's mark for a FORK of a task already there: no maps to copy from the parent. */
	uint16_t misc = fork && it->initial ? PERF_RECORD_MISC_FORK_EXEC : 0;
	struct pt_task_rec f = {
		.header = { .type = fork ? PERF_RECORD_FORK : PERF_RECORD_EXIT, .misc = misc },
		.pid = (uint32_t)p->pid,
		.ppid = (uint32_t)(fork ? p->ppid : p->exit_ppid),
		.tid = (uint32_t)p->tid,
		.ptid = (uint32_t)(fork ? p->ptid : p->exit_ptid),
		.time = it->time,
	};

	return put_record(e, &f, sizeof(f), NULL, p, it->time);
}

static int emit_item(struct emitter *e, const struct item *it)
{
	if (it->kind == ITEM_COMM)
		return emit_comm(e, it);
	if (it->kind == ITEM_MAP)
		return emit_mmap2(e, it);
	return emit_task(e, it);
}

/* A tid's first incarnation, if its FORK was not seen, was there all along. */
static bool alive_in(const struct proc_table *t, const struct pt_task *p, uint64_t start,
		     uint64_t end)
{
	if (p->exit_time != PT_NEVER && p->exit_time < start)
		return false;
	if (p->born <= end)
		return true;
	return !(p->flags & PT_FORKED) && proc_table__task_at(t, p->tid, end) == p;
}

/*
 * A task still runs after the kernel reports its EXIT: it wakes its parent
 * and switches out for the last time, and may be preempted in between for
 * milliseconds. So a span can start after the EXIT and still hold those
 * last events. When no incarnation of @tid is alive in the span, they are
 * the ones of the incarnation in effect at @start, as perf would take them.
 */
static const struct pt_task *exit_tail(const struct proc_table *t, pid_t tid, uint64_t start)
{
	const struct pt_task *p = proc_table__task_at(t, tid, start);

	return p && p->flags & PT_EXITED && p->born <= start ? p : NULL;
}

/* Adds @p, and the leader of its process for the mappings; -ENOMEM. */
static int add_pick(const struct proc_table *t, const struct pt_task *p, uint64_t start,
		    struct pick **picks, size_t *n, size_t *cap)
{
	const struct pt_task *l;
	struct pick *pk;

	l = p->pid == p->tid ? NULL :
			       proc_table__task_at(t, p->pid, p->born > start ? p->born : start);
	if (*n + 2 > *cap) {
		size_t c = *cap ? *cap * 2 : 16;

		pk = reallocarray(*picks, c, sizeof(*pk));
		if (!pk)
			return -ENOMEM;
		*picks = pk;
		*cap = c;
	}
	(*picks)[(*n)++] = (struct pick){ p, true };
	if (l && l->pid == l->tid && l->pid == p->pid)
		(*picks)[(*n)++] = (struct pick){ l, false };
	return 0;
}

/*
 * The incarnations of each listed task alive in the span (else the one
 * whose last events follow its EXIT), plus the leader of its process for
 * the mappings. Returns the number of picks or -ENOMEM.
 */
static ssize_t pick_tasks(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr,
			  const struct emitter *e, struct pick **ret, size_t *ret_unknown)
{
	struct pick *picks = NULL;
	size_t n = 0, cap = 0, unknown = 0;
	int r = 0;

	for (size_t i = 0; i < nr && r == 0; i++) {
		const struct pt_task *tail;
		bool found = false, named = false;

		if (tasks[i].tid <= 0)
			continue;
		for (const struct pt_task *p = t->buckets[pt_bucket_of(t, tasks[i].tid)];
		     p && r == 0; p = p->hnext) {
			if (p->tid != tasks[i].tid || !alive_in(t, p, e->start, e->end))
				continue;
			r = add_pick(t, p, e->start, &picks, &n, &cap);
			found = true;
			named |= proc_table__task_comm_at(t, p, e->end) != NULL;
		}
		tail = found ? NULL : exit_tail(t, tasks[i].tid, e->start);
		if (tail && r == 0)
			r = add_pick(t, tail, e->start, &picks, &n, &cap);
		/* Known only from an MMAP, or forked by a task never seen: no name. */
		unknown += !named && !(tail && proc_table__task_comm_at(t, tail, e->start));
	}
	if (r < 0) {
		free(picks);
		return r;
	}
	*ret = picks;
	*ret_unknown = unknown;
	return (ssize_t)n;
}

/* Sorts @picks and merges duplicates in place; returns how many are left. */
static size_t picks_unique(struct pick *picks, size_t n)
{
	size_t out = 0;

	if (!n)
		return 0;
	qsort(picks, n, sizeof(*picks), pick_cmp);
	for (size_t i = 1; i < n; i++) {
		if (picks[i].task == picks[out].task)
			picks[out].full |= picks[i].full;
		else
			picks[++out] = picks[i];
	}
	return out + 1;
}

/**
 * proc_table__emit_span - replay what named the tasks of a snapshot
 * @t: the table
 * @tasks: the snapshot's tasks (tids; pid 0 if unknown); tid 0 or less is skipped
 * @nr: how many
 * @start: time of the snapshot's first record
 * @end: time of its last
 * @stamp: sample_type and id for the trailers (its time is not used)
 * @emit: receives each record; a negative return stops
 * @ctx: passed to @emit
 * @ret_unknown: if not NULL, set to the number of listed tasks that no
 *	incarnation with a name covers in the span
 *
 * For every incarnation of a listed tid alive in [@start, @end], in one
 * time order: its state at @start, stamped @start - 1 (a FORK with its
 * parent, marked PERF_RECORD_MISC_FORK_EXEC as perf marks the ones it
 * synthesizes, when the FORK or /proc gave one; the COMM in effect; the
 * process's executable MMAP2s, oldest first), unless its FORK is
 * in the span; then its FORK, COMM changes (PERF_RECORD_MISC_COMM_EXEC for
 * an exec), MMAP2s and EXIT at their own times. A tid with no incarnation
 * alive in the span gets the one whose EXIT came before @start, if any: a
 * task's last events (its parent's wake-up, its final switch) follow its
 * EXIT. A thread brings its process's mappings even when the leader is not
 * listed. Trailers carry the task's pid and tid, the record's time,
 * @stamp->id and cpu 0.
 *
 * Returns 0, the emitter's error, or -errno.
 */
int proc_table__emit_span(const struct proc_table *t, const struct snapshot_task *tasks, size_t nr,
			  uint64_t start, uint64_t end, const struct procinfo_stamp *stamp,
			  procinfo_emit_fn emit, void *ctx, size_t *ret_unknown)
{
	struct emitter e = {
		.t = t, .start = start, .end = end, .stamp = stamp, .emit = emit, .ctx = ctx
	};
	struct pick *picks = NULL;
	size_t unknown = 0;
	ssize_t n;
	int r = 0;

	if (!t || (nr && !tasks) || !stamp || !emit || start > end)
		return -EINVAL;
	n = pick_tasks(t, tasks, nr, &e, &picks, &unknown);
	if (n < 0)
		return (int)n;
	n = (ssize_t)picks_unique(picks, (size_t)n);
	for (ssize_t i = 0; i < n && r >= 0; i++)
		r = collect_task(&e, &picks[i]);
	if (r >= 0 && e.nr)
		qsort(e.items, e.nr, sizeof(*e.items), item_cmp);
	for (size_t i = 0; i < e.nr && r >= 0; i++)
		r = emit_item(&e, &e.items[i]);
	free(picks);
	free(e.items);
	free(e.buf);
	if (r < 0)
		return r;
	if (ret_unknown)
		*ret_unknown = unknown;
	return 0;
}
