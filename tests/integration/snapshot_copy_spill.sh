#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The copy budget: with copy_memory smaller than the rings, the rings are
# copied in rounds that fit it, every round but the last spilled to the
# unlinked file; the snapshot is complete (the marker's newest events are
# in it, perf reads it clean) and the sidecar and status say how it went.
# With the default budget everything stays in memory, nothing spilled.
source "$(dirname "$0")/lib.sh"
require_env
# About perf's rings: their copy in rounds and its spill file: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
[ "$(nproc)" -ge 2 ] || prereq_missing "two CPUs (two rings)"
command -v chrt >/dev/null || prereq_missing "chrt (util-linux)"
N=200

json_num() { sed -n "s/.*\"$2\": \\([0-9]*\\).*/\\1/p" "$1"; }

check_snapshot() { # LABEL
	local file json
	before=$(snapshot_count)
	# The marker sends the SIGUSR2 itself after its last mark, then spins
	# without system calls, pinned at a real-time priority: a busy
	# machine's events (the dd here, other tests') cannot overwrite its
	# marks in CPU 0's ring before the dump pauses it.
	start_prog "$WORK/marker.out" chrt -f 10 taskset -c 0 \
		"$PROGS/marker" psnap_spill "$N" quiet 0 "$DAEMON_PID"
	wait_for_line "$WORK/marker.out" '^done'
	file=$(wait_snapshot "$before")
	kill "$LAST_PID"
	perf_script_clean "$file" "$WORK/script.txt"
	got=$(grep -c '^ *psnap_spill .*NR 4660 ' "$WORK/script.txt")
	[ "$got" = "$N" ] || fail "$1: $got of $N marked events in the snapshot"
	json=${file%.perf.data}.json
	rounds=$(json_num "$json" copy_rounds)
	spilled=$(json_num "$json" copy_spilled_bytes)
	inmem=$(json_num "$json" copy_memory_bytes)
	note "$1: $rounds rounds, $spilled bytes spilled, $inmem in memory"
}

# One ring's worth of budget: one ring per round.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 4M "copy_memory = 4M"
start_daemon "$WORK/p.conf"
grep -q 'ring copies in up to 4096 KiB' "$WORK/daemon.log" || fail "budget not in the start line"
start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=2000000000
# 100,000 reads and writes: some 10 MiB of records, more than the budget.
wait_work io 100000 "$LAST_PID"
check_snapshot "copy_memory = 4M"
[ "$rounds" = "$(nproc)" ] || fail "$rounds rounds for $(nproc) rings of 4M in 4M"
[ "$spilled" -gt 0 ] || fail "nothing spilled beyond the budget"
[ "$inmem" -gt 0 ] && [ "$inmem" -le $((4 << 20)) ] || fail "$inmem bytes in memory, budget 4M"
"$CTL" --socket "$WORK/control.sock" status | grep -q "^last copy: .* KiB spilled, $rounds rounds" ||
	fail "status does not show the spill"
stop_daemon_clean() {
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
	DAEMON_PID=
}
stop_daemon_clean

# The default (auto): every ring in memory, one round.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 4M
start_daemon "$WORK/p.conf"
check_snapshot "copy_memory = auto"
[ "$rounds" = 1 ] && [ "$spilled" = 0 ] || fail "auto: $rounds rounds, $spilled bytes spilled"
echo "PASS: rings beyond copy_memory spilled in rounds, complete snapshots; auto keeps them in memory"
