#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# pprof (issue #37, item 3): a daemon with formats = perf.data pprof,
# recording cpu-clock with frame-pointer callchains under a CPU-bound
# program, writes <stem>.pb.gz beside the perf.data. go tool pprof -top
# reads it without a warning and lists, for the program's samples (its
# pid: the machine's other work is named from debug files perf finds and
# perfsnapd does not read), the functions perf report --no-children --sort
# sym lists, with the same sample counts (flat); the
# samples carry pid, tid, comm and cpu labels, the profile its wall-clock
# start (events on CLOCK_MONOTONIC); perfsnap-convert --to-pprof
# on the perf.data gives the same profile, names the build-ids a perf.data
# states (HEADER_BUILD_ID, MMAP2), and refuses a recording of tracepoints
# alone ("no samples").
source "$(dirname "$0")/lib.sh"
require_env
command -v go >/dev/null || prereq_missing "go (Debian's golang-go) for go tool pprof"
command -v protoc >/dev/null || prereq_missing protoc
CONVERT=${PERFSNAP_CONVERT:?set PERFSNAP_CONVERT to the perfsnap-convert binary}
# go tool pprof keeps nothing in HOME that a test needs, but wants one.
export HOME="$WORK" GOCACHE="$WORK/gocache" PPROF_TMPDIR="$WORK/pprof-tmp"

# CLOCK_MONOTONIC: a clock the daemon can read beside CLOCK_REALTIME, so
# the profile has its wall-clock start (time_nanos).
FORMATS="perf.data pprof" write_config "$WORK/p.conf" "cpu-clock/freq=999,call-graph=fp/" 4M "" \
	"clock = monotonic"
start_daemon "$WORK/p.conf"
start_prog "$WORK/spin.out" "$PROGS/spinner" 30
wait_for_line "$WORK/spin.out" '^started'
spin_pid=$(awk '/^started/ { print $2; exit }' "$WORK/spin.out")
# Three seconds of its CPU time, some 3000 samples: enough that perf's five
# largest functions stand apart from those that tie at a few samples.
wait_work cpu 300 "$spin_pid"
file=$(dump_and_wait)
profile=${file%.perf.data}.pb.gz
note "snapshot $file"
[ -s "$profile" ] || fail "no $profile beside $file: $(ls "$WORK/out")"
grep -q '"[^"]*\.pb\.gz"' "${file%.perf.data}.json" || fail "the sidecar does not list the .pb.gz"
gzip -t "$profile" || fail "$profile is not gzip"
# time_nanos (field 9): the first sample's wall-clock time, within the
# last minute (the rings hold a few seconds).
now=$(date +%s%N)
start=$(zcat "$profile" | protoc --decode_raw | awk '/^9: / { print $2 }')
if [ -z "$start" ] || [ "$start" -gt "$now" ] || [ "$start" -le $((now - 60000000000)) ]; then
	fail "time_nanos '$start' is not in the minute before $now"
fi

# top FILE OUT [OPTION]: go tool pprof -top, which must say nothing on stderr.
top() {
	go tool pprof -top -nodecount=20 ${3:+"$3"} "$1" >"$2" 2>"$WORK/pprof.err" ||
		{ cat "$WORK/pprof.err" >&2; fail "go tool pprof -top $1 failed"; }
	# a pid=N filter is a number range, which pprof says; anything else is a warning
	! grep -v "^tagfocus:Interpreted '[0-9]*' as range, not regexp$" "$WORK/pprof.err" ||
		fail "go tool pprof warns"
}
top "$profile" "$WORK/all-top.txt"
grep -q '^Type: cpu-clock' "$WORK/all-top.txt" || fail "the default sample type is not cpu-clock"
# The spinner's own samples: other tests may run spinners of their own.
top "$profile" "$WORK/top.txt" "-tagfocus=pid=$spin_pid"
cat "$WORK/top.txt"

# By pid and sym: perf's --pid filter with --sort sym alone drops a
# function whose first sample was another program's.
perf report -i "$file" --stdio --no-children --sort pid,sym -n -g none --percent-limit 0 \
	>"$WORK/report.txt" 2>"$WORK/report.err" || { cat "$WORK/report.err" >&2; fail "perf report"; }
# "  73.98%  2135  4242:psnap_spinner  [.] name": the program's samples by
# name (one name in two objects is one function in pprof)
awk -v p="$spin_pid:psnap_spinner" '$1 ~ /%$/ && $3 == p && $4 ~ /^\[[.k]\]$/ { n[$5] += $2 }
	END { for (s in n) print s, n[s] }' \
	"$WORK/report.txt" | sort -k2,2nr >"$WORK/perf.counts"
# "  2135 73.98% 73.98%  2139 74.12%  name": flat samples by name
awk '$1 ~ /^[0-9]+$/ && $1 > 0 && $2 ~ /%$/ && $5 ~ /%$/ { print $6, $1 }' "$WORK/top.txt" \
	>"$WORK/pprof.counts"
[ -s "$WORK/pprof.counts" ] || fail "no rows in go tool pprof -top"
head -n 8 "$WORK/perf.counts" | sed 's/^/# perf: /'

