#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 100 SIGUSR2 as fast as they can be sent: perfsnapd stays up, triggers
# coalesce, and every snapshot file on disk is complete.
source "$(dirname "$0")/lib.sh"
require_env

# Rings big enough, and full, that a dump takes tens of milliseconds.
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 8M
start_daemon "$WORK/p.conf"
start_prog /dev/null "$PROGS/marker" psnap_load 100000000 exit 0
wait_idle() { # until no dump runs and none was written for half a second
	local prev=-1 n
	for _ in $(seq 1 240); do
		n=$(snapshot_count)
		[ "$n" = "$prev" ] && "$PERFSNAPCTL" --socket "$WORK/control.sock" status |
			grep -q '^state: recording' && return 0
		prev=$n
		sleep 0.5
	done
	fail "perfsnapd never went idle"
}
for _ in $(seq 1 100); do kill -USR2 "$DAEMON_PID"; done
wait_idle
burst=$(snapshot_count)
# Then triggers that land while dumps run: they must coalesce.
for _ in $(seq 1 30); do kill -USR2 "$DAEMON_PID"; sleep 0.005; done
wait_idle
spaced=$(( $(snapshot_count) - burst ))
note "100 back-to-back signals -> $burst snapshots; 30 spaced ones -> $spaced"
[ "$spaced" -ge 2 ] && [ "$spaced" -lt 30 ] || fail "$spaced snapshots for 30 spaced signals"
grep -q 'during a dump: it will follow' "$WORK/daemon.log" || fail "no trigger coalesced"

kill -0 "$DAEMON_PID" || fail "perfsnapd died"
grep -q 'snapshot failed' "$WORK/daemon.log" && fail "a dump failed: $(grep 'snapshot failed' "$WORK/daemon.log")"
files=$(ls "$WORK/out"/*.perf.data | wc -l)
[ "$files" = "$(snapshot_count)" ] || fail "$files files but $(snapshot_count) snapshots logged"
ls -a "$WORK/out" | grep -q '\.tmp' && fail "temporary file left behind"
for f in "$WORK/out"/*.perf.data; do
	perf_script_complete "$f"
done
# Still recording: one more dump works.
file=$(dump_and_wait)
perf_script_complete "$file"
echo "PASS: 100 signals -> $files complete snapshots, daemon alive"
