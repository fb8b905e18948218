// SPDX-License-Identifier: GPL-2.0-only
/*
 * snapshot_perfdata: snapshot -> perf.data, through perfdata_writer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <perf/event.h>

#include "perfdata_writer.h"
#include "procinfo.h"
#include "snapshot_buildids.h"
#include "snapshot.h"
#include "snapshot_index.h"
#include "snapshot_perfdata.h"
#include "tracing_meta.h"

struct emit_ctx {
	struct perfdata_writer *w;
	struct snapshot_buildids *ids; /* the synthesized mappings go there too */
	uint64_t sample_type;
	uint64_t count;
	int error; /* the writer's, as opposed to /proc's */
};

static int emit_record(void *ctx, const struct perf_event_header *rec)
{
	struct emit_ctx *e = ctx;

	e->count++;
	e->error = perfdata_writer__write_event(e->w, rec);
	if (!e->error)
		e->error = snapshot_buildids__add_record(e->ids, rec, e->sample_type);
	return e->error;
}

/*
 * BUILD_ID: the objects the samples hit, so that perf finds the very
 * files (or their copies in a build-id cache) on any machine.
 */
static int add_build_ids(struct perfdata_writer *w, const struct snapshot *s,
			 struct snapshot_buildids *ids, struct perfdata_result *res)
{
	int r = snapshot_buildids__scan(ids, s);

	for (size_t i = 0; r == 0 && i < snapshot_buildids__nr(ids); i++) {
		const struct snapshot_buildid *b = snapshot_buildids__entry(ids, i);

		r = perfdata_writer__add_build_id(w, -1, b->misc, b->id.data, b->id.size, b->name);
		res->nr_build_ids += r == 0;
	}
	return r;
}

/* The capture's TRACING_DATA, as read when recording started, if a tracepoint needs it. */
static int add_tracing_data(struct perfdata_writer *w, const struct snapshot *s)
{
	const struct tracing_meta *m = snapshot__tracing(s);
	bool tracepoints = false;
	const void *blob;
	size_t size;

	for (size_t i = 0; i < snapshot__nr_events(s); i++)
		tracepoints |= snapshot__event(s, i)->attr.type == PERF_TYPE_TRACEPOINT;
	if (!tracepoints)
		return 0;
	if (!m)
		return -ENODATA; /* perf could not decode them */
	blob = tracing_meta__blob(m, &size);
	return perfdata_writer__set_tracing_data(w, blob, size);
}

static int add_features(struct perfdata_writer *w, const struct snapshot *s,
			const struct perfdata_meta *meta)
{
	const struct snapshot_stats *st = snapshot__stats(s);
	struct utsname u;
	long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
	int r;

	if (uname(&u) < 0)
		return -errno;
	if ((r = perfdata_writer__set_string(w, PERFDATA_FEAT_HOSTNAME, u.nodename)) < 0 ||
	    (r = perfdata_writer__set_string(w, PERFDATA_FEAT_OSRELEASE, u.release)) < 0 ||
	    (r = perfdata_writer__set_string(w, PERFDATA_FEAT_VERSION, PERFSNAPD_VERSION)) < 0 ||
	    (r = perfdata_writer__set_string(w, PERFDATA_FEAT_ARCH, u.machine)) < 0 ||
	    (r = perfdata_writer__set_nrcpus(w, (uint32_t)conf, (uint32_t)onln)) < 0 ||
	    (r = perfdata_writer__set_cmdline(w, meta->argc, meta->argv)) < 0 ||
	    (r = perfdata_writer__set_clockid_res(w, meta->clock_res_ns)) < 0 ||
	    (r = perfdata_writer__set_sample_time(w, st->first_time, st->last_time)) < 0)
		return r;
	return add_tracing_data(w, s);
}

/*
 * Tail synthesis: name every task of the snapshot from /proc as it is now,
 * stamped just before the first record so perf applies it to all of them.
 */
static int synthesize(const struct snapshot *s, const struct perfdata_meta *meta,
		      struct emit_ctx *e, struct perfdata_result *res)
{
	const struct snapshot_event *first = snapshot__event(s, 0);
	const struct snapshot_stats *st = snapshot__stats(s);
	struct procinfo_stamp stamp = {
		.sample_type = snapshot_sample__file_type(first),
		.id = first->nr_ids ? first->ids[0] : 0,
		.time = st->first_time ? st->first_time - 1 : 0,
	};
	int r;

	e->sample_type = stamp.sample_type;
	/* Without it (kptr_restrict) kernel frames stay unresolved; not fatal. */
	procinfo__synthesize_kernel_mmap(&stamp, emit_record, e);
	if (e->error || !meta->synthesize_from_proc)
		return e->error;
	for (size_t i = 0; i < snapshot__nr_tasks(s); i++) {
		const struct snapshot_task *t = snapshot__task(s, i);

		/*
		 * perf names pid 0 "swapper" itself; -1 is what the kernel
		 * reports for a task already past exit's pid detach.
		 */
		if (t->tid <= 0 || t->pid <= 0)
			continue;
		r = procinfo__synthesize_task(t->pid, t->tid, &stamp, emit_record, e);
		if (e->error)
			return e->error;
		/* Gone or unreadable now: its events stay, unnamed. */
		if (r < 0)
			res->nr_tasks_gone++;
	}
	return 0;
}

