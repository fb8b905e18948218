// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table: per-task history built from side-band records, replayed for a
 * snapshot's time span. Tasks (one per incarnation of a tid) hang in a hash
 * by tid and in one of two age lists, alive by birth and exited by exit
 * time, from which the oldest is dropped when the table is full. Mappings
 * are shared, refcounted, between a process and the children forked with it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "buildid_cache.h"
#include "buildid_recent.h"
#include "perf_record.h"
#include "proc_table-internal.h"
#include "snapshot_tasks.h"

#define MAX_BUCKETS ((size_t)1 << 22)

static bool bad_pid(pid_t pid)
{
	return pid <= 0;
}

static uint64_t age_key(const struct pt_task *p)
{
	return p->exit_time != PT_NEVER ? p->exit_time : p->born;
}

static struct pt_age_list *age_list_of(struct proc_table *t, const struct pt_task *p)
{
	return p->exit_time != PT_NEVER ? &t->exited : &t->alive;
}

/* Call before changing born or exit_time, then age_link(). */
static void age_unlink(struct proc_table *t, struct pt_task *p)
{
	struct pt_age_list *l = age_list_of(t, p);

	if (p->prev)
		p->prev->next = p->next;
	else
		l->first = p->next;
	if (p->next)
		p->next->prev = p->prev;
	else
		l->last = p->prev;
	p->prev = p->next = NULL;
}

/* Records come nearly in time order, so searching from the tail is about O(1). */
static void age_link(struct proc_table *t, struct pt_task *p)
{
	struct pt_age_list *l = age_list_of(t, p);
	uint64_t key = age_key(p);
	struct pt_task *after = l->last;

	if (l->first && key < age_key(l->first))
		after = NULL;
	while (after && age_key(after) > key)
		after = after->prev;
	p->prev = after;
	p->next = after ? after->next : l->first;
	if (p->next)
		p->next->prev = p;
	else
		l->last = p;
	if (after)
		after->next = p;
	else
		l->first = p;
}

void proc_table__mapping_put(struct proc_table *t, struct pt_mapping *m)
{
	if (--m->refs)
		return;
	t->stats.bytes -= sizeof(*m) + m->name_len + 1;
	free(m);
}

struct pt_mapping *proc_table__mapping_new(struct proc_table *t, const char *name, size_t name_len)
{
	struct pt_mapping *m;

	if (name_len > UINT16_MAX)
		return NULL;
	m = calloc(1, sizeof(*m) + name_len + 1);
	if (!m)
		return NULL;
	m->refs = 1;
	m->name_len = (uint16_t)name_len;
	memcpy(m->name, name, name_len);
	t->stats.bytes += sizeof(*m) + name_len + 1;
	return m;
}

static void task_free(struct proc_table *t, struct pt_task *p)
{
	for (uint32_t i = 0; i < p->nr_maps; i++)
		proc_table__mapping_put(t, p->maps[i].m);
	t->stats.bytes -= sizeof(*p) + p->cap_comms * sizeof(*p->comms) +
			  p->cap_maps * sizeof(*p->maps);
	free(p->comms);
	free(p->maps);
	free(p);
}

static void task_remove(struct proc_table *t, struct pt_task *p)
{
	struct pt_task **pp = &t->buckets[pt_bucket_of(t, p->tid)];

	while (*pp != p)
		pp = &(*pp)->hnext;
	*pp = p->hnext;
	age_unlink(t, p);
	t->stats.nr_tasks--;
	task_free(t, p);
}

/* A new incarnation of @tid; drops the oldest task first when the table is full. */
struct pt_task *proc_table__task_new(struct proc_table *t, pid_t pid, pid_t tid, uint64_t born)
{
	struct pt_task *p;
	size_t b;

