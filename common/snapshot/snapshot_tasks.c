// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_tasks: see snapshot_tasks.h. The decoder reads only the bytes
 * before a record's sample_id_all trailer, so a name must end before it;
 * the table is a tid_table of struct snapshot_task_info.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf_record.h"
#include "snapshot_tasks.h"
#include "tid_table.h"

/* The fixed parts after the header, as the kernel lays them out. */
#define COMM_NAME_AT  8	 /* pid, tid, comm */
#define TASK_FIXED    24 /* pid, ppid, tid, ptid, time */
#define MMAP_NAME_AT  32 /* pid, tid, start, len, pgoff, filename */
#define MMAP2_ID_AT   32 /* maj, min, ino, ino_generation; or size, 3 reserved, build_id */
#define MMAP2_PROT_AT 56 /* prot, flags */
#define MMAP2_NAME_AT 64

struct snapshot_tasks {
	struct tid_table t; /* of struct snapshot_task_info */
};

/* The NUL-terminated string at @at of a body of @body bytes, or NULL. */
static const char *body_string(const uint8_t *p, size_t body, size_t at)
{
	return body > at && memchr(p + at, '\0', body - at) ? (const char *)p + at : NULL;
}

static int decode_mmap(const uint8_t *p, size_t body, struct snapshot_task_record *r)
{
	size_t name_at = r->type == PERF_RECORD_MMAP2 ? MMAP2_NAME_AT : MMAP_NAME_AT;

	r->filename = body_string(p, body, name_at);
	if (!r->filename)
		return -EINVAL;
	memcpy(&r->start, p + 8, 8);
	memcpy(&r->len, p + 16, 8);
	memcpy(&r->pgoff, p + 24, 8);
	if (r->type == PERF_RECORD_MMAP) {
		r->prot = PROT_READ | (r->misc & PERF_RECORD_MISC_MMAP_DATA ? 0 : PROT_EXEC);
		r->flags = MAP_PRIVATE;
		return 0;
	}
	memcpy(&r->prot, p + MMAP2_PROT_AT, 4);
	memcpy(&r->flags, p + MMAP2_PROT_AT + 4, 4);
	r->id = p + MMAP2_ID_AT;
	if (!(r->misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		r->has_ino = true;
		memcpy(&r->maj, p + MMAP2_ID_AT, 4);
		memcpy(&r->min, p + MMAP2_ID_AT + 4, 4);
		memcpy(&r->ino, p + MMAP2_ID_AT + 8, 8);
	} else if (p[MMAP2_ID_AT] && p[MMAP2_ID_AT] <= SNAPSHOT_TASKS_BUILD_ID_MAX) {
		/* A size past the field is no build-id: the path alone says what it is. */
		r->build_id_size = p[MMAP2_ID_AT];
		r->build_id = p + MMAP2_ID_AT + 4;
	}
	return 0;
}

/**
 * snapshot_tasks__decode - decode a process record
 * @h: the record
 * @sample_type: sample_type of the event whose id it carries
 * @ret: its fields, zeroed where it has none
 *
 * Returns 0, -ENOMSG for a record that is no COMM, FORK, EXIT, MMAP or
 * MMAP2, or -EINVAL for one too short for its fields or whose name runs
 * into its trailer.
 */
int snapshot_tasks__decode(const struct perf_event_header *h, uint64_t sample_type,
			   struct snapshot_task_record *ret)
{
	size_t trailer = perf_record__id_trailer_size(sample_type), body;
	const uint8_t *p = (const uint8_t *)(h + 1);
	struct perf_record_info info;
	int32_t ids[4];

	if (h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_FORK &&
	    h->type != PERF_RECORD_EXIT && h->type != PERF_RECORD_MMAP &&
	    h->type != PERF_RECORD_MMAP2)
		return -ENOMSG;
	*ret = (struct snapshot_task_record){ .type = h->type, .misc = h->misc };
	if (h->size < sizeof(*h) + trailer + 8)
		return -EINVAL;
	body = h->size - sizeof(*h) - trailer;
	if (perf_record__parse_id_trailer(h, sample_type, &info) == 0)
		ret->time = info.time;
	if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT) {
		if (body < TASK_FIXED)
			return -EINVAL;
		memcpy(ids, p, sizeof(ids));
		ret->pid = ids[0];
		ret->ppid = ids[1];
		ret->tid = ids[2];
		ret->ptid = ids[3];
		if (!ret->time)
			memcpy(&ret->time, p + 16, 8);
		return 0;
	}
	memcpy(ids, p, 8);
	ret->pid = ids[0];
	ret->tid = ids[1];
	if (h->type != PERF_RECORD_COMM)
		return decode_mmap(p, body, ret);
	ret->comm = body_string(p, body, COMM_NAME_AT);
	ret->exec = h->misc & PERF_RECORD_MISC_COMM_EXEC;
	return ret->comm ? 0 : -EINVAL;
}