# Every named function pprof lists has perf's count; unnamed addresses
# ("[libc.so.6]" in pprof, "0x7f.." in perf) have no name to compare.
checked=0
while read -r name n; do
	case $name in \[* | 0x*) continue ;; esac
	want=$(awk -v s="$name" '$1 == s { print $2 }' "$WORK/perf.counts")
	[ "$want" = "$n" ] || fail "$name: $n samples in pprof, ${want:-none} in perf report"
	checked=$((checked + 1))
done <"$WORK/pprof.counts"
# perf's five largest named functions are in pprof's top, with those counts,
# but those pprof leaves out by design: -top drops a node whose cumulative
# count is at most 0.5% of all samples (every program's: "Dropped N nodes
# (cum <= X)"), and a function of X samples or fewer may be one.
cut=$(sed -n 's/^Dropped [0-9]* nodes (cum <= \([0-9]*\))$/\1/p' "$WORK/top.txt")
while read -r name n; do
	[ -z "$cut" ] || [ "$n" -gt "$cut" ] || continue
	have=$(awk -v s="$name" '$1 == s { print $2 }' "$WORK/pprof.counts")
	[ "$have" = "$n" ] || fail "perf report's $name ($n samples) is ${have:-not} in pprof's top"
done < <(grep -v -e '^0x' -e '^\[' "$WORK/perf.counts" | head -n 5)
[ "$(awk 'NR == 1 { print $1 }' "$WORK/pprof.counts")" = psnap_spin_inner ] ||
	fail "psnap_spin_inner is not pprof's top function"
top "$profile" "$WORK/cum.txt" -cum
grep -q 'psnap_spin_outer' "$WORK/cum.txt" || fail "the caller psnap_spin_outer is not in the stacks"

go tool pprof -tags "$profile" >"$WORK/tags.txt" 2>"$WORK/pprof.err" || fail "go tool pprof -tags"
for tag in ' comm:' ' pid:' ' tid:' ' cpu:' ': psnap_spinner'; do
	grep -qF "$tag" "$WORK/tags.txt" || { cat "$WORK/tags.txt" >&2; fail "no '$tag' in -tags"; }
done
go tool pprof -raw "$profile" >"$WORK/raw.txt" 2>/dev/null || fail "go tool pprof -raw"
grep -q 'kernel.kallsyms' "$WORK/raw.txt" || fail "no [kernel.kallsyms] mapping"

# The converter makes the same profile from the perf.data.
"$CONVERT" --to-pprof "$WORK/conv.pb.gz" -i "$file" >"$WORK/conv.out" ||
	fail "perfsnap-convert --to-pprof"
top "$WORK/conv.pb.gz" "$WORK/conv-top.txt"
diff <(sed -n '/flat%/,$p' "$WORK/all-top.txt") <(sed -n '/flat%/,$p' "$WORK/conv-top.txt") ||
	fail "perfsnap-convert's profile differs from the daemon's"

# Build-ids, in both forms a perf.data states them: HEADER_BUILD_ID (perf
# record's default) and MMAP2 records that carry one (--buildid-mmap, which
# writes no header list). The spinner's mapping carries its build-id.
for mode in header mmap; do
	opt=()
	[ "$mode" = mmap ] && opt=(--buildid-mmap)
	perf record -q "${opt[@]}" -e cpu-clock --call-graph=fp -o "$WORK/$mode.data" -- \
		timeout --foreground -s KILL 5 "$PROGS/spinner" 1 >/dev/null 2>&1
	want_id=$(perf buildid-list -i "$WORK/$mode.data" 2>/dev/null |
		awk '$2 ~ /\/spinner$/ { print $1 }')
	[ -n "$want_id" ] || fail "perf buildid-list names no build-id of the spinner ($mode)"
	"$CONVERT" --to-pprof "$WORK/$mode.pb.gz" -i "$WORK/$mode.data" >/dev/null ||
		fail "perfsnap-convert --to-pprof $mode.data"
	go tool pprof -raw "$WORK/$mode.pb.gz" 2>/dev/null | grep "/spinner " >"$WORK/$mode.map"
	grep -q " $want_id " "$WORK/$mode.map" ||
		fail "the spinner's mapping lacks build-id $want_id ($mode): $(cat "$WORK/$mode.map")"
done

# Tracepoints without callchains: nothing to profile, said.
perf record -q -e sched:sched_switch -a -o "$WORK/tp.data" -- sleep 0.3 >/dev/null 2>&1
[ -s "$WORK/tp.data" ] || fail "perf record -e sched:sched_switch"
if "$CONVERT" --to-pprof "$WORK/tp.pb.gz" -i "$WORK/tp.data" >/dev/null 2>"$WORK/tp.err"; then
	fail "a tracepoint-only recording converted to a profile"
fi
grep -q 'no samples' "$WORK/tp.err" || { cat "$WORK/tp.err" >&2; fail "no 'no samples' error"; }
[ ! -e "$WORK/tp.pb.gz" ] || fail "a failed conversion left its output"
echo "PASS: $checked functions of pprof -top match perf report's sample counts"
