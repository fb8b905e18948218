// SPDX-License-Identifier: GPL-2.0-only
/*
 * proc_table_seed: fills the process table from /proc at start-up, for the
 * tasks that already run before the side-band event reports anything.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "procinfo.h"
#include "proc_table-internal.h"
#include "proc_table.h"

struct seed_ctx {
	struct proc_table *t;
	struct pt_task *p;
	uint64_t now;
};

static int seed_map(void *ctx, const struct procinfo_map *pm)
{
	struct seed_ctx *s = ctx;
	uint64_t ino = pm->ino, gen = 0;
	struct pt_mapping *m;
	int r;

	m = proc_table__mapping_new(s->t, pm->name, strlen(pm->name));
	if (!m)
		return -ENOMEM;
	m->start = pm->start;
	m->len = pm->end - pm->start;
	m->pgoff = pm->pgoff;
	memcpy(m->id, &pm->maj, 4);
	memcpy(m->id + 4, &pm->min, 4);
	memcpy(m->id + 8, &ino, 8);
	memcpy(m->id + 16, &gen, 8);
	m->prot = pm->prot;
	m->flags = pm->flags;
	proc_table__mapping_build_id(s->t, s->p->pid, m);
	r = proc_table__map_add(s->t, s->p, m, s->now);
	proc_table__mapping_put(s->t, m);
	return r;
}

/*
 * Returns 1 if the thread was added, 0 if known or gone, or -ENOMEM. One
 * known only from a COMM or MMAP gets what it lacks: records drained before
 * seeding must not hide what /proc says.
 */
static int seed_thread(struct proc_table *t, pid_t pid, pid_t tid, uint64_t now)
{
	struct seed_ctx s = { .t = t, .now = now };
	struct procinfo_stat st;
	bool added = false;
	int r;

	s.p = proc_table__task_at(t, tid, PT_NEVER);
	if (s.p && (s.p->exit_time != PT_NEVER || s.p->pid != pid))
		s.p = NULL;
	if (s.p && s.p->flags & PT_FORKED)
		return 0;
	if (procinfo__read_stat(pid, tid, &st) < 0)
		return 0;
	if (!s.p) {
		s.p = proc_table__task_new(t, pid, tid, now);
		if (!s.p)
			return -ENOMEM;
		added = true;
	}
	/* As perf synthesizes it: a thread comes from its leader. */
	s.p->ppid = pid == tid ? st.ppid : pid;
	s.p->ptid = s.p->ppid;
	s.p->flags |= PT_PARENT;
	r = s.p->nr_comms ? 0 : proc_table__comm_insert(t, s.p, now, st.comm, false);
	if (r < 0)
		return r;
	/* A process may go, or hide its maps from us; its name is still worth having. */
	if (pid == tid && procinfo__for_each_exec_map(pid, seed_map, &s) == -ENOMEM)
		return -ENOMEM;
	return added;
}

static pid_t parse_pid(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return end != s && !*end && v > 0 && v <= INT32_MAX ? (pid_t)v : 0;
}

static int seed_process(struct proc_table *t, pid_t pid, uint64_t now)
{
	struct dirent *de;
	char path[64];
	int added = 0, r = 0;
	pid_t tid;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (r >= 0 && (de = readdir(d))) {
		tid = parse_pid(de->d_name);
		r = tid ? seed_thread(t, pid, tid, now) : 0;
		added += r > 0;
	}
	closedir(d);
	return r < 0 ? r : added;
}

/**
 * proc_table__seed_from_proc - add the tasks that exist now
 * @t: the table
 * @now: when their comm and mappings become valid; 0 for "always"
 *
 * Walks /proc/<pid>/task/<tid> and adds every thread the table does not
 * hold alive, with its comm and, for a leader, its executable mappings.
 * Tasks that go away meanwhile are skipped. Best called right after the
 * side-band ring is enabled, so that nothing falls between the two.
 *
 * Returns the number of tasks added, or -errno.
 */
int proc_table__seed_from_proc(struct proc_table *t, uint64_t now)
{
	struct dirent *de;
	int added = 0, r = 0;
	pid_t pid;
	DIR *d;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while (r >= 0 && (de = readdir(d))) {
		pid = parse_pid(de->d_name);
		r = pid ? seed_process(t, pid, now) : 0;
		if (r > 0 && added <= INT32_MAX - r)
			added += r;
	}
	closedir(d);
	return r < 0 ? r : added;
}
