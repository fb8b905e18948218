#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A tiny ring under heavy load: the snapshot holds the newest events up to
# the signal, and reads without warnings.
source "$(dirname "$0")/lib.sh"
require_env

N=50
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 64K
start_daemon "$WORK/p.conf"
[ "$(nproc)" -ge 2 ] || prereq_missing "two CPUs"
# Heavy load on CPU 1 wraps its ring many times over; the marker on CPU 0.
start_prog /dev/null taskset -c 1 "$PROGS/marker" psnap_load 100000000 exit 0
# A tenth of a second of its CPU: some 100,000 calls, the ring wrapped over and over.
wait_work cpu 10 "$LAST_PID"
# Pin the marker so its newest events are all in one ring; it sends the
# SIGUSR2 itself right after its last mark, as an operator's trigger would
# follow the incident. At a real-time priority, and spinning without
# system calls after the signal, it keeps any other load on CPU 0 (a busy
# machine's) from overwriting its events in the 64 KiB ring before the
# dump pauses it: what the ring holds then is the marker's, newest last.
command -v chrt >/dev/null || prereq_missing "chrt (util-linux)"
before=$(snapshot_count)
start_prog "$WORK/marker.out" chrt -f 10 taskset -c 0 "$PROGS/marker" psnap_marker "$N" quiet 200000 "$DAEMON_PID"
wait_for_line "$WORK/marker.out" '^done'
file=$(wait_snapshot "$before")
note "snapshot $file"
perf_script_clean "$file" "$WORK/script.txt"

grep ' raw_syscalls:sys_enter: NR 4660 ' "$WORK/script.txt" | grep '^ *psnap_marker ' \
	>"$WORK/marked.txt" || true
got=$(wc -l <"$WORK/marked.txt")
note "$got of the last $N marked events are in a 64 KiB ring"
[ "$got" -gt 0 ] || fail "the newest marked events are missing"
# Whatever survived is the newest: it must end with the last one made.
last=$(tail -n 1 "$WORK/marked.txt" | sed 's/.*NR 4660 (\([0-9a-f]*\),.*/\1/')
[ "$((16#$last))" = $((N - 1)) ] || fail "newest marked event is #$((16#$last)), want #$((N - 1))"
# CPU 1's ring, overwritten all the time, holds only its newest events:
# they end after the marker finished, just before the signal.
last_marked=$(tail -n 1 "$WORK/marked.txt" | gawk '{for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t; exit }}')
last_cpu1=$(grep '\[001\]' "$WORK/script.txt" | tail -n 1 | gawk '{for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t; exit }}')
gawk -v a="$last_cpu1" -v b="$last_marked" 'BEGIN { exit !(a + 0 > b + 0) }' ||
	fail "CPU 1's newest event ($last_cpu1) is not after the marker's last ($last_marked)"
# And nothing older than what the rings could hold came along: a perf
# sample here takes 64 bytes or more; a tracefs instance's 64 KiB are 18
# sub-buffers of 4 KiB per CPU, its events about 40 bytes.
total=$(wc -l <"$WORK/script.txt")
most=2000
[ "${PERFSNAP_BACKEND:-perf}" = tracefs ] && most=$((2 * 18 * 4096 / 40))
[ "$total" -lt "$most" ] || fail "$total events from 64 KiB rings: more than they can hold ($most)"
echo "PASS: newest $got marked events present, $total events in all"
