#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# perfsnap-convert --to-perfetto against the real tools: what perf record
# wrote (file and pipe mode) decodes with protoc against Perfetto's own
# perfetto_trace.proto, with as many events of each tracepoint and as many
# samples (PerfSamples, or StackSamples with --samples stack_sample) as perf
# script shows; an exited process is named; a function of a test program
# is in a callstack, and a tracepoint recorded with -g has its stacks as
# samples; gzip and zstd outputs decompress to
# the plain output's bytes; --open serves the trace exactly once, with the
# CORS header, 404 for anything else, and exits.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
CONVERT=${PERFSNAP_CONVERT:?set PERFSNAP_CONVERT to the perfsnap-convert binary}
for t in curl zstd gzip; do command -v $t >/dev/null || prereq_missing "$t"; done
cd "$WORK" || fail "no work dir"

convert_ok() { # OUT ARGS...: must succeed with nothing on stderr (not a terminal)
	local out=$1
	shift
	"$CONVERT" --to-perfetto "$out" "$@" >conv.out 2>conv.err || {
		cat conv.err >&2
		fail "perfsnap-convert --to-perfetto $out $* failed"
	}
	[ -s conv.err ] && { cat conv.err >&2; fail "perfsnap-convert printed on stderr"; }
	cat conv.out
}

# 1. Scheduling, syscalls, process events and a timer tracepoint (a typed
#    message from the schema since issue #35, no longer a generic one),
#    system wide, while a short-lived program runs and exits. The system
#    calls are the program's marked ones (over a hundred thousand): every
#    system call of a machine under scripts/test --stress overflowed
#    perf's ring, and the lost exits nested the syscall slices past
#    Perfetto's depth limit. Its ring holds them all (64 MiB a CPU: some
#    300,000 records of 88 to 128 bytes in 0.3 s, on one CPU): under the
#    ASan build's parallel tests perf, starved, lost 18,552 of them with
#    8 MiB, and the trace rightly said so.
sys="id == 4660" # shortlived_xyz.c MARK_NR
perf record -q -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup_new \
	-e sched:sched_process_fork -e sched:sched_process_exit -e sched:sched_process_exec \
	-e raw_syscalls:sys_enter --filter "$sys" -e raw_syscalls:sys_exit --filter "$sys" \
	-e timer:hrtimer_start -a -m 64M -o tp.data \
	-- sh -c "'$PROGS/shortlived_xyz' 0.3 >sl.out; sleep 0.2" >/dev/null 2>&1 ||
	fail "perf record -o tp.data"
convert_ok tp.pftrace -i tp.data
pftrace_decode tp.pftrace tp.txt
pftrace_same_counts tp.data tp.txt
grep -q "converted $(perf script -i tp.data 2>/dev/null | wc -l) tracepoint events and 0 samples" \
	conv.out || fail "wrong summary"
grep -q '^    primary_trace_clock: BUILTIN_CLOCK_PERF' tp.txt || fail "no perf trace clock"
grep -q 'compact_sched {' tp.txt || fail "sched_switch not in the compact encoding"
# The exited program: named in the ProcessTree, and its exit is in the trace
# (by its pid: another test may run a shortlived_xyz meanwhile).
tid=$(awk '{ print $2 }' sl.out)
pftrace_thread_is tp.txt "$tid" shortlived_xyz ||
	fail "the exited shortlived_xyz ($tid) is not named in the ProcessTree"
grep -A3 '^      sched_process_exit {' tp.txt | grep -q "pid: $tid\$" ||
	fail "no sched_process_exit of the named task $tid"
note "exited task $tid is named"

# 2. Pipe mode, kept with tee so perf script reads the same stream. One
#    task's 40,000 system calls, not the whole machine's: the records fit
#    in perf's ring however slowly the pipe drains (under scripts/test
#    --stress, system-wide sys_enter overflowed it and the trace rightly
#    said so).
set -o pipefail
perf record -q -e sched:sched_switch -e raw_syscalls:sys_enter -m 8M -o - -- \
	dd if=/dev/zero of=/dev/null bs=1 count=20000 2>/dev/null |
	tee p.pipe | "$CONVERT" --to-perfetto p.pftrace -i - >conv.out 2>conv.err ||
	{ cat conv.err >&2; fail "pipe conversion failed"; }
set +o pipefail
grep -q "from 'stdin' into 'p.pftrace'" conv.out || fail "pipe: no summary"
pftrace_decode p.pftrace p.txt
pftrace_same_counts p.pipe p.txt

# 3. Sampled callstacks: the test program's own functions, from its ELF symbols.
perf record -q -e cpu-clock -g -o cc.data -- timeout -s KILL 2 "$PROGS/spinner" 1 >/dev/null 2>&1
[ -s cc.data ] || fail "perf record -o cc.data"
convert_ok cc.pftrace -i cc.data
pftrace_decode cc.pftrace cc.txt
pftrace_same_counts cc.data cc.txt
for fn in psnap_spin_inner psnap_spin_outer; do
	pftrace_in_callstack cc.txt $fn || fail "$fn is in no callstack"
