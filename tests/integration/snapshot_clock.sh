#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [capture] clock = monotonic: samples are stamped with CLOCK_MONOTONIC
# (they fall inside the marker's own clock_gettime() brackets), trace.dat
# says "mono" and holds the same timestamps as perf.data.
source "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"

# Rings that a busy machine's system calls do not wrap in the moment
# between the marks and the dump, which the marker triggers itself.
FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 16M "" \
	"clock = monotonic"
start_daemon "$WORK/p.conf"
before=$(snapshot_count)
"$PROGS/marker" psnap_clock 100 exit 0 "$DAEMON_PID" >"$WORK/m.out"
read -r _ t0 t1 < <(grep '^mono ' "$WORK/m.out")
file=$(wait_snapshot "$before")
perf_script_clean "$file" /dev/null
perf script --ns -i "$file" 2>/dev/null | grep '^ *psnap_clock .*NR 4660 ' >"$WORK/marks.txt"
[ "$(wc -l <"$WORK/marks.txt")" = 100 ] || fail "want 100 marks"
gawk -v t0="$t0" -v t1="$t1" '{
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); break }
	sub(":", "", t); split(t, p, "."); ns = p[1] * 1000000000 + p[2]
	if (ns < t0 || ns > t1) { print "mark at " ns " outside [" t0 ", " t1 "]"; exit 1 }
}' "$WORK/marks.txt" || fail "sample times are not CLOCK_MONOTONIC"
tdat=${file%.perf.data}.trace.dat
trace-cmd dump --options "$tdat" >"$WORK/options.txt" 2>&1 || fail "trace-cmd dump --options"
grep -q '\[mono\]' "$WORK/options.txt" || { cat "$WORK/options.txt"; fail "trace clock is not mono"; }
trace-cmd report -N -t "$tdat" 2>/dev/null | grep 'psnap_clock-.*NR 4660 ' >"$WORK/tmarks.txt"
gawk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t } }' \
	"$WORK/tmarks.txt" >"$WORK/t1"
gawk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t } }' \
	"$WORK/marks.txt" >"$WORK/t2"
cmp -s "$WORK/t1" "$WORK/t2" || fail "trace.dat and perf.data times differ"
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=

# realtime is far from the boot-based clocks: a daemon that ignored the key
# would fail here even if monotonic happened to be close to perf's clock.
# The kernel refuses it for tracepoints (the config says so, exit 78), so a
# software event samples the marker.
# perf's: a tracefs backend is refused with realtime at its own line.
PERFSNAP_BACKEND=perf write_config "$WORK/bad.conf" "raw_syscalls:sys_enter" 1M "" "clock = realtime"
"$PERFSNAPD" --config "$WORK/bad.conf" --check-config >/dev/null 2>"$WORK/bad.err"
[ $? = 78 ] || fail "clock = realtime with a tracepoint accepted"
grep -q "bad.conf:[0-9]*: \[capture\] clock: 'realtime' cannot stamp tracepoints" "$WORK/bad.err" ||
	{ cat "$WORK/bad.err"; fail "no clear realtime error"; }
rm -f "$WORK/out"/*
PERFSNAP_BACKEND=perf write_config "$WORK/r.conf" "task-clock/freq=20000/" 16M "" "clock = realtime"
start_daemon "$WORK/r.conf"
before=$(snapshot_count)
"$PROGS/marker" psnap_clock 3000000 exit 0 "$DAEMON_PID" >"$WORK/m.out"
read -r _ r0 r1 < <(grep '^real ' "$WORK/m.out")
file=$(wait_snapshot "$before")
perf_script_clean "$file" /dev/null
perf script --ns -F comm,time -i "$file" 2>/dev/null | grep '^ *psnap_clock ' >"$WORK/rmarks.txt"
[ "$(wc -l <"$WORK/rmarks.txt")" -gt 10 ] || fail "too few task-clock samples of the marker (realtime)"
# Samples of the marker's syscall loop, between its realtime brackets.
gawk -v t0="$r0" -v t1="$r1" 'BEGIN { n = 0 } {
	t = $NF; sub(":", "", t); split(t, p, "."); ns = p[1] * 1000000000 + p[2]
	if (ns >= t0 && ns <= t1) n++
} END { if (n < 10) { print n " samples inside [" t0 ", " t1 "]"; exit 1 } }' "$WORK/rmarks.txt" ||
	fail "task-clock sample times are not CLOCK_REALTIME"
echo "PASS: marks inside CLOCK_MONOTONIC brackets and samples inside CLOCK_REALTIME ones; trace.dat clock mono, same times"
