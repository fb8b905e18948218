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

struct start_value {
	__u64 time;
	__u32 cpu, pid;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PAIRED_STARTS_MAX);
	__type(key, __u64);
	__type(value, struct start_value);
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

static __always_inline int side_matches(void *ctx, const volatile struct paired_side *s)
{
	for (int i = 0; i < PAIRED_TERMS_MAX; i++) {
		__s64 v, want;

		if (i >= s->nr_terms)
			break;
		v = read_field(ctx, &s->terms[i].field);
		want = s->terms[i].value;
		switch (s->terms[i].op) {
		case PAIRED_EQ:
			if (v != want)
				return 0;
			break;
		case PAIRED_NE:
			if (v == want)
				return 0;
			break;
		case PAIRED_LT:
			if (!(v < want))
				return 0;
			break;
		case PAIRED_LE:
			if (!(v <= want))
				return 0;
			break;
		case PAIRED_GT:
			if (!(v > want))
				return 0;
			break;
		case PAIRED_GE:
			if (!(v >= want))
				return 0;
			break;
		default:
			if (!(v & want))
				return 0;
			break;
		}
	}
	return 1;
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

SEC("tracepoint")
int on_start(void *ctx)
{
	struct start_value v;
	__u64 key;

	if (!side_matches(ctx, &start_side))
		return 1;
	key = (__u64)read_field(ctx, &start_side.key);
	v.time = bpf_ktime_get_ns();
	v.cpu = bpf_get_smp_processor_id();
	v.pid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_update_elem(&starts, &key, &v, BPF_ANY);
	return 1;
}

SEC("tracepoint")
int on_end(void *ctx)
{
	struct paired_outlier *o;
	struct paired_stats *st;
	struct start_value *sp, start;
	__u32 zero = 0, b;
	__u64 key, now, d;

	if (!side_matches(ctx, &end_side))
		return 1;
	key = (__u64)read_field(ctx, &end_side.key);
	sp = bpf_map_lookup_elem(&starts, &key);
	if (!sp)
		return 1;
	now = bpf_ktime_get_ns();
	start = *sp;
	bpf_map_delete_elem(&starts, &key);
	if (now < start.time)
		return 1;
	d = now - start.time;
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
	o->start_time = start.time;
	o->end_time = now;
	o->start_cpu = start.cpu;
	o->start_pid = start.pid;
	o->end_cpu = bpf_get_smp_processor_id();
	o->end_pid = (__u32)bpf_get_current_pid_tgid();
	bpf_ringbuf_submit(o, 0);
	return 1;
}
