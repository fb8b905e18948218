// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfetto_ftrace: tracepoint samples as FtraceEventBundles, one open
 * bundle per CPU, written when it grows past BUNDLE_BYTES or its CPU
 * lost data. Fields are found by name in the formats libtraceevent
 * parsed, once per tracepoint, so a kernel that moved or dropped a field
 * still converts (a missing field is left out). Which tracepoints have a
 * typed message, and its fields, comes from Perfetto's schema
 * (ftrace_schema.h, generated at build time).
 */
#include <errno.h>
#include <event-parse.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftrace_schema.h"
#include "intern.h"
#include "perf_record.h"
#include "pb.h"
#include "perfetto_packet.h"
#include "perfetto_ftrace.h"
#include "perfetto_ftrace_formats.h"
#include "pftrace_out.h"
#include "snapshot.h"
#include "tracing_meta.h"

#define BUNDLE_BYTES	(64 * 1024)
/*
 * Trace processor refuses the whole trace at a bundle of CPU 1024 or more
 * (kMaxCpuCount, importers/ftrace/ftrace_tokenizer.cc): such CPUs' events
 * are left out and counted.
 */
#define IMPORT_MAX_CPUS 1024

/* FtraceEventBundle / FtraceEvent / CompactSched / GenericFtraceEvent fields */
#define BUNDLE_CPU	1
#define BUNDLE_EVENT	2
#define BUNDLE_LOST	3
#define BUNDLE_PREV_END 10
#define BUNDLE_COMPACT	4
#define EVENT_TIMESTAMP 1
#define EVENT_PID	2
#define EVENT_GENERIC	327
#define EVENT_SYS_ENTER 329
#define EVENT_SYS_EXIT	330
#define EVENT_SWITCH	4
#define EVENT_WAKING	20
#define GENERIC_NAME	1
#define GENERIC_FIELD	2
#define FIELD_NAME	1
#define FIELD_STR	3
#define FIELD_INT	4
#define FIELD_UINT	5
#define COMPACT_INTERN	5

enum tp_kind { TP_GENERIC, TP_TYPED, TP_SWITCH, TP_WAKING };

/* The compact encoding's columns, in the order of compact_fields[] below. */
static const char *const switch_fields[] = { "prev_state", "next_pid", "next_prio", "next_comm" };
static const char *const waking_fields[] = { "pid", "target_cpu", "prio", "comm" };
/* CompactSched field numbers: timestamp, the four columns, then common_flags. */
static const uint32_t switch_proto[] = { 1, 2, 3, 4, 6 };
static const uint32_t waking_proto[] = { 7, 8, 9, 10, 11, 12 };

/* A typed message's field, fed from the format field of the same name. */
struct tp_field {
	struct tep_format_field *f;
	uint32_t proto;
	enum ftrace_schema_type type;
};

struct tp {
	struct tep_event *e;
	enum tp_kind kind;
	uint32_t proto;			 /* its typed message in FtraceEvent, 0: none */
	struct tep_format_field *col[4]; /* TP_SWITCH, TP_WAKING: the compact columns */
	struct tp_field *fields;
	size_t nr_fields;
	struct tep_format_field *args;	    /* raw_syscalls:sys_enter */
	struct tep_format_field *first_arg; /* syscalls:sys_enter_NAME */
};

struct bundle {
	struct pb_buf ev;
	struct pb_buf col[2][6]; /* [switch, waking][timestamp, 4 columns, flags] */
	uint64_t last_ts[2];
	size_t nr[2];
	size_t bytes;
	struct intern_table comms;
	struct pb_buf comm_list;
	bool lost, used;
	/*
	 * The ring wrapped: its data starts at its oldest record, said once,
	 * on the CPU's first bundle (previous_bundle_end_timestamp), not as
	 * loss.
	 */
	bool overwritten, start_said;
	uint64_t first_ts; /* of the CPU's first event, 0 before it */
};

struct perfetto_ftrace {
	struct tep_handle *tep;
	struct tp **by_type; /* [65536], by common_type */
	struct bundle *bundles;
	size_t nr_bundles;
	uint64_t nr_lost_marks;
	uint64_t nr_cpu_skipped; /* events of CPUs >= IMPORT_MAX_CPUS */
	struct pb_buf pkt;
};

