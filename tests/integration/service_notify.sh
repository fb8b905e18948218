#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# sd_notify protocol, with the test standing in for systemd: READY=1 only
# once recording (events made right after READY are in the next snapshot),
# STATUS= updated after a dump, WATCHDOG=1 at least every WatchdogSec/2,
# STOPPING=1 at exit.
source "$(dirname "$0")/lib.sh"
require_env

sock="$WORK/notify.sock"
start_prog "$WORK/notify.out" "$PROGS/notify_listener" "$sock"
wait_for_line "$WORK/notify.out" '^listening'
# Rings a busy machine does not wrap between the marks and the dump, which
# the marker itself triggers right after its last mark.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 16M
NOTIFY_SOCKET="$sock" WATCHDOG_USEC=1000000 "$PERFSNAPD" --config "$WORK/p.conf" \
	>"$WORK/daemon.log" 2>&1 &
DAEMON_PID=$!
wait_for_line "$WORK/notify.out" 'READY=1'
grep -q 'perfsnapd: recording' "$WORK/daemon.log" || fail "READY=1 before the recording log line"
# Whatever runs right after READY=1 is recorded.
before=$(snapshot_count)
"$PROGS/marker" psnap_ready 10 exit 0 "$DAEMON_PID" >/dev/null
file=$(wait_snapshot "$before")
perf_script_clean "$file" "$WORK/script.txt"
[ "$(grep -c '^ *psnap_ready .*NR 4660 ' "$WORK/script.txt")" = 10 ] ||
	fail "events made right after READY=1 are missing"
for _ in $(seq 1 100); do
	grep -q "STATUS=.*last $file" "$WORK/notify.out" && break
	sleep 0.05
done
grep -q "STATUS=.*last $file" "$WORK/notify.out" || { cat "$WORK/notify.out"; fail "no STATUS= naming the snapshot"; }
# Five pings after the dump (2 s of them) for the check below to look at.
pinged_after_dump() {
	[ "$(sed -n "\|STATUS=.*last $file|,\$p" "$WORK/notify.out" | grep -c 'WATCHDOG=1')" -ge 5 ]
}
wait_until 10 pinged_after_dump || fail "not five WATCHDOG=1 in 10 s after the dump"
# Watchdog: WatchdogSec=1s, so pings at least every 500 ms (with 150 ms slack).
gawk '/WATCHDOG=1/ { if (last && $1 - last > 650000) { print "gap " ($1 - last) " us"; bad = 1 } last = $1; n++ }
	END { if (n < 5) { print "only " n " pings"; bad = 1 } exit bad }' "$WORK/notify.out" ||
	fail "WATCHDOG=1 not sent every WatchdogSec/2"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID"
DAEMON_PID=
wait_for_line "$WORK/notify.out" 'STOPPING=1'
echo "PASS: READY after recording, STATUS after dump, $(grep -c WATCHDOG=1 "$WORK/notify.out") watchdog pings, STOPPING"
