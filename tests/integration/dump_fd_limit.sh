#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A dump that gets no file descriptor (the daemon's RLIMIT_NOFILE taken by
# held control connections) fails, names the step that failed (it used to
# blame "the spill file" for any failure of the copy stage), keeps no
# file, and recording goes on: once the connections are gone, the next
# dump is whole.
source "$(dirname "$0")/lib.sh"
require_env
# About perf's rings: their copy's memory files: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
command -v prlimit >/dev/null || prereq_missing "prlimit (util-linux)"

write_config "$WORK/p.conf" "sched:sched_switch" 1M
start_daemon "$WORK/p.conf"
# Room for 8 connections above the daemon's lowest free descriptor, then
# none (a descriptor it holds above that stays valid).
free=0
while [ -e "/proc/$DAEMON_PID/fd/$free" ]; do free=$((free + 1)); done
soft=$(prlimit --pid "$DAEMON_PID" --nofile --output SOFT --noheadings | tr -d ' ')
prlimit --pid "$DAEMON_PID" --nofile=$((free + 8)): || fail "prlimit"
mkfifo "$WORK/hold.in"
"$PROGS/hold_connections" 32 "$WORK/control.sock" <"$WORK/hold.in" >"$WORK/hold.out" 2>&1 &
CHILD_PIDS+=($!)
exec 9>"$WORK/hold.in" # keeps the holder's stdin open
wait_for_line "$WORK/hold.out" '^ready'
grep -q 'Too many open files' "$WORK/daemon.log" ||
	{ cat "$WORK/hold.out"; fail "the held connections did not take every descriptor"; }

kill -USR2 "$DAEMON_PID"
for _ in $(seq 1 200); do
	grep -q 'snapshot .* failed at ' "$WORK/daemon.log" && break
	sleep 0.05
done
line=$(grep 'snapshot .* failed at ' "$WORK/daemon.log") || { cat "$WORK/daemon.log"; fail "no failure logged"; }
note "$line"
case "$line" in
*"failed at a memory file for a ring's copy: "*"Too many open files") ;;
*) fail "the failure does not name the step that failed" ;;
esac
[ -z "$(ls -A "$WORK/out")" ] || fail "a failed dump left files: $(ls -A "$WORK/out")"

exec 9>&- # the holder closes its connections
prlimit --pid "$DAEMON_PID" --nofile="$soft": || fail "prlimit"
kill -0 "$DAEMON_PID" || fail "perfsnapd died"
file=$(dump_and_wait)
perf_script_clean "$file" /dev/null
echo "PASS: a dump without descriptors says where it failed; the next one is whole"
