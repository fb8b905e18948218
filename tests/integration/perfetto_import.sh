#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The .pftrace as Perfetto's own importer reads it (trace_processor_shell):
# rings that wrapped (1 MiB under a syscall load) are not data
# loss, and the importer learns where each CPU's data starts
# (ftrace_latest_data_start_ns: the latest CPU's first event); with the
# default configuration's raw_syscalls:sys_enter alone, no syscall slice
# (nothing would close them: they used to stack up past the importer's
# depth limit, an error), the enters in the raw table instead; with
# sys_exit beside it, closed syscall slices, none nested; the same from
# the per-call events (syscalls:sys_enter_read and sys_exit_read), and
# an enter without its exit in the raw table. The shipped configuration
# gives Runnable spans with their wakers, slices of the system calls it
# records and threads' start and end times.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
find_trace_processor

# snap EVENTS: a dump of a 1M-per-CPU recording under the load; sets STEM.
snap() {
	FORMATS="perf.data perfetto" write_config "$WORK/p.conf" "$1" 1M "compression = none"
	start_daemon "$WORK/p.conf"
	# 100,000 reads and writes: some 10 MiB of records, the 1 MiB rings
	# wrapped however the load moved between CPUs.
	wait_work io 100000 "$DD"
	file=$(dump_and_wait)
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
	DAEMON_PID=
	STEM=${file%.perf.data}
}

# Real system calls (read and write), which the importer names.
start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=1000000000
DD=$LAST_PID

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

snap "sched:sched_switch syscalls:sys_enter_read syscalls:sys_exit_read syscalls:sys_enter_write"
pf=$STEM.pftrace
tp_no_errors "$pf"
read -r n other depth <<<"$(tp_query "$pf" "select count(*) filter (where name = 'sys_read'),
	count(*) filter (where name != 'sys_read'), ifnull(max(depth), -1) from slice" | tr ',' ' ')"
[ "$n" -gt 1000 ] && [ "$other" = 0 ] && [ "$depth" -lt 4 ] ||
	fail "per-call events: $n sys_read slices, $other others, depth $depth"
enters=$(tp_query "$pf" "select count(*) from ftrace_event where name = 'sys_enter_write'")
[ "$enters" -gt 1000 ] || fail "only $enters sys_enter_write rows (an enter without its exit)"
note "per-call events: $n sys_read slices, depth at most $depth; $enters write enters in the raw table"
# The shipped configuration's events in 8M rings (not its window: a ring
# must wrap), under wakeups: Runnable spans before the switch-ins
# (sched_waking), then closed slices of the system calls it records.
# Threads (-T), not processes: one pid, so the cleanup stops all of it.
start_prog /dev/null perf bench sched pipe -T -l 100000000
BENCH=$LAST_PID
sed -e "s|^directory *=.*|directory = $WORK/out|" -e "s|^socket *=.*|socket = $WORK/control.sock|" \
	-e "s|^formats *=.*|formats = perf.data perfetto|" -e "s|^compression *=.*|compression = none|" \
	-e "s|^window *=.*|buffer_size = 8M|" -e "/^memory *=/d" "$SOURCE_DIR/conf/perfsnapd.conf" >"$WORK/default.conf"
start_daemon "$WORK/default.conf"
# A ring wrapped (where the importer learns the data's start): 400,000 reads
# and writes each, some 50 MiB of the pipe's switches and wakeups, more
# than two rings hold.
wait_work io 400000 "$DD" "$BENCH"
# Then quiet (the loads' records stay in the rings): a task born and
# reaped, and freed, which the kernel does after an RCU grace period
# (sched_process_free), before the dump; its start and end are known.
kill "${CHILD_PIDS[@]}" 2>/dev/null
wait "${CHILD_PIDS[@]}" 2>/dev/null
CHILD_PIDS=()
/bin/true &
brief=$!
wait "$brief"
# System calls of the shipped set: a shell starts 100 tasks and waits for
# each (execve, wait4).
for _ in $(seq 1 100); do /bin/true; done
# The free comes when the grace period ends, which a loaded machine can
# delay past any fixed sleep: dump again until the perf.data holds it.
for _ in $(seq 1 20); do
	sleep 0.1
	file=$(dump_and_wait)
	perf script -i "$file" -F event,trace 2>/dev/null |
		grep -qE "sched:sched_process_free: .*pid=$brief " && break
done
pf=${file%.perf.data}.pftrace
tp_no_errors "$pf"
[ "$(tp_query "$pf" "select count(*) from thread where tid = $brief and start_ts is not null and end_ts > start_ts")" = 1 ] ||
	fail "default config: task $brief has no start and end time"
read -r running from_sleep woken <<<"$(tp_query "$pf" "
	with s as (select state, waker_utid, lag(state) over (partition by utid order by ts) as prev
		   from thread_state where utid != 0)
	select count(*) filter (where state = 'Running'),
	       count(*) filter (where state = 'Running' and prev = 'S'),
	       count(*) filter (where state = 'R' and waker_utid is not null) from s" | tr ',' ' ')"
[ "$running" -gt 100 ] || fail "default config: only $running switch-ins"
[ "$woken" -gt 50 ] || fail "default config: $woken Runnable spans with a waker (sched_waking not recorded?)"
[ $((from_sleep * 100)) -le "$running" ] ||
	fail "default config: $from_sleep of $running switch-ins straight from sleeping to running"
read -r n depth <<<"$(tp_query "$pf" "select count(*) filter (where name in ('sys_execve', 'sys_wait4')),
	ifnull(max(depth), -1) from slice" | tr ',' ' ')"
[ "$n" -ge 200 ] && [ "$depth" -lt 4 ] || fail "default config: $n execve and wait4 slices, depth $depth"
[ -n "$(tp_query "$pf" "select int_value from metadata where name = 'ftrace_latest_data_start_ns'")" ] ||
	fail "default config: the importer does not know where the CPUs' data starts"
note "default config: $running switch-ins, $from_sleep from sleep, $woken woken Runnable spans, $n execve and wait4 slices"
echo "PASS: wrapped rings are no loss and say where their data starts; sys_enter alone makes no slice, with sys_exit closed ones, per-call events too; the default config shows wakeups and syscalls"
