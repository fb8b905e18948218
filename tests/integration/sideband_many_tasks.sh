#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# 2,000 short-lived processes while recording with a process table capped
# at 500 tasks: the table stays within its cap, perfsnapd's memory stays
# bounded, and the newest processes are all named right.
source "$(dirname "$0")/lib.sh"
require_env

# Rings a busy machine's system calls do not wrap in the moment between
# the last process and the dump, which that process triggers itself.
write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 64M "" "max_tasks = 500"
# Under AddressSanitizer freed memory waits in its quarantine (256 MiB),
# which is the sanitizer's, not perfsnapd's: 2,000 processes' side-band
# churn alone grew it by 65 MiB here. A small one keeps the bound checked.
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1 start_daemon "$WORK/p.conf"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$DAEMON_PID/status"; }
# The rings' pages become resident while the warmer reads them after start
# (with their shadow under a sanitizer): the baseline is taken after it.
for _ in $(seq 1 600); do
	"$PERFSNAPCTL" --socket "$WORK/control.sock" status | grep -q '^buffer: .*, warm$' && break
	sleep 0.1
done
"$PERFSNAPCTL" --socket "$WORK/control.sock" status | grep -q '^buffer: .*, warm$' ||
	fail "the rings were not warm 60 s after start"
rss0=$(rss)
for i in $(seq 1 1999); do
	"$PROGS/marker" "pst_$i" 1 exit >/dev/null
done
rss1=$(rss)
before=$(snapshot_count)
"$PROGS/marker" pst_2000 1 exit 0 "$DAEMON_PID" >/dev/null
file=$(wait_snapshot "$before")
perf_script_clean "$file" "$WORK/script.txt"
# The newest processes: each one marked call, under its own name. The
# snapshot reaches further back than a 500-task table: the oldest exited
# tasks were dropped first, so every unnamed one is older than every named.
for i in $(seq 1981 2000); do
	grep -q "^ *pst_$i .*NR 4660 " "$WORK/script.txt" || fail "pst_$i not named in the snapshot"
done
held=$(grep -c '^ *pst_[0-9]* .*NR 4660 ' "$WORK/script.txt")
unnamed=$(grep -cE '^ *(:[0-9]+|<\.\.\.>) .* NR 4660 ' "$WORK/script.txt" || true)
note "$held marked calls of pst_* processes in the snapshot, $unnamed unnamed"
gawk '/ NR 4660 / {
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1) + 0; break }
	if ($1 ~ /^pst_/) { if (!named_min || t < named_min) named_min = t }
	else if ($1 ~ /^:/ && t > unnamed_max) unnamed_max = t
} END { exit !(unnamed_max < named_min) }' "$WORK/script.txt" ||
	fail "an unnamed task is newer than a named one: the table did not drop the oldest first"
tasks=$(grep -o 'side-band: [0-9]* tasks' "$WORK/daemon.log" | tail -n 1)
"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
	fail "perfsnapctl status"
ntasks=$(sed -n 's/^sideband: \([0-9]*\) tasks.*/\1/p' "$WORK/status.txt")
dropped=$(sed -n 's/^sideband: [0-9]* tasks, \([0-9]*\) dropped.*/\1/p' "$WORK/status.txt")
note "RSS before ${rss0} KiB, after 2000 processes ${rss1} KiB; table ${ntasks} tasks, ${dropped} dropped ${tasks}"
[ -n "$ntasks" ] && [ "$ntasks" -le 500 ] || fail "process table holds $ntasks tasks, cap 500"
[ "$dropped" -ge 1500 ] || fail "only $dropped tasks dropped"
[ $((rss1 - rss0)) -lt 20480 ] || fail "RSS grew by $((rss1 - rss0)) KiB"
echo "PASS: newest 20 of 2000 processes named, $held in the snapshot all named; table $ntasks/500; RSS $rss0 -> $rss1 KiB"
