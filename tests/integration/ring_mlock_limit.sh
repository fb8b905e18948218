#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Without CAP_IPC_LOCK (a container runtime or a unit that drops it) and
# with a small RLIMIT_MEMLOCK, the configured rings do not fit in the
# memory the kernel lets perfsnapd lock. perfsnapd halves them until they
# do, says so once (sizes and fix), and records: status and the recording
# line give the real size, and a snapshot reads back; a reload that needs
# new rings gets the same size. When not even the
# smallest rings fit, it exits 69 with one error naming the fix.
source "$(dirname "$0")/lib.sh"
require_env
# About perf's rings: their locked memory: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v capsh >/dev/null || prereq_missing "capsh (libcap2-bin)"
[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -ge 0 ] ||
	prereq_missing "perf_event_paranoid >= 0 (at -1 the kernel locks any ring)"

# PERFSNAPD without CAP_IPC_LOCK, locking at most $MEMLOCK_KB KiB itself.
real=$PERFSNAPD
cat >"$WORK/limited" <<WRAP
#!/bin/sh
exec capsh --drop=cap_ipc_lock -- -c 'ulimit -l \$MEMLOCK_KB && exec "\$0" "\$@"' "$real" "\$@"
WRAP
chmod +x "$WORK/limited"
PERFSNAPD=$WORK/limited

write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 16M
MEMLOCK_KB=8192 start_daemon "$WORK/p.conf"
capsh --decode="$(sed -n 's/^CapEff:\t//p' "/proc/$DAEMON_PID/status")" | grep -q cap_ipc_lock &&
	fail "perfsnapd still has CAP_IPC_LOCK"
n=$(grep -c 'locked memory: overwrite rings cut from 16384 to [0-9]* KiB each' "$WORK/daemon.log" || true)
[ "$n" = 1 ] || { cat "$WORK/daemon.log"; fail "the cut is not said once ($n)"; }
kib=$(sed -n 's/.*rings cut from 16384 to \([0-9]*\) KiB each.*/\1/p' "$WORK/daemon.log")
note "rings cut to $kib KiB"
[ "$kib" -lt 16384 ] || fail "not cut: $kib KiB"
grep -q "overwrite rings of $kib KiB" "$WORK/daemon.log" || fail "the recording line gives another size"
"$CTL" --socket "$WORK/control.sock" status | grep -q "^buffer: $kib KiB per CPU" ||
	fail "status gives another size"
grep -q 'cannot map the rings' "$WORK/daemon.log" && fail "a refusal that was retried was logged"
file=$(dump_and_wait)
perf_script_complete "$file"

# A reload with new events: beside the old rings the new ones do not fit,
# so the old ones close first and the new ones get the same size (cut
# beside the old ones, they would stay smaller after the old ones went).
write_config "$WORK/p.conf" "sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter" 16M
"$CTL" --socket "$WORK/control.sock" reload >"$WORK/reload.out" 2>&1 ||
	{ cat "$WORK/reload.out" "$WORK/daemon.log"; fail "reload refused"; }
grep -q 'cannot be opened beside the old ones .*closing the old ones first' "$WORK/daemon.log" ||
	fail "the reload did not close the old rings first"
"$CTL" --socket "$WORK/control.sock" status | grep -q "^buffer: $kib KiB per CPU" ||
	fail "after the reload: $("$CTL" --socket "$WORK/control.sock" status | grep '^buffer')"
file=$(dump_and_wait)
perf_script_complete "$file"
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd did not stop cleanly"
DAEMON_PID=

# Nothing fits: one error that names the fix, exit 69 (EX_UNAVAILABLE).
rc=0
MEMLOCK_KB=0 "$PERFSNAPD" --config "$WORK/p.conf" >"$WORK/none.log" 2>&1 || rc=$?
[ "$rc" = 69 ] || { cat "$WORK/none.log"; fail "exit $rc, want 69, when no ring fits"; }
[ "$(grep -c 'cannot map the rings: .*CAP_IPC_LOCK' "$WORK/none.log")" = 1 ] ||
	{ cat "$WORK/none.log"; fail "not one error naming the fix"; }
echo "PASS: without CAP_IPC_LOCK the rings are cut to $kib KiB, said once, and record; none fit: exit 69"
