#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 50 triggers in 2 s with min_interval = 1s and max_snapshots = 3: dumps
# are spaced, triggers coalesce, exactly the newest three snapshots stay,
# never a partial file. Then max_per_hour refuses beyond its count, and
# logs its refusals at most once a minute.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}

write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 1M \
	"$(printf 'min_interval = 1s\nmax_snapshots = 3')"
start_daemon "$WORK/p.conf"
t0=$(date +%s%N)
for _ in $(seq 1 50); do kill -USR2 "$DAEMON_PID"; sleep 0.04; done
t1=$(date +%s%N)
# Every dump asked for is written: no request is logged after the last
# snapshot (a deferred one is, and one to follow or coalesced), and none
# runs; twice in a row, as the last signal may reach the loop after a
# status asked at the same time.
idle() {
	grep -E "$SNAPSHOT_DONE_RE|deferred [0-9]+ ms by min_interval|coalesced with the pending|during a dump: it will follow" \
		"$WORK/daemon.log" | tail -n 1 | grep -qE "$SNAPSHOT_DONE_RE" &&
		"$CTL" --socket "$WORK/control.sock" status | grep -q '^state: recording'
}
idle_twice() { idle && sleep 0.05 && idle; }
wait_until 30 idle_twice || fail "dumps still pending or running 30 s after the triggers"
n=$(snapshot_count)
# The loop takes 2 s on an idle machine, longer on a loaded one (each
# sleep and kill is a process): one dump a second while it runs, one
# more for the last trigger, at most.
max=$(( (t1 - t0) / 1000000000 + 2 ))
note "50 triggers in $(( (t1 - t0) / 1000000 )) ms -> $n snapshots"
[ "$n" -ge 2 ] && [ "$n" -le "$max" ] || fail "$n snapshots, want 2 to $max (one a second)"
grep -q 'deferred .* by min_interval' "$WORK/daemon.log" || fail "nothing deferred by min_interval"
on_disk=$(ls "$WORK/out"/*.perf.data | wc -l)
want=$(( n < 3 ? n : 3 ))
[ "$on_disk" = "$want" ] || fail "$on_disk snapshots on disk, want $want"
# The ones kept are the newest logged.
for p in $(grep -o 'snapshot [^ ]*\.perf\.data' "$WORK/daemon.log" | tail -n "$want" | cut -d' ' -f2); do
	[ -f "$p" ] || fail "newest snapshot $p was deleted"
	perf_script_complete "$p"
done
ls -a "$WORK/out" | grep -q '\.tmp$' && fail "partial file left"
[ "$(ls "$WORK/out"/*.json | wc -l)" = "$want" ] || fail "sidecars do not match snapshots"

# max_per_hour: the third request in the hour is refused, clearly.
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=
rm -f "$WORK/out"/*
write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 1M "max_per_hour = 2"
start_daemon "$WORK/p.conf"
"$CTL" --socket "$WORK/control.sock" dump >/dev/null || fail "first dump refused"
"$CTL" --socket "$WORK/control.sock" dump >/dev/null || fail "second dump refused"
"$CTL" --socket "$WORK/control.sock" dump >"$WORK/third.out" 2>&1 && fail "third dump in the hour accepted"
grep -q 'max_per_hour' "$WORK/third.out" || { cat "$WORK/third.out"; fail "refusal does not say why"; }
# Twenty more refusals: still one line in the log, at most one a minute.
for _ in $(seq 1 20); do
	"$CTL" --socket "$WORK/control.sock" dump >/dev/null 2>&1 && fail "a dump over max_per_hour accepted"
done
n=$(grep -c 'refused: max_per_hour = 2 reached' "$WORK/daemon.log")
[ "$n" = 1 ] || fail "$n log lines for 21 refused dumps"
[ "$(ls "$WORK/out"/*.perf.data | wc -l)" = 2 ] || fail "refused trigger wrote a file"
echo "PASS: $n spaced snapshots, newest $want kept; max_per_hour refuses"
