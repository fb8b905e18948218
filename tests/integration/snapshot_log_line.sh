#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# What an operator reads in the log for each snapshot: one line, short
# (at most 160 characters with a 60-character path), with the path, the
# events, the size and number of files, the dump time, the blind window
# and the reason. The per-ring figures and the stages are at debug level
# (--verbose), the journal's fields and the sidecar.
source "$(dirname "$0")/lib.sh"
require_env

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "sched:sched_switch signal:signal_generate" 1M
start_daemon "$WORK/p.conf"
signal_marks psnap_log 10
file=$(dump_and_wait)
perf_script_complete "$file"
lines=$(grep -cF "$file" "$WORK/daemon.log")
[ "$lines" = 1 ] || { cat "$WORK/daemon.log"; fail "$lines log lines name $file, want 1"; }
line=$(grep -F "$file" "$WORK/daemon.log")
note "$line"
re='^perfsnapd: snapshot (/[^ ]+\.perf\.data): [0-9]+ events, [0-9.]+ (KiB|MiB|GiB) in 3 files, dump [0-9]+ ms, blind [0-9]+\.[0-9] ms, reason signal$'
[[ $line =~ $re ]] || fail "not the expected line: $line"
# Its length with the path counted as 60 characters.
len=$((${#line} - ${#BASH_REMATCH[1]} + 60))
[ "$len" -le 160 ] || fail "the line is $len characters with a 60-character path"
grep -q 'ms after the trigger\|pause per ring' "$WORK/daemon.log" &&
	fail "the stages or the per-ring pauses are logged at the default level"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || true
DAEMON_PID=

# --verbose: the details, one debug line each, by the snapshot's stem.
rm -f "$WORK/daemon.log"
"$PERFSNAPD" --verbose --config "$WORK/p.conf" >>"$WORK/daemon.log" 2>&1 &
DAEMON_PID=$!
wait_for_line "$WORK/daemon.log" 'perfsnapd: recording'
file=$(dump_and_wait)
stem=$(basename "$file" .perf.data)
grep -q "snapshot $stem: blind window [0-9]* us (longest ring pause; [0-9]* us over all rings); rings paused [0-9]* us after the trigger" "$WORK/daemon.log" ||
	fail "--verbose: no line of the ring figures"
grep -q "snapshot $stem: ms after the trigger: paused" "$WORK/daemon.log" ||
	fail "--verbose: no line of the stages"
echo "PASS: one line of $len characters per snapshot; the details with --verbose"
