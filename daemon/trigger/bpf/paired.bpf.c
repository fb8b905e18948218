// SPDX-License-Identifier: GPL-2.0-only
/*
 * paired.bpf.c: one generic program pair for every paired trigger. on_start
 * runs on the start tracepoint and keeps the time under the key; on_end
 * runs on the end tracepoint, takes the start of its key, counts the pair
 * in a per-CPU log2 histogram and sends the pairs over the threshold to a
 * BPF ring the daemon's loop reads. Which field is the key and which terms
 * filter each side are read-only data the daemon sets before loading
 * (frozen: the verifier sees them as constants).
 *
 * Both programs return 1: the kernel runs every BPF program of a
 * tracepoint before the perf events on it, and 0 would drop the event for
 * the recording's rings too.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "paired_abi.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct paired_side start_side = {};
const volatile struct paired_side end_side = {};
const volatile __u64 threshold_ns = 0;

/* One waiting start; time 0: the slot is free. */
struct start_slot {
	__u64 key;
	__u64 time;
	__u32 cpu, pid;
	__u64 pad; /* two slots to a 64-byte set */
};

struct start_set {
	struct start_slot way[2];
};

/*
 * Starts by key, in sets of two slots chosen by a hash of the key: an
 * array lookup the verifier inlines and no allocation, where an LRU hash
 * takes a lock and a node per start (docs/decisions.md).
 * A start goes to its key's slot, else a free one, else over the older
 * start (one that never ended). Slots are written and read without
 * atomics: a start landing while an end reads its set can only give that
 * end a later start time or no match, never a longer duration.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PAIRED_START_SETS);
	__type(key, __u32);
	__type(value, struct start_set);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct paired_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PAIRED_RING_BYTES);
} outliers SEC(".maps");

static __always_inline __s64 read_field(void *ctx, const volatile struct paired_field *f)
{
	__u32 size = f->size;
	__u64 v = 0;
	int shift;

	if (f->offset == PAIRED_FIELD_PID)
		return (__u32)bpf_get_current_pid_tgid();
	if (size < 1 || size > 8)
		return 0;
	if (bpf_probe_read_kernel(&v, size, (char *)ctx + f->offset))
		return 0;
	shift = 64 - (int)size * 8;
	if (f->is_signed)
		return (__s64)(v << shift) >> shift;
	return (__s64)v;
}

/* A string field's first bytes into @buf (zeroed), as the record has them. */
static __always_inline int read_string(void *ctx, const volatile struct paired_field *f, char *buf)
{
	/* 64-bit: a 32-bit size is tested on a zero-extended copy, not what the call takes. */
	__u64 off = f->offset, size = f->size;

	if (f->kind == PAIRED_FIELD_DYNAMIC) {
		__u32 loc = 0;

		/* (length << 16) | offset, from the record's start, the NUL counted */
		if (bpf_probe_read_kernel(&loc, sizeof(loc), (char *)ctx + off))
			return -1;
		off = loc & 0xffff;
		size = loc >> 16;
	}
	if (size > PAIRED_STR_READ)
		size = PAIRED_STR_READ;
	if (!size)
		return 0;
	return bpf_probe_read_kernel(buf, size, (char *)ctx + off) ? -1 : 0;
}

/* Whether @s holds the term's string at @at. */
static __always_inline int has_at(const char *s, __u32 at, const volatile struct paired_term *t,
				  __u32 n)
{
	for (__u32 i = 0; i < PAIRED_STR_MAX; i++) {
		if (i >= n)
			break;
		if (s[(at + i) & (PAIRED_STR_READ - 1)] != t->str[i])
			return 0;
	}
	return 1;
}

/*
 * The kernel's string matches over the bytes read: exact (==, !=), and a
 * glob's prefix, suffix and substring. config_filter leaves to the kernel
 * what these bytes cannot decide (a suffix of a longer string).
 */
static __always_inline __u64 string_true(void *ctx, const volatile struct paired_term *t)
{
	char s[PAIRED_STR_READ + 1] = {};
	__u32 n = t->str_len, len = 0;
	__u64 hit;

	if (n > PAIRED_STR_MAX || read_string(ctx, &t->field, s) < 0)
		return 0;
	for (__u32 i = 0; i < PAIRED_STR_READ; i++) {
		if (!s[i])
			break;
		len++;
	}
	switch (t->op) {
	case PAIRED_EQ:
	case PAIRED_NE:
		hit = len == n && has_at(s, 0, t, n);
		return t->op == PAIRED_EQ ? hit : !hit;
	case PAIRED_PREFIX:
		return len >= n && has_at(s, 0, t, n);
	case PAIRED_SUFFIX:
		return len >= n && has_at(s, len - n, t, n);
	default:
		for (__u32 at = 0; at < PAIRED_STR_READ; at++) {
			if (at + n > len)
				break;
			if (has_at(s, at, t, n))
				return 1;
		}
		return 0;
	}
}

