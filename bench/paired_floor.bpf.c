// SPDX-License-Identifier: GPL-2.0-only
/*
 * paired_floor.bpf.c: two tracepoint programs that do nothing, for
 * bench/paired-trigger's floor: what attaching any program to the two
 * tracepoints costs, before the paired trigger's program does its work.
 * They return 1, as the daemon's do, so the recording's events stay.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tracepoint")
int floor_start(void *ctx)
{
	return 1;
}

SEC("tracepoint")
int floor_end(void *ctx)
{
	return 1;
}
