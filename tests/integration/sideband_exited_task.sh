#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A task that ran longer than the rings' window and exited before the dump
# is still named, with its user functions, in perf.data (and in trace.dat):
# only the side-band can know it, /proc no longer does. The rings are big
# enough that a busy machine's load on every CPU cannot overwrite the
# task's newest events between its exit and the dump (dump_after sends the
# signal as it reaps the task), and the names are checked only where they
# are defined: its events after its exec (before it, the forked child
# rightly carries its parent's name).
source "$(dirname "$0")/lib.sh"
require_env

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" \
	"raw_syscalls:sys_enter/call-graph=fp/ sched:sched_switch" 32M
start_daemon "$WORK/p.conf"
before=$(snapshot_count)
"$PROGS/dump_after" "$DAEMON_PID" "$PROGS/shortlived_xyz" 4 >"$WORK/sl.out" ||
	fail "shortlived_xyz failed"
slpid=$(awk '{print $2}' "$WORK/sl.out")
made=$(awk '{print $3}' "$WORK/sl.out")
[ -d "/proc/$slpid" ] && fail "shortlived_xyz still running"
file=$(wait_snapshot "$before")
note "snapshot $file; shortlived_xyz (pid $slpid) made $made marked calls"
perf_script_clean "$file" "$WORK/script.txt"

gawk -v pid="$slpid" '$2 == pid' "$WORK/script.txt" >"$WORK/mine.txt"
n=$(wc -l <"$WORK/mine.txt")
[ "$n" -gt 0 ] || fail "no events of pid $slpid in the snapshot"
# The ring had wrapped: the process's start (its exec) is long gone from it.
[ "$(grep -c 'NR 4660' "$WORK/mine.txt")" -lt "$made" ] ||
	fail "the ring held all $made marked calls: it was not overwritten, the test proves nothing"
# From its exec on: the COMM record with the exec flag if the rings still
# hold it, else its execve call; its own marked calls come after it anyway.
# The exec is the instant of the COMM record with the exec flag. Only if
# that is not in the file, the first event of the pid under its new name:
# the execve syscall's entry is too early a bound, as the task still runs
# under the old name until the exec replaces it (a switch away in
# sched_exec's migration, say, is rightly "bash").
perf script --show-task-events -i "$file" 2>/dev/null | gawk -v pid="$slpid" '
	/PERF_RECORD_COMM exec: / && index($0, ":" pid "/" pid) { print $4; found = 1; exit }
	$2 == pid && $1 == "shortlived_xyz" && first == "" { first = $4 }
	END { if (!found && first != "") print first }' | tr -d : >"$WORK/exec_time"
exec_t=$(cat "$WORK/exec_time")
note "exec of pid $slpid at ${exec_t:-(not in the rings)}"
# Without either, only the marked calls are surely after the exec: the
# exec's CPU may have wrapped while another still holds older events.
bad=$(gawk -v t="${exec_t:-}" '$1 != "shortlived_xyz" && (/ NR 4660 / || (t != "" && $4 + 0 > t + 0))' \
	"$WORK/mine.txt" | head -3)
[ -z "$bad" ] || fail "events of pid $slpid after its exec not named shortlived_xyz: $bad"

perf report -i "$file" --stdio --no-children --sort comm,sym \
	>"$WORK/report.txt" 2>"$WORK/report.err" || { cat "$WORK/report.err"; fail "perf report"; }
for fn in psl_inner psl_middle psl_outer; do
	grep -q "$fn" "$WORK/report.txt" || fail "perf report does not name $fn"
done

tdat=${file%.perf.data}.trace.dat
trace-cmd report "$tdat" >"$WORK/report.dat.txt" 2>"$WORK/tc.err" || fail "trace-cmd report"
[ -s "$WORK/tc.err" ] && { cat "$WORK/tc.err"; fail "trace-cmd report printed on stderr"; }
grep -q "shortlived_xyz-$slpid " "$WORK/report.dat.txt" ||
	fail "trace-cmd report does not name pid $slpid shortlived_xyz"
echo "PASS: $n events of the exited shortlived_xyz named, functions resolved"
