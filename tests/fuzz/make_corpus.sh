#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Remakes the seed corpus of fuzz_perfdata_reader in DIR (default: corpus/
# beside this script): a few tiny perf.data files recorded here (file and
# pipe mode; one event, two with PERF_SAMPLE_ID, IDENTIFIER with a dummy
# event, callchains, software samples only, zstd-compressed, the events
# the Perfetto writer encodes its own way), then
# truncated and bit-flipped copies of each. Needs root and perf. Inputs the fuzzer found are kept in
# the same directory under crash-* / found-* names; this script leaves them.
set -euo pipefail
dir=${1:-$(dirname "$0")/corpus}
mkdir -p "$dir"
cd "$dir"
rec() { perf record -q --no-buildid "$@" 2>/dev/null >/dev/null; }

rec -e sched:sched_switch -o seed-tp-single.data true
rec -e sched:sched_switch -e sched:sched_wakeup -o seed-tp-two-id.data -- sh -c 'sleep 0.01'
perf record -q -e sched:sched_switch -e sched:sched_wakeup -o - -- sh -c 'sleep 0.01' \
	2>/dev/null >seed-tp-pipe.data
rec -e cpu-clock -c 100000 -o seed-sw-only.data -- sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i+1)); done'
rec -g -e sched:sched_switch -e cpu-clock -c 200000 -o seed-mixed-callchain.data -- \
	sh -c 'sleep 0.01; i=0; while [ $i -lt 300 ]; do i=$((i+1)); done'
rec -g -e sched:sched_switch -e sched:sched_waking -e raw_syscalls:sys_enter \
	-e timer:hrtimer_start -e cpu-clock -c 200000 -o seed-perfetto-mix.data -- \
	sh -c 'sleep 0.01; i=0; while [ $i -lt 300 ]; do i=$((i+1)); done'
rec --synth=no -e sched:sched_switch -a -o seed-tp-syswide.data sleep 0.01
rec -z -e sched:sched_switch -o seed-tp-zstd.data -- sh -c 'sleep 0.01'
perf record -q -z -e sched:sched_switch -o - -- sh -c 'sleep 0.01' \
	2>/dev/null >seed-tp-zstd-pipe.data

# flip FILE OFFSET: inverts one byte in place.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

RANDOM=7
for f in seed-*.data; do
	base=${f%.data}
	size=$(stat -c %s "$f")
	for cut in 16 104 $((size / 2)) $((size - 8)); do
		head -c "$cut" "$f" >"$base.cut$cut"
	done
	# Header fields first (sizes, offsets, feature bits), then anywhere.
	for off in 16 48 $((RANDOM % size)) $((RANDOM % size)); do
		cp "$f" "$base.flip$off"
		flip "$base.flip$off" "$off"
	done
done
chmod 0644 ./*
ls | wc -l
