#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One perfsnapd snapshot, two files: perf.data and trace.dat hold the same
# events one for one (time, cpu, tid, fields), trace-cmd reads trace.dat
# with no warnings, names every pid, and dump --summary shows version 7 and
# the CPU count. Then with compression = zstd (smaller, same events), and
# with events far apart (> 2^27 ns) and large payloads (> 112 bytes).
source "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
COMPARE="$(dirname "$0")/compare_script_report.sh"

# check_pair STEM: perf.data and trace.dat of one snapshot agree.
check_pair() {
	local data=$1.perf.data dat=$1.trace.dat
	perf_script_complete "$data"
	perf script --ns --show-task-events -i "$data" >"$WORK/script.txt" 2>/dev/null
	trace-cmd report -N -t "$dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
		{ cat "$WORK/report.err"; fail "trace-cmd report $dat"; }
	grep -v '^ *$' "$WORK/report.err" | grep -q . && { cat "$WORK/report.err"; fail "trace-cmd warned"; }
	bash "$COMPARE" "$WORK/script.txt" "$WORK/report.txt" || fail "$dat differs from $data"
	# Every task is named: trace-cmd prints <...> for a pid it cannot name.
	if grep -q '<\.\.\.>-' "$WORK/report.txt"; then
		grep -m 5 '<\.\.\.>-' "$WORK/report.txt" >&2
		fail "trace-cmd shows <...> for some pid"
	fi
	trace-cmd dump --summary "$dat" >"$WORK/summary.txt" 2>&1 || fail "trace-cmd dump --summary"
	grep -qE '^[[:space:]]+7[[:space:]]+\[Version\]' "$WORK/summary.txt" || { cat "$WORK/summary.txt"; fail "not version 7"; }
	grep -q " $(nproc) cpus," "$WORK/summary.txt" || { cat "$WORK/summary.txt"; fail "CPU count"; }
}

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" \
	"sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter" 2M "compression = none"
start_daemon "$WORK/p.conf"
"$PROGS/marker" psnap_load 300000 exit 0 >/dev/null  # wraps the rings, then ends: the marker is newest
# The marker signals the dump itself after its last mark: under a syscall
# load on every CPU the 2 MiB rings wrap within milliseconds.
before=$(snapshot_count)
"$PROGS/marker" psnap_marker 500 exit 0 "$DAEMON_PID" >/dev/null
file=$(wait_snapshot "$before")
stem=${file%.perf.data}
check_pair "$stem"
n=$(wc -l <"$WORK/report.txt")
grep -q 'psnap_marker-' "$WORK/report.txt" || fail "trace-cmd does not name psnap_marker"
plain=$(stat -c %s "$stem.trace.dat")
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=
note "uncompressed: $n trace-cmd lines, trace.dat $plain bytes"

# The same with zstd: smaller files, same events.
FORMATS="perf.data trace.dat" write_config "$WORK/z.conf" \
	"sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter" 2M "compression = zstd"
rm -f "$WORK/out"/*
start_daemon "$WORK/z.conf"
"$PROGS/marker" psnap_load 300000 exit 0 >/dev/null  # wraps the rings, then ends: the marker is newest
# The marker signals the dump itself after its last mark: under a syscall
# load on every CPU the 2 MiB rings wrap within milliseconds.
before=$(snapshot_count)
"$PROGS/marker" psnap_marker 500 exit 0 "$DAEMON_PID" >/dev/null
file=$(wait_snapshot "$before")
stem=${file%.perf.data}
check_pair "$stem"
zsize=$(stat -c %s "$stem.trace.dat")
note "zstd: trace.dat $zsize bytes (uncompressed was $plain)"
[ "$zsize" -lt $((plain / 2)) ] || fail "zstd trace.dat ($zsize) not much smaller than $plain"
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=

# Sparse, large events: execs of a long path, 300 ms apart (> 2^27 ns).
long="$WORK/$(printf 'd%.0s' $(seq 1 60))/$(printf 'e%.0s' $(seq 1 60))"
mkdir -p "$long"
cp "$PROGS/marker" "$long/marker_with_a_long_path"
FORMATS="perf.data trace.dat" write_config "$WORK/s.conf" "sched:sched_process_exec" 64K
rm -f "$WORK/out"/*
start_daemon "$WORK/s.conf"
for i in 1 2 3 4; do "$long/marker_with_a_long_path" "psnap_exec$i" 1 exit >/dev/null; sleep 0.3; done
file=$(dump_and_wait)
stem=${file%.perf.data}
check_pair "$stem"
[ "$(grep -c 'sched_process_exec' "$WORK/report.txt")" -ge 4 ] || fail "exec events missing"
echo "PASS: perf.data and trace.dat agree ($n events), zstd $zsize < $plain bytes, sparse/large events exact"
