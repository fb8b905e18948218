#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# In a PID namespace of its own (a container without the host's PIDs) the
# kernel records every task outside it as pid 0, which perf shows as
# 'swapper': perfsnapd says so at start, with the fix. In the host's
# namespace it says nothing of the kind.
source "$(dirname "$0")/lib.sh"
require_env
command -v unshare >/dev/null || prereq_missing "unshare (util-linux)"
warning='runs in a PID namespace of its own'

write_config "$WORK/p.conf" "sched:sched_switch" 1M
start_daemon "$WORK/p.conf"
grep -q "$warning" "$WORK/daemon.log" && fail "a warning in the host's PID namespace"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd exited $? on SIGTERM"
DAEMON_PID=

rm -f "$WORK/daemon.log"
unshare --pid --fork --mount-proc "$PERFSNAPD" --config "$WORK/p.conf" >"$WORK/daemon.log" 2>&1 &
ns_pid=$!
CHILD_PIDS+=("$ns_pid")
wait_for_line "$WORK/daemon.log" 'perfsnapd: recording'
grep "$warning" "$WORK/daemon.log" | grep -q 'hostPID: true' ||
	{ cat "$WORK/daemon.log"; fail "no warning in a PID namespace of its own"; }
daemon=$(pgrep -P "$ns_pid" -x perfsnapd) || fail "no perfsnapd under unshare"
kill -TERM "$daemon"
wait "$ns_pid" || fail "perfsnapd in its own PID namespace exited $? on SIGTERM"
echo "PASS: a PID namespace of its own is reported at start"
