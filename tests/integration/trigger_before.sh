#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [trigger NAME] before = 2s: the snapshot keeps the 2 s before the match
# (issue 33, part 3), in perf.data and trace.dat alike, and the sidecar
# says so; a trigger without before takes everything the rings hold.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v python3 >/dev/null || prereq_missing "python3"

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "sched:sched_switch" 16M
cat >>"$WORK/p.conf" <<CONF
[trigger recent]
before = 2s
[trigger all]
CONF
start_daemon "$WORK/p.conf"
sock="$WORK/control.sock"
(while :; do sleep 0.005; done) &
CHILD_PIDS+=($!)
# The rings (16M: they do not wrap here) reach back past the 2 s kept.
wait_recorded 2.25

"$CTL" --socket "$sock" trigger recent >"$WORK/recent.out" 2>"$WORK/recent.err" ||
	{ cat "$WORK/recent.err"; fail "perfsnapctl trigger recent"; }
stem=$(grep '\.json$' "$WORK/recent.out")
stem=${stem%.json}
[ -n "$stem" ] || fail "trigger recent printed no sidecar"
perf_script_complete "$stem.perf.data"
perf script -i "$stem.perf.data" -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p' >"$WORK/perf.times"
trace-cmd report -t "$stem.trace.dat" 2>/dev/null | grep -oE '\] +[0-9]+\.[0-9]+:' |
	grep -oE '[0-9]+\.[0-9]+' | sed -n '1p;$p' >"$WORK/tc.times"
python3 - "$stem.json" "$WORK/perf.times" "$WORK/tc.times" <<'PY' || fail "trigger recent: not the 2 s before it"
import json, sys
j = json.load(open(sys.argv[1]))
t, w = j["trigger"], j["window"]
assert t["name"] == "recent" and t["before_ms"] == 2000, t
assert w["to_ns"] - w["from_ns"] == 2000000000, w
assert w["cropped_records"] > 0, "nothing cropped: the test proves nothing"
for name, path in (("perf.data", sys.argv[2]), ("trace.dat", sys.argv[3])):
    first, last = [round(float(x) * 1e9) for x in open(path).read().split()]
    assert w["from_ns"] - 1000 <= first <= w["from_ns"] + 10**7, (name, first - w["from_ns"])
    assert w["to_ns"] - 10**7 <= last <= w["to_ns"] + 1000, (name, w["to_ns"] - last)
    print("# %s: first +%.3f ms, last -%.3f ms" % (name, (first - w["from_ns"]) / 1e6,
                                                   (w["to_ns"] - last) / 1e6))
PY

wait_recorded 3.25 # for more than the 3 s checked below
"$CTL" --socket "$sock" trigger all >"$WORK/all.out" 2>"$WORK/all.err" ||
	{ cat "$WORK/all.err"; fail "perfsnapctl trigger all"; }
stem=$(grep '\.json$' "$WORK/all.out")
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "window" not in j and j["trigger"]["before_ms"] == 0 and j["last_time"] - j["first_time"] > 3e9, j["trigger"]' \
	"$stem" || fail "trigger all: not everything"

# A bad before is refused at its line (exit 78), and a reload keeps the old config.
cp "$WORK/p.conf" "$WORK/bad.conf"
sed -i 's/^before = 2s$/before = 2 s/' "$WORK/bad.conf"
line=$(grep -n '^before = 2 s$' "$WORK/bad.conf" | cut -d: -f1)
"$PERFSNAPD" --config "$WORK/bad.conf" --check-config >"$WORK/check.out" 2>&1
rc=$?
[ "$rc" = 78 ] || { cat "$WORK/check.out"; fail "--check-config of a bad before: exit $rc, want 78"; }
grep -q "bad.conf:$line: .*before: duration '2 s' is bad" "$WORK/check.out" ||
	{ cat "$WORK/check.out"; fail "no diagnostic at line $line"; }
cp "$WORK/bad.conf" "$WORK/p.conf"
"$CTL" --socket "$sock" reload >"$WORK/reload.out" 2>&1 && fail "reload of a bad before succeeded"
grep -q "before: duration '2 s' is bad" "$WORK/reload.out" || { cat "$WORK/reload.out"; fail "reload: no diagnostic"; }
"$CTL" --socket "$sock" trigger recent >"$WORK/again.out" 2>&1 || { cat "$WORK/again.out"; fail "trigger after a refused reload"; }
stem=$(grep '\.json$' "$WORK/again.out")
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["window"]["to_ns"] - j["window"]["from_ns"] == 2000000000' \
	"$stem" || fail "the refused reload changed the trigger"
