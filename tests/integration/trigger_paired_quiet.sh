#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Paired triggers (issue 36) without a false positive: a run of
# `perf bench sched pipe` and a fast syscall loop, with thresholds far
# above their latencies, fires nothing, while each pairs thousands. It
# checks no latency of the machine's, so it runs beside other tests.
# PAIRED_MODE=fallback (trigger_paired_quiet_fallback.sh) runs it on the
# user-space pairing.
. "$(dirname "$0")/lib.sh"
require_env
. "$(dirname "$0")/paired_lib.sh"
QUIET_SECONDS=${QUIET_SECONDS:-30}
# No false positive: a load far under the thresholds fires nothing. The
# wakeup trigger watches the two tasks of `perf bench sched pipe` (a pid
# range: a filter the BPF program runs): on a shared machine other tasks
# (nice 19 builds, CPU-limited groups) do wait over the threshold, truly.
# The thresholds are far above these tasks' latencies, yet under a load
# average of 9 on this machine a blocking read of the loop waited 335 ms
# and a pipe task 294 ms for its CPU: 2 s, not 250 ms.
"$PROGS/slow_read" 100000000 0 10 "$WORK/go" >"$WORK/loop.out" &
LOOP=$!
perf bench sched pipe -l 1000000000 >/dev/null 2>&1 &
BENCH=$!
CLEANUP_HOOK="kill $LOOP $BENCH 2>/dev/null"
wait_for_line "$WORK/loop.out" '^reader '
loop=$(sed -n 's/^reader //p' "$WORK/loop.out")
for _ in $(seq 1 100); do
	child=$(pgrep -P "$BENCH" | head -n 1)
	[ -n "$child" ] && break
	sleep 0.05
done
[ -n "$child" ] || fail "perf bench sched pipe forked no worker"
# Its worker outlives it when it is killed: it goes too.
CLEANUP_HOOK="kill $LOOP $BENCH $child 2>/dev/null"
lo=$((BENCH < child ? BENCH : child)) hi=$((BENCH > child ? BENCH : child))
FORMATS="perf.data"
write_config "$WORK/q.conf" "sched:sched_switch" 1M
cat >>"$WORK/q.conf" <<CONF
[trigger quiet-wakeup]
start = sched:sched_waking
start_key = pid
start_filter = pid >= $lo && pid <= $hi
end = sched:sched_switch
end_key = next_pid
threshold = 2s

[trigger quiet-syscall]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
start_filter = common_pid == $loop
threshold = 2s
CONF
start_daemon "$WORK/q.conf"
touch "$WORK/go"
sleep "$QUIET_SECONDS" # the quiet run's length: time that must pass
kill $LOOP $BENCH $child
wait $LOOP $BENCH 2>/dev/null
wait_until 30 settled 0 || fail "the quiet run's figures still move 30 s after it"
take_status '^trigger: .*pairs seen'
read -r qpairs qover <<<"$(figures quiet-wakeup)"
read -r spairs sover <<<"$(figures quiet-syscall)"
[ -n "$qpairs" ] && [ -n "$spairs" ] || fail "status: no figures for the quiet run"
[ "$qpairs" -ge $((QUIET_SECONDS * 5000)) ] || fail "quiet-wakeup: only $qpairs pairs"
[ "$spairs" -ge 10000 ] || fail "quiet-syscall: only $spairs pairs"
[ "$qover" = 0 ] && [ "$sover" = 0 ] || fail "false positives: $qover wakeups, $sover syscalls"
[ -z "$(ls "$WORK/out" 2>/dev/null)" ] || fail "a snapshot was written in the quiet run"
echo "PASS"
