#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Trigger configuration errors are exit 78 at their line: a filter the
# kernel refuses, an unknown event, an unknown PSI resource, a threshold the
# kernel refuses. A reload adds and removes triggers with the same rings
# (history from before it is in the next snapshot), and a reload with a bad
# filter is refused with the old triggers kept.
. "$(dirname "$0")/lib.sh"
require_env
CTL=("$PERFSNAPCTL" --socket "$WORK/control.sock")

# check NAME PATTERN: the config on stdin is refused with PATTERN, exit 78.
check() {
	cat >"$WORK/$1.conf"
	rc=0
	"$PERFSNAPD" --config "$WORK/$1.conf" >"$WORK/$1.out" 2>&1 || rc=$?
	[ "$rc" = 78 ] || { cat "$WORK/$1.out" >&2; fail "$1: exit $rc, want 78"; }
	grep -qE "^$WORK/$1.conf:$2" "$WORK/$1.out" || {
		cat "$WORK/$1.out" >&2
		fail "$1: no '$2'"
	}
}
base=$(write_config /dev/stdout "sched:sched_switch" 1M)
{ echo "$base"; printf '[trigger segv]\nevent = signal:signal_generate\nfilter = sig === 11\n'; } |
	check bad_filter "$(($(echo "$base" | wc -l) + 3)): \[trigger segv\] filter: the kernel refused 'sig === 11'"
{ echo "$base"; printf '[trigger x]\nevent = nosuch:event\n'; } |
	check unknown_event "$(($(echo "$base" | wc -l) + 2)): \[trigger x\] event: tracepoint 'nosuch:event' not found"
{ echo "$base"; printf '[trigger p]\npsi = memroy some 150ms 2s\n'; } |
	check unknown_psi "$(($(echo "$base" | wc -l) + 2)): \[trigger p\] psi: unknown resource 'memroy'"
if [ -e /proc/pressure/memory ]; then
	# A stall longer than its window: every kernel refuses it.
	{ echo "$base"; printf '[trigger p]\npsi = memory some 3s 2s\n'; } |
		check refused_psi "$(($(echo "$base" | wc -l) + 2)): \[trigger p\] psi: the kernel refused 'memory some 3s 2s'"
fi
{ echo "$base"; printf '[trigger a]\n[trigger a]\n'; } | check twice ".*\[trigger a\]: set again"
ls -A "$WORK/out" | grep -q . && fail "files written by a rejected config"

# Task names unique to this run: a concurrent run of this test elsewhere
# on the machine must not match its filter.
tag=$(($$ % 90000 + 10000))
# Reload: trigger 'first' out, 'second' in, the same rings. The marks are
# signals (see signal_marks): nothing overwrites them before the crash.
write_config "$WORK/p.conf" "signal:signal_generate" 16M
printf '[trigger first]\n' >>"$WORK/p.conf"
start_daemon "$WORK/p.conf"
grep -q "^trigger: first (manual)" <("${CTL[@]}" status) || fail "status: no trigger first"
signal_marks psnap_before 20
write_config "$WORK/p.conf" "signal:signal_generate" 16M
printf '[trigger second]\nevent = signal:signal_generate\nfilter = sig == 11 && comm == "c%s-segv"\n' "$tag" >>"$WORK/p.conf"
"${CTL[@]}" reload >"$WORK/reload.out" 2>&1 || { cat "$WORK/reload.out"; fail "reload refused"; }
grep -q 'history kept' "$WORK/reload.out" || { cat "$WORK/reload.out"; fail "rings not kept"; }
"$PROGS/crasher" "c$tag-segv" 5 segv &
wait $! && fail "the crasher did not die"
file=$(wait_snapshot 0)
"${CTL[@]}" status >"$WORK/status.txt"
grep -q "^trigger: second (event signal:signal_generate)" "$WORK/status.txt" || fail "status: no trigger second"
grep -q "^trigger: first" "$WORK/status.txt" && fail "status: trigger first still there"
"${CTL[@]}" trigger first >"$WORK/first.out" 2>&1 && fail "the removed trigger still fires"
grep -q "no trigger 'first'" "$WORK/first.out" || { cat "$WORK/first.out"; fail "wrong error for a removed trigger"; }
perf_script_clean "$file" "$WORK/script.txt"
[ "$(count_signal_marks "$WORK/script.txt" psnap_before "$MARK_PID")" = 20 ] ||
	fail "events from before the reload are gone"
grep -q "c$tag-segv .*signal:signal_generate: sig=11" "$WORK/script.txt" ||
	fail "the new trigger's match is not in its snapshot"

# A bad filter on reload: refused at its line, the old triggers stay.
cp "$WORK/p.conf" "$WORK/good.conf"
printf '[trigger third]\nevent = signal:signal_generate\nfilter = nosuch == 1\n' >>"$WORK/p.conf"
line=$(wc -l <"$WORK/p.conf")
"${CTL[@]}" reload >"$WORK/bad.out" 2>&1 && fail "a bad filter was accepted on reload"
grep -q "p.conf:$line: \[trigger third\] filter: the kernel refused" "$WORK/bad.out" ||
	{ cat "$WORK/bad.out"; fail "no line-precise error on reload"; }
"${CTL[@]}" status >"$WORK/status.txt"
grep -q "^trigger: second .*1 dumps started" "$WORK/status.txt" || fail "status: trigger second lost"
grep -q "^trigger: third" "$WORK/status.txt" && fail "the refused trigger is armed"
# By hand, for root: any trigger, answered with the snapshot's files.
"${CTL[@]}" trigger second >"$WORK/hand.out" || { cat "$WORK/hand.out"; fail "perfsnapctl trigger failed"; }
grep -q '\.perf\.data$' "$WORK/hand.out" || fail "perfsnapctl trigger printed no files"
grep -q '"reason": "trigger second"' "$(sed -n 's/\.perf\.data$/.json/p' "$WORK/hand.out")" ||
	fail "the sidecar of a fire by hand does not name the trigger"

# A fire by hand waits through 'after'; a reload meanwhile drops the armed
# trigger and answers the client, and so does a stop.
cp "$WORK/good.conf" "$WORK/p.conf"
printf '[trigger late]\nafter = 3s\n' >>"$WORK/p.conf"
"${CTL[@]}" reload >/dev/null || fail "reload with trigger late refused"
"${CTL[@]}" trigger late >"$WORK/late.out" 2>&1 &
late=$!
for _ in $(seq 1 100); do grep -q "^trigger: late .*1 fired" <("${CTL[@]}" status) && break; sleep 0.05; done
"${CTL[@]}" reload >/dev/null || fail "reload refused"
wait "$late" && fail "perfsnapctl trigger late succeeded across a reload"
grep -q "Operation canceled" "$WORK/late.out" || { cat "$WORK/late.out"; fail "no cancel answer"; }
"${CTL[@]}" trigger late >"$WORK/late2.out" 2>&1 &
late=$!
for _ in $(seq 1 100); do grep -q "^trigger: late .*2 fired" <("${CTL[@]}" status) && break; sleep 0.05; done
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd did not stop cleanly with a trigger armed"
DAEMON_PID=
wait "$late" && fail "perfsnapctl trigger late succeeded across a stop"
echo "PASS"
