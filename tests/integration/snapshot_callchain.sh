#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# cpu-clock with frame-pointer callchains: perf report names the user
# functions of a running program and kernel symbols.
source "$(dirname "$0")/lib.sh"
require_env

write_config "$WORK/p.conf" "cpu-clock/freq=999,call-graph=fp/" 4M
start_daemon "$WORK/p.conf"
start_prog "$WORK/spin.out" "$PROGS/spinner" 30
wait_for_line "$WORK/spin.out" '^started'
# Half a second of its CPU time: some 500 samples, with their callchains.
wait_work cpu 50 "$LAST_PID"
file=$(dump_and_wait)
note "snapshot $file"

perf_script_clean "$file" "$WORK/script.txt"
perf report -i "$file" --stdio --no-children --sort comm,sym >"$WORK/report.txt" \
	2>"$WORK/report.err" || { cat "$WORK/report.err" >&2; fail "perf report failed"; }
grep -q 'psnap_spin_inner' "$WORK/report.txt" || fail "user function psnap_spin_inner not named"
grep -q 'psnap_spin_outer' "$WORK/report.txt" || fail "caller psnap_spin_outer not in callchains"
grep -q 'psnap_spinner' "$WORK/report.txt" || fail "comm psnap_spinner not shown"
# Kernel samples of the read() loop must resolve to kernel symbols.
grep -E '\[k\] [a-z_][a-z0-9_.]+' "$WORK/report.txt" | grep -vq '0x' ||
	fail "no kernel symbol named"
grep -qE '\[k\] 0x[0-9a-f]+' "$WORK/report.txt" &&
	note "some kernel addresses unresolved: $(grep -cE '\[k\] 0x' "$WORK/report.txt")"
echo "PASS: $(grep -c 'psnap_spin_inner' "$WORK/report.txt") report lines name psnap_spin_inner"
