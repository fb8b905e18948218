// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_index_names: after the walk, the tasks the samples name, each
 * once, and the name table built from the COMM and FORK records in time
 * order, which also gives their process to tasks known only by tid.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cleanup.h"
#include "snapshot-internal.h"

static int cmp_task(const void *a, const void *b)
{
	const struct snapshot_task *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

/* The tasks of the samples, sorted by pid and tid, each once. */
void snapshot_index__tasks(struct snapshot *s)
{
	size_t n = 0;

	if (s->nr_tasks)
		qsort(s->tasks, s->nr_tasks, sizeof(*s->tasks), cmp_task);
	for (size_t i = 0; i < s->nr_tasks; i++)
		if (!n || cmp_task(&s->tasks[n - 1], &s->tasks[i]))
			s->tasks[n++] = s->tasks[i];
	s->nr_tasks = n;
}

static int cmp_name(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static const struct perf_event_header *name_record(const struct snapshot *s,
						   const struct name_entry *n)
{
	return (const void *)(snapshot__chunk_base(s, &s->chunks[n->chunk]) + n->off);
}

/* The name table, from the COMM and FORK records in time order. */
int snapshot_index__comms(struct snapshot *s)
{
	_cleanup_free_ const struct perf_event_header **recs = NULL;
	bool resolved = false;
	int r;

	free(s->comms);
	s->comms = NULL;
	s->nr_comms = 0;
	if (!s->nr_names)
		return 0;
	qsort(s->names, s->nr_names, sizeof(*s->names), cmp_name);
	recs = malloc(s->nr_names * sizeof(*recs));
	if (!recs)
		return -ENOMEM;
	for (size_t i = 0; i < s->nr_names; i++)
		recs[i] = name_record(s, &s->names[i]);
	r = snapshot_comm__build(recs, s->nr_names, &s->comms, &s->nr_comms);
	if (r < 0)
		return r;
	/* Tasks known only by tid (compact records, released tasks) get their process. */
	for (size_t i = 0; i < s->nr_tasks; i++) {
		const struct snapshot_comm *c;

		if (s->tasks[i].pid > 0 || s->tasks[i].tid <= 0)
			continue;
		c = snapshot_comm__find(s->comms, s->nr_comms, s->tasks[i].tid);
		if (c && c->pid > 0) {
			s->tasks[i].pid = c->pid;
			resolved = true;
		}
	}
	if (resolved)
		snapshot_index__tasks(s);
	return 0;
}
