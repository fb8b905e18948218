#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [capture] window with backend = tracefs: the instance's per-CPU rings
# are sized for the window as perf's are, from their stats. Under a
# skewed load (CPU 1 makes system calls at a steady rate, CPU 0 has only
# what else runs) CPU 1's ring grows and CPU 0's shrinks, in place; a dump
# just after the grow still holds what the smaller ring held (a resize
# loses nothing), and once settled every ring of a dump reaches the
# window, in the sidecar and in the records perf script reads.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/window_lib.sh"
require_env
[ "$(nproc)" -ge 2 ] || prereq_missing "two CPUs"
[ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
	prereq_missing "tracefs"

WINDOW_NS=10000000000
write_window_config "$WORK/w.conf" "syscalls:sys_enter_getpriority" 10s 64M
sed -i 's/^memory = 64M$/&\nbackend = tracefs/' "$WORK/w.conf"
start_daemon "$WORK/w.conf"
inst=$(sed -n 's/.*recorded in tracefs instance \(perfsnapd-[0-9.]*\).*/\1/p' "$WORK/daemon.log")
[ -n "$inst" ] || fail "no tracefs instance in the log"
# About 2 MiB/s into CPU 1's instance ring: 10 s need more than its first 16 MiB.
start_prog /dev/null taskset -c 1 "$PROGS/paced" psnap_busy 60000 0
start_prog /dev/null taskset -c 0 "$PROGS/paced" psnap_quiet 50 0

# CPU 1's ring grows, CPU 0's shrinks, one at a time.
wait_until 60 log_has "window: cpu1 tracefs's ring resized from 16384 to 32768 KiB .* in place" ||
	{ window_status; fail "cpu1's instance ring was not grown for the window"; }
wait_until 30 log_has "window: cpu0 tracefs's ring resized from 16384 to [0-9]+ KiB .* in place" ||
	{ window_status; fail "cpu0's instance ring was not shrunk"; }
kib=$(cat "/sys/kernel/tracing/instances/$inst/per_cpu/cpu1/buffer_size_kb")
[ "$kib" -ge 32768 ] || fail "cpu1's buffer_size_kb is $kib after the grow"

# Right after the grow: what the 16 MiB ring held is still there. The
# first plan comes 2 s after the start, so it held 2 s or more; a ring
# that lost its history would reach back only to its grow.
file=$(dump_and_wait)
sidecar_reach "${file%.perf.data}.json" tracefs >"$WORK/side.grow"
note "after the grow: $(tr '\n' ' ' <"$WORK/side.grow")"
reach=$(gawk '$1 == 1 { print $2 }' "$WORK/side.grow")
[ "${reach:-0}" -ge 2000000000 ] || fail "cpu1 reaches ${reach:-0} ns after its grow: history lost"

# Settled: cpu1's grown ring has wrapped (its stats count overwritten
# events) and status says it holds the window.
wrapped() { ! grep -q '^overrun: 0$' "/sys/kernel/tracing/instances/$inst/per_cpu/cpu1/stats"; }
wait_until 60 wrapped || { window_status; fail "cpu1's 32 MiB ring never wrapped"; }
for _ in $(seq 1 60); do
	window_status >"$WORK/status.txt" || fail "no status"
	grep -qE '^cpu1 tracefs (1[0-9]|[2-9][0-9])\.[0-9]+ s of 10.000 s: ring 32768 KiB' \
		"$WORK/status.txt" && ! grep -q short "$WORK/status.txt" && break
	sleep 0.5
done
cat "$WORK/status.txt"
grep -qE '^cpu1 tracefs (1[0-9]|[2-9][0-9])\.' "$WORK/status.txt" || fail "cpu1 never held 10 s"
file=$(dump_and_wait)
json=${file%.perf.data}.json
sidecar_reach "$json" tracefs >"$WORK/side"
file_reach "$file" >"$WORK/file"
note "settled: sidecar $(tr '\n' ' ' <"$WORK/side")| file $(tr '\n' ' ' <"$WORK/file")"
for cpu in 0 1; do
	grep -q "^$cpu " "$WORK/side" || fail "no instance ring of cpu$cpu in the sidecar"
done
check_reaches settled "$WORK/side" "$WORK/file" "$WINDOW_NS"
grep -q '^1 .* true$' "$WORK/side" || fail "cpu1's ring never wrapped: its reach was not tested"
echo "PASS: instance rings sized for the window: $(tr '\n' ' ' <"$WORK/side")"
