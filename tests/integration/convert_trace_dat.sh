#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# perfsnap-convert against the real tools: what perf record wrote (file and
# pipe mode, compressed, with and without --time, mixed with software
# samples) turns into a trace.dat whose `trace-cmd report` shows exactly the
# events `perf script` shows (compare_script_report.sh); an existing or
# symlinked OUT is left alone, and a truncated input fails with one clear
# line and no file. Last, a zstd-compressed perfsnapd snapshot.
source "$(dirname "$0")/lib.sh"
require_env
CONVERT=${PERFSNAP_CONVERT:?set PERFSNAP_CONVERT to the perfsnap-convert binary}
COMPARE="$(dirname "$0")/compare_script_report.sh"
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
cd "$WORK" || fail "no work dir"

# convert_ok OUT ARGS...: runs the converter, which must succeed quietly.
convert_ok() {
	local out=$1
	shift
	"$CONVERT" --to-trace-dat "$out" "$@" >conv.out 2>conv.err || {
		cat conv.err >&2
		fail "perfsnap-convert --to-trace-dat $out $* failed"
	}
	[ -s conv.err ] && { cat conv.err >&2; fail "perfsnap-convert printed on stderr"; }
	[ "$(tail -c 1 conv.out | od -An -tx1 | tr -d ' ')" = 0a ] ||
		fail "the summary does not end with a newline"
	cat conv.out
}

# convert_fails OUT ARGS...: must exit 1 with one line on stderr.
convert_fails() {
	local out=$1 rc
	shift
	"$CONVERT" --to-trace-dat "$out" "$@" >conv.out 2>conv.err
	rc=$?
	[ "$rc" = 1 ] || fail "perfsnap-convert $* exited $rc, want 1"
	[ "$(wc -l <conv.err)" = 1 ] || { cat conv.err >&2; fail "want one error line"; }
	note "refused: $(cat conv.err)"
}

# same_events PERF_DATA TRACE_DAT [perf script options]
same_events() {
	local data=$1 dat=$2
	shift 2
	perf script --ns --show-task-events -i "$data" "$@" >script.txt 2>script.err ||
		fail "perf script -i $data"
	trace-cmd report -N -t "$dat" >report.txt 2>report.err || {
		cat report.err >&2
		fail "trace-cmd report $dat"
	}
	grep -v '^ *$' report.err >&2 && fail "trace-cmd report $dat printed on stderr"
	bash "$COMPARE" script.txt report.txt || fail "$dat differs from perf script -i $data $*"
}

no_leftovers() {
	ls -a "$WORK" | grep -q '\.tmp$' && fail "temporary file left behind: $(ls -a "$WORK")"
	return 0
}

# 1. File mode, system-wide sched_switch.
perf record -q -e sched:sched_switch -a -o x.data sleep 1 >/dev/null 2>&1 ||
	fail "perf record -o x.data"
convert_ok y.dat -i x.data
n=$(perf script -i x.data 2>/dev/null | wc -l)
grep -q "converted $n events from 'x.data' into 'y.dat'" conv.out || fail "wrong count, want $n"
same_events x.data y.dat
no_leftovers

# 2. Pipe mode: the stream is kept (tee) so perf script can read it too.
set -o pipefail
perf record -q -e sched:sched_switch -a -o - sleep 1 2>/dev/null | tee z.pipe |
	"$CONVERT" --to-trace-dat z.dat -i - >conv.out 2>conv.err ||
	{ cat conv.err >&2; fail "pipe conversion failed"; }
set +o pipefail
cat conv.out
grep -q "from 'stdin' into 'z.dat'" conv.out || fail "pipe: no summary"
same_events z.pipe z.dat

# 2b. Compressed records (perf record -z), which perfsnapd can write too.
perf record -q -z -e sched:sched_switch -a -o zc.data sleep 0.5 >/dev/null 2>&1 ||
	fail "perf record -z -o zc.data"
convert_ok zc.dat -i zc.data
same_events zc.data zc.dat

# 3. --time keeps exactly the samples perf script --time keeps.
perf script --ns -i x.data 2>/dev/null |
	gawk 'match($0, / ([0-9]+\.[0-9]+): /, m) { print m[1] }' >times.txt