static struct bundle *bundle_of(struct perfetto_ftrace *fc, uint32_t cpu)
{
	struct bundle *b;

	if (cpu >= IMPORT_MAX_CPUS)
		return NULL;
	if (cpu >= fc->nr_bundles) {
		size_t n = cpu + 1 > fc->nr_bundles * 2 ? cpu + 1 : fc->nr_bundles * 2;

		b = realloc(fc->bundles, n * sizeof(*b));
		if (!b)
			return NULL;
		memset(b + fc->nr_bundles, 0, (n - fc->nr_bundles) * sizeof(*b));
		fc->bundles = b;
		fc->nr_bundles = n;
	}
	return &fc->bundles[cpu];
}

static void bundle_fini(struct bundle *b)
{
	pb_buf__fini(&b->ev);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 6; i++)
			pb_buf__fini(&b->col[k][i]);
	intern_table__fini(&b->comms);
	pb_buf__fini(&b->comm_list);
}

void perfetto_ftrace__delete(struct perfetto_ftrace *fc)
{
	if (!fc)
		return;
	for (size_t i = 0; i < fc->nr_bundles; i++)
		bundle_fini(&fc->bundles[i]);
	free(fc->bundles);
	for (size_t i = 0; fc->by_type && i < 65536; i++) {
		if (fc->by_type[i])
			free(fc->by_type[i]->fields);
		free(fc->by_type[i]);
	}
	free(fc->by_type);
	pb_buf__fini(&fc->pkt);
	if (fc->tep)
		tep_free(fc->tep);
	free(fc);
}

static int schema_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct ftrace_schema_event *)elem)->name);
}

/*
 * The schema's message for @e: by system and name where the schema's
 * group is @e's system; by name alone where it is not (a message's group
 * is the stem of the schema file that defines it, not always the
 * kernel's system), and then only if no other tracepoint of the
 * recording has that name, so that no two tracepoints share a message.
 */
static const struct ftrace_schema_event *schema_event(const struct tep_event *e,
						      struct tep_event **events)
{
	const struct ftrace_schema_event *se = bsearch(
		e->name, ftrace_schema_events, ftrace_schema_nr_events, sizeof(*se), schema_cmp);

	if (!se || !strcmp(se->group, e->system))
		return se;
	for (size_t i = 0; events[i]; i++)
		if (events[i] != e && !strcmp(events[i]->name, e->name))
			return NULL;
	return se;
}

static bool is_number(const struct tep_format_field *f);

/*
 * Whether format field @f can feed a proto field of type @t: strings from
 * strings, bytes from arrays, numbers from numbers; anything else is left out.
 */
static bool fits(const struct tep_format_field *f, enum ftrace_schema_type t)
{
	if (t == FTRACE_SCHEMA_STRING)
		return f->flags & TEP_FIELD_IS_STRING;
	if (t == FTRACE_SCHEMA_BYTES)
		return f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING);
	return is_number(f);
}

/*
 * syscalls:sys_enter_NAME and sys_exit_NAME, a tracepoint per system call
 * (far cheaper to record than raw_syscalls: docs/decisions.md), as the
 * typed sys_enter and sys_exit the importer makes syscall slices of, as
 * from raw_syscalls: the id from __syscall_nr, an enter's arguments from
 * the fields after it, an exit's return value.
 */
static int resolve_syscall(struct tp *tp)
{
	struct tep_event *e = tp->e;
	struct tep_format_field *nr = tep_find_field(e, "__syscall_nr");
	bool enter = !strncmp(e->name, "sys_enter_", 10);
	struct tep_format_field *ret = enter ? NULL : tep_find_field(e, "ret");

	if (strcmp(e->system, "syscalls") || !nr || !is_number(nr) ||
	    (!enter && (strncmp(e->name, "sys_exit_", 9) || !ret || !is_number(ret))))
		return 0;
	tp->fields = calloc(2, sizeof(*tp->fields));
	if (!tp->fields)
		return -ENOMEM;
	tp->kind = TP_TYPED;
	tp->proto = enter ? EVENT_SYS_ENTER : EVENT_SYS_EXIT;
	tp->fields[tp->nr_fields++] = (struct tp_field){ nr, 1, FTRACE_SCHEMA_INT64 };
	if (ret)
		tp->fields[tp->nr_fields++] = (struct tp_field){ ret, 2, FTRACE_SCHEMA_INT64 };
	tp->first_arg = enter ? nr->next : NULL;
	return 0;
}