struct snapshot_tasks *snapshot_tasks__new(void)
{
	struct snapshot_tasks *t = calloc(1, sizeof(*t));

	if (t)
		t->t.elem_size = sizeof(struct snapshot_task_info);
	return t;
}

void snapshot_tasks__delete(struct snapshot_tasks *t)
{
	if (!t)
		return;
	tid_table__fini(&t->t);
	free(t);
}

static struct snapshot_task_info *task_get(struct snapshot_tasks *t, pid_t tid, pid_t pid)
{
	struct snapshot_task_info *e = tid_table__get(&t->t, tid);

	if (e && pid > 0)
		e->pid = pid;
	return e;
}

/*
 * A FORK: the child takes its parent's name, unless the parent is unknown
 * and the child named already (a tid seen before its FORK keeps its name).
 */
static int take_fork(struct snapshot_tasks *t, const struct snapshot_task_record *r)
{
	const struct snapshot_task_info *parent = tid_table__find(&t->t, r->ptid);
	char comm[SNAPSHOT_TASKS_COMM_LEN] = "";
	struct snapshot_task_info *e;

	if (r->tid <= 0)
		return 0;
	if (parent || !tid_table__find(&t->t, r->tid)) {
		if (parent) /* copied first: adding the child may move it */
			memcpy(comm, parent->comm, sizeof(comm));
		e = task_get(t, r->tid, r->pid);
		if (!e)
			return -ENOMEM;
		if (comm[0])
			memcpy(e->comm, comm, sizeof(comm));
		e->named_at = r->time;
	}
	/* A new process's parent (a new thread's is its own process). */
	if (r->pid == r->tid && r->ppid > 0 && r->ppid != r->pid) {
		e = task_get(t, r->tid, r->pid);
		if (!e)
			return -ENOMEM;
		e->ppid = r->ppid;
		e->named_at = r->time;
	}
	return 0;
}

/*
 * An EXIT: a process whose FORK is not on record (it forked on a CPU the
 * recording leaves out, [capture] cpus, and ran and exited on one it
 * keeps) has its parent there all the same. Only for a process the table
 * knows, and only where no FORK said otherwise.
 */
static void take_exit(struct snapshot_tasks *t, const struct snapshot_task_record *r)
{
	struct snapshot_task_info *e;

	if (r->pid != r->tid || r->ppid <= 0 || r->ppid == r->pid)
		return;
	e = tid_table__find(&t->t, r->tid);
	if (e && (e->pid == r->pid || !e->pid) && e->ppid <= 0)
		e->ppid = r->ppid;
}

/**
 * snapshot_tasks__take - follow one process record
 * @t: the table
 * @rec: a record from snapshot_tasks__decode(), in time order
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_tasks__take(struct snapshot_tasks *t, const struct snapshot_task_record *rec)
{
	struct snapshot_task_info *e;

	if (rec->type == PERF_RECORD_FORK)
		return take_fork(t, rec);
	if (rec->type == PERF_RECORD_EXIT) {
		take_exit(t, rec);
		return 0;
	}
	if (rec->type != PERF_RECORD_COMM || rec->tid <= 0)
		return 0;
	e = task_get(t, rec->tid, rec->pid);
	if (!e)
		return -ENOMEM;
	snprintf(e->comm, sizeof(e->comm), "%s", rec->comm);
	e->named_at = rec->time;
	return 0;
}

/**
 * snapshot_tasks__add - list a task the records need not name
 * @t: the table
 * @tid: the task (> 0; others are ignored)
 * @pid: its process, if > 0
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_tasks__add(struct snapshot_tasks *t, pid_t tid, pid_t pid)
{
	if (tid <= 0)
		return 0;
	return task_get(t, tid, pid) ? 0 : -ENOMEM;
}

const struct snapshot_task_info *snapshot_tasks__find(const struct snapshot_tasks *t, pid_t tid)
{
	return tid_table__find(&t->t, tid);
}

const char *snapshot_tasks__comm(const struct snapshot_tasks *t, pid_t tid)
{
	const struct snapshot_task_info *e = tid_table__find(&t->t, tid);

	return e && e->comm[0] ? e->comm : NULL;
}

size_t snapshot_tasks__nr(const struct snapshot_tasks *t)
{
	return t->t.nr;
}

const struct snapshot_task_info *snapshot_tasks__next(const struct snapshot_tasks *t, size_t *pos)
{
	while (*pos < t->t.cap) {
		const struct snapshot_task_info *e = tid_table__slot_at(&t->t, (*pos)++);

		if (e->tid)
			return e;
	}
	return NULL;
}
