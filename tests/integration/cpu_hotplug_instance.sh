#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A CPU taken offline for a few seconds and brought back while the tracefs
# instance records: the instance keeps the CPU's ring across the span
# (the kernel keeps its buffer; perfsnapd keeps it mapped), so a dump
# after it has every event of the CPU from before and after, each once, in
# time order, none inside the span: no event lost, no stale page shown as
# new. A second dump has them all again (nothing is consumed), and
# trace.dat agrees with perf.data.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hotplug_lib.sh"
require_env
# This test sets the backend itself.
unset PERFSNAP_BACKEND
[ -d /sys/kernel/tracing/instances ] || prereq_missing "tracefs instances"
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
require_hotplug
MARKS=200

# Boottime: the records' clock is /proc/uptime's, so the span as this
# script sees it can be compared with them.
FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "sched:sched_switch signal:signal_generate" 4M \
	"compression = none" "backend = tracefs
clock = boottime"
start_daemon "$WORK/p.conf"
log_has "tracepoints? recorded in tracefs instance" || fail "not recording in a tracefs instance"

# marks NAME: a task named NAME on cpu$C sends itself MARKS SIGWINCH.
marks() {
	printf '#!/bin/bash\nfor _ in $(seq 1 %d); do kill -WINCH $$; done\n' "$MARKS" >"$WORK/$1"
	chmod +x "$WORK/$1"
	taskset -c "$C" "$WORK/$1" || fail "$1 failed"
}

uptime() { cut -d' ' -f1 /proc/uptime; }
marks hp_before
cpu_offline
span_from=$(uptime)
sleep 2
span_to=$(uptime)
cpu_back
# The instance records on the CPU at once; the side-band, on perf's rings,
# once perfsnapd has seen the CPU back (it looks once a second) and opened
# its events there: a task born and gone on it before then has no name.
wait_until 10 log_has "perfsnapd: cpu$C is back online" ||
	fail "cpu$C not said back online 10 s after it was"
marks hp_after

# check FILE: each mark once on cpu$C, the CPU's records in time order and
# none in the offline span; trace.dat the same events as perf.data.
check() {
	local file=$1 stem=${1%.perf.data} n name
	perf_script_complete "$file"
	perf script --ns -i "$file" -C "$C" -F comm,time,event,trace >"$WORK/c.txt" 2>/dev/null
	for name in hp_before hp_after; do
		n=$(grep -cE "^ *$name .*signal:signal_generate: sig=28 " "$WORK/c.txt" || true)
		[ "$n" = "$MARKS" ] || fail "$file: $n of $MARKS $name marks on cpu$C"
	done
	awk '{ t = $2; sub(/:$/, "", t); if (t + 0 < last) { print "out of order: " $0; bad = 1 }
	       last = t + 0 } END { exit bad }' "$WORK/c.txt" || fail "$file: cpu$C's records out of time order"
	trace-cmd report -N "$stem.trace.dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
		{ cat "$WORK/report.err" >&2; fail "trace-cmd report"; }
	no_stderr "trace-cmd report" "$WORK/report.err"
	for name in hp_before hp_after; do
		n=$(grep -E "signal_generate: +sig=28 " "$WORK/report.txt" | grep -cE "^ *$name-[0-9]+ +\[0*$C\]" || true)
		[ "$n" = "$MARKS" ] || fail "$stem.trace.dat: $n of $MARKS $name marks on cpu$C"
	done
}

file=$(dump_and_wait)
check "$file"
# No record of the CPU while it was offline (/proc/uptime's 10 ms ticks
# taken in): none of its old records shown again as new.
inside=$(awk -v a="$span_from" -v b="$span_to" '{ t = $2; sub(/:$/, "", t) }
	t + 0 > a + 0.02 && t + 0 < b - 0.02' "$WORK/c.txt" | wc -l)
note "cpu$C offline from $span_from to $span_to s: $inside of its records in between"
[ "$inside" = 0 ] || fail "$inside records of cpu$C inside its offline span"

file=$(dump_and_wait)
check "$file"
echo "PASS: cpu$C offline and back on the instance: every mark once, in order, in both dumps and formats"
