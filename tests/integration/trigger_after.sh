#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# after = 200ms: recording goes on for 200 ms after the match before the
# dump, so the files hold events of those 200 ms (a ticker keeps making
# them), and the abort that fired is among them.
. "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || prereq_missing "python3"

# Task names unique to this run: a concurrent run of this test elsewhere
# on the machine must not match its filter.
tag=$(($$ % 90000 + 10000))
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 2M
cat >>"$WORK/p.conf" <<CONF
[trigger abort]
event = signal:signal_generate
filter = sig == 6 && comm == "a$tag-abort"
after = 200ms
CONF
start_daemon "$WORK/p.conf"
# Events all the time: a task that wakes every 5 ms.
(while :; do sleep 0.005; done) &
CHILD_PIDS+=($!)
"$PROGS/crasher" "a$tag-abort" 10 abort &
pid=$!
wait "$pid" && fail "the crasher did not die"
data=$(wait_snapshot 0)
python3 - "${data%.perf.data}.json" "$pid" <<'PY' || fail "the snapshot does not reach 200 ms past the match"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["trigger"]
assert t["name"] == "abort" and t["pid"] == int(sys.argv[2]), t
end = max(r["last_time"] for r in j["rings"] if r["kind"] in ("overwrite", "tracefs"))
print("# match at %d, rings end %.1f ms later" % (t["time"], (end - t["time"]) / 1e6))
assert end >= t["time"] + 190 * 1000 * 1000, (end - t["time"])
PY
perf_script_clean "$data" "$WORK/script.txt"
grep -qE "a$tag-abort +$pid .*signal_generate: sig=6 " "$WORK/script.txt" ||
	fail "perf script: no abort of a$tag-abort"
# Events of the 200 ms after it, in perf script's own timestamps too.
python3 - "$WORK/script.txt" "$pid" <<'PY' || fail "perf script: no events 190 ms after the match"
import re, sys
times, crash = [], None
for line in open(sys.argv[1]):
    m = re.search(r"\] +(\d+\.\d+): ", line)
    if not m:
        continue
    times.append(float(m.group(1)))
    if "signal_generate: sig=6" in line and (" %s [" % sys.argv[2]) in line:
        crash = float(m.group(1))
assert crash is not None
assert max(times) >= crash + 0.190, max(times) - crash
PY
grep -q "trigger abort fired" "$WORK/daemon.log" || fail "no log line for the trigger"
echo "PASS"
