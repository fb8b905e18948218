#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# perfsnapctl dump --last, --since/--until (ISO 8601 and relative) and
# --max-size (issue 33, part 3): perf.data, trace.dat and .pftrace are
# cropped alike, their first and last records within 10 ms of the window's
# bounds, every sample's thread named; a size keeps each data file within
# it; bad input writes nothing and says why; a window the rings do not
# hold writes what they hold and says so; SIGUSR2 still takes everything.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v python3 >/dev/null || prereq_missing "python3"
command -v bc >/dev/null || prereq_missing "bc"
TP=""
for c in "${TRACE_PROCESSOR:-}" "${SOURCE_DIR:-}/../shared/tools/trace_processor_shell" \
	/work/shared/tools/trace_processor_shell; do
	[ -n "$c" ] && [ -x "$c" ] && { TP=$c; break; }
done
[ -n "$TP" ] || prereq_missing "trace_processor_shell"

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/p.conf" \
	"sched:sched_switch cpu-clock/freq=499/" 16M
start_daemon "$WORK/p.conf"
sock="$WORK/control.sock"
# Dumps back to back: each pause drops events the next snapshot says it lost.
PFTRACE_LOSS_OK=1
# Events all the time, and tasks that come and go (names from the side-band).
(while :; do sleep 0.005; done) &
CHILD_PIDS+=($!)
# Each window below waits until the rings (16M: they do not wrap here)
# reach back past its start: how long the daemon has recorded.

files() { find "$WORK/out" -type f | sort; }

# dump ARGS...: perfsnapctl dump, its stdout in $WORK/dump.out, its stderr in $WORK/dump.err.
dump() {
	"$CTL" --socket "$sock" dump "$@" >"$WORK/dump.out" 2>"$WORK/dump.err"
}

# check_window STEM LABEL: every format's first and last record within 10 ms
# of the sidecar's window, and every sample's thread named.
check_window() {
	local stem=$1 label=$2
	# Earlier dumps paused the rings: their LOST records may be in the window.
	perf_script_complete "$stem.perf.data"
	perf script -i "$stem.perf.data" >"$WORK/script.txt" 2>/dev/null
	# perf prints ":TID" for a thread it has no name for. (":-1 -1" is a
	# sample the kernel wrote after it released the task: no tid to name.)
	if grep -E '^ *:[0-9]+ ' "$WORK/script.txt" | head -3 | grep .; then
		grep -o '"tasks[a-z_]*": [0-9]*' "$stem.json"
		"$CTL" --socket "$sock" status | grep -E '^sideband'
		fail "$label: perf script has samples of unnamed threads"
	fi
	perf script -i "$stem.perf.data" -F time 2>/dev/null | tr -d ' :' | sed -n '1p;$p' \
		>"$WORK/perf.times"
	trace-cmd report -t "$stem.trace.dat" >"$WORK/report.txt" 2>"$WORK/report.err" ||
		{ cat "$WORK/report.err"; fail "$label: trace-cmd report"; }
	grep -v '^cpus=' "$WORK/report.txt" | grep -oE '\] +[0-9]+\.[0-9]+:' |
		grep -oE '[0-9]+\.[0-9]+' | sed -n '1p;$p' >"$WORK/tc.times"
	# A sample the kernel wrote after it released its thread has tid -1,
	# PerfSample's unsigned 4294967295: in its process, no thread to name
	# (as perf's ":-1" above).
	cat >"$WORK/q.sql" <<'SQL'
select (select min(ts) from ftrace_event) as ft_min, (select max(ts) from ftrace_event) as ft_max,
  (select count(*) from thread t where t.tid > 0 and t.tid != 4294967295 and (t.name is null or t.name = '') and
    (t.utid in (select utid from perf_sample) or t.utid in (select utid from thread_state))) as unnamed,
  (select count(*) from perf_sample) as samples
SQL
	"$TP" -q "$WORK/q.sql" "$stem.pftrace" 2>/dev/null | tail -n 1 | tr -d '"' >"$WORK/tp.out" ||
		fail "$label: trace processor"
	cat >"$WORK/unnamed.sql" <<'SQL'
select t.utid, t.tid, p.pid, t.start_ts, t.end_ts,
  (select count(*) from perf_sample s where s.utid = t.utid) as samples,
  (select count(*) from thread_state s where s.utid = t.utid) as states,
  (select count(*) from thread o where o.tid = t.tid) as same_tid
from thread t left join process p using (upid)
where t.tid > 0 and t.tid != 4294967295 and (t.name is null or t.name = '') and
  (t.utid in (select utid from perf_sample) or t.utid in (select utid from thread_state))
SQL
	python3 - "$stem.json" "$WORK/perf.times" "$WORK/tc.times" "$WORK/tp.out" "$label" <<'PY' ||
import json, sys
j = json.load(open(sys.argv[1]))
w = j["window"]
lo, hi = w["from_ns"], w["to_ns"]
slack = 10 * 1000 * 1000
def secs(path):
    return [round(float(x) * 1e9) for x in open(path).read().split()]
ft_min, ft_max, unnamed, samples = [int(x) for x in open(sys.argv[4]).read().strip().split(",")]
checks = {
    "sidecar": (j["first_time"], j["last_time"]),
    "perf.data": tuple(secs(sys.argv[2])),
    "trace.dat": tuple(secs(sys.argv[3])),
    ".pftrace": (ft_min, ft_max),
}
for name, (first, last) in checks.items():
    # perf script and trace-cmd print microseconds or nanoseconds: 1 us of rounding.
    assert lo - 1000 <= first <= lo + slack, (sys.argv[5], name, "first", first - lo)
    assert hi - slack <= last <= hi + 1000, (sys.argv[5], name, "last", last - hi)
    print("# %s %s: first +%.3f ms, last -%.3f ms" % (sys.argv[5], name, (first - lo) / 1e6,
                                                     (hi - last) / 1e6))
assert unnamed == 0, (sys.argv[5], "pftrace threads without a name", unnamed)
assert samples > 0, (sys.argv[5], "no perf samples in the pftrace")
assert j["window"]["cropped_records"] > 0, "nothing was cropped: the test proves nothing"
PY
		{
			# What the unnamed threads are, for the log of a failed run.
			"$TP" -q "$WORK/unnamed.sql" "$stem.pftrace" 2>/dev/null | head -n 20
			grep -o '"tasks[a-z_]*": [0-9]*' "$stem.json"
			"$CTL" --socket "$sock" status | grep -E '^sideband'
			fail "$label: a format's records are not within 10 ms of the window"
		}
}