total=$(wc -l <times.txt)
[ "$total" -ge 8 ] || fail "too few events ($total) to test --time"
start=$(sed -n "$((total / 4))p" times.txt)
end=$(sed -n "$((total * 3 / 4))p" times.txt)
convert_ok t.dat -i x.data --time "$start,$end"
same_events x.data t.dat --time "$start,$end"
kept=$(perf script -i x.data --time "$start,$end" 2>/dev/null | wc -l)
[ "$kept" -lt "$total" ] || fail "--time kept everything"
grep -q "converted $kept events" conv.out || fail "--time: want $kept events"
grep -q "$((total - kept)) samples outside --time" conv.out || fail "--time: skip count"
convert_ok t2.dat -i x.data --time "$start,"
same_events x.data t2.dat --time "$start,"

# 4. Mixed with software samples: those are skipped and counted.
perf record -q -e sched:sched_switch -e cpu-clock -c 1000000 -a -o mixed.data sleep 0.5 \
	>/dev/null 2>&1 || fail "perf record -o mixed.data"
convert_ok mixed.dat -i mixed.data
sw=$(perf script -i mixed.data 2>/dev/null | grep -c ' cpu-clock')
grep -q "skipped $sw non-tracepoint samples" conv.out || fail "want $sw skipped samples"
perf script --ns --show-task-events -i mixed.data 2>/dev/null | grep -v ' cpu-clock' >script.txt
trace-cmd report -N -t mixed.dat >report.txt 2>/dev/null || fail "trace-cmd report mixed.dat"
bash "$COMPARE" script.txt report.txt || fail "mixed.dat differs from perf script"

# 5. An existing OUT is kept without --force and replaced with it.
echo "keep me" >old.dat
convert_fails old.dat -i x.data
grep -q "use --force" conv.err || fail "no hint at --force"
[ "$(cat old.dat)" = "keep me" ] || fail "old.dat was changed"
convert_ok old.dat -i x.data --force
same_events x.data old.dat
no_leftovers

# 6. A symbolic link at OUT is never followed, with or without --force.
echo "target" >target.dat
ln -s target.dat link.dat
ln -s missing.dat dangling.dat
for force in "" --force; do
	convert_fails link.dat -i x.data $force
	convert_fails dangling.dat -i x.data $force
	[ "$(cat target.dat)" = target ] || fail "the link's target was written"
	[ -L link.dat ] && [ -L dangling.dat ] || fail "a link was replaced"
	[ -e missing.dat ] && fail "the dangling link was followed"
done
no_leftovers

# 7. Truncated input: one clear error, exit 1, no output.
size=$(stat -c %s x.data)
head -c $((size / 2)) x.data >cut.data
convert_fails cut.data.dat -i cut.data
grep -q "truncated" conv.err || fail "the error does not say truncated"
[ -e cut.data.dat ] && fail "output left after a failure"
# A stream has no end marker: cut inside its last record.
head -c $(($(stat -c %s z.pipe) - 4)) z.pipe >cut.pipe
"$CONVERT" --to-trace-dat cut.pipe.dat -i - <cut.pipe >conv.out 2>conv.err
[ $? = 1 ] || fail "truncated pipe input: want exit 1"
grep -q "truncated" conv.err || { cat conv.err >&2; fail "truncated pipe: no clear error"; }
[ -e cut.pipe.dat ] && fail "output left after a failed pipe conversion"
no_leftovers
# 7b. A damaged format file in the input's TRACING_DATA (its "ID:" line
# garbled, same length): the input is named as what is wrong, not the
# output (this was "cannot write 'fmt.dat': Invalid argument").
python3 - x.data fmt.data <<'PY' || fail "cannot damage x.data"
import sys
d = open(sys.argv[1], 'rb').read()
key = b'name: sched_switch\nID:'
assert d.count(key) == 1
open(sys.argv[2], 'wb').write(d.replace(key, b'name: sched_switch\nI@:'))
PY
convert_fails fmt.dat -i fmt.data
grep -q "^perfsnap-convert: 'fmt.data': .*TRACING_DATA.*format file" conv.err ||
	fail "the damaged format is not reported as a problem of 'fmt.data'"
grep -q "cannot write" conv.err && fail "a damaged input reported as a write error"
[ -e fmt.dat ] && fail "output left after a damaged input"
no_leftovers
# 8. perfsnapd's own snapshot, zstd-compressed, converts to the same events.
write_config "$WORK/d.conf" "sched:sched_switch sched:sched_wakeup" 2M "compression = zstd"
start_daemon "$WORK/d.conf"
# Switches and wakeups on every CPU, made after the rings record.
for c in $(seq 0 $(($(nproc) - 1))); do taskset -c "$c" true; done
snap=$(dump_and_wait)
convert_ok snap.dat -i "$snap"
same_events "$snap" snap.dat
no_leftovers
echo "PASS: $n events (file), pipe, zstd, --time ($kept of $total), mixed, refusals, perfsnapd"
