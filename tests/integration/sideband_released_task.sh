#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A thread whose only event of its own is its final switch is named in
# trace.dat and perf.data. The kernel releases such a thread before that
# switch, so a full sample would carry pid and tid -1 and only the
# tracepoint's common_pid says whose it is; the snapshot must still list
# the thread, and the side-band name it, or trace-cmd prints <...> for it. brief_threads runs threads
# that spin without a system call and exit, one after the other, then
# signals the dump.
source "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "sched:sched_switch" 8M
start_daemon "$WORK/p.conf"
before=$(snapshot_count)
"$PROGS/brief_threads" psnap_brief 20 3000 "$DAEMON_PID" >"$WORK/tids" ||
	fail "brief_threads failed"
file=$(wait_snapshot "$before")
stem=${file%.perf.data}
perf_script_clean "$file" "$WORK/script.txt"

# A final switch comes after the thread's release, where the kernel
# writes a sample's pid and tid as -1; a compact record has no such field,
# and the dump takes the tid from common_pid: perf script names it too.
released=$(grep -cE 'sched:sched_switch: prev_comm=psnap_brief .*prev_state=X' \
	"$WORK/script.txt" || true)
[ "$released" -gt 0 ] || fail "no final switch of a psnap_brief thread in $file"
if grep -qE '^ *:-1 +-1 ' "$WORK/script.txt"; then
	grep -m 3 -E '^ *:-1 +-1 ' "$WORK/script.txt" >&2
	fail "perf script shows a task as -1"
fi

trace-cmd report "$stem.trace.dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
	{ cat "$WORK/report.err"; fail "trace-cmd report"; }
grep -v '^ *$' "$WORK/report.err" | grep -q . && { cat "$WORK/report.err"; fail "trace-cmd warned"; }
if grep -q '<\.\.\.>-' "$WORK/report.txt"; then
	grep -m 5 '<\.\.\.>-' "$WORK/report.txt" >&2
	fail "trace-cmd shows <...> for some pid"
fi
# Each thread's final switch (its last one out; trace-cmd decodes the
# state of a dead task by its own table) is filed under its own name.
named=0
for tid in $(awk '$1 == "tid" {print $2}' "$WORK/tids"); do
	line=$(grep -E "sched_switch: +psnap_brief:$tid \[[0-9]+\] " "$WORK/report.txt" | tail -n 1 || true)
	[ -n "$line" ] || fail "no final switch of thread $tid in trace.dat"
	case "$line" in
	*psnap_brief-"$tid"" "*) named=$((named + 1)) ;;
	*) fail "the final switch of thread $tid is not filed under psnap_brief-$tid: $line" ;;
	esac
	grep -qE "^ *psnap_brief +$tid .*sched:sched_switch: prev_comm=psnap_brief prev_pid=$tid " \
		"$WORK/script.txt" || fail "perf script does not file a switch of $tid under psnap_brief $tid"
done
[ "$named" -eq 20 ] || fail "$named of 20 threads named"
echo "PASS: 20 brief threads named in trace.dat and perf.data, $released final switches"