	if (t->stats.nr_tasks >= t->max_tasks) {
		task_remove(t, t->exited.first ? t->exited.first : t->alive.first);
		t->stats.nr_dropped++;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pid = pid;
	p->tid = tid;
	p->born = born;
	p->exit_time = PT_NEVER;
	b = pt_bucket_of(t, tid);
	p->hnext = t->buckets[b];
	t->buckets[b] = p;
	age_link(t, p);
	t->stats.nr_tasks++;
	t->stats.bytes += sizeof(*p);
	return p;
}

/**
 * proc_table__task_at - find an incarnation of a tid
 * @t: the table
 * @tid: the thread
 * @time: when
 *
 * Returns the incarnation of @tid that @time falls in (the latest born by
 * then, else the first), or NULL if the tid is unknown.
 */
struct pt_task *proc_table__task_at(const struct proc_table *t, pid_t tid, uint64_t time)
{
	struct pt_task *best = NULL, *first = NULL;

	for (struct pt_task *p = t->buckets[pt_bucket_of(t, tid)]; p; p = p->hnext) {
		if (p->tid != tid)
			continue;
		if (p->born <= time && (!best || p->born > best->born))
			best = p;
		if (!first || p->born < first->born)
			first = p;
	}
	return best ? best : first;
}

/* Marks @p gone at @time: @seen for its EXIT, else because its tid was reused. */
static void task_end(struct proc_table *t, struct pt_task *p, uint64_t time, bool seen)
{
	age_unlink(t, p);
	if (seen || p->exit_time == PT_NEVER)
		p->exit_time = time;
	if (seen)
		p->flags |= PT_EXITED;
	age_link(t, p);
}

/* The task a COMM or MMAP at @time belongs to, made if there is none. */
static struct pt_task *task_get(struct proc_table *t, pid_t pid, pid_t tid, uint64_t time)
{
	struct pt_task *p = proc_table__task_at(t, tid, time);

