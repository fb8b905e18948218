#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Paired triggers refused at their line with exit 78: an unknown key, a
# key that is no integer field, one side missing, a threshold of 0 or
# negative, a filter the kernel refuses, a BPF program the verifier
# refuses, and perfsnapd not root. A reload
# to such a file is refused and the armed trigger stays; a good one swaps.
source "$(dirname "$0")/lib.sh"
require_env
command -v setpriv >/dev/null || prereq_missing "setpriv (util-linux)"

mkdir -p "$WORK/out"
chmod 0755 "$WORK" "$WORK/out"
head_conf() {
	printf '[capture]\nevents = sched:sched_switch\n[snapshot]\ndirectory = %s\n' "$WORK/out"
	printf '[control]\nsocket = %s/control.sock\n' "$WORK"
}
check() { # NAME LINE EXPECTED-PATTERN  (trigger lines on stdin, from line 7)
	{
		head_conf
		cat
	} >"$WORK/$1.conf"
	chmod 0644 "$WORK/$1.conf"
	${AS:-} "$PERFSNAPD" --config "$WORK/$1.conf" >"$WORK/$1.out" 2>"$WORK/$1.err"
	rc=$?
	[ "$rc" = 78 ] || { cat "$WORK/$1.err"; fail "$1: exit $rc, want 78"; }
	grep -q "^$WORK/$1.conf:$2: .*$3" "$WORK/$1.err" ||
		{ cat "$WORK/$1.err"; fail "$1: no error at line $2 matching '$3'"; }
	note "$1: $(grep -m1 "^$WORK/$1.conf:$2: " "$WORK/$1.err")"
}
check unknown_key 9 "\[trigger w\] start_keyy: unknown key: accepted in \[trigger NAME\]: .*start_key" <<CONF
[trigger w]
start = sched:sched_waking
start_keyy = pid
end = sched:sched_switch
CONF
check key_not_integer 9 "start key: 'comm' is not an integer field of sched:sched_waking: accepted: an integer field of it (pid, prio, target_cpu, or common_pid)" <<CONF
[trigger w]
start = sched:sched_waking
start_key = comm
end = sched:sched_switch
end_key = next_pid
threshold = 2ms
CONF
check end_missing 8 "\[trigger w\] start without end: accepted: both start and end events" <<CONF
[trigger w]
start = sched:sched_waking
key = pid
threshold = 2ms
CONF
check threshold_zero 11 "threshold: '0ms' is 0 or out of range: accepted: a duration over 0" <<CONF
[trigger r]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
threshold = 0ms
CONF
check threshold_negative 11 "threshold: '-2ms' is negative" <<CONF
[trigger r]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
threshold = -2ms
CONF
check filter_refused 11 "start_filter: the kernel refused 'id = = 0' for raw_syscalls:sys_enter" <<CONF
[trigger r]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
start_filter = id = = 0
threshold = 5ms
CONF
# A program the verifier refuses: its own words, shortened, at the trigger's line.
[ -n "${BPF_REFUSE:-}" ] && [ -f "$BPF_REFUSE" ] || fail "BPF_REFUSE: no preload library"
AS="env LD_PRELOAD=$BPF_REFUSE ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	check verifier_refused 7 "\[trigger w\] the kernel refused its BPF program: .*invalid read from stack R10 off=8 size=8.*: accepted: " <<CONF
[trigger w]
start = sched:sched_waking
start_key = pid
end = sched:sched_switch
end_key = next_pid
threshold = 2ms
CONF
AS="setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all --bounding-set=-all" \
	check not_root 8 "\[trigger r\] start: tracepoint .raw_syscalls:sys_enter.: cannot read /sys/kernel/tracing/events: Permission denied" <<CONF
[trigger r]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
threshold = 5ms
CONF

# A reload to a bad paired trigger is refused; the armed one stays.
good() {
	head_conf
	printf '[trigger r]\nstart = raw_syscalls:sys_enter\nend = raw_syscalls:sys_exit\n'
	printf 'key = common_pid\nthreshold = %s\n' "$1"
}
good 50ms >"$WORK/live.conf"
start_daemon "$WORK/live.conf"
good 0ms >"$WORK/live.conf"
"$PERFSNAPCTL" --socket "$WORK/control.sock" reload >"$WORK/reload.out" 2>&1 &&
	fail "a reload to threshold = 0ms was accepted"
grep -q "live.conf:11: .*threshold: '0ms'" "$WORK/reload.out" ||
	{ cat "$WORK/reload.out"; fail "the refused reload does not say where"; }
"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" || fail "no status"
grep -q "^trigger: r: measured .* over 50000 us" "$WORK/status.txt" ||
	{ cat "$WORK/status.txt"; fail "the old trigger is not armed after a refused reload"; }
good 70ms >"$WORK/live.conf"
"$PERFSNAPCTL" --socket "$WORK/control.sock" reload >"$WORK/reload.out" 2>&1 ||
	{ cat "$WORK/reload.out"; fail "a good reload was refused"; }
"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" || fail "no status"
grep -q "^trigger: r: measured .* over 70000 us" "$WORK/status.txt" ||
	{ cat "$WORK/status.txt"; fail "the new threshold is not armed"; }
echo "PASS"
