#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# [trigger] on a uprobe, as the man page offers ("a kprobe or uprobe that
# exists in tracefs"): a probe on main() of this test's own copy of the
# marker program fires a snapshot that holds the probe's hit, named, in
# perf.data and trace.dat; the same program from another file (another
# inode, so no probe) fires nothing. kprobes take the same path (a tracefs
# event by system:name) but this kernel has no kprobe_events to test them.
. "$(dirname "$0")/lib.sh"
require_env
command -v trace-cmd >/dev/null || prereq_missing "trace-cmd"
command -v python3 >/dev/null || prereq_missing "python3"
command -v readelf >/dev/null || prereq_missing "readelf (binutils)"
UPROBES=/sys/kernel/tracing/uprobe_events
[ -w "$UPROBES" ] || prereq_missing "$UPROBES (a kernel with CONFIG_UPROBE_EVENTS)"

# The probe is on this run's copy only, under a group of its own: another
# run of this test, or anything else running marker, cannot hit it.
tag=$(($$ % 90000 + 10000))
group=psnap_t$tag probe=mark_main
cp "$PROGS/marker" "$WORK/marker"
# A uprobe is placed by file offset: main's address, through the LOAD
# segment that holds it.
addr=$(readelf -Ws "$WORK/marker" | awk '$8 == "main" && $4 == "FUNC" { print $2; exit }')
[ -n "$addr" ] || fail "no symbol main in $WORK/marker"
off=$(readelf -lW "$WORK/marker" | awk -v a=$((16#$addr)) '
	$1 == "LOAD" {
		o = strtonum($2); v = strtonum($3); n = strtonum($5)
		if (a >= v && a < v + n) { printf "0x%x\n", a - v + o; exit }
	}')
[ -n "$off" ] || fail "main (0x$addr) is in no LOAD segment of $WORK/marker"
echo "p:$group/$probe $WORK/marker:$off" >>"$UPROBES" || fail "the kernel refused the uprobe"
# lib.sh stops the daemon first: the kernel keeps a probe in use.
CLEANUP_HOOK="echo '-:$group/$probe' >>$UPROBES"
[ -d "/sys/kernel/tracing/events/$group/$probe" ] || fail "no tracefs event $group/$probe"

FORMATS="perf.data trace.dat"
write_config "$WORK/p.conf" "sched:sched_switch raw_syscalls:sys_enter" 2M
printf '[trigger up]\nevent = %s:%s\n' "$group" "$probe" >>"$WORK/p.conf"
start_daemon "$WORK/p.conf"
grep -q "perfsnapd: 1 triggers armed" "$WORK/daemon.log" || fail "the trigger is not armed"

# The unprobed file first: had it fired, its snapshot would come first.
"$PROGS/marker" "u$tag-no" 5 exit >/dev/null || fail "marker failed"
"$WORK/marker" "u$tag-yes" 25 exit >"$WORK/marker.out" || fail "the probed marker failed"
pid=$(sed -n 's/^done //p' "$WORK/marker.out")
[ -n "$pid" ] || fail "the probed marker printed no pid"
data=$(wait_snapshot 0)
json=${data%.perf.data}.json
tdat=${data%.perf.data}.trace.dat
[ -f "$tdat" ] || fail "no trace.dat beside $data"

# The sidecar names the probe and the task that hit it (its comm then was
# still the file's name: marker renames itself after main starts).
python3 - "$json" "$group:$probe" "$pid" <<'PY' || fail "sidecar $json: wrong trigger"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["trigger"]
assert j["reason"] == "trigger up", j["reason"]
assert t["name"] == "up" and t["kind"] == "event", t
assert t["event"] == sys.argv[2], t
assert t["pid"] == int(sys.argv[3]) and t["tid"] == t["pid"], t
assert t["comm"] == "marker", t
assert j["first_time"] <= t["time"] <= j["last_time"], (t, j["first_time"], j["last_time"])
assert j["events"][sys.argv[2]] == 1, j["events"]
PY

# perf.data: the hit, once, under the task's name at that time.
perf_script_clean "$data" "$WORK/script.txt"
hits=$(grep -cE "^ *marker +$pid .* $group:$probe: " "$WORK/script.txt")
[ "$hits" = 1 ] || fail "perf script: $hits hits of $group:$probe by marker $pid, want 1"
grep -E " $group:$probe: " "$WORK/script.txt" | grep -qv " $pid " &&
	fail "perf script: a hit by another task (the unprobed copy?)"

# trace.dat: the same hit, readable by trace-cmd with nothing on stderr.
trace-cmd report "$tdat" >"$WORK/report.txt" 2>"$WORK/report.err" || {
	cat "$WORK/report.err" >&2
	fail "trace-cmd report failed"
}
[ -s "$WORK/report.err" ] && { cat "$WORK/report.err" >&2; fail "trace-cmd report warned"; }
hits=$(grep -cE -- "-$pid +\[[0-9]+\] .* $probe: " "$WORK/report.txt")
[ "$hits" = 1 ] || fail "trace.dat: $hits hits of $probe by $pid, want 1"

"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
	fail "perfsnapctl status failed"
grep -q "^trigger: up (event $group:$probe): 1 matches, 1 fired, 1 dumps started, 0 refused" \
	"$WORK/status.txt" || { cat "$WORK/status.txt" >&2; fail "status: wrong trigger counts"; }
[ "$(ls "$WORK/out"/*.json | wc -l)" = 1 ] || fail "more than one snapshot"
echo "PASS"