static int resolve(struct tp *tp, struct tep_event **events)
{
	struct tep_event *e = tp->e;
	const struct ftrace_schema_event *se = schema_event(e, events);
	const char *const *names = NULL;

	tp->kind = TP_GENERIC;
	if (!se)
		return resolve_syscall(tp);
	tp->fields = calloc(se->nr_fields ? se->nr_fields : 1, sizeof(*tp->fields));
	if (!tp->fields)
		return -ENOMEM;
	tp->kind = TP_TYPED;
	tp->proto = se->number;
	for (size_t i = 0; i < se->nr_fields; i++) {
		struct tep_format_field *f = tep_find_field(e, se->fields[i].name);

		if (f && fits(f, se->fields[i].type))
			tp->fields[tp->nr_fields++] = (struct tp_field){ f, se->fields[i].number,
									 se->fields[i].type };
	}
	if (tp->proto == EVENT_SYS_ENTER)
		tp->args = tep_find_field(e, "args");
	/* The compact encoding where every column is there, else the typed message. */
	if (tp->proto == EVENT_SWITCH && !strcmp(e->system, "sched"))
		names = switch_fields;
	else if (tp->proto == EVENT_WAKING && !strcmp(e->system, "sched"))
		names = waking_fields;
	for (int i = 0; names && i < 4; i++)
		if (!(tp->col[i] = tep_find_field(e, names[i])))
			names = NULL;
	if (names)
		tp->kind = names == switch_fields ? TP_SWITCH : TP_WAKING;
	return 0;
}

static bool recorded(const struct snapshot *s, const struct tep_event *e)
{
	for (size_t i = 0; e && i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;

		if (a->type == PERF_TYPE_TRACEPOINT && a->config == (uint64_t)e->id)
			return true;
	}
	return false;
}

/*
 * Begin/end tracepoints the importer makes slices of: it opens one at
 * each begin and closes it at the next end of its thread or CPU. Without
 * the end recorded nothing closes them, and past 512 deep it drops them,
 * counted as an error (slice_max_depth_exceeded). Then the begin goes in
 * as a generic event, one row each in the raw table: scheduler.conf
 * records irq_handler_entry and softirq_entry alone.
 */
static const struct {
	const char *system, *begin, *end;
} slice_pairs[] = {
	{ "raw_syscalls", "sys_enter", "sys_exit" },
	{ "irq", "irq_handler_entry", "irq_handler_exit" },
	{ "irq", "softirq_entry", "softirq_exit" },
	{ "ipi", "ipi_entry", "ipi_exit" },
	{ "workqueue", "workqueue_execute_start", "workqueue_execute_end" },
	{ "vmscan", "mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end" },
};

/* Whether the exit of @enter's call is recorded (resolve_syscall() saw "sys_enter_"). */
static bool exit_recorded(struct perfetto_ftrace *fc, const struct snapshot *s,
			  const struct tp *enter)
{
	char name[128];

	snprintf(name, sizeof(name), "sys_exit_%s", enter->e->name + 10);
	return recorded(s, tep_find_event_by_name(fc->tep, "syscalls", name));
}

/*
 * A per-call enter is a slice's begin too; it goes in generic where its
 * exit is not recorded. Where raw_syscalls:sys_enter makes the slices,
 * per-call enters and exits go in generic, so each call is one slice.
 */
