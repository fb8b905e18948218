#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# /no-overwrite/ events are drained into the history (history_size) and
# merged into every snapshot in time order, so they reach further back
# than the overwrite rings: an exec long overwritten in the rings is still
# in the snapshot, named, in order.
source "$(dirname "$0")/lib.sh"
require_env

write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_process_exec/no-overwrite/" 64K \
	"" "history_size = 1M"
start_daemon "$WORK/p.conf"
"$PROGS/marker" psnap_early 1 exit >/dev/null
# Flood every CPU's 64 KiB overwrite ring many times over.
floods=()
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" "$PROGS/marker" psnap_flood 200000 exit >/dev/null &
	floods+=($!)
done
wait "${floods[@]}"	# not the daemon
file=$(dump_and_wait)
perf_script_clean "$file" "$WORK/script.txt"
first_sys=$(grep -m1 'raw_syscalls:sys_enter' "$WORK/script.txt" | gawk '{for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t; exit }}')
grep 'sched:sched_process_exec:' "$WORK/script.txt" | grep 'marker' >"$WORK/execs.txt" ||
	fail "no exec event in the snapshot"
exec_t=$(head -n 1 "$WORK/execs.txt" | gawk '{for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); sub(":", "", t); print t; exit }}')
note "first exec at $exec_t, overwrite data starts at $first_sys"
gawk -v a="$exec_t" -v b="$first_sys" 'BEGIN { exit !(a + 0 < b + 0) }' ||
	fail "the history does not reach back beyond the overwrite rings"
[ "$(wc -l <"$WORK/execs.txt")" -ge 2 ] || fail "both execs should be in the history"
# Merged in time order with the rest.
gawk '{
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); break }
	sub(":", "", t)
	if (t + 0 < last) { print "time goes back: " $0; exit 1 }
	last = t + 0
}' "$WORK/script.txt" || fail "history not merged in time order"
echo "PASS: the exec from before the rings' window is in the snapshot, in order"