	if (p && p->pid != pid && p->born <= time) {
		/* A tid reused without the FORK and EXIT reaching us. */
		if (p->exit_time == PT_NEVER)
			task_end(t, p, time, false);
		p = NULL;
	}
	if (p && (p->exit_time == PT_NEVER || time <= p->exit_time)) {
		if (time < p->born && !(p->flags & PT_FORKED)) {
			age_unlink(t, p);
			p->born = time;
			age_link(t, p);
		}
		return p;
	}
	return proc_table__task_new(t, pid, tid, time);
}

/* Makes room for @need entries of @elem bytes, up to @max. NULL on ENOMEM. */
static void *grow(struct proc_table *t, void *arr, uint32_t *cap, uint32_t need, size_t elem,
		  size_t max)
{
	size_t n = *cap ? (size_t)*cap * 2 : 2;
	void *a;

	if (need <= *cap)
		return arr;
	if (n > max)
		n = max;
	if (n < need)
		n = need;
	a = realloc(arr, n * elem);
	if (!a)
		return NULL;
	t->stats.bytes += (n - *cap) * elem;
	*cap = (uint32_t)n;
	return a;
}

static const struct pt_comm *comm_change_at(const struct pt_task *p, uint64_t time)
{
	uint32_t i = p->nr_comms;

	if (!i)
		return NULL;
	while (i > 1 && p->comms[i - 1].time > time)
		i--;
	return &p->comms[i - 1];
}

/* The incarnation that forked @p, if known and alive then. */
static const struct pt_task *parent_at_fork(const struct proc_table *t, const struct pt_task *p)
{
	const struct pt_task *parent;

	if (!(p->flags & PT_FORKED) || p->ptid <= 0)
		return NULL;
	parent = proc_table__task_at(t, p->ptid, p->born);
	if (!parent || parent == p || parent->exit_time < p->born ||
	    (parent->born > p->born && parent->flags & PT_FORKED))
		return NULL;
	return parent;
}

/**
 * proc_table__task_comm_at - the comm change in effect for a task
 * @t: the table
 * @p: the task
 * @time: when
 *
 * Like comm_change_at(), but a child with no name of its own by @time has
 * the one its parent had at the fork: the child's FORK may have been taken
 * before the parent's own FORK or COMM, from another CPU's ring drained
 * first, and then it inherited nothing.
 *
 * Returns the change, or NULL if no name is known.
 */
const struct pt_comm *proc_table__task_comm_at(const struct proc_table *t, const struct pt_task *p,
					       uint64_t time)
{
	const struct pt_comm *c = NULL;

	for (int depth = 0; p && depth < PT_MAX_INHERIT; depth++) {
		const struct pt_task *parent;

		c = comm_change_at(p, time);
		if ((c && c->time <= time) || time < p->born)
			return c;
		parent = parent_at_fork(t, p);
		if (!parent)
			return c;
		time = p->born;
		p = parent;
	}
	return c;
}

/**
 * proc_table__task_comm_at_fork - the name a child inherited
 * @t: the table
 * @p: the task
 *
 * Returns its parent's comm change in effect at its FORK, or NULL.
 */
const struct pt_comm *proc_table__task_comm_at_fork(const struct proc_table *t,
						    const struct pt_task *p)
{
	const struct pt_task *parent = parent_at_fork(t, p);

	return parent ? proc_table__task_comm_at(t, parent, p->born) : NULL;
}

int proc_table__comm_insert(struct proc_table *t, struct pt_task *p, uint64_t time,
			    const char *comm, bool exec)
{
	struct pt_comm *c;
	uint32_t i = p->nr_comms;

	while (i && p->comms[i - 1].time > time)
		i--;
	/* Renaming to the name in effect changes nothing; an exec still matters. */
	if (!exec && i && !strcmp(p->comms[i - 1].comm, comm))
		return 0;
	while (p->nr_comms && p->nr_comms >= t->max_comms) {
		t->stats.nr_history_dropped++;
		if (!i)
			return 0; /* the new one would be the oldest */
		memmove(p->comms, p->comms + 1, --p->nr_comms * sizeof(*c));
		i--;
	}
	c = grow(t, p->comms, &p->cap_comms, p->nr_comms + 1, sizeof(*c), t->max_comms);
	if (!c)
		return -ENOMEM;
	p->comms = c;
	memmove(c + i + 1, c + i, (p->nr_comms - i) * sizeof(*c));
	c[i].time = time;
	c[i].exec = exec;
	snprintf(c[i].comm, sizeof(c[i].comm), "%s", comm);
	p->nr_comms++;
	return 0;
}

/* When mappings made at @from end: at the first exec after it. */
static uint64_t next_exec(const struct pt_task *p, uint64_t from)
{
	for (uint32_t i = 0; i < p->nr_comms; i++)
		if (p->comms[i].exec && p->comms[i].time > from)
			return p->comms[i].time;
	return PT_NEVER;
}

static void maps_end(struct pt_task *p, uint64_t time)
{
	for (uint32_t i = 0; i < p->nr_maps; i++)
		if (p->maps[i].from < time && p->maps[i].until > time)
			p->maps[i].until = time;
}

static bool mapping_same(const struct pt_mapping *a, const struct pt_mapping *b)
{
	return a->start == b->start && a->len == b->len && a->pgoff == b->pgoff &&
	       a->prot == b->prot && a->flags == b->flags && a->misc == b->misc &&
	       a->name_len == b->name_len && !memcmp(a->id, b->id, sizeof(a->id)) &&
	       !memcmp(a->name, b->name, a->name_len);
}

/* The entry to drop at the cap: the earliest ended, else the earliest made. */
static uint32_t map_victim(const struct pt_task *p)
{
	uint32_t v = 0;

	for (uint32_t i = 1; i < p->nr_maps; i++) {
		const struct pt_map_ref *a = &p->maps[i], *b = &p->maps[v];

		if (a->until != b->until ? a->until < b->until : a->from < b->from)
			v = i;
	}
	return v;
}

static int map_append(struct proc_table *t, struct pt_task *p, struct pt_mapping *m, uint64_t from,
		      uint64_t until)
{
	struct pt_map_ref *r;

	while (p->nr_maps && p->nr_maps >= t->max_maps) {
		uint32_t v = map_victim(p);

		proc_table__mapping_put(t, p->maps[v].m);
		memmove(p->maps + v, p->maps + v + 1, (--p->nr_maps - v) * sizeof(*r));
		t->stats.nr_history_dropped++;
	}
	r = grow(t, p->maps, &p->cap_maps, p->nr_maps + 1, sizeof(*r), t->max_maps);
	if (!r)
		return -ENOMEM;
	p->maps = r;
	r[p->nr_maps++] = (struct pt_map_ref){ .from = from, .until = until, .m = m };
	m->refs++;
	return 0;
}

/*
 * Adds @m to process @p from @from. The same mapping already known over
 * that time only widens; one it covers whole ends there, as perf would
 * replace it (the kernel reports no munmap, so this keeps history short).
 */
int proc_table__map_add(struct proc_table *t, struct pt_task *p, struct pt_mapping *m,
			uint64_t from)
{
	uint64_t until = next_exec(p, from);

	for (uint32_t i = 0; i < p->nr_maps; i++) {
		struct pt_map_ref *r = &p->maps[i];

		if (r->from < until && from < r->until && mapping_same(r->m, m)) {
			if (from < r->from)
				r->from = from;
			return 0;
		}
	}
	for (uint32_t i = 0; i < p->nr_maps; i++) {
		struct pt_map_ref *r = &p->maps[i];

		if (r->from <= from && from < r->until && m->start <= r->m->start &&
		    r->m->start + r->m->len <= m->start + m->len)
			r->until = from;
	}
	return map_append(t, p, m, from, until);
}

/* Handlers return 1 for a record they had no use for. */
static int ignored(struct proc_table *t)
{
	t->stats.nr_ignored++;
	return 1;
}

static int handle_comm(struct proc_table *t, const struct snapshot_task_record *f)
{
	char comm[PT_COMM_LEN];
	struct pt_task *p, *leader;
	int r;

	if (bad_pid(f->pid) || bad_pid(f->tid))
		return ignored(t);
	snprintf(comm, sizeof(comm), "%s", f->comm);
	p = task_get(t, f->pid, f->tid, f->time);
	if (!p)
		return -ENOMEM;
	r = proc_table__comm_insert(t, p, f->time, comm, f->exec);
	if (r < 0 || !f->exec)
		return r;
	leader = f->pid == f->tid ? p : proc_table__task_at(t, f->pid, f->time);
	if (leader && leader->pid == f->pid)
		maps_end(leader, f->time);
	return 0;
}

static int handle_mmap(struct proc_table *t, const struct snapshot_task_record *f)
{
	struct pt_mapping *m;
	struct pt_task *p;
	int r;

	if (!(f->prot & PROT_EXEC) || bad_pid(f->pid) || bad_pid(f->tid))
		return ignored(t);
	p = task_get(t, f->pid, f->pid, f->time);
	m = p ? proc_table__mapping_new(t, f->filename, strlen(f->filename)) : NULL;
	if (!m)
		return -ENOMEM;
	m->misc = f->misc & PERF_RECORD_MISC_MMAP_BUILD_ID;
	m->start = f->start;
	m->len = f->len;
	m->pgoff = f->pgoff;
	if (f->id)
		memcpy(m->id, f->id, sizeof(m->id));
	m->prot = f->prot;
	m->flags = f->flags;
	proc_table__mapping_build_id(t, f->pid, m);
	r = proc_table__map_add(t, p, m, f->time);
	proc_table__mapping_put(t, m);
	return r;
}

/* The child takes its parent's comm and, for a new process, its live mappings. */
static int fork_inherit(struct proc_table *t, struct pt_task *c,
			const struct snapshot_task_record *f)
{
	uint64_t time = f->time;
	const struct pt_comm *cc;
	const struct pt_task *parent;
	int r = 0;

	parent = proc_table__task_at(t, f->ptid, time);
	if (parent && (parent == c || parent->exit_time < time))
		parent = NULL; /* its tid was reused and we missed the new one */
	cc = parent ? proc_table__task_comm_at(t, parent, time) : NULL;
	if (cc && !(c->nr_comms && c->comms[0].time <= time)) {
		r = proc_table__comm_insert(t, c, time, cc->comm, false);
		if (r < 0)
			return r;
	}
	if (f->pid == f->ppid || f->pid != f->tid)
		return 0;
	parent = proc_table__task_at(t, f->ppid, time);
	if (!parent || parent == c || parent->pid != f->ppid || parent->exit_time < time)
		return 0;
	for (uint32_t i = 0; i < parent->nr_maps && r >= 0; i++) {
		const struct pt_map_ref *pm = &parent->maps[i];

		if (pm->from > time || pm->until <= time)
			continue;
		if (c->nr_maps)
			r = proc_table__map_add(t, c, pm->m, time);
		else
			r = map_append(t, c, pm->m, time, next_exec(c, time));
	}
	return r;
}

static int handle_fork(struct proc_table *t, const struct snapshot_task_record *f)
{
	uint64_t time = f->time;
	struct pt_task *c = proc_table__task_at(t, f->tid, PT_NEVER);

	if (c && !(c->flags & PT_FORKED) && c->born >= time) {
		/* Its COMM or MMAP came first, from another CPU's ring. */
		age_unlink(t, c);
		c->born = time;
		age_link(t, c);
	} else {
		if (c && c->exit_time == PT_NEVER && c->born <= time)
			task_end(t, c, time, false);
		c = proc_table__task_new(t, f->pid, f->tid, time);
		if (!c)
			return -ENOMEM;
	}
	c->pid = f->pid;
	c->ppid = f->ppid;
	c->ptid = f->ptid;
	c->flags |= PT_FORKED;
	return bad_pid(f->ptid) ? 0 : fork_inherit(t, c, f);
}

static int handle_task(struct proc_table *t, const struct snapshot_task_record *f)
{
	uint64_t time = f->time;
	struct pt_task *p;

	if (bad_pid(f->pid) || bad_pid(f->tid))
		return ignored(t);
	if (f->type == PERF_RECORD_FORK)
		return handle_fork(t, f);
	p = proc_table__task_at(t, f->tid, time);
	if (p && p->born > time && p->flags & PT_FORKED)
		return ignored(t); /* an earlier incarnation, never seen */
	if (p && p->pid != f->pid && p->exit_time == PT_NEVER)
		task_end(t, p, time, false); /* a tid reused without its FORK yet */
	if (!p || p->pid != f->pid || (p->flags & PT_EXITED && p->exit_time < time)) {
		/*
		 * The EXIT of an incarnation whose FORK is still in another
		 * CPU's ring, drained later: a short-lived child exits on
		 * the CPU it ran on. Kept, as first seen here, so that the
		 * FORK finds it exited rather than making it alive for good
		 * (which would fill the table and push out newer tasks).
		 */
		p = proc_table__task_new(t, f->pid, f->tid, time);
		if (!p)
			return -ENOMEM;
	}
	task_end(t, p, time, true);
	p->exit_ppid = f->ppid;
	p->exit_ptid = f->ptid;
	return 0;
}

/**
 * proc_table__process_record - take one side-band record
 * @t: the table
 * @rec: the record, @rec->size bytes, ending in a sample_id_all trailer
 * @sample_type: sample_type of the event that wrote it; needs PERF_SAMPLE_TIME
 *
 * COMM (PERF_RECORD_MISC_COMM_EXEC: an exec, which ends the process's
 * mappings), MMAP and MMAP2 with PROT_EXEC (to the process, i.e. its
 * leader), FORK (the child inherits its parent's comm and, for a new
 * process, its mappings) and EXIT, each at the trailer's time. Anything
 * else is counted as ignored.
 *
 * Returns 0, -EINVAL for a malformed record or @sample_type, or -ENOMEM.
 */
int proc_table__process_record(struct proc_table *t, const struct perf_event_header *rec,
			       uint64_t sample_type)
{
	struct snapshot_task_record f;
	int r;

	if (!t || !rec || rec->size < sizeof(*rec) || rec->size % 8 ||
	    !(sample_type & PERF_SAMPLE_TIME))
		return -EINVAL;
	r = snapshot_tasks__decode(rec, sample_type, &f);
	if (r == -ENOMSG) {
		ignored(t);
		return 0;
	}
	if (r < 0)
		return r;
	if (f.type == PERF_RECORD_COMM)
		r = handle_comm(t, &f);
	else if (f.type == PERF_RECORD_MMAP || f.type == PERF_RECORD_MMAP2)
		r = handle_mmap(t, &f);
	else
		r = handle_task(t, &f);
	if (r)
		return r < 0 ? r : 0;
	t->stats.nr_records++;
	return 0;
}

/**
 * proc_table__comm_at - the name a thread had at some time
 * @t: the table
 * @tid: the thread
 * @time: when
 *
 * Looks at the incarnation of @tid alive at @time (else its first) and
 * takes the latest comm change at or before @time, else its parent's at
 * its fork, else its first one.
 *
 * Returns the name, valid until the table next changes, or NULL if unknown.
 */
const char *proc_table__comm_at(const struct proc_table *t, pid_t tid, uint64_t time)
{
	const struct pt_comm *c;
	const struct pt_task *p;

	if (!t || tid <= 0)
		return NULL;
	p = proc_table__task_at(t, tid, time);
	c = p ? proc_table__task_comm_at(t, p, time) : NULL;
	return c ? c->comm : NULL;
}

/**
 * proc_table__stats - counters and size of the table
 * @t: the table
 *
 * Returns the counters, updated as the table changes.
 */
const struct proc_table_stats *proc_table__stats(const struct proc_table *t)
{
	return &t->stats;
}

/**
 * proc_table__set_history_limits - change the per-task caps
 * @t: the table
 * @max_comms: comm changes kept per task, at least 1
 * @max_maps: executable mappings kept per process, at least 1
 *
 * Returns 0 or -EINVAL.
 */
int proc_table__set_history_limits(struct proc_table *t, size_t max_comms, size_t max_maps)
{
	if (!t || !max_comms || !max_maps || max_comms > UINT32_MAX / 2 ||
	    max_maps > UINT32_MAX / 2)
		return -EINVAL;
	t->max_comms = max_comms;
	t->max_maps = max_maps;
	return 0;
}

/**
 * proc_table__new - an empty table
 * @max_tasks: most tasks held at once (0 is taken as 1); the oldest exited
 *	ones, then the oldest alive, make room for new ones
 *
 * Returns the table, or NULL on ENOMEM.
 */
struct proc_table *proc_table__new(size_t max_tasks)
{
	struct proc_table *t = calloc(1, sizeof(*t));
	size_t n = 16;

	if (!t)
		return NULL;
	t->max_tasks = max_tasks ? max_tasks : 1;
	while (n < t->max_tasks && n < MAX_BUCKETS)
		n <<= 1;
	t->buckets = calloc(n, sizeof(*t->buckets));
	if (!t->buckets) {
		free(t);
		return NULL;
	}
	t->mask = n - 1;
	t->max_comms = PROC_TABLE_MAX_COMMS;
	t->max_maps = PROC_TABLE_MAX_MAPS;
	t->stats.bytes = sizeof(*t) + n * sizeof(*t->buckets);
	return t;
}

/**
 * proc_table__delete - free a table and everything in it
 * @t: the table, or NULL
 */
void proc_table__delete(struct proc_table *t)
{
	if (!t)
		return;
	while (t->alive.first)
		task_remove(t, t->alive.first);
	while (t->exited.first)
		task_remove(t, t->exited.first);
	free(t->buckets);
	buildid_cache__delete(t->bid_cache);
	buildid_recent__delete(t->recent);
	free(t);
}
