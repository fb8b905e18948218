#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A binary on a mount that never answers stalls no part of perfsnapd but
# its build-id reader (issue 53). With perfsnapd stopped, a copy of true(1)
# runs from a directory and exits, so /proc/PID/map_files is gone and its
# mapping's build-id must be read at its path; then a FUSE mount whose
# server never answers (/dev/fuse held open, never read) covers that
# directory. Continued, perfsnapd tries the path: the open waits for good,
# on its reader thread. Status still answers at once and says reads wait
# and one is stuck, and a dump is written; once the server goes away the
# read fails and the build-id counts as unknown. Then the same again, and
# perfsnapd is stopped while the read waits: it exits, cleanly.
. "$(dirname "$0")/lib.sh"
require_env
[ -c /dev/fuse ] || prereq_missing "/dev/fuse"

write_config "$WORK/p.conf" "sched:sched_switch" 1M "symbols = build-ids"
start_daemon "$WORK/p.conf"

# hang N: the stopped daemon misses a binary's exit, then its directory
# hangs; sets HOLDER, the process whose /dev/fuse descriptor is the
# connection's only one (killed, as cleanup does first, the connection
# aborts and every waiting open fails). A mapping lost because the
# stopped daemon's side-band ring overflowed, or the reader's queue was
# full (the log says which), is tried again with another binary, twice at
# most.
HANG_TRY=0
hang() {
	local dir
	for _ in 1 2 3; do
		HANG_TRY=$((HANG_TRY + 1))
		dir=$WORK/d$1.$HANG_TRY
		mkdir "$dir"
		cp /bin/true "$dir/psnap_hung_true"
		kill -STOP "$DAEMON_PID"
		"$dir/psnap_hung_true" || { kill -CONT "$DAEMON_PID"; fail "the copy of true did not run"; }
		bash -c 'exec 9<>/dev/fuse && mount -i -t fuse -o fd=9,rootmode=40000,user_id=0,group_id=0 \
			nodev "$1" && echo mounted && exec sleep 1000000' _ "$dir" >"$dir.out" 2>&1 &
		HOLDER=$!
		CHILD_PIDS+=("$HOLDER")
		CLEANUP_HOOK="${CLEANUP_HOOK:-:}; umount -l '$dir' 2>/dev/null"
		wait_for_line "$dir.out" '^mounted' || { kill -CONT "$DAEMON_PID"; fail "no FUSE mount"; }
		kill -CONT "$DAEMON_PID"
		wait_until 10 waits_on_fuse && return 0
		log_has "side-band ring overflowed|build-id reader's queue is full" || break
		note "the mapping was lost (side-band ring overflowed, or the reader's queue full): again"
		kill "$HOLDER"
	done
	fail "perfsnapd never opened the binary on the mount"
}
# waits_on_fuse: a thread of perfsnapd waits on the mount.
waits_on_fuse() { grep -q fuse /proc/"$DAEMON_PID"/task/*/wchan 2>/dev/null; }

hang 1
note "waiting in: $(grep -h fuse /proc/"$DAEMON_PID"/task/*/wchan | head -1)"
t0=$(now_us)
timeout 5 "$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
	fail "status does not answer while a build-id read waits on the mount"
note "status answered in $((($(now_us) - t0) / 1000)) ms"
grep '^build-ids:' "$WORK/status.txt"
grep -q '^build-ids: .*, [1-9][0-9]* waiting' "$WORK/status.txt" || fail "status does not say reads wait"
# After a second, status says that one read is stuck.
stuck() {
	timeout 5 "$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" &&
		grep -q '^build-ids: one read has waited [0-9]* s' "$WORK/status.txt"
}
wait_until 10 stuck || fail "status does not say that a read is stuck"
grep '^build-ids: one' "$WORK/status.txt"

pd=$(dump_and_wait)

kill "$HOLDER"
wait "$HOLDER" 2>/dev/null
# Only now: perf would wait on the mount as well, for the same binary.
perf script -i "$pd" >/dev/null 2>&1 ||
	fail "the dump taken during the wait does not open in perf script"
unknown_after() {
	"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" &&
		grep -q '^build-ids: .*, 0 waiting' "$WORK/status.txt"
}
wait_until 10 unknown_after || fail "the read did not end when the mount's server went away"
grep '^build-ids:' "$WORK/status.txt"

# Stopped while a read hangs: the reader is left to its read. Under
# LeakSanitizer, whose check at exit stops every thread (ptrace) and so
# waits for the one in the read, main() having returned is what is seen:
# the sanitizer tracing the process; the mount is then let go.
hang 2
kill -TERM "$DAEMON_PID"
gone() { ! kill -0 "$DAEMON_PID" 2>/dev/null; }
exited() { gone || grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/"$DAEMON_PID"/status 2>/dev/null; }
wait_until 10 exited || fail "perfsnapd does not stop while a build-id read hangs"
if ! gone; then
	note "LeakSanitizer waits for the thread in the read: the mount is let go"
	kill "$HOLDER"
	wait_until 10 gone || fail "perfsnapd does not exit once the read ends"
fi
wait "$DAEMON_PID"
rc=$?
DAEMON_PID=
[ "$rc" = 0 ] || { tail -n 20 "$WORK/daemon.log" >&2; fail "perfsnapd exited $rc on SIGTERM"; }
echo "PASS"