# --last 2s
wait_recorded 2.25
dump --last 2s --reason last2 || { cat "$WORK/dump.err"; fail "dump --last 2s"; }
stem=$(grep '\.json$' "$WORK/dump.out")
stem=${stem%.json}
[ -n "$stem" ] || fail "dump --last 2s printed no sidecar"
python3 -c 'import json,sys; w=json.load(open(sys.argv[1]))["window"]; assert w["to_ns"]-w["from_ns"]==2000000000 and w["asked"]=="--since=-2000000000", w' \
	"$stem.json" || fail "--last 2s: the sidecar's window"
check_window "$stem" "--last 2s"

# --since/--until, relative
wait_recorded 3.25
dump --since -3s --until -1s || { cat "$WORK/dump.err"; fail "dump --since -3s --until -1s"; }
stem=$(grep '\.json$' "$WORK/dump.out")
stem=${stem%.json}
check_window "$stem" "--since -3s --until -1s"

# --since/--until, ISO 8601 wall clock (UTC, and an offset)
wait_recorded 3.75
now=$(date +%s.%N)
since=$(date -u -d "@$(echo "$now - 3.5" | bc)" +%Y-%m-%dT%H:%M:%S.%NZ)
until=$(TZ=Asia/Kolkata date -d "@$(echo "$now - 1.25" | bc)" +%Y-%m-%dT%H:%M:%S.%N%:z)
dump --since "$since" --until "$until" || { cat "$WORK/dump.err"; fail "dump --since $since --until $until"; }
stem=$(grep '\.json$' "$WORK/dump.out")
stem=${stem%.json}
python3 - "$stem.json" "$now" <<'PY' || fail "ISO 8601: the sidecar's window is not the one asked"
import json, sys
w = json.load(open(sys.argv[1]))["window"]
now = float(sys.argv[2])
assert abs(w["from_realtime_ns"] / 1e9 - (now - 3.5)) < 1e-6, w
assert abs(w["to_realtime_ns"] / 1e9 - (now - 1.25)) < 1e-6, w
assert abs((w["to_ns"] - w["from_ns"]) - 2.25e9) < 1000, w
PY
check_window "$stem" "--since $since --until $until"

