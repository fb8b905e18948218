#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 2,000 short-lived processes while recording with a process table capped
# at 500 tasks: the table stays within its cap, perfsnapd's memory stays
# bounded, and the newest processes are all named right.
source "$(dirname "$0")/lib.sh"
require_env

write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 4M "" "max_tasks = 500"
start_daemon "$WORK/p.conf"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status"; }
rss0=$(rss)
for i in $(seq 1 2000); do
	"$PROGS/marker" "pst_$i" 1 exit >/dev/null
done
rss1=$(rss)
file=$(dump_and_wait)
perf_script_clean "$file" "$WORK/script.txt"
# The newest 100 processes: each one marked call, under its own name.
for i in $(seq 1901 2000); do
	grep -q "^ *pst_$i .*NR 4660 " "$WORK/script.txt" || fail "pst_$i not named in the snapshot"
done
tasks=$(grep -o 'side-band: [0-9]* tasks' "$WORK/daemon.log" | tail -n 1)
"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
	fail "perfsnapctl status"
ntasks=$(sed -n 's/^sideband: \([0-9]*\) tasks.*/\1/p' "$WORK/status.txt")
dropped=$(sed -n 's/^sideband: [0-9]* tasks, \([0-9]*\) dropped.*/\1/p' "$WORK/status.txt")
note "RSS before ${rss0} KiB, after 2000 processes ${rss1} KiB; table ${ntasks} tasks, ${dropped} dropped ${tasks}"
[ -n "$ntasks" ] && [ "$ntasks" -le 500 ] || fail "process table holds $ntasks tasks, cap 500"
[ "$dropped" -ge 1500 ] || fail "only $dropped tasks dropped"
[ $((rss1 - rss0)) -lt 20480 ] || fail "RSS grew by $((rss1 - rss0)) KiB"
echo "PASS: newest 100 of 2000 processes named; table $ntasks/500; RSS $rss0 -> $rss1 KiB"
