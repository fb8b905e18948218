#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A snapshot's trace.dat in KernelShark: its library (libkshark, through
# kshark_entries) loads exactly the events trace-cmd report prints, the
# same CPU, time, task and event each, plain and zstd-compressed; and the
# KernelShark program, under Xvfb as an unprivileged user (as root it opens
# a warning dialog first), opens the file into its main window with nothing
# on stderr but its own notes.
source "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v kernelshark >/dev/null || prereq_missing "kernelshark"
command -v Xvfb >/dev/null || prereq_missing "Xvfb (xvfb)"
command -v xwininfo >/dev/null || prereq_missing "xwininfo (x11-utils)"
[ -x "${KSHARK_ENTRIES:-}" ] || prereq_missing "kshark_entries (libkshark-dev at build time)"

# entries_match DAT: libkshark's entries and trace-cmd report's lines, as
# "CPU TIME_NS PID EVENT", are the same list; sets N to its length.
entries_match() {
	local dat=$1
	trace-cmd report -N -t "$dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
		{ cat "$WORK/report.err"; fail "trace-cmd report $dat"; }
	gawk 'match($0, /-([0-9]+) +\[([0-9]+)\] +([0-9]+)\.([0-9]{9}): +([^: ]+):/, m) {
		printf "%d %s%s %s %s\n", m[2], m[3], m[4], m[1], m[5] }' \
		"$WORK/report.txt" | sort >"$WORK/report.list"
	"$KSHARK_ENTRIES" "$dat" >"$WORK/kshark.txt" 2>"$WORK/kshark.err" ||
		{ cat "$WORK/kshark.err"; fail "libkshark cannot load $dat"; }
	grep -q . "$WORK/kshark.err" && { cat "$WORK/kshark.err"; fail "libkshark warned on $dat"; }
	# trace-cmd names an event without its system. Where a page says events
	# were lost (a ring paused by an earlier dump), trace-cmd prints a line
	# and KernelShark shows a missed_events entry: as many, CPU by CPU.
	awk '$4 != "missed_events" { sub(/^[^\/]*\//, "", $4); print }' "$WORK/kshark.txt" |
		sort >"$WORK/kshark.list"
	awk '$4 == "missed_events" { print $1 }' "$WORK/kshark.txt" | sort | uniq -c >"$WORK/kshark.lost"
	sed -n 's/^CPU:\([0-9]*\) \[.*EVENTS DROPPED\]$/\1/p' "$WORK/report.txt" | sort | uniq -c \
		>"$WORK/report.lost"
	cmp -s "$WORK/report.lost" "$WORK/kshark.lost" ||
		fail "lost events: trace-cmd $(tr -s ' \n' ' ' <"$WORK/report.lost"), KernelShark $(tr -s ' \n' ' ' <"$WORK/kshark.lost")"
	LOST=$(awk '{ n += $1 } END { print n + 0 }' "$WORK/report.lost")
	N=$(wc -l <"$WORK/report.list")
	[ "$N" -gt 1000 ] || fail "only $N events in $dat"
	if ! cmp -s "$WORK/report.list" "$WORK/kshark.list"; then
		diff "$WORK/report.list" "$WORK/kshark.list" | head -n 20 >&2
		fail "KernelShark's entries differ from trace-cmd report's for $dat"
	fi
	# Every CPU of the snapshot is there.
	[ "$(cut -d' ' -f1 "$WORK/kshark.list" | sort -u | wc -l)" = "$(nproc)" ] ||
		fail "KernelShark does not show every CPU of $dat"
}

EVENTS="sched:sched_switch sched:sched_wakeup raw_syscalls:sys_enter"
for compression in none zstd; do
	FORMATS="perf.data trace.dat" write_config "$WORK/$compression.conf" "$EVENTS" 2M \
		"compression = $compression"
	rm -f "$WORK/out"/*
	start_daemon "$WORK/$compression.conf"
	"$PROGS/marker" psnap_load 300000 exit 0 >/dev/null # wraps the rings
	"$PROGS/marker" psnap_marker 500 exit >/dev/null
	# The second dump's rings were paused by the first: pages may say events were lost.
	for nth in 1 2; do
		file=$(dump_and_wait)
		dat=${file%.perf.data}.trace.dat
		entries_match "$dat"
		grep -q ' sys_enter$' "$WORK/kshark.list" || fail "no sys_enter in KernelShark's entries"
		note "compression = $compression, dump $nth: $N events and $LOST lost-event marks, the same in libkshark and trace-cmd report"
		"$PROGS/marker" psnap_load 300000 exit 0 >/dev/null
	done
	kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID"; DAEMON_PID=
done

# The program itself, on the zstd file, as nobody: a copy it may read.
gui=$WORK/gui
mkdir -p "$gui/home"
cp "$dat" "$gui/snapshot.trace.dat"
chmod o+x "$WORK"
chmod 0755 "$gui"
chmod 0644 "$gui/snapshot.trace.dat"
chown nobody "$gui/home"
chmod 0700 "$gui/home"
# -displayfd: Xvfb picks a free display and says which; -ac: nobody may connect.
Xvfb -displayfd 3 -screen 0 1280x900x24 -ac -nolisten tcp 3>"$gui/display" 2>"$gui/xvfb.log" &
CHILD_PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$gui/display" ] && break; sleep 0.1; done
[ -s "$gui/display" ] || { cat "$gui/xvfb.log"; fail "Xvfb did not start"; }
DISPLAY=:$(head -n 1 "$gui/display")
export DISPLAY
setpriv --reuid=nobody --regid=nogroup --clear-groups \
	env HOME="$gui/home" XDG_RUNTIME_DIR="$gui/home" \
	kernelshark "$gui/snapshot.trace.dat" >"$gui/ks.out" 2>"$gui/ks.err" &
ks=$!
CHILD_PIDS+=("$ks")
# Its main window's title names the file once it is loaded.
title='"Kernel Shark \(.*/snapshot\.trace\.dat\)"'
for _ in $(seq 1 300); do
	xwininfo -root -tree 2>/dev/null | grep -qE "$title" && break
	kill -0 "$ks" 2>/dev/null || break
	sleep 0.1
done
xwininfo -root -tree 2>/dev/null | grep -E "$title" >"$gui/window" || {
	xwininfo -root -tree >&2
	cat "$gui/ks.out" "$gui/ks.err" >&2
	fail "KernelShark shows no window named after the file"
}
# It draws the graph after the window maps, and says nothing when done: a
# second for a crash there to show (time that must pass).
sleep 1
kill -0 "$ks" 2>/dev/null || { cat "$gui/ks.err" >&2; fail "KernelShark exited"; }
kill -TERM "$ks"
wait "$ks" 2>/dev/null
# KernelShark says what it loads; its KVM plugin says it has nothing to draw
# on any trace without kvm:kvm_entry (none here). Anything else is a warning.
if grep -vE '^(Loading +"[^"]*snapshot\.trace\.dat"|plugin "kvm_combo" failed to initialize on stream .*snapshot\.trace\.dat)$' \
	"$gui/ks.out" "$gui/ks.err" --no-filename | grep -q .; then
	cat "$gui/ks.out" "$gui/ks.err" >&2
	fail "KernelShark printed more than its notes"
fi
echo "PASS: KernelShark loads every event trace-cmd reports ($N with zstd) and opens the snapshot in its window"
