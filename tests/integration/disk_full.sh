#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Output directory on a tiny tmpfs: the dump fails with a clear log line,
# no partial file remains, recording continues, and once space is freed the
# next dump succeeds.
source "$(dirname "$0")/lib.sh"
require_env

mkdir -p "$WORK/out"
mount -t tmpfs -o size=256k,mode=0755 tmpfs "$WORK/out" || prereq_missing "mounting a tmpfs"
CLEANUP_HOOK='umount "$WORK/out" 2>/dev/null'
# Uncompressed: 8 MiB of rings cannot fit 256 KiB.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 4M "compression = none"
start_daemon "$WORK/p.conf"
start_prog /dev/null "$PROGS/marker" psnap_load 3000000 exit 0
# A tenth of a second of its CPU: a ring's 4 MiB of its calls, or all of them.
wait_work cpu 10 "$LAST_PID"
before=$(grep -c 'snapshot .* failed' "$WORK/daemon.log")
kill -USR2 "$DAEMON_PID"
for _ in $(seq 1 200); do
	[ "$(grep -c 'snapshot .* failed' "$WORK/daemon.log")" -gt "$before" ] && break
	sleep 0.05
done
grep 'failed' "$WORK/daemon.log" | grep -q 'No space left on device' ||
	{ cat "$WORK/daemon.log"; fail "no clear disk-full log line"; }
# The line names what could not be written: a file, or the spill file's directory.
grep 'failed' "$WORK/daemon.log" | grep -q "failed at .*'$WORK/out[/']" ||
	{ cat "$WORK/daemon.log"; fail "the disk-full log line names no file"; }
note "$(grep 'failed at' "$WORK/daemon.log")"

kill -0 "$DAEMON_PID" || fail "perfsnapd died"
left=$(ls -A "$WORK/out")
[ -z "$left" ] || fail "files left after a failed dump: $left"
# Free space: a bigger tmpfs in its place.
mount -o remount,size=64m "$WORK/out" || fail "remount"
before=$(snapshot_count)
"$PROGS/marker" psnap_after 10 exit 0 "$DAEMON_PID" >/dev/null # it signals the dump: no wrap between
file=$(wait_snapshot "$before")
# The failed dump's pause shows as the kernel's LOST record: perf's warning is true.
perf_script_complete "$file"
perf script -i "$file" >"$WORK/script.txt" 2>/dev/null
[ "$(grep -c '^ *psnap_after .*NR 4660 ' "$WORK/script.txt")" = 10 ] || fail "not recording after the failure"
echo "PASS: disk full handled, next dump fine"
