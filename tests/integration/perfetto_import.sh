#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The .pftrace as Perfetto's own importer reads it (trace_processor_shell):
# rings that wrapped (1 MiB under a syscall load) are not data
# loss, and the importer learns where each CPU's data starts
# (ftrace_latest_data_start_ns: the latest CPU's first event); with the
# default configuration's raw_syscalls:sys_enter alone, no syscall slice
# (nothing would close them: they used to stack up past the importer's
# depth limit, an error), the enters in the raw table instead; with
# sys_exit beside it, closed syscall slices, none nested.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
find_trace_processor

# snap EVENTS: a dump of a 1M-per-CPU recording under the load; sets STEM.
snap() {
	FORMATS="perf.data perfetto" write_config "$WORK/p.conf" "$1" 1M "compression = none"
	start_daemon "$WORK/p.conf"
	sleep 2
	file=$(dump_and_wait)
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
	DAEMON_PID=
	STEM=${file%.perf.data}
}

# Real system calls (read and write), which the importer names.
start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=1000000000

snap "sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter"
stem=$STEM pf=$STEM.pftrace
grep -q '"older_data_overwritten": true' "$stem.json" || fail "no ring wrapped: the test proves nothing"
tp_no_errors "$pf"
[ "$(tp_query "$pf" "select count(*) from slice")" = 0 ] || fail "syscall slices without sys_exit"
enters=$(tp_query "$pf" "select count(*) from ftrace_event where name = 'sys_enter'")
[ "$enters" -gt 1000 ] || fail "only $enters sys_enter rows"
start=$(tp_query "$pf" "select int_value from metadata where name = 'ftrace_latest_data_start_ns'")
[ -n "$start" ] || fail "the importer does not know where the CPUs' data starts"
want=$(tp_query "$pf" "select max(first) - 1 from (select min(ts) as first from ftrace_event group by cpu)")
[ "$start" = "$want" ] || fail "data start $start, want $want (the latest CPU's first event)"
note "sys_enter alone: $enters enters in the raw table, no slice; data valid from $start"

snap "sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter raw_syscalls:sys_exit"
pf=$STEM.pftrace
tp_no_errors "$pf"
read -r n depth <<<"$(tp_query "$pf" "select count(*), ifnull(max(depth), -1) from slice" | tr ',' ' ')"
[ "$n" -gt 1000 ] || fail "only $n syscall slices with sys_exit recorded"
[ "$depth" -lt 4 ] || fail "syscall slices nest $depth deep"
note "sys_enter and sys_exit: $n slices, depth at most $depth"
echo "PASS: wrapped rings are no loss and say where their data starts; sys_enter alone makes no slice, with sys_exit closed ones"
