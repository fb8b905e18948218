#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# post_command: run after each snapshot with its files as arguments, with
# stdin, stdout and stderr and no other descriptor of perfsnapd's (not a
# perf event, whose ring it could map, nor the control socket); its
# success is logged, and one that outlives post_command_timeout is killed
# and said to be. It runs at nice 0, not at the loop's nice -10.
. "$(dirname "$0")/lib.sh"
require_env

CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
cat >"$WORK/post" <<SCRIPT
#!/bin/sh
printf '%s\n' "\$@" >"$WORK/args"
ls -l /proc/self/fd/ >"$WORK/fds"
ps -o ni=,cls= -p \$\$ >"$WORK/sched"
[ -e "$WORK/slow" ] && sleep 30
exit 0
SCRIPT
chmod 0755 "$WORK/post"
write_config "$WORK/perfsnapd.conf" "sched:sched_switch" 64K "post_command = $WORK/post
post_command_timeout = 1s"
start_daemon "$WORK/perfsnapd.conf"
ctl() { "$CTL" --socket "$WORK/control.sock" --timeout 30 "$@"; }

ctl dump --reason post >"$WORK/dumped" || fail "dump"
wait_for_line "$WORK/daemon.log" "post_command '$WORK/post' (pid [0-9]*) succeeded"
grep -q '\.perf\.data$' "$WORK/args" || { cat "$WORK/args"; fail "no perf.data among the arguments"; }
while read -r f; do
	[ -f "$f" ] || fail "argument $f is not a file"
	grep -qxF "$f" "$WORK/dumped" || fail "argument $f is not among the dump's files"
done <"$WORK/args"
grep -q 'perf_event' "$WORK/fds" && { cat "$WORK/fds"; fail "the command holds perfsnapd's perf events"; }
grep -qE 'socket:' "$WORK/fds" && { cat "$WORK/fds"; fail "the command holds perfsnapd's sockets"; }
# ls itself opens /proc/self/fd: 0-2 and that one at most.
n=$(grep -c -- '->' "$WORK/fds")
[ "$n" -le 4 ] || { cat "$WORK/fds"; fail "the command got $n descriptors"; }
# The loop (the process's main thread) runs at nice -10 as root; what it starts, at 0.
loop_nice=$(ps -o ni= -p "$DAEMON_PID" | tr -d ' ')
[ "$(id -u)" != 0 ] || [ "$loop_nice" = -10 ] || fail "the loop runs at nice $loop_nice, want -10"
read -r nice cls <"$WORK/sched"
[ "$nice" = 0 ] && [ "$cls" = TS ] || fail "the command runs at nice $nice ($cls), want 0 (TS)"

touch "$WORK/slow"
ctl dump --reason slow >/dev/null || fail "dump"
wait_for_line "$WORK/daemon.log" "post_command '$WORK/post' (pid [0-9]*) timed out: killing it"
wait_for_line "$WORK/daemon.log" "post_command '$WORK/post' (pid [0-9]*) killed by signal 9"
echo "PASS: post_command gets the files and no descriptor of perfsnapd's; a slow one is killed"
