#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A program with a known comm makes a known number of marked syscalls; one
# SIGUSR2 later, perf script shows every one of them, in time order, with
# the right comm, pid and field values, and perf report's header is right.
source "$(dirname "$0")/lib.sh"
require_env

N=2000
# The marker triggers the dump right after its last mark, into rings that a
# busy machine's system calls do not wrap meanwhile.
write_config "$WORK/p.conf" "sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter" 16M
start_daemon "$WORK/p.conf"
before=$(snapshot_count)
start_prog "$WORK/marker.out" "$PROGS/marker" psnap_marker "$N" hold 0 "$DAEMON_PID"
wait_for_line "$WORK/marker.out" '^done'
mpid=$(awk '/^done/ {print $2}' "$WORK/marker.out")

file=$(wait_snapshot "$before")
note "snapshot $file"
[ -f "$file" ] || fail "no file $file"
mode=$(stat -c %a "$file")
[ "$mode" = 640 ] || fail "mode $mode, want 640"
ls -a "$WORK/out" | grep -q '\.tmp' && fail "temporary file left behind"

perf_script_clean "$file" "$WORK/script.txt"

# Every marked syscall, right comm and pid, arguments in sequence.
# Other tests may run markers at the same time: select ours by pid.
grep ' raw_syscalls:sys_enter: NR 4660 ' "$WORK/script.txt" |
	gawk -v pid="$mpid" '$2 == pid || $1 ~ "^[^ ]*-" pid "$"' >"$WORK/marked.txt"
got=$(wc -l <"$WORK/marked.txt")
[ "$got" = "$N" ] || fail "found $got marked events, want $N"
gawk -v pid="$mpid" -v n="$N" '
	{
		if ($1 != "psnap_marker") { print "bad comm: " $0; exit 1 }
		if ($2 != pid) { print "bad pid: " $0; exit 1 }
		match($0, /NR 4660 \(([0-9a-f]+), ([0-9a-f]+),/, m)
		if (strtonum("0x" m[1]) != NR - 1) { print "out of sequence: " $0; exit 1 }
		if (m[2] != "5eed") { print "bad argument: " $0; exit 1 }
	}' "$WORK/marked.txt" || fail "marked events wrong"

# The whole file is in time order.
gawk '{
	for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { t = $(i + 1); break }
	sub(":", "", t)
	if (t + 0 < last) { print "time goes back at line " NR ": " $0; exit 1 }
	last = t + 0
}' "$WORK/script.txt" || fail "events not in time order"

grep -q 'sched:sched_switch:' "$WORK/script.txt" || fail "no sched_switch events"
grep -q 'sched:sched_wakeup:' "$WORK/script.txt" || fail "no sched_wakeup events"
# perf prints <...> or :PID for tasks it cannot name; live tasks must be named.
grep -E '^ *(:[0-9]+|<\.\.\.>) ' "$WORK/script.txt" | grep " $mpid " && fail "marker not named"

perf report -i "$file" --header-only >"$WORK/header.txt" 2>&1 || fail "perf report --header-only"
grep -q "^# hostname : $(uname -n)\$" "$WORK/header.txt" || fail "hostname missing"
grep -q "^# os release : $(uname -r)\$" "$WORK/header.txt" || fail "os release missing"
grep -q "^# nrcpus online : $(nproc)\$" "$WORK/header.txt" || fail "nrcpus missing"
for ev in sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter; do
	grep -q "^# event : name = $ev," "$WORK/header.txt" || fail "event $ev missing from header"
done
echo "PASS: $N marked events, $(wc -l <"$WORK/script.txt") events in all"
