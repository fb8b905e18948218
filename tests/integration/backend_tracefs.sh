#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# backend = tracefs: the shipped events recorded by a tracefs instance of
# the daemon's own (instances/perfsnapd-PID), its rings mapped and never
# consumed. A second thread of a process, pinned to the last CPU, makes
# marked system calls: perf script, trace-cmd report and Perfetto's trace
# processor each show every mark with that CPU, tid and comm, trace.dat
# and perf.data agree event for event (that a dump consumes nothing,
# test_ftrace_pages shows: a busy neighbour may wrap the rings between
# two dumps here). status names the instance; a daemon killed
# with SIGKILL leaves its instance, the next start removes it; a clean stop
# removes its own. clock = realtime with backend = tracefs exits 78 at the
# line.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
# This test sets the backend itself; a second backend key would be refused.
unset PERFSNAP_BACKEND
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
find_trace_processor
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
MARKS=400
CPU=$(($(nproc) - 1))
INSTANCES=/sys/kernel/tracing/instances
# The shipped events, and every system call: the marks are calls of a
# number of their own, which only raw_syscalls records.
DEFAULT_EVENTS="$(shipped_events) raw_syscalls:sys_enter raw_syscalls:sys_exit"
[ -d "$INSTANCES" ] || prereq_missing "tracefs instances"

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/d.conf" "$DEFAULT_EVENTS" 8M \
	"compression = none" "backend = tracefs"
start_daemon "$WORK/d.conf"
instance=perfsnapd-$DAEMON_PID
[ -d "$INSTANCES/$instance" ] || fail "no instance $instance"
log_has "tracepoints? recorded in tracefs instance $instance" || fail "the log does not name $instance"
"$CTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" || fail "perfsnapctl status"
grep -q "^backend: tracefs instance $instance" "$WORK/status.txt" ||
	{ cat "$WORK/status.txt" >&2; fail "status does not name the instance"; }
grep -q "^event: sched:sched_switch (overwrite, tracefs)" "$WORK/status.txt" ||
	{ cat "$WORK/status.txt" >&2; fail "status does not say sched_switch is in the instance"; }

before=$(snapshot_count)
taskset -c "$CPU" "$PROGS/thread_marker" psnap_thread "$MARKS" "$DAEMON_PID" >"$WORK/marker.out" ||
	fail "thread_marker failed"
read -r _ pid _ tid <"$WORK/marker.out"
file=$(wait_snapshot "$before")
stem=${file%.perf.data}
note "pid $pid tid $tid cpu $CPU: $stem"

perf script -F trace:comm,pid,tid,cpu,event,trace -i "$file" >"$WORK/script.txt" 2>"$WORK/script.err" ||
	{ cat "$WORK/script.err" >&2; fail "perf script"; }
no_stderr "perf script" "$WORK/script.err"
good=$(grep -cE "^ *psnap_thread +$pid/$tid +\[0*$CPU\] .*sys_enter: NR 4660 " "$WORK/script.txt" || true)
[ "$good" = "$MARKS" ] || fail "perf script: $good of $MARKS marks name psnap_thread $pid/$tid on CPU $CPU"
for cmd in "report --stdio" "sched timehist --no-call-graph"; do
	# shellcheck disable=SC2086
	perf $cmd -i "$file" >"$WORK/out.txt" 2>"$WORK/err.txt" || { cat "$WORK/err.txt" >&2; fail "perf $cmd"; }
	no_stderr "perf $cmd" "$WORK/err.txt"
done
# ftrace keeps no ip: each sample names its tracepoint's function, as
# perf's name the tracepoint's caller, never address 0.
perf report --stdio --sort sym -i "$file" >"$WORK/sym.txt" 2>/dev/null || fail "perf report --sort sym"
grep -qE '\[k\] __traceiter_sys_enter$' "$WORK/sym.txt" || { head -20 "$WORK/sym.txt"; fail "sys_enter's samples name no function"; }
grep -qE '\[k\] 0+$' "$WORK/sym.txt" && { head -20 "$WORK/sym.txt"; fail "perf report names address 0"; }

trace-cmd report -N -t "$stem.trace.dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
	{ cat "$WORK/report.err" >&2; fail "trace-cmd report"; }
no_stderr "trace-cmd report" "$WORK/report.err"
good=$(grep -E "sys_enter: +NR 4660 " "$WORK/report.txt" | grep -cE "^ *psnap_thread-$tid +\[0*$CPU\] " || true)
[ "$good" = "$MARKS" ] || fail "trace-cmd report: $good of $MARKS marks name psnap_thread-$tid on CPU $CPU"
perf script --ns --show-task-events -i "$file" >"$WORK/script-all.txt" 2>/dev/null
bash "$SOURCE_DIR/tests/integration/compare_script_report.sh" "$WORK/script-all.txt" "$WORK/report.txt" ||
	fail "trace.dat differs from perf.data"

good=$(tp_query "$stem.pftrace" "select count(*) from ftrace_event e
	join thread t using (utid) left join process p using (upid)
	where e.name = 'sys_enter' and e.cpu = $CPU and t.tid = $tid and p.pid = $pid
	and t.name = 'psnap_thread' and extract_arg(e.arg_set_id, 'id') = 4660")
[ "$good" = "$MARKS" ] || fail "Perfetto: $good of $MARKS marks on CPU $CPU by psnap_thread $pid/$tid"

# SIGKILL leaves the instance; the next start removes it.
kill -KILL "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null; DAEMON_PID=
[ -d "$INSTANCES/$instance" ] || fail "$instance went with the killed daemon"
start_daemon "$WORK/d.conf"
[ -d "$INSTANCES/$instance" ] && { cat "$WORK/daemon.log" >&2; fail "$instance is still there"; }
# Another perfsnapd starting meanwhile (a test beside this one) may have removed it first.
log_has "removed 1 tracefs instance left by a perfsnapd that was killed" ||
	note "the leftover was gone before this start: another perfsnapd removed it"
instance=perfsnapd-$DAEMON_PID
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=
[ -d "$INSTANCES/$instance" ] && fail "a clean stop left $instance"

# No ftrace clock is CLOCK_REALTIME.
write_config "$WORK/rt.conf" "cpu-clock" 1M "" "backend = tracefs
clock = realtime"
rc=0
"$PERFSNAPD" --config "$WORK/rt.conf" --check-config >"$WORK/rt.out" 2>&1 || rc=$?
[ "$rc" = 78 ] || { cat "$WORK/rt.out" >&2; fail "backend = tracefs with clock = realtime exited $rc, not 78"; }
grep -qE "rt.conf:[0-9]+: .*\[capture\] backend: 'tracefs' cannot stamp events with clock = realtime" "$WORK/rt.out" ||
	{ cat "$WORK/rt.out" >&2; fail "no message at the backend line"; }
note "tracefs backend: $MARKS marks in perf.data, trace.dat and Perfetto; instances cleaned"
