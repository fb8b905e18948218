#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# kill -9 at random points of 20 dumps (32 MiB rings, perf.data and
# trace.dat, zstd on and off): no temporary is ever left (the files are
# unnamed until complete), every file under a final name opens in perf and
# trace-cmd without warnings, and a start removes the temporaries an
# earlier run left on a file system without O_TMPFILE (only perfsnapd's
# names, each logged with its size).
source "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"

FORMATS="perf.data trace.dat"
events="sched:sched_switch raw_syscalls:sys_enter raw_syscalls:sys_exit"
write_config "$WORK/none.conf" "$events" 32M "compression = none"
write_config "$WORK/zstd.conf" "$events" 32M "compression = zstd"
out=$WORK/out

# What a crash on a file system without O_TMPFILE leaves, and a foreign dotfile.
stem=host-20240101-000000.000-1
head -c 1000 /dev/zero >"$out/.$stem.perf.data.tmp"
head -c 333 /dev/zero >"$out/.$stem.trace.dat.tmp"
head -c 77 /dev/zero >"$out/.perfsnapd-spill.Ab12Cd"
echo mine >"$out/.notes.tmp"
start_daemon "$WORK/none.conf"
for f in ".$stem.perf.data.tmp:1000" ".$stem.trace.dat.tmp:333" ".perfsnapd-spill.Ab12Cd:77"; do
	grep -qF "removed '$out/${f%:*}', left by an earlier run (${f#*:} bytes)" "$WORK/daemon.log" ||
		{ cat "$WORK/daemon.log"; fail "no log line for removing ${f%:*}"; }
	[ -e "$out/${f%:*}" ] && fail "${f%:*} not removed at start"
done
[ -e "$out/.notes.tmp" ] || fail "a file perfsnapd did not make was removed"
rm "$out/.notes.tmp"

start_prog /dev/null "$PROGS/marker" psnap_load 1000000000 exit 0
LOAD=$LAST_PID
# Half a second of the load's CPU: some 250,000 calls, 40 MiB of records,
# its ring full.
wait_work cpu 50 "$LOAD"
RANDOM=${CRASH_SEED:-$$}
note "seed $RANDOM"
# One whole dump first: the kills fall anywhere in 0-130% of the last whole
# dump's time, on a quiet machine or a busy one.
dump_and_wait >/dev/null
dump_ms=$(grep -o 'dump [0-9]* ms' "$WORK/daemon.log" | tail -n 1 | grep -o '[0-9]*')
[ -n "$dump_ms" ] || fail "no dump time in the log"
note "a whole dump takes $dump_ms ms here"
rm -f "$out"/*
killed_mid=0
for i in $(seq 1 20); do
	if [ "$i" -gt 1 ]; then
		conf=$WORK/none.conf
		[ $((i % 2)) = 0 ] && conf=$WORK/zstd.conf
		start_daemon "$conf"
		# The new rings take what 0.3 s of the load makes on an idle machine.
		wait_work cpu 30 "$LOAD"
	fi
	before=$(snapshot_count)
	kill -USR2 "$DAEMON_PID"
	# Anywhere from before the copy to after the rename.
	ms=$(((RANDOM * 32768 + RANDOM) % (dump_ms * 13 / 10 + 1)))
	delay=$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))
	sleep "$delay"
	kill -9 "$DAEMON_PID"
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PID=
	[ "$(snapshot_count)" = "$before" ] && killed_mid=$((killed_mid + 1))
	# A dump that completed says how long dumps take now: aim the next kills by it.
	last=$(grep -o 'dump [0-9]* ms' "$WORK/daemon.log" | tail -n 1 | grep -o '[0-9]*' || true)
	[ -n "$last" ] && dump_ms=$last
	left=$(ls -A "$out" | grep '^\.' || true)
	[ -z "$left" ] || fail "dump $i, killed after ${delay}s, left: $left"
done
note "$killed_mid of 20 dumps killed before they completed"
[ "$killed_mid" -ge 5 ] || fail "only $killed_mid kills landed inside a dump: the test proves little"

# Every file under a final name is complete.
n=0
for f in "$out"/*.perf.data; do
	[ -e "$f" ] || continue
	perf_script_complete "$f"
	n=$((n + 1))
done
for f in "$out"/*.trace.dat; do
	[ -e "$f" ] || continue
	trace-cmd report "$f" >/dev/null 2>"$WORK/report.err" ||
		{ cat "$WORK/report.err"; fail "trace-cmd report $f failed"; }
	grep -v '^ *$' "$WORK/report.err" | grep -q . && { cat "$WORK/report.err"; fail "trace-cmd warned on $f"; }
	n=$((n + 1))
done
note "$n complete files checked"

# The next start finds nothing to remove, and recording goes on.
start_daemon "$WORK/zstd.conf"
grep -q 'left by an earlier run' "$WORK/daemon.log" && fail "a start after the kills removed: $(grep 'earlier run' "$WORK/daemon.log")"
ls -A "$out" | grep -q '^\.' && fail "temporaries after the restart: $(ls -A "$out" | grep '^\.')"
echo "PASS: 20 dumps killed at random, $killed_mid mid-dump, nothing left, $n complete files open"