# --max-size: each data file within it, the newest kept
dump --max-size 1M || { cat "$WORK/dump.err"; fail "dump --max-size 1M"; }
grep -q 'note: --max-size kept the newest' "$WORK/dump.err" || { cat "$WORK/dump.err"; fail "--max-size: no note of what it kept"; }
while read -r f; do
	size=$(stat -c %s "$f")
	case "$f" in *.json) continue ;; esac
	[ "$size" -le $((1 << 20)) ] || fail "--max-size 1M: $f is $size bytes"
	note "--max-size 1M: ${f##*.} $size bytes"
done <"$WORK/dump.out"
stem=$(grep '\.json$' "$WORK/dump.out")
perf_script_complete "${stem%.json}.perf.data"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); w=j["window"]; assert w["max_size_cut"] and j["last_time"] >= max(r["held_last_time"] for r in j["rings"] if r["kind"] in ("overwrite", "tracefs")) - 10**7, w' \
	"$stem" || fail "--max-size: not the newest records"

# Bad input: a clear message, a non-zero exit, nothing written.
bad() {
	local want=$1
	shift
	local before
	before=$(files)
	dump "$@" && fail "dump $* succeeded"
	grep -q -- "$want" "$WORK/dump.err" || { cat "$WORK/dump.err"; fail "dump $*: no '$want'"; }
	[ "$(files)" = "$before" ] || fail "dump $*: files were written"
	note "dump $*: $(head -n 1 "$WORK/dump.err")"
}
bad "duration '0' is zero" --last 0
bad "duration '0s' is zero" --last 0s
bad "bad duration '-2s'" --last -2s
bad "in the future" --since +5s
bad "bad time '5s'" --since 5s
bad "bad time '2026-13-01T00:00:00Z'" --since 2026-13-01T00:00:00Z
bad "bad time 'yesterday'" --until yesterday
bad "not before --until" --since -1s --until -2s
bad "not before --until" --since "$until" --until "$since"
bad "not in the past" --since "$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)"
bad "--last and --since" --last 2s --since -5s
bad "size '0' is zero" --max-size 0
bad "bad size '5Q'" --max-size 5Q
# perfsnapd's own checks, for a client that skips perfsnapctl's.
bad "too small" --max-size 10K
bad "nothing to write: the window asked ends" --until 1970-01-02T00:00:00Z --since 1970-01-01T00:00:00Z
python3 - "$sock" >"$WORK/raw.out" <<'PY' || true
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"dump --since=5\n")
print(s.makefile().read(), end="")
PY
grep -q "^error dump: bad dump option '--since=5'" "$WORK/raw.out" ||
	{ cat "$WORK/raw.out"; fail "perfsnapd took a bad window"; }

# Beyond what the rings hold: what they hold is written, with a note.
dump --last 1h || { cat "$WORK/dump.err"; fail "dump --last 1h"; }
grep -q 'note: the rings hold less than the window asked (3600.000 s)' "$WORK/dump.err" ||
	{ cat "$WORK/dump.err"; fail "--last 1h: no note of the shortfall"; }
grep -q '\.perf\.data$' "$WORK/dump.out" || fail "--last 1h wrote no perf.data"
stem=$(grep '\.json$' "$WORK/dump.out")
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); w=j["window"]; assert w["short_rings"] >= 1 and "less than" in w["note"] and any(r.get("window_short") for r in j["rings"]), w' \
	"$stem" || fail "--last 1h: the sidecar does not say the rings are short"

"$CTL" --socket "$sock" status >"$WORK/status.out" || fail "perfsnapctl status"
grep -q '^last window: --since=-3600000000000: the rings hold less than the window asked' "$WORK/status.out" ||
	{ cat "$WORK/status.out"; fail "status: no last window"; }
grep -q 'the rings hold less than the window asked (3600.000 s)' "$WORK/daemon.log" ||
	fail "the log does not say the rings are short"
# A start before the machine booted (before the recording clock's zero;
# --last 1h is one on a machine up for less) is a start too.
dump --since 2000-01-01T00:00:00Z || { cat "$WORK/dump.err"; fail "dump --since 2000"; }
grep -q 'note: the rings hold less than the window asked ([0-9]\{9\}\.[0-9]* s)' "$WORK/dump.err" ||
	{ cat "$WORK/dump.err"; fail "--since 2000: no note of the shortfall"; }

# SIGUSR2 still takes everything: more than the 2 s of the crops.
full=$(dump_and_wait)
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert "window" not in j and j["last_time"] - j["first_time"] > 3e9, (j["last_time"] - j["first_time"])' \
	"${full%.perf.data}.json" || fail "SIGUSR2 did not take everything"
