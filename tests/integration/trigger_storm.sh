#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# 50 crashes in one second make one dump: the matches while its dump runs
# are coalesced into it, the later ones refused by the trigger's
# min_interval; all are counted, and the log says so once, not 49 times.
. "$(dirname "$0")/lib.sh"
require_env

# Task names unique to this run: a concurrent run of this test elsewhere
# on the machine must not match its filter.
tag=$(($$ % 90000 + 10000))
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 2M
cat >>"$WORK/p.conf" <<CONF
[trigger segv]
event = signal:signal_generate
filter = sig == 11 && comm == "s$tag-storm"
min_interval = 10s
CONF
start_daemon "$WORK/p.conf"
CTL=("$PERFSNAPCTL" --socket "$WORK/control.sock")

out=$("$PROGS/crasher" "s$tag-storm" 5 segv 50 1000)
[ "$out" = "50 died of a signal" ] || fail "crasher: '$out'"
wait_snapshot 0 >/dev/null
# Every match is counted once the loop has read them all.
for _ in $(seq 1 100); do
	"${CTL[@]}" status >"$WORK/status.txt" || fail "perfsnapctl status failed"
	grep -q "^trigger: segv .*: 50 matches" "$WORK/status.txt" && break
	sleep 0.05
done
line=$(grep "^trigger: segv " "$WORK/status.txt")
note "$line"
[[ $line =~ ": 50 matches, "([0-9]+)" fired, 1 dumps started, "([0-9]+)" refused, "([0-9]+)" coalesced" ]] ||
	fail "status: '$line'"
fired=${BASH_REMATCH[1]} refused=${BASH_REMATCH[2]} coalesced=${BASH_REMATCH[3]}
[ $((refused + coalesced)) = 49 ] || fail "refused $refused + coalesced $coalesced, want 49"
[ "$fired" = $((1 + refused)) ] || fail "fired $fired, want 1 + refused ($refused)"
[ "$(ls "$WORK/out"/*.json | wc -l)" = 1 ] || fail "$(ls "$WORK/out"/*.json | wc -l) snapshots, want 1"
# Logged at most once a minute: one line for the first refusal, none per event.
n=$(grep -c "trigger segv: refused" "$WORK/daemon.log")
[ "$n" -le 1 ] || fail "$n refusal lines in the log, want at most 1"
[ "$(grep -c "trigger segv" "$WORK/daemon.log")" -le 3 ] || {
	cat "$WORK/daemon.log" >&2
	fail "the log has a line per match"
}
kill -TERM "$DAEMON_PID"
wait "$DAEMON_PID" || fail "perfsnapd did not stop cleanly"
DAEMON_PID=

# The global limit: [snapshot] max_per_hour = 1 is used up by a SIGUSR2 dump;
# 20 crashes are then all refused, and dump.c says so once, not 20 times.
write_config "$WORK/p.conf" "sched:sched_switch" 1M "max_per_hour = 1"
cat >>"$WORK/p.conf" <<CONF
[trigger segv]
event = signal:signal_generate
filter = sig == 11 && comm == "s$tag-storm"
CONF
start_daemon "$WORK/p.conf"
dump_and_wait >/dev/null
out=$("$PROGS/crasher" "s$tag-storm" 5 segv 20 500)
[ "$out" = "20 died of a signal" ] || fail "crasher: '$out'"
for _ in $(seq 1 100); do
	"${CTL[@]}" status >"$WORK/status.txt" || fail "perfsnapctl status failed"
	grep -q "^trigger: segv .*: 20 matches" "$WORK/status.txt" && break
	sleep 0.05
done
grep -q "^trigger: segv .*: 20 matches, 20 fired, 0 dumps started, 20 refused, 0 coalesced" \
	"$WORK/status.txt" || fail "status: '$(grep "^trigger: segv" "$WORK/status.txt")'"
n=$(grep -c "refused" "$WORK/daemon.log")
[ "$n" -le 2 ] || { cat "$WORK/daemon.log" >&2; fail "$n refusal lines in the log, want at most 2"; }
echo "PASS"