static void syscall_begins(struct perfetto_ftrace *fc, const struct snapshot *s)
{
	bool raw = recorded(s, tep_find_event_by_name(fc->tep, "raw_syscalls", "sys_enter"));

	for (size_t i = 0; i < snapshot__nr_events(s); i++) {
		const struct perf_event_attr *a = &snapshot__event(s, i)->attr;
		struct tp *tp = a->type == PERF_TYPE_TRACEPOINT && a->config <= 65535 ?
					fc->by_type[a->config] :
					NULL;

		if (!tp || tp->kind != TP_TYPED || strcmp(tp->e->system, "syscalls"))
			continue;
		if (raw || (tp->proto == EVENT_SYS_ENTER && !exit_recorded(fc, s, tp)))
			tp->kind = TP_GENERIC, tp->proto = 0;
	}
}

static void begins_without_end(struct perfetto_ftrace *fc, const struct snapshot *s)
{
	for (size_t i = 0; i < sizeof(slice_pairs) / sizeof(slice_pairs[0]); i++) {
		struct tep_event *begin = tep_find_event_by_name(fc->tep, slice_pairs[i].system,
								 slice_pairs[i].begin);
		struct tep_event *end = tep_find_event_by_name(fc->tep, slice_pairs[i].system,
							       slice_pairs[i].end);
		struct tp *tp = begin && begin->id >= 0 && begin->id <= 65535 ?
					fc->by_type[begin->id] :
					NULL;

		if (tp && tp->kind == TP_TYPED && !recorded(s, end))
			tp->kind = TP_GENERIC, tp->proto = 0;
	}
	syscall_begins(fc, s);
}

int perfetto_ftrace__new(const struct snapshot *s, struct perfetto_ftrace **ret)
{
	const struct tracing_meta *tm = snapshot__tracing(s);
	const struct tracing_data_info *t = tm ? tracing_meta__info(tm) : NULL;
	struct perfetto_ftrace *fc = calloc(1, sizeof(*fc));
	struct tep_event **events;
	int r = 0;

	*ret = NULL;
	if (!fc || !(fc->tep = tep_alloc()) ||
	    !(fc->by_type = calloc(65536, sizeof(struct tp *)))) {
		perfetto_ftrace__delete(fc);
		return -ENOMEM;
	}
	/* The capture's formats: the recording machine's, not this one's. */
	if (t) {
		tep_set_long_size(fc->tep, t->long_size ? (int)t->long_size : (int)sizeof(long));
		for (size_t i = 0; i < t->nr_ftrace && !r; i++)
			r = perfetto_ftrace__add_format(fc->tep, t->ftrace[i].system,
							t->ftrace[i].text, t->ftrace[i].size);
		for (size_t i = 0; i < t->nr_events && !r; i++)
			r = perfetto_ftrace__add_format(fc->tep, t->events[i].system,
							t->events[i].text, t->events[i].size);
	}
	for (size_t i = 0; !t && i < snapshot__nr_events(s) && !r; i++)
		if (snapshot__event(s, i)->attr.type == PERF_TYPE_TRACEPOINT)
			r = -ENODATA;
	events = r ? NULL : tep_list_events(fc->tep, TEP_EVENT_SORT_ID);
	for (size_t i = 0; events && events[i] && !r; i++) {
		struct tp *tp;

		if (events[i]->id < 0 || events[i]->id > 65535)
			continue;
		tp = calloc(1, sizeof(*tp));
		if (!tp) {
			r = -ENOMEM;
			break;
		}
		tp->e = events[i];
		fc->by_type[events[i]->id] = tp;
		r = resolve(tp, events);
	}
	if (!r)
		begins_without_end(fc, s);
	for (size_t i = 0; !r && i < snapshot__nr_chunks(s); i++) {
		const struct snapshot_chunk_info *c = snapshot__chunk(s, i);
		struct bundle *b = c->overwritten && c->cpu >= 0 ? bundle_of(fc, (uint32_t)c->cpu) :
								   NULL;

		/*
		 * What the ring held before its oldest record was overwritten:
		 * the importer learns where this CPU's data starts, which is
		 * no loss within it.
		 */
		if (b)
			b->overwritten = true;
		else if (c->overwritten && c->cpu >= 0 && c->cpu < IMPORT_MAX_CPUS)
			r = -ENOMEM;
	}
	if (r) {
		perfetto_ftrace__delete(fc);
		return r;
	}
	*ret = fc;
	return 0;
}

