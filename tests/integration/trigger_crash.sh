#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# [trigger segv] on signal:signal_generate with a kernel filter: a child that
# dies of SIGSEGV is in the snapshot its own crash triggered (named, with
# the signal_generate event and the marked system calls it made before), in
# perf.data and trace.dat; a child killed by SIGUSR1, which the filter
# excludes, triggers nothing.
. "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v python3 >/dev/null || prereq_missing "python3"

# Task names unique to this run: a concurrent run of this test elsewhere
# on the machine must not match its filter.
tag=$(($$ % 90000 + 10000))
segv_name=c$tag-segv usr1_name=c$tag-usr1
FORMATS="perf.data trace.dat"
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 2M
cat >>"$WORK/p.conf" <<CONF
[trigger segv]
event = signal:signal_generate
filter = (sig == 11 || sig == 6) && comm ~ "c$tag-*"   ; only this test's tasks
CONF
start_daemon "$WORK/p.conf"
CTL=("$PERFSNAPCTL" --socket "$WORK/control.sock")

# The excluded signal first: had it triggered, its snapshot would come first.
"$PROGS/crasher" "$usr1_name" 25 usr1 &
usr1_pid=$!
wait "$usr1_pid" && fail "the SIGUSR1 crasher did not die"
"$PROGS/crasher" "$segv_name" 30 segv &
segv_pid=$!
wait "$segv_pid" && fail "the SIGSEGV crasher did not die"
data=$(wait_snapshot 0)
json=${data%.perf.data}.json
tdat=${data%.perf.data}.trace.dat
[ -f "$tdat" ] || fail "no trace.dat beside $data"

# The sidecar says what fired, with the crasher's own pid and name.
python3 - "$json" "$segv_pid" "$segv_name" <<'PY' || fail "sidecar $json: wrong trigger"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["trigger"]
assert j["reason"] == "trigger segv", j["reason"]
assert t["name"] == "segv" and t["kind"] == "event", t
assert t["event"] == "signal:signal_generate", t
assert t["pid"] == int(sys.argv[2]) and t["tid"] == t["pid"], t
assert t["comm"] == sys.argv[3], t
assert t["time"] >= j["first_time"] and t["time"] <= j["last_time"], (t, j["first_time"], j["last_time"])
assert j["events"]["signal:signal_generate"] >= 1, j["events"]
PY
grep -q "TRIGGER\|reason trigger segv" "$WORK/daemon.log" || fail "log line does not name the trigger"

perf_script_clean "$data" "$WORK/script.txt"
grep -E "^ *$segv_name +$segv_pid .*signal:signal_generate: sig=11 .*comm=$segv_name pid=$segv_pid" \
	"$WORK/script.txt" >/dev/null || fail "perf script: no signal_generate sig=11 of $segv_name"
marks=$(grep -cE "^ *$segv_name +$segv_pid .*raw_syscalls:sys_enter: NR 4660 " "$WORK/script.txt")
[ "$marks" = 30 ] || fail "perf script: $marks of the crasher's 30 marked syscalls, want 30"
# What it did comes before the crash.
last_mark=$(grep -nE "$segv_name +$segv_pid .*NR 4660 " "$WORK/script.txt" | tail -n1 | cut -d: -f1)
crash=$(grep -nE "$segv_name +$segv_pid .*signal_generate" "$WORK/script.txt" | head -n1 | cut -d: -f1)
[ "$last_mark" -lt "$crash" ] || fail "perf script: the marks do not come before the crash"
grep -q "$usr1_name.*signal_generate" "$WORK/script.txt" &&
	fail "the excluded SIGUSR1 was recorded as a trigger match"

trace-cmd report "$tdat" >"$WORK/report.txt" 2>"$WORK/report.err" || {
	cat "$WORK/report.err" >&2
	fail "trace-cmd report failed"
}
grep -E "$segv_name-$segv_pid .*signal_generate: +sig=11 " "$WORK/report.txt" >/dev/null ||
	fail "trace.dat: no signal_generate of $segv_name-$segv_pid"

# One snapshot, one match: the kernel filtered SIGUSR1 out.
"${CTL[@]}" status >"$WORK/status.txt" || fail "perfsnapctl status failed"
grep -q "^trigger: segv (event signal:signal_generate): 1 matches, 1 fired, 1 dumps started, 0 refused" \
	"$WORK/status.txt" || { cat "$WORK/status.txt" >&2; fail "status: wrong trigger counts"; }
[ "$(ls "$WORK/out"/*.json | wc -l)" = 1 ] || fail "more than one snapshot"
echo "PASS"
