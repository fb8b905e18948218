// SPDX-License-Identifier: GPL-2.0-only
/* perfdata_convert: see perfdata_convert.h. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf_record.h"
#include "perfdata_convert.h"
#include "perfdata_reader.h"
#include "snapshot.h"
#include "snapshot_tracedat.h"
#include "tracing_data.h"

/*
 * Task names for trace-cmd's CMDLINES beyond what COMM records say: a task
 * forked during the recording has no COMM of its own until it execs, and
 * perf script names it after its parent, from the FORK record.
 */
struct comm_slot {
	int32_t tid; /* 0: free */
	char comm[16];
};

struct comm_table {
	struct comm_slot *slots;
	size_t cap, nr; /* cap: a power of two */
};

static struct comm_slot *comm_slot(const struct comm_table *t, int32_t tid)
{
	size_t i = ((uint32_t)tid * 2654435761u) & (t->cap - 1);

	while (t->slots[i].tid && t->slots[i].tid != tid)
		i = (i + 1) & (t->cap - 1);
	return &t->slots[i];
}

static int comm_set(struct comm_table *t, int32_t tid, const char *comm, size_t max)
{
	struct comm_slot *slot;

	if (tid <= 0)
		return 0;
	if ((t->nr + 1) * 4 > t->cap * 3) {
		struct comm_table n = { .cap = t->cap ? t->cap * 2 : 1024 };

		n.slots = calloc(n.cap, sizeof(*n.slots));
		if (!n.slots)
			return -ENOMEM;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i].tid)
				*comm_slot(&n, t->slots[i].tid) = t->slots[i];
		n.nr = t->nr;
		free(t->slots);
		*t = n;
	}
	slot = comm_slot(t, tid);
	if (!slot->tid)
		t->nr++;
	slot->tid = tid;
	snprintf(slot->comm, sizeof(slot->comm), "%.*s", (int)strnlen(comm, max), comm);
	return 0;
}

static const char *comm_get(const struct comm_table *t, int32_t tid)
{
	const struct comm_slot *slot;

	if (!t->cap || tid <= 0)
		return NULL;
	slot = comm_slot(t, tid);
	return slot->tid ? slot->comm : NULL;
}

/* COMM sets a name; FORK gives the child its parent's, in time order. */
static int comm_table_fill(struct comm_table *t, const struct snapshot *s)
{
	for (size_t i = 0; i < snapshot__nr_records(s); i++) {
		const struct perf_event_header *h = snapshot__record(s, i);
		const uint8_t *p = (const uint8_t *)(h + 1);
		int32_t ids[4]; /* COMM: pid, tid; FORK: pid, ppid, tid, ptid */
		const char *parent;
		int err = 0;

		if (h->type == PERF_RECORD_COMM && h->size > sizeof(*h) + 8) {
			memcpy(ids, p, 8);
			err = comm_set(t, ids[1], (const char *)p + 8, h->size - sizeof(*h) - 8);
		} else if (h->type == PERF_RECORD_FORK && h->size >= sizeof(*h) + 16) {
			memcpy(ids, p, 16);
			parent = comm_get(t, ids[3]);
			if (parent)
				err = comm_set(t, ids[2], parent, sizeof(t->slots->comm));
		}
		if (err)
			return err;
	}
	return 0;
}

static const char *comm_of(void *ctx, pid_t pid, pid_t tid)
{
	const char *comm = comm_get(ctx, tid);

	return comm ? comm : comm_get(ctx, pid);
}

/* trace-cmd's name for the clock the samples were stamped with. */
static const char *trace_clock_of(const struct snapshot *s)
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
		default:
			return "local";
		}
	}
	return "perf";
}

/* The input's formats, so nothing is read from this machine's tracefs. */
static struct tracedat_format *formats_of(const struct tracing_data_info *t, size_t *ret_nr)
{
	struct tracedat_format *f = calloc(t->nr_ftrace + t->nr_events + 1, sizeof(*f));
	size_t n = 0;

	if (!f)
		return NULL;
	for (size_t i = 0; i < t->nr_ftrace; i++)
		f[n++] = (struct tracedat_format){ t->ftrace[i].system, t->ftrace[i].text,
						   t->ftrace[i].size };
	for (size_t i = 0; i < t->nr_events; i++)
		f[n++] = (struct tracedat_format){ t->events[i].system, t->events[i].text,
						   t->events[i].size };
	*ret_nr = n;
	return f;
}

/**
 * perfdata_convert__write_tracedat - write a read perf.data's tracepoint
 *	samples as trace.dat
 * @s: the sealed snapshot perfdata_reader__read() filled
 * @r: the reader, for the input's own tracing data and CPU count
 * @fd: destination, written from offset 0
 * @res: counts, on success
 *
 * Formats, header_page/header_event, printk and kallsyms come from the
 * input, never from this machine's tracefs; the trace clock from the
 * events' clockid; task names from COMM records, then FORK records.
 * Returns 0 or -errno.
 */
int perfdata_convert__write_tracedat(const struct snapshot *s, const struct perfdata_reader *r,
				     int fd, struct tracedat_result *res)
{
	const struct tracing_data_info *t = perfdata_reader__tracing_data(r);
	struct tracedat_meta meta = {
		.trace_clock = trace_clock_of(s),
		.nr_cpus = (int)perfdata_reader__nr_cpus(r),
		.header_page = t->header_page,
		.header_page_size = t->header_page_size,
		.header_event = t->header_event,
		.header_event_size = t->header_event_size,
		.printk = t->printk,
		.printk_size = t->printk_size,
		.kallsyms = t->kallsyms,
		.kallsyms_size = t->kallsyms_size,
	};
	struct tracedat_format *formats = formats_of(t, &meta.nr_formats);
	struct comm_table comms = { 0 };
	int err;

	if (!formats)
		return -ENOMEM;
	meta.formats = formats;
	meta.comm_of = comm_of;
	meta.comm_ctx = &comms;
	err = comm_table_fill(&comms, s);
	if (!err)
		err = snapshot__write_tracedat(s, fd, &meta, res);
	free(comms.slots);
	free(formats);
	return err;
}