/* A field's bytes: fixed arrays in place, __data_loc/__rel_loc where they point. */
static bool field_bytes(const struct tep_format_field *f, const uint8_t *d, size_t size,
			const uint8_t **ret, size_t *ret_len)
{
	size_t off = (size_t)f->offset, len = (size_t)f->size;
	uint32_t loc;

	if (f->offset < 0 || f->size < 0 || off + len > size)
		return false;
	/* A flexible array (ftrace:print's "char buf[]"): the rest of the record. */
	if ((f->flags & TEP_FIELD_IS_ARRAY) && !(f->flags & TEP_FIELD_IS_DYNAMIC) && !len)
		len = size - off;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		if (len != 4)
			return false;
		memcpy(&loc, d + off, 4);
		off = (f->flags & TEP_FIELD_IS_RELATIVE ? off + 4 : 0) + (loc & 0xffff);
		len = loc >> 16;
		if (off + len > size)
			return false;
	}
	*ret = d + off;
	*ret_len = len;
	return true;
}

static bool is_number(const struct tep_format_field *f)
{
	return !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC | TEP_FIELD_IS_STRING)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8);
}

/* The recording's byte order is this machine's (perfdata_reader reads no other). */
static uint64_t read_host(const uint8_t *p, int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	case 8:
		memcpy(&v8, p, 8);
		return v8;
	default:
		return 0;
	}
}

static uint64_t number(const struct perfetto_ftrace *fc, const struct tep_format_field *f,
		       const uint8_t *p)
{
	uint64_t v = read_host(p, f->size);

	(void)fc;
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ull << (f->size * 8);
	return v;
}

/*
 * A field as its proto type: strings up to their NUL, numbers as the
 * format field's value (sign-extended where the format says signed)
 * converted as a C cast to the proto type would: int32 from the low 32
 * bits, sign-extended to the 64-bit varint protobuf wants; sint zigzag.
 */
static void put_field(struct perfetto_ftrace *fc, struct pb_buf *b, const struct tp_field *tf,
		      const uint8_t *d, size_t size)
{
	const uint8_t *p;
	uint64_t v;
	size_t len;
	int64_t n;

	if (!field_bytes(tf->f, d, size, &p, &len))
		return;
	if (tf->type == FTRACE_SCHEMA_STRING) {
		pb__bytes(b, tf->proto, p, strnlen((const char *)p, len));
		return;
	}
	if (tf->type == FTRACE_SCHEMA_BYTES) {
		pb__bytes(b, tf->proto, p, len);
		return;
	}
	v = number(fc, tf->f, p);
	if (tf->type == FTRACE_SCHEMA_INT32) {
		v = (uint64_t)(int64_t)(int32_t)(uint32_t)v;
	} else if (tf->type == FTRACE_SCHEMA_UINT32) {
		v = (uint32_t)v;
	} else if (tf->type == FTRACE_SCHEMA_SINT32) {
		n = (int32_t)(uint32_t)v;
		v = (uint32_t)((uint32_t)n << 1 ^ (n < 0 ? ~0u : 0));
	} else if (tf->type == FTRACE_SCHEMA_SINT64) {
		n = (int64_t)v;
		v = v << 1 ^ (n < 0 ? ~0ull : 0);
	} else if (tf->type == FTRACE_SCHEMA_BOOL) {
		v = v != 0;
	} /* INT64 and UINT64 as they are */
	pb__varint(b, tf->proto, v);
}

