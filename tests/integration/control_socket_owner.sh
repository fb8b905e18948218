#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [control] socket: a reload gives the socket perfsnapd made to its group
# again, through the socket's inode. Where its path has become a symbolic
# link (a directory others can write in), nothing is followed: the file
# the link names keeps its owner and mode, and the log says why (issue
# 53: chown() and chmod() of the path followed the link to any file).
source "$(dirname "$0")/lib.sh"
require_env
getent group users >/dev/null || prereq_missing "the group 'users'"

write_config "$WORK/p.conf" "sched:sched_switch" 1M "" ""
sed -i '/^\[control\]/a group = users' "$WORK/p.conf"
start_daemon "$WORK/p.conf"
sock=$WORK/control.sock
[ "$(stat -c '%a %G' "$sock")" = "660 users" ] || fail "the socket is $(stat -c '%a %G' "$sock")"

# A root file only root may read, and the socket's path made a link to it.
install -m 0600 /dev/null "$WORK/victim"
mv "$sock" "$WORK/control.sock.moved"
ln -s "$WORK/victim" "$sock"
kill -HUP "$DAEMON_PID"
wait_for_line "$WORK/daemon.log" "is no longer the socket perfsnapd made" ||
	{ cat "$WORK/daemon.log" >&2; fail "the reload did not say it left the path alone"; }
[ "$(stat -c '%a %G' "$WORK/victim")" = "600 root" ] ||
	fail "the linked file became $(stat -c '%a %G' "$WORK/victim")"
# The moved socket is still the one served; a reload through it changes nothing else.
rm "$sock"
mv "$WORK/control.sock.moved" "$sock"
"$PERFSNAPCTL" --socket "$sock" reload >"$WORK/reload.out" 2>&1 ||
	{ cat "$WORK/reload.out" >&2; fail "reload through the socket failed"; }
[ "$(stat -c '%a %G' "$sock")" = "660 users" ] || fail "the socket became $(stat -c '%a %G' "$sock")"
echo "PASS: a reload changes the socket it made, never a file a link at its path names"