static __always_inline __u64 term_true(void *ctx, const volatile struct paired_term *t)
{
	__s64 v, want = t->value;

	if (t->field.kind != PAIRED_FIELD_INT)
		return string_true(ctx, t);
	v = read_field(ctx, &t->field);

	switch (t->op) {
	case PAIRED_EQ:
		return v == want;
	case PAIRED_NE:
		return v != want;
	case PAIRED_LT:
		return v < want;
	case PAIRED_LE:
		return v <= want;
	case PAIRED_GT:
		return v > want;
	case PAIRED_GE:
		return v >= want;
	default:
		return (v & want) != 0;
	}
}

/*
 * The side's program over a stack of truths, one bit each, the top at
 * bit 0: a term pushes its truth, && and || pop two and push one, ! flips
 * the top. The daemon hands in well-formed programs only
 * (config_filter.c), which leave one truth.
 */
static __always_inline int side_matches(void *ctx, const volatile struct paired_side *s)
{
	__u64 stack = 0, top;

	if (!s->nr_prog)
		return 1;
	for (int i = 0; i < PAIRED_PROG_MAX; i++) {
		__u32 op;

		if (i >= s->nr_prog)
			break;
		op = s->prog[i];
		if (op < PAIRED_TERMS_MAX) {
			stack = stack << 1 | term_true(ctx, &s->terms[op]);
			continue;
		}
		if (op == PAIRED_PROG_NOT) {
			stack ^= 1;
			continue;
		}
		top = stack & 1;
		stack >>= 1;
		if (op == PAIRED_PROG_AND)
			stack &= ~1ull | top;
		else
			stack |= top;
	}
	return stack & 1;
}

/* floor(log2(v)), 0 for 0 and 1, by halving the search range. */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffull) << 5;
	v >>= s;
	r |= s;
	s = (v > 0xffff) << 4;
	v >>= s;
	r |= s;
	s = (v > 0xff) << 3;
	v >>= s;
	r |= s;
	s = (v > 0xf) << 2;
	v >>= s;
	r |= s;
	s = (v > 0x3) << 1;
	v >>= s;
	r |= s;
	r |= (__u32)(v >> 1);
	return r;
}

static __always_inline struct start_set *set_of(__u64 key)
{
	/* Fibonacci hashing: keys that differ only in high bits (addresses, sectors) spread too. */
	__u32 i = (__u32)((key * 0x9e3779b97f4a7c15ull) >> (64 - PAIRED_START_SET_BITS));

	return bpf_map_lookup_elem(&starts, &i);
}

SEC("tracepoint")
int on_start(void *ctx)
{
	struct start_slot *w;
	struct start_set *set;
	__u64 key;

	if (!side_matches(ctx, &start_side))
		return 1;
	key = (__u64)read_field(ctx, &start_side.key);
	set = set_of(key);
	if (!set)
		return 1;
	if (set->way[0].key == key)
		w = &set->way[0];
	else if (set->way[1].key == key)
		w = &set->way[1];
	else if (!set->way[0].time)
		w = &set->way[0];
	else if (!set->way[1].time)
		w = &set->way[1];
	else
		w = set->way[0].time <= set->way[1].time ? &set->way[0] : &set->way[1];
	w->time = 0;
	w->key = key;
	w->cpu = bpf_get_smp_processor_id();
	w->pid = (__u32)bpf_get_current_pid_tgid();
	/* The time last: where stores stay in order, an end that sees it sees the key. */
	asm volatile("" ::: "memory");
	w->time = bpf_ktime_get_ns();
	return 1;
}

SEC("tracepoint")
int on_end(void *ctx)
{
	struct paired_outlier *o;
	struct paired_stats *st;
	struct start_slot *w;
	struct start_set *set;
	__u32 zero = 0, b, start_cpu, start_pid;
	__u64 key, now, start, d;

	if (!side_matches(ctx, &end_side))
		return 1;
	key = (__u64)read_field(ctx, &end_side.key);
	set = set_of(key);
	if (!set)
		return 1;
	if (set->way[0].key == key && set->way[0].time)
		w = &set->way[0];
	else if (set->way[1].key == key && set->way[1].time)
		w = &set->way[1];
	else
		return 1;
	start = w->time;
	start_cpu = w->cpu;
	start_pid = w->pid;
	w->time = 0;
	now = bpf_ktime_get_ns();
	if (!start || now < start)
		return 1;
	d = now - start;
	st = bpf_map_lookup_elem(&stats, &zero);
	if (!st)
		return 1;
	st->pairs++;
	if (d > st->max_ns)
		st->max_ns = d;
	b = log2_u64(d / 1000);
	if (b >= PAIRED_BUCKETS)
		b = PAIRED_BUCKETS - 1;
	/* Keeps the mask after clang's range analysis: the verifier needs to see it. */
	asm volatile("" : "+r"(b));
	st->hist[b & (PAIRED_BUCKETS - 1)]++;
	if (d < threshold_ns)
		return 1;
	st->outliers++;
	o = bpf_ringbuf_reserve(&outliers, sizeof(*o), 0);
	if (!o)
		return 1;
	o->key = key;
	o->start_time = start;
	o->end_time = now;
	o->start_cpu = start_cpu;
	o->start_pid = start_pid;
	o->end_cpu = bpf_get_smp_processor_id();
	o->end_pid = (__u32)bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(o, 0);
	return 1;
}
