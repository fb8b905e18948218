#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The pause-copy-resume section asks for SCHED_FIFO. Where that is refused
# (RLIMIT_RTPRIO 0 and no CAP_SYS_NICE: prlimit and setpriv, as a service
# without the permission would be), one clear log line says so, once, and
# dumps go on at normal priority, complete, a reload that reopens the
# rings included. Where it is permitted the
# sidecar says the section ran at SCHED_FIFO.
source "$(dirname "$0")/lib.sh"
require_env
# About perf's rings: their copiers' scheduling: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
command -v prlimit >/dev/null || prereq_missing "prlimit (util-linux)"
command -v setpriv >/dev/null || prereq_missing "setpriv (util-linux)"
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
REAL_PERFSNAPD=$PERFSNAPD

last_json() { ls -t "$WORK"/out/*.json | head -n 1; }

# Refused.
cat >"$WORK/no-rt" <<WRAP
#!/bin/sh
exec prlimit --rtprio=0:0 setpriv --bounding-set=-sys_nice --inh-caps=-sys_nice "$REAL_PERFSNAPD" "\$@"
WRAP
chmod +x "$WORK/no-rt"
PERFSNAPD="$WORK/no-rt"
write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 4M
start_daemon "$WORK/p.conf"
# CAP_SYS_NICE is capability 23; RLIMIT_RTPRIO must read 0.
capeff=$(sed -n 's/^CapEff:\t*//p' "/proc/$DAEMON_PID/status")
(((0x$capeff >> 23) & 1)) && fail "test setup: CAP_SYS_NICE still effective ($capeff)"
grep -q '^Max realtime priority *0 *0 ' "/proc/$DAEMON_PID/limits" || fail "test setup: RLIMIT_RTPRIO not 0"
start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=2000000000
for _ in 1 2 3; do
	file=$(dump_and_wait)
	perf_script_complete "$file"
	grep -q '"copy_realtime": false' "$(last_json)" || fail "sidecar does not say normal priority"
done
# A reload that reopens the rings (another size) makes a new dumper: still one line.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 2M
kill -HUP "$DAEMON_PID"
wait_for_line "$WORK/daemon.log" "reloaded '$WORK/p.conf': event set or ring sizes changed"
file=$(dump_and_wait)
perf_script_complete "$file"
n=$(grep -c 'cannot run at real-time priority (SCHED_FIFO: Operation not permitted)' "$WORK/daemon.log")
[ "$n" = 1 ] || fail "$n log lines about the refused SCHED_FIFO, want exactly 1"
"$CTL" --socket "$WORK/control.sock" status | grep -q '^last copy: .*normal priority (SCHED_FIFO refused)' ||
	fail "status does not say the copy ran at normal priority"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM without SCHED_FIFO"
DAEMON_PID=

# Permitted (root with CAP_SYS_NICE): no such line, the sidecar says SCHED_FIFO.
PERFSNAPD=$REAL_PERFSNAPD
start_daemon "$WORK/p.conf"
file=$(dump_and_wait)
perf_script_complete "$file"
if grep -q 'cannot run at real-time priority' "$WORK/daemon.log"; then
	prereq_missing "SCHED_FIFO for root on this machine ($(grep 'real-time' "$WORK/daemon.log"))"
fi
grep -q '"copy_realtime": true' "$(last_json)" || fail "sidecar does not say SCHED_FIFO"
echo "PASS: SCHED_FIFO refused -> one log line, complete dumps at normal priority; permitted -> used"
