#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# formats = perf.data trace.dat perfetto: each snapshot has a .pftrace beside
# the other files (listed in the sidecar) that protoc decodes against
# Perfetto's perfetto_trace.proto, with as many events of each tracepoint
# and as many PerfSamples as perf script shows in the snapshot's perf.data;
# a program that exited before the dump is named (and its exit is there), the spinner's functions
# are in callstacks, and so is __schedule in sched_switch's own (call-graph=fp).
# Its SystemInfo is this (the recording) machine's uname. With compression =
# auto a compressed .pftrace is gzip, never zstd; with compression = zstd
# and perfetto_samples = stack_sample it is zstd, with StackSamples.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
command -v zstd >/dev/null || prereq_missing "zstd"
EVENTS="sched:sched_switch/call-graph=fp/ sched:sched_waking sched:sched_process_exit raw_syscalls:sys_enter raw_syscalls:sys_exit cpu-clock/freq=999,call-graph=fp/"

# check STEM [KIND]: the snapshot's .pftrace against its perf.data.
check() {
	local pf=$1.pftrace
	[ -s "$pf" ] || fail "no $pf"
	grep -q "\"$(basename "$pf")\"" "$1.json" || fail "$1.json does not list $(basename "$pf")"
	pftrace_decode "$pf" "$WORK/pf.txt"
	pftrace_same_counts "$1.perf.data" "$WORK/pf.txt" "${2:-perf_sample}"
	grep -qxF "      release: \"$(uname -r)\"" "$WORK/pf.txt" || fail "SystemInfo: not this release"
	grep -qxF "      machine: \"$(uname -m)\"" "$WORK/pf.txt" || fail "SystemInfo: not this machine"
	pftrace_in_callstack "$WORK/pf.txt" psnap_spin_inner || fail "psnap_spin_inner in no callstack"
	pftrace_in_callstack "$WORK/pf.txt" __schedule sched:sched_switch ||
		fail "__schedule is in no callstack of sched:sched_switch"
}

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/p.conf" "$EVENTS" 16M
start_daemon "$WORK/p.conf"
start_prog "$WORK/spin.out" "$PROGS/spinner" 30
spin=$LAST_PID
"$PROGS/shortlived_xyz" 1 >"$WORK/sl.out" || fail "shortlived_xyz failed"
slpid=$(awk '{print $2}' "$WORK/sl.out")
# The spinner's samples in the rings: a fifth of a second of its CPU time from here.
wait_work cpu 20 "$spin"
file=$(dump_and_wait)
stem=${file%.perf.data}
check "$stem"
# Whether the rings still hold the exited program depends on how busy the
# machine was since (they are overwritten); when the perf.data has its
# events, the trace must name it and hold its exit, as perf script does.
# (convert_perfetto checks an exited task on a perf record file every time.)
if perf script -i "$file" -F pid 2>/dev/null | grep -qw "$slpid"; then
	pftrace_thread_is "$WORK/pf.txt" "$slpid" shortlived_xyz ||
		fail "the exited shortlived_xyz ($slpid) is not named"
	if perf script -i "$file" 2>/dev/null | grep -q "sched_process_exit:.*pid=$slpid "; then
		grep -A3 '^      sched_process_exit {' "$WORK/pf.txt" | grep -q "pid: $slpid\$" ||
			fail "no sched_process_exit of $slpid"
	fi
	[ -d "/proc/$slpid" ] && fail "shortlived_xyz still running: the test proves nothing"
	note "exited shortlived_xyz $slpid is named"
else
	note "the rings no longer hold shortlived_xyz (busy machine): its name is not checked here"
fi
[ -n "$(pftrace_thread_named "$WORK/pf.txt" psnap_spinner)" ] || fail "psnap_spinner not named"
grep -q 'compact_sched {' "$WORK/pf.txt" || fail "no compact sched_switch"
plain=$(stat -c %s "$stem.pftrace")
magic=$(head -c 4 "$stem.pftrace" | od -An -tx1 | tr -d ' ')
if grep -q '^  "compression": "zstd",$' "$stem.json"; then
	[ "${magic:0:4}" = 1f8b ] || fail "compression = auto compressed: $stem.pftrace is not gzip"
	grep -q '^  "pftrace_compression": "gzip",$' "$stem.json" || fail "the sidecar does not say gzip"
	note "compression = auto compressed: the .pftrace is gzip"
else
	[ "$magic" != 28b52ffd ] && [ "${magic:0:4}" != 1f8b ] ||
		fail "compression = auto did not compress, yet $stem.pftrace is"
	grep -q '^  "pftrace_compression": "none",$' "$stem.json" || fail "the sidecar does not say none"
	note "compression = auto did not compress (busy machine): the .pftrace is plain"
fi
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID" || fail "perfsnapd exited $?"; DAEMON_PID=

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/z.conf" "$EVENTS" 4M "compression = zstd
perfetto_samples = stack_sample"
rm -f "$WORK/out"/*
start_daemon "$WORK/z.conf"
start_prog "$WORK/spin2.out" "$PROGS/spinner" 30 # the first may have finished
wait_work cpu 20 "$LAST_PID"
file=$(dump_and_wait)
stem=${file%.perf.data}
[ "$(head -c 4 "$stem.pftrace" | od -An -tx1 | tr -d ' ')" = 28b52ffd ] ||
	fail "compression = zstd: $stem.pftrace is not zstd"
grep -q '^  "pftrace_compression": "zstd",$' "$stem.json" || fail "the sidecar does not say zstd"
check "$stem" stack_sample
kill -TERM "$DAEMON_PID"; wait "$DAEMON_PID" || fail "perfsnapd exited $?"; DAEMON_PID=
echo "PASS: .pftrace with the snapshot ($plain bytes), counts as perf script, exited task named, zstd"
