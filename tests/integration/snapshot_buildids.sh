#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Build-ids identify what a snapshot's samples hit even once a binary is
# gone: a program copied to a temporary directory runs, exits and is
# deleted before the dump; perf buildid-list must still list its build-id
# (as readelf read it before the deletion) and the kernel's, perf script
# and perf report must read the file without a warning, and the Perfetto
# trace's mapping of the program must carry the same build-id in trace
# processor.
# perfsnapctl status counts build-ids read from files. With [snapshot]
# symbols = none the same run gives paths only: no BUILD_ID feature, no
# build-id in the mmap records.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
find_trace_processor

FORMATS="perf.data perfetto" write_config "$WORK/p.conf" "cpu-clock/call-graph=fp/" 32M
start_daemon "$WORK/p.conf"

mkdir -p "$WORK/bin"
cp "$PROGS/shortlived_xyz" "$WORK/bin/bidspin"
want=$(readelf -n "$WORK/bin/bidspin" | sed -n 's/.*Build ID: *//p')
[ -n "$want" ] || prereq_missing "shortlived_xyz linked with a build-id"
kernel=$(perf buildid-list -k 2>/dev/null)
[ -n "$kernel" ] || prereq_missing "the running kernel's build-id (/sys/kernel/notes)"
"$WORK/bin/bidspin" 1 >"$WORK/spin.out" 2>&1 || fail "bidspin failed"
rm -f "$WORK/bin/bidspin"
file=$(dump_and_wait)
note "snapshot $file; bidspin build-id $want, kernel $kernel"

perf buildid-list -i "$file" >"$WORK/ids.txt" 2>"$WORK/ids.err" ||
	{ cat "$WORK/ids.err" >&2; fail "perf buildid-list -i $file"; }
grep -qx "$want $WORK/bin/bidspin" "$WORK/ids.txt" ||
	{ cat "$WORK/ids.txt" >&2; fail "bidspin's build-id $want not listed"; }
grep -qx "$kernel \[kernel.kallsyms\]" "$WORK/ids.txt" ||
	{ cat "$WORK/ids.txt" >&2; fail "the kernel's build-id $kernel not listed"; }
perf_script_clean "$file" "$WORK/script.txt"
perf report -i "$file" --stdio >"$WORK/report.txt" 2>"$WORK/report.err" ||
	{ cat "$WORK/report.err" >&2; fail "perf report -i $file"; }
[ -s "$WORK/report.err" ] && { cat "$WORK/report.err" >&2; fail "perf report printed on stderr"; }

pf=${file%.perf.data}.pftrace
got=$(tp_query "$pf" "select build_id from stack_profile_mapping where name = '$WORK/bin/bidspin'" |
	sort -u)
[ "$got" = "$want" ] ||
	fail "the .pftrace's mapping of bidspin has build_id '$got', not $want"
# The side-band counts where its ids came from: read from the files (the
# kernel's are not asked for, see decisions.md).
"${PERFSNAPCTL:?}" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
	fail "perfsnapctl status"
read_ids=$(sed -n 's/^build-ids: [0-9]* from the kernel, \([0-9]*\) read.*/\1/p' "$WORK/status.txt")
[ "${read_ids:-0}" -gt 0 ] || { cat "$WORK/status.txt" >&2; fail "no build-id read from a file"; }
note "$(grep '^build-ids:' "$WORK/status.txt")"
grep -q '^# missing features:.* BUILD_ID ' < <(perf report --header-only -i "$file" 2>/dev/null) &&
	fail "the perf.data says it has no BUILD_ID feature"
listed=$(grep -c . "$WORK/ids.txt")
sidecar=$(sed -n 's/^  "build_ids": \([0-9]*\),$/\1/p' "${file%.perf.data}.json")
[ "$sidecar" = "$listed" ] || fail "the sidecar says ${sidecar:-no} build_ids, perf buildid-list lists $listed"

kill "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null
FORMATS="perf.data perfetto" write_config "$WORK/none.conf" "cpu-clock/call-graph=fp/" 32M \
	"symbols = none"
start_daemon "$WORK/none.conf"
cp "$PROGS/shortlived_xyz" "$WORK/bin/bidspin"
"$WORK/bin/bidspin" 1 >"$WORK/spin.out" 2>&1 || fail "bidspin failed"
file=$(dump_and_wait)
perf report --header-only -i "$file" 2>/dev/null | grep -q '^# missing features:.* BUILD_ID ' ||
	fail "symbols = none: the perf.data has a BUILD_ID feature"
perf script --show-mmap-events -F comm -i "$file" 2>/dev/null | grep -q 'PERF_RECORD_MMAP2' ||
	fail "symbols = none: no mmap records"
perf script --show-mmap-events -F comm -i "$file" 2>/dev/null | grep -qE 'PERF_RECORD_MMAP2.* <[0-9a-f]+>\]' &&
	fail "symbols = none: mmap records carry build-ids"
grep -q '^  "build_ids": 0,$' "${file%.perf.data}.json" ||
	fail "symbols = none: the sidecar counts build-ids"
echo "PASS: the deleted bidspin's build-id $want in perf.data and .pftrace, and the kernel's; none with symbols = none"