done
grep -q 'kind: KIND_KERNEL' cc.txt || fail "no kernel frame (psnap_kernel_work reads /dev/zero)"
grep -q '^        name: "cpu-clock"' cc.txt || fail "the PerfSample timebase is not named cpu-clock"
convert_ok cc.ss.pftrace -i cc.data --samples stack_sample
pftrace_decode cc.ss.pftrace cc.ss.txt
pftrace_same_counts cc.data cc.ss.txt stack_sample
pftrace_in_callstack cc.ss.txt psnap_spin_inner || fail "psnap_spin_inner is in no StackSample's callstack"
grep -q 'unit: UNIT_NANOSECONDS' cc.ss.txt || fail "cpu-clock weights are not nanoseconds"

# 3b. A tracepoint recorded with its callchain (perf record -g): its events
#     as ftrace events, its stacks as samples of a stream named after it.
perf record -q -e sched:sched_switch -g -a -m 8M -o tg.data -- sleep 0.5 >/dev/null 2>&1 ||
	fail "perf record -o tg.data"
convert_ok tg.pftrace -i tg.data
pftrace_decode tg.pftrace tg.txt
pftrace_same_counts tg.data tg.txt
n=$(perf script -i tg.data -F event 2>/dev/null | grep -c 'sched:sched_switch')
grep -q ": $n of the tracepoint events have their callstacks as samples too" conv.out ||
	fail "the summary does not count $n tracepoint callstacks"
pftrace_in_callstack tg.txt __schedule sched:sched_switch ||
	fail "__schedule is in no callstack of sched:sched_switch"

# 4. Compression: the same bytes inside.
for c in gzip zstd; do
	convert_ok "cc.$c.pftrace" -i cc.data --compression $c
done
gzip -dc cc.gzip.pftrace | cmp - cc.pftrace || fail "gzip output differs from plain"
zstd -q -dc cc.zstd.pftrace | cmp - cc.pftrace || fail "zstd output differs from plain"
pftrace_decode cc.zstd.pftrace ccz.txt
cmp ccz.txt cc.txt || fail "zstd decodes differently"

# 5. --open: one GET of the trace at a path with a random token (another
# local user cannot guess it), with CORS for the origin; 404 otherwise; exit.
# Port 9001 is fixed (the UI fetches from nowhere else): one test at a time
# on this machine holds it, whichever build or worktree runs it.
exec {portlock}>/tmp/perfsnapd-test-port9001.lock
flock "$portlock"
origin=http://127.0.0.1:10000
"$CONVERT" --to-perfetto open.pftrace -i cc.data --open --origin "$origin" >open.out 2>open.err &
server=$!
CHILD_PIDS+=("$server")
for _ in $(seq 1 600); do
	grep -q '^Waiting' open.out 2>/dev/null && break
	kill -0 "$server" 2>/dev/null || break
	sleep 0.1
done
grep -qE "^Open $origin/#!/\?url=http://127.0.0.1:9001/[0-9a-f]{32}/open.pftrace\$" open.out ||
	{ cat open.out open.err >&2; fail "--open printed no URL with a token"; }
url=$(sed -n 's|^Open .*?url=||p' open.out)
grep -q 'ssh -L 9001:127.0.0.1:9001' open.out || fail "--open: no port forwarding hint"
for other in http://127.0.0.1:9001/open.pftrace "${url%/open.pftrace}/other.pftrace" \
	"http://127.0.0.1:9001/00000000000000000000000000000000/open.pftrace"; do
	code=$(curl -s -o /dev/null -w '%{http_code}' "$other")
	[ "$code" = 404 ] || fail "$other got $code, want 404"
done
code=$(curl -s -o /dev/null -w '%{http_code}' -H "Origin: https://evil.example" "$url")
[ "$code" = 403 ] || fail "another origin got $code, want 403"
curl -s -D headers.txt -H "Origin: $origin" -o got.pftrace "$url" ||
	fail "GET of the trace failed"
grep -q '^HTTP/1.1 200' headers.txt || fail "GET: $(head -1 headers.txt)"
grep -qi "^Access-Control-Allow-Origin: $origin"$'\r'"\$" headers.txt ||
	{ cat headers.txt >&2; fail "no CORS header for $origin"; }
cmp got.pftrace open.pftrace || fail "served bytes differ from the file"
# It exits by itself now (if it did not, ctest's timeout would end the test).
wait "$server" || fail "--open exited $?"
grep -q 'fetched open.pftrace' open.out || fail "--open did not say it was fetched"
curl -s -o /dev/null "$url" && fail "still serving after one GET"
flock -u "$portlock"

# 6. Bad use: one clear line.
"$CONVERT" --to-trace-dat x.dat --compression gzip -i cc.data >/dev/null 2>err.txt &&
	fail "trace.dat with gzip accepted"
[ "$(wc -l <err.txt)" = 1 ] || fail "want one error line"
ls -a | grep -q '\.tmp$' && fail "temporary file left behind"
note "ok"