static void put_generic_field(struct perfetto_ftrace *fc, struct pb_buf *b,
			      const struct tep_format_field *f, const uint8_t *d, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *p;
	pb_nested n;
	size_t len;

	if (!field_bytes(f, d, size, &p, &len))
		return;
	n = pb__begin(b, GENERIC_FIELD);
	pb__str(b, FIELD_NAME, f->name);
	if (f->flags & TEP_FIELD_IS_STRING) {
		pb__bytes(b, FIELD_STR, p, strnlen((const char *)p, len));
	} else if (is_number(f)) {
		pb__varint(b, f->flags & TEP_FIELD_IS_SIGNED ? FIELD_INT : FIELD_UINT,
			   number(fc, f, p));
	} else {
		/* Other arrays as their bytes in hex, as trace-cmd shows them. */
		pb_nested s = pb__begin(b, FIELD_STR);
		uint8_t *o = pb_buf__reserve(b, len * 2);

		for (size_t i = 0; o && i < len; i++) {
			*o++ = (uint8_t)hex[p[i] >> 4];
			*o++ = (uint8_t)hex[p[i] & 15];
		}
		if (o)
			b->len += len * 2;
		pb__end(b, s);
	}
	pb__end(b, n);
}

static int flush(struct perfetto_ftrace *fc, struct pftrace_out *o, uint32_t cpu, struct bundle *b)
{
	struct pb_buf *p = &fc->pkt;
	pb_nested n, c;
	int r;

	n = pb__begin(p, PKT_FTRACE_EVENTS);
	pb__varint(p, BUNDLE_CPU, cpu);
	pb__raw(p, b->ev.data, b->ev.len);
	if (b->lost) {
		pb__varint(p, BUNDLE_LOST, 1);
		fc->nr_lost_marks++;
	}
	if (b->overwritten && !b->start_said && b->first_ts) {
		pb__varint(p, BUNDLE_PREV_END, b->first_ts - 1);
		b->start_said = true;
	}
	if (b->nr[0] || b->nr[1]) {
		c = pb__begin(p, BUNDLE_COMPACT);
		pb__raw(p, b->comm_list.data, b->comm_list.len);
		for (int k = 0; k < 2; k++)
			for (int i = 0; b->nr[k] && i < (k ? 6 : 5); i++)
				pb__bytes(p, k ? waking_proto[i] : switch_proto[i],
					  b->col[k][i].data, b->col[k][i].len);
		pb__end(p, c);
	}
	pb__end(p, n);
	r = pftrace_out__emit(o, p);
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 6; i++) {
			r = r ? r : b->col[k][i].err;
			pb_buf__reset(&b->col[k][i]);
		}
		b->nr[k] = 0;
		b->last_ts[k] = 0;
	}
	r = r ? r : b->ev.err ? b->ev.err : b->comm_list.err;
	pb_buf__reset(&b->ev);
	pb_buf__reset(&b->comm_list);
	intern_table__fini(&b->comms);
	b->bytes = 0;
	b->lost = false;
	return r;
}

/* One row of the compact encoding: delta timestamp, four columns, flags. */
static int compact(struct perfetto_ftrace *fc, struct bundle *b, const struct tp *tp,
		   const struct perf_record_info *info)
{
	const uint8_t *d = info->raw, *p;
	int k = tp->kind == TP_WAKING;
	struct pb_buf *col = b->col[k];
	uint64_t iid;
	size_t len;
	bool is_new;

	for (int i = 0; i < 4; i++)
		if (!field_bytes(tp->col[i], d, info->raw_size, &p, &len) ||
		    (i < 3 && !is_number(tp->col[i])))
			return 1;
	pb__varint_raw(&col[0], info->time - b->last_ts[k]);
	b->last_ts[k] = info->time;
	for (int i = 0; i < 3; i++) {
		field_bytes(tp->col[i], d, info->raw_size, &p, &len);
		pb__varint_raw(&col[i + 1], number(fc, tp->col[i], p));
	}
	field_bytes(tp->col[3], d, info->raw_size, &p, &len);
	len = strnlen((const char *)p, len);
	iid = intern_table__get(&b->comms, p, len, &is_new);
	if (!iid)
		return -ENOMEM;
	if (is_new)
		pb__bytes(&b->comm_list, COMPACT_INTERN, p, len);
	pb__varint_raw(&col[4], iid - 1);
	if (k)
		pb__varint_raw(&col[5], d[2]); /* common_flags */
	b->nr[k]++;
	b->bytes += 16 + (is_new ? len : 0);
	return 0;
}

