/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * paired_abi: what paired.bpf.c and the daemon share, in fixed-size types
 * both sides compile the same: the read-only description of each side
 * (the key's place in the tracepoint record, a filter as terms and a
 * program that combines them), the
 * statistics per CPU and the outlier record. No kernel types: the program
 * reads the record at offsets the format file gives at load time, so one
 * object serves any pair of tracepoints on any kernel.
 */
#ifndef PERFSNAPD_PAIRED_ABI_H
#define PERFSNAPD_PAIRED_ABI_H

#include <linux/types.h>

#define PAIRED_TERMS_MAX      8
#define PAIRED_PROG_MAX	      32
#define PAIRED_BUCKETS	      32 /* LOG2_HIST_BUCKETS */
#define PAIRED_START_SET_BITS 14 /* 2^14 sets of two waiting starts */
#define PAIRED_START_SETS     (1u << PAIRED_START_SET_BITS)
#define PAIRED_RING_BYTES     (64 * 1024)
/* The first 8 bytes of the record hold the regs pointer when a BPF program runs. */
#define PAIRED_FIELD_PID      0xffffffffu /* offset: common_pid, read from the task instead */

enum paired_field_kind { PAIRED_FIELD_INT, PAIRED_FIELD_CHARS, PAIRED_FIELD_DYNAMIC };

struct paired_field {
	__u32 offset; /* in the record, or PAIRED_FIELD_PID */
	__u32 size;   /* INT: 1, 2, 4 or 8; CHARS: the array's; DYNAMIC: 4 */
	__u32 is_signed;
	__u32 kind; /* enum paired_field_kind */
};

/* A string field: at most its first PAIRED_STR_READ bytes are looked at. */
#define PAIRED_STR_MAX	16
#define PAIRED_STR_READ 32

/* Integer ops up to PAIRED_AND; EQ and NE also compare strings, the last three only strings. */
enum paired_op {
	PAIRED_EQ,
	PAIRED_NE,
	PAIRED_LT,
	PAIRED_LE,
	PAIRED_GT,
	PAIRED_GE,
	PAIRED_AND,
	PAIRED_PREFIX,
	PAIRED_SUFFIX,
	PAIRED_SUBSTR,
};

/*
 * A side's filter program, in postfix: a byte below PAIRED_TERMS_MAX
 * pushes that term's truth; these combine the truths on top.
 */
enum paired_prog_op { PAIRED_PROG_AND = 0xf0, PAIRED_PROG_OR, PAIRED_PROG_NOT };

struct paired_term {
	struct paired_field field;
	__u32 op; /* enum paired_op */
	__u32 str_len;
	__s64 value;
	char str[PAIRED_STR_MAX]; /* string fields: str_len bytes, no NUL */
};

struct paired_side {
	struct paired_field key;
	__u32 nr_terms;
	__u32 nr_prog; /* 0: no filter, every record matches */
	struct paired_term terms[PAIRED_TERMS_MAX];
	__u8 prog[PAIRED_PROG_MAX];
};

/* Per CPU; the daemon sums them. */
struct paired_stats {
	__u64 pairs;
	__u64 max_ns;
	__u64 outliers;
	__u64 hist[PAIRED_BUCKETS]; /* log2 of microseconds */
};

/* One pair over the threshold. Times are CLOCK_MONOTONIC (bpf_ktime_get_ns). */
struct paired_outlier {
	__u64 key;
	__u64 start_time, end_time;
	__u32 start_cpu, end_cpu;
	__u32 start_pid, end_pid;
};

#endif
