// SPDX-License-Identifier: GPL-2.0-only
/* snapshot_comm: see snapshot_comm.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot_comm.h"
#include "snapshot_tasks.h"

static int cmp_comm(const void *a, const void *b)
{
	const struct snapshot_comm *x = a, *y = b;

	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

const struct snapshot_comm *snapshot_comm__find(const struct snapshot_comm *comms, size_t nr,
						pid_t tid)
{
	struct snapshot_comm key = { .tid = tid };

	return nr ? bsearch(&key, comms, nr, sizeof(*comms), cmp_comm) : NULL;
}

/* The task a COMM or FORK names (0: another record), its process and (FORK) its parent. */
static pid_t named_tid(const struct perf_event_header *h, pid_t *ret_parent, pid_t *ret_pid,
		       const char **ret_comm)
{
	struct snapshot_task_record r;

	/* The trailer is not known here: a name must end before the record does. */
	if (snapshot_tasks__decode(h, 0, &r) < 0 ||
	    (r.type != PERF_RECORD_COMM && r.type != PERF_RECORD_FORK))
		return 0;
	*ret_parent = r.type == PERF_RECORD_FORK ? r.ptid : 0;
	*ret_pid = r.pid;
	*ret_comm = r.comm;
	return r.tid;
}

/**
 * snapshot_comm__build - replay COMM and FORK records into a name table
 * @recs: the records, in time order
 * @nr: their number
 * @ret: the named tasks, sorted by tid (free() it)
 * @ret_nr: their number
 *
 * Returns 0 or -ENOMEM.
 */
int snapshot_comm__build(const struct perf_event_header *const *recs, size_t nr,
			 struct snapshot_comm **ret, size_t *ret_nr)
{
	struct snapshot_comm *comms = calloc(nr ? nr : 1, sizeof(*comms));
	size_t n = 0, out = 0;
	pid_t parent = 0, pid = 0;
	const char *name = NULL;

	if (!comms)
		return -ENOMEM;
	/* Every task named, once, sorted: then each record finds its entry. */
	for (size_t i = 0; i < nr; i++) {
		pid_t tid = named_tid(recs[i], &parent, &pid, &name);

		if (tid > 0)
			comms[n++].tid = tid;
	}
	if (n)
		qsort(comms, n, sizeof(*comms), cmp_comm);
	for (size_t i = 0; i < n; i++)
		if (!out || comms[out - 1].tid != comms[i].tid)
			comms[out++] = comms[i];
	for (size_t i = 0; i < nr; i++) {
		const struct perf_event_header *h = recs[i];
		struct snapshot_comm *c = (struct snapshot_comm *)snapshot_comm__find(
			comms, out, named_tid(h, &parent, &pid, &name));
		const struct snapshot_comm *pc;

		if (!c)
			continue;
		c->pid = pid;
		if (h->type == PERF_RECORD_COMM)
			snprintf(c->comm, sizeof(c->comm), "%s", name);
		else if ((pc = snapshot_comm__find(comms, out, parent)) && pc->comm[0])
			memcpy(c->comm, pc->comm, sizeof(c->comm));
	}
	n = 0;
	for (size_t i = 0; i < out; i++)
		if (comms[i].comm[0])
			comms[n++] = comms[i];
	*ret = comms;
	*ret_nr = n;
	return 0;
}
