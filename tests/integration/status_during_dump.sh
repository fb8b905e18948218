#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The event loop never waits for a dump: with 32 MiB rings under a syscall
# load on every CPU, `perfsnapctl status` answers promptly while a dump
# runs and a reload (same rings, then new rings) arrives in the middle of
# it. A reload that needs new rings opens them at once, beside the old
# ones, on which the dump in flight finishes.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
# The loop answers a status in well under a millisecond; generous against a
# loaded 2-CPU machine and sanitizer builds, far below the seconds a loop
# blocked by a dump took.
LIMIT_MS=${STATUS_LIMIT_MS:-250}
# Sanitizer builds run the dump's copy and write several times slower.
ldd "$PERFSNAPD" 2>/dev/null | grep -q 'lib[at]san' && LIMIT_MS=${STATUS_LIMIT_MS:-1000}

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" \
	"sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter raw_syscalls:sys_exit" 32M
start_daemon "$WORK/p.conf"
sock="$WORK/control.sock"
for _ in $(seq 1 "$(nproc)"); do
	start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=2000000000
done
sleep 2 # fill the rings

# measure LABEL: status latency over 2.5 s, with a dump and a reload
# during it. The client polls before the dump starts: a dump takes 0.2-1 s
# here, and the reload keeps the loop busy for a moment (reading the
# configuration, opening new rings), so a client started after the
# signals could get its first answer after the dump.
measure() {
	local nr_dump max_dump nr_all max_all pid
	"$PROGS/ctl_latency" "$sock" 2500 >"$WORK/latency" 2>"$WORK/latency.err" &
	pid=$!
	for _ in $(seq 1 100); do
		grep -q polling "$WORK/latency.err" && break
		sleep 0.05
	done
	grep -q polling "$WORK/latency.err" || fail "$1: ctl_latency got no answer"
	kill -USR2 "$DAEMON_PID"
	sleep 0.05
	kill -HUP "$DAEMON_PID"
	wait "$pid" || fail "$1: ctl_latency failed: $(cat "$WORK/latency.err")"
	read -r nr_dump max_dump nr_all max_all <"$WORK/latency"
	note "$1: $nr_all status answers, slowest $((max_all / 1000)) ms; $nr_dump during the dump, slowest $((max_dump / 1000)) ms"
	[ "$nr_dump" -gt 0 ] || fail "$1: no status answer during the dump"
	[ "$max_dump" -le $((LIMIT_MS * 1000)) ] ||
		fail "$1: status took $((max_dump / 1000)) ms during a dump (limit $LIMIT_MS ms)"
}

# Dump, then a reload that keeps the rings, while it runs.
measure "dump + reload (same rings)"
wait_log_reloaded() {
	for _ in $(seq 1 200); do
		grep -q "$1" "$WORK/daemon.log" && return 0
		sleep 0.05
	done
	fail "no '$1' in the log"
}
wait_log_reloaded 'history kept'

# Dump, then a reload that needs new rings: the loop waits for neither.
sed -i 's|^buffer_size = .*|buffer_size = 16M|' "$WORK/p.conf"
before=$(snapshot_count)
measure "dump + reload (new rings)"
wait_log_reloaded 'rings reopened'
grep -q 'the dump in flight finishes on the old rings' "$WORK/daemon.log" ||
	fail "the reload did not leave the dump in flight to the old rings"
"$CTL" --socket "$sock" status | grep -q '^buffer: 16384 KiB' || fail "new rings not in use"
# The dump that was in flight when the rings were replaced is whole.
old=$(wait_snapshot "$before")
perf_script_complete "$old"
file=$(dump_and_wait)
perf_script_complete "$file"
echo "PASS: status answers within $LIMIT_MS ms during a dump and a reload"