struct run_ctx {
	const struct snapshot *s;
	struct perfdata_writer *w;
	bool widen; /* some event's ring layout is not the file's */
	uint8_t *buf;
	size_t len;
};

#define WIDEN_BUF (64 * 1024)

static int flush(struct run_ctx *c)
{
	int r = c->len ? perfdata_writer__write_events(c->w, c->buf, c->len) : 0;

	c->len = 0;
	return r;
}

/* A run with compact records: each laid out as the file's attr says. */
static int widen_run(struct run_ctx *c, const void *data, size_t len, int cpu)
{
	const struct perf_event_header *h;
	const struct snapshot_event *ev;
	size_t pos = 0;
	uint64_t id;
	int n, r;

	while ((h = perf_record__next(data, len, &pos))) {
		if (c->len + h->size + SNAPSHOT_WIDEN_EXTRA > WIDEN_BUF && (r = flush(c)) < 0)
			return r;
		ev = perf_record__id(h, &id) < 0 ? NULL : snapshot__event_by_id(c->s, id);
		n = ev ? snapshot__widen(c->s, ev, h, cpu, c->buf + c->len) : 0;
		if (n < 0)
			continue; /* as the index, which counted it dropped */
		if (n == 0) {
			memcpy(c->buf + c->len, h, h->size);
			n = h->size;
		}
		c->len += (size_t)n;
	}
	return flush(c);
}

static int write_run(void *ctx, const void *data, size_t len, int cpu)
{
	struct run_ctx *c = ctx;

	return c->widen ? widen_run(c, data, len, cpu) :
			  perfdata_writer__write_events(c->w, data, len);
}

/*
 * Every record, as the rings hold them: perf script and report put a
 * perf.data's records in time order as they read (up to the one
 * FINISHED_ROUND, after the last), as they do perf record's own, whose
 * backward rings it writes newest first too. Merging them here would read
 * every record once more for nothing (a third of a dump's record walks).
 * Compact records are widened on the way (snapshot__widen()).
 */
static int write_records(const struct snapshot *s, struct perfdata_writer *w)
{
	struct run_ctx c = { .s = s, .w = w };
	int r;

	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct snapshot_event *ev = snapshot__event(s, i);

		c.widen |= snapshot_sample__file_type(ev) != ev->attr.sample_type;
	}
	if (c.widen && !(c.buf = malloc(WIDEN_BUF)))
		return -ENOMEM;
	r = snapshot_index__for_each_run(s, write_run, &c);
	free(c.buf);
	return r;
}

/**
 * snapshot_perfdata__write - write a snapshot as perf.data
 * @s: a sealed snapshot with at least one event
 * @fd: destination, written from offset 0
 * @meta: command line, clock and compression
 * @ret: sizes and counts, set on success
 *
 * TRACING_DATA is the snapshot's tracing metadata. Returns 0, -ENODATA
 * for tracepoint events without it, or -errno.
 */
int snapshot_perfdata__write(const struct snapshot *s, int fd, const struct perfdata_meta *meta,
			     struct perfdata_result *ret)
{
	static const struct perf_event_header finished_round = {
		.type = PERF_RECORD_FINISHED_ROUND,
		.size = sizeof(struct perf_event_header),
	};
	struct perfdata_result res = { 0 };
	struct emit_ctx e = { 0 };
	int r = 0;

	if (!snapshot__nr_events(s))
		return -EINVAL;
	e.w = perfdata_writer__new(fd);
	e.ids = snapshot_buildids__new();
	if (!e.w || !e.ids) {
		perfdata_writer__delete(e.w);
		snapshot_buildids__delete(e.ids);
		return -ENOMEM;
	}
	if (meta->compress_level)
		r = perfdata_writer__set_compression(e.w, meta->compress_level);
	for (size_t i = 0; i < snapshot__nr_events(s) && r == 0; i++) {
		const struct snapshot_event *ev = snapshot__event(s, i);
		struct perf_event_attr attr = ev->attr;

		/* The file holds whole forward records from enabled events. */
		attr.sample_type = snapshot_sample__file_type(ev);
		attr.write_backward = 0;
		attr.disabled = 0;
		r = perfdata_writer__add_attr(e.w, &attr, ev->name, ev->ids, ev->nr_ids);
	}
	if (r == 0)
		r = perfdata_writer__begin_data(e.w);
	if (r == 0)
		r = synthesize(s, meta, &e, &res);
	res.nr_synthesized = e.count;
	if (r == 0)
		r = write_records(s, e.w);
	if (r == 0)
		r = perfdata_writer__write_event(e.w, &finished_round);
	if (r == 0)
		r = add_features(e.w, s, meta);
	if (r == 0 && !meta->no_build_ids)
		r = add_build_ids(e.w, s, e.ids, &res);
	if (r == 0)
		r = perfdata_writer__finish(e.w);
	if (r == 0) {
		res.bytes = perfdata_writer__size(e.w);
		*ret = res;
	}
	perfdata_writer__delete(e.w);
	snapshot_buildids__delete(e.ids);
	return r;
}
