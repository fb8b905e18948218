#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Compact ring records: a raw_syscalls:sys_enter sample takes 104 bytes in
# the ring (header, id, IP, time, raw payload: no TID, CPU or PERIOD), and
# what the ring leaves out comes back at the dump. A second thread of a
# process (pid != tid), pinned to the last CPU, makes marked system calls
# under perfsnapd's default events: perf script, trace-cmd report and
# Perfetto's trace processor each show every mark with that CPU, tid and
# comm (and perf and Perfetto with that pid); perf.data's attrs describe
# its records (perf script, report and sched print no warning).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v jq >/dev/null || prereq_missing "jq"
find_trace_processor
MARKS=400
CPU=$(($(nproc) - 1))
# The shipped events, and every system call: the marks are calls of a
# number of their own, which only raw_syscalls records.
DEFAULT_EVENTS="$(shipped_events) raw_syscalls:sys_enter raw_syscalls:sys_exit"

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/d.conf" "$DEFAULT_EVENTS" 4M \
	"compression = none"
start_daemon "$WORK/d.conf"
before=$(snapshot_count)
taskset -c "$CPU" "$PROGS/thread_marker" psnap_thread "$MARKS" "$DAEMON_PID" >"$WORK/marker.out" ||
	fail "thread_marker failed"
read -r _ pid _ tid <"$WORK/marker.out"
[ "$pid" != "$tid" ] || fail "thread_marker's thread is its leader"
file=$(wait_snapshot "$before")
stem=${file%.perf.data}
note "pid $pid tid $tid cpu $CPU: $stem"

# perf.data: every mark with its comm, pid, tid and CPU.
perf script -F trace:comm,pid,tid,cpu,event,trace -i "$file" >"$WORK/script.txt" 2>"$WORK/script.err" ||
	{ cat "$WORK/script.err" >&2; fail "perf script"; }
no_stderr "perf script" "$WORK/script.err"
# Other tests make marks too (the suite runs two at a time): this process's.
grep -E " $pid/$tid .*sys_enter: NR 4660 " "$WORK/script.txt" >"$WORK/marks.perf" || true
n=$(wc -l <"$WORK/marks.perf")
[ "$n" = "$MARKS" ] || fail "perf script shows $n marks of $pid/$tid, not $MARKS"
good=$(grep -cE "^ *psnap_thread +$pid/$tid +\[0*$CPU\] " "$WORK/marks.perf" || true)
[ "$good" = "$MARKS" ] || { head -3 "$WORK/marks.perf" >&2; fail "perf script: $good of $MARKS marks name psnap_thread $pid/$tid on CPU $CPU"; }
# timehist says "Samples do not have callchains" unless told not to show them.
for cmd in "report --stdio" "sched latency" "sched timehist --no-call-graph"; do
	# shellcheck disable=SC2086
	perf $cmd -i "$file" >"$WORK/out.txt" 2>"$WORK/err.txt" || { cat "$WORK/err.txt" >&2; fail "perf $cmd"; }
	no_stderr "perf $cmd" "$WORK/err.txt"
done
grep -qE "psnap_thread\[$tid(/$pid)?\]|psnap_thread:$tid" "$WORK/out.txt" ||
	fail "perf sched timehist does not name psnap_thread $tid"

# trace.dat: the same marks, by comm-tid and CPU.
trace-cmd report -N -t "$stem.trace.dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
	{ cat "$WORK/report.err" >&2; fail "trace-cmd report"; }
no_stderr "trace-cmd report" "$WORK/report.err"
good=$(grep -E "sys_enter: +NR 4660 " "$WORK/report.txt" |
	grep -cE "^ *psnap_thread-$tid +\[0*$CPU\] " || true)
[ "$good" = "$MARKS" ] || fail "trace-cmd report: $good of $MARKS marks name psnap_thread-$tid on CPU $CPU"
bash "$SOURCE_DIR/tests/integration/compare_script_report.sh" \
	<(perf script --ns --show-task-events -i "$file" 2>/dev/null) "$WORK/report.txt" ||
	fail "trace.dat differs from perf.data"

# .pftrace: the same marks, on that CPU, by a thread of that process and name.
good=$(tp_query "$stem.pftrace" "select count(*) from ftrace_event e
	join thread t using (utid) left join process p using (upid)
	where e.name = 'sys_enter' and e.cpu = $CPU and t.tid = $tid and p.pid = $pid
	and t.name = 'psnap_thread' and extract_arg(e.arg_set_id, 'id') = 4660")
[ "$good" = "$MARKS" ] || fail "Perfetto: $good of $MARKS marks on CPU $CPU by psnap_thread $pid/$tid"
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=

# The ring's own record size: a perf ring of sys_enter alone, as the sidecar counts it.
rm -f "$WORK/out"/*
PERFSNAP_BACKEND=perf write_config "$WORK/s.conf" "raw_syscalls:sys_enter" 64K
start_daemon "$WORK/s.conf"
"$PROGS/marker" psnap_load 20000 exit 0 >/dev/null
file=$(dump_and_wait)
json=${file%.perf.data}.json
read -r records bytes < <(jq -r '[.rings[] | select(.kind == "overwrite") | .records, .bytes] |
	[([.[range(0; length; 2)]] | add), ([.[range(1; length; 2)]] | add)] | @tsv' "$json")
[ "${records:-0}" -gt 0 ] || { cat "$json" >&2; fail "no ring records in the sidecar"; }
[ "$bytes" = "$((records * 104))" ] ||
	fail "sys_enter ring records take $bytes bytes for $records records, not 104 each"
perf script -i "$file" >"$WORK/script2.txt" 2>"$WORK/script2.err" || fail "perf script"
no_stderr "perf script" "$WORK/script2.err"
echo "PASS: $MARKS marks right in perf.data, trace.dat and .pftrace; $records sys_enter ring records of 104 bytes"