static void typed(struct perfetto_ftrace *fc, struct pb_buf *ev, const struct tp *tp,
		  const struct perf_record_info *info)
{
	const uint8_t *d = info->raw, *p;
	pb_nested n = pb__begin(ev, tp->kind == TP_GENERIC ? EVENT_GENERIC : tp->proto);
	size_t len;

	if (tp->kind == TP_GENERIC) {
		pb__str(ev, GENERIC_NAME, tp->e->name);
		for (struct tep_format_field *f = tp->e->format.fields; f; f = f->next)
			put_generic_field(fc, ev, f, d, info->raw_size);
	} else {
		for (size_t i = 0; i < tp->nr_fields; i++)
			put_field(fc, ev, &tp->fields[i], d, info->raw_size);
		/* SysEnterFtraceEvent.args (2), one per unsigned long of the array */
		if (tp->args && tp->args->elementsize > 0 &&
		    field_bytes(tp->args, d, info->raw_size, &p, &len))
			for (size_t at = 0; at + tp->args->elementsize <= len;
			     at += tp->args->elementsize)
				pb__varint(ev, 2, read_host(p + at, (int)tp->args->elementsize));
		for (struct tep_format_field *f = tp->first_arg; f; f = f->next)
			pb__varint(ev, 2,
				   is_number(f) && field_bytes(f, d, info->raw_size, &p, &len) ?
					   number(fc, f, p) :
					   0);
	}
	pb__end(ev, n);
}

int perfetto_ftrace__sample(struct perfetto_ftrace *fc, struct pftrace_out *o,
			    const struct perf_record_info *info)
{
	const uint8_t *d = info->raw;
	struct bundle *b;
	uint16_t type;
	int32_t pid;
	struct tp *tp;
	size_t before;
	pb_nested n;
	int r = 1;

	if (!d || info->raw_size < 8)
		return 1;
	memcpy(&type, d, 2);
	memcpy(&pid, d + 4, 4);
	tp = fc->by_type[type];
	if (!tp)
		return 1;
	if (info->cpu >= IMPORT_MAX_CPUS) {
		fc->nr_cpu_skipped++;
		return PERFETTO_FTRACE_SKIPPED;
	}
	b = bundle_of(fc, info->cpu);
	if (!b)
		return -ENOMEM;
	b->used = true;
	if (!b->first_ts)
		b->first_ts = info->time;
	if (tp->kind == TP_SWITCH || tp->kind == TP_WAKING)
		r = compact(fc, b, tp, info);
	if (r < 0)
		return r;
	if (r) {
		before = b->ev.len;
		n = pb__begin(&b->ev, BUNDLE_EVENT);
		pb__varint(&b->ev, EVENT_TIMESTAMP, info->time);
		pb__varint(&b->ev, EVENT_PID, (uint64_t)(int64_t)pid);
		typed(fc, &b->ev, tp, info);
		pb__end(&b->ev, n);
		if (b->ev.err)
			return b->ev.err;
		b->bytes += b->ev.len - before;
	}
	return b->bytes >= BUNDLE_BYTES ? flush(fc, o, info->cpu, b) : 0;
}

static bool has_events(const struct bundle *b)
{
	return b->ev.len || b->nr[0] || b->nr[1];
}

int perfetto_ftrace__lost(struct perfetto_ftrace *fc, struct pftrace_out *o, uint32_t cpu)
{
	struct bundle *b = bundle_of(fc, cpu);
	int r = 0;

	if (!b)
		return cpu >= IMPORT_MAX_CPUS ? 0 : -ENOMEM;
	if (has_events(b))
		r = flush(fc, o, cpu, b);
	b->lost = true;
	return r;
}

int perfetto_ftrace__finish(struct perfetto_ftrace *fc, struct pftrace_out *o,
			    uint64_t *nr_lost_marks, uint64_t *nr_cpu_skipped)
{
	int r = 0;

	for (size_t i = 0; i < fc->nr_bundles && !r; i++) {
		struct bundle *b = &fc->bundles[i];

		if (has_events(b) || b->lost)
			r = flush(fc, o, (uint32_t)i, b);
	}
	*nr_lost_marks = fc->nr_lost_marks;
	*nr_cpu_skipped = fc->nr_cpu_skipped;
	return r;
}
