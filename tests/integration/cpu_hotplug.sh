#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A CPU taken offline for a few seconds and brought back while perfsnapd
# records: the kernel never puts its perf events back, so perfsnapd must
# notice, keep what the CPU's ring held, and open its events anew. The log
# says both (one line each); the next snapshot has the CPU's history from
# before (its closed ring) and its records from after it came back (a new
# ring), and the sidecar gives the offline span of each of its rings in the
# records' clock; the snapshot after that has only the new ring, with the
# span. perf.data, trace.dat and .pftrace stay valid.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
source "$(dirname "$0")/hotplug_lib.sh"
require_env
require_hotplug
C=$HOTPLUG_CPU

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/p.conf" "cpu-clock sched:sched_switch" 1M
start_daemon "$WORK/p.conf"
sleep 1 # history before

# Offline for 3 s: perfsnapd looks once a second.
cpu_offline
sleep 3
cpu_back
sleep 2.5 # records after: it is back within a second

file=$(dump_and_wait)
stem=${file%.perf.data}
perf_script_complete "$file"
trace-cmd report "$stem.trace.dat" >/dev/null 2>"$WORK/tc.err" && [ ! -s "$WORK/tc.err" ] ||
	{ cat "$WORK/tc.err" >&2; fail "trace-cmd report $stem.trace.dat"; }
pftrace_decode "$stem.pftrace" "$WORK/pf.txt"
pftrace_same_counts "$file" "$WORK/pf.txt"
# What the issue saw first: the CPU's newest record stuck at its going offline.
sidecar_check "$stem.json" \
	"j['newest_record_spread_ns'] < 1e9" \
	"len(rings($C)) == 1 and len(rings($C, True)) == 1" \
	"rings($C)[0]['offline'] == rings($C, True)[0]['offline'] and len(rings($C)[0]['offline']) == 1" \
	"2.5e9 < rings($C)[0]['offline'][0]['to_ns'] - rings($C)[0]['offline'][0]['from_ns'] < 10e9" \
	"rings($C, True)[0]['records'] > 0" \
	"rings($C, True)[0]['last_time'] <= rings($C)[0]['offline'][0]['from_ns']" \
	"rings($C)[0]['records'] > 0" \
	"rings($C)[0]['last_time'] > rings($C)[0]['offline'][0]['to_ns'] + 1e9" \
	"'offline' not in rings(0)[0]"
from=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['rings'][1]['offline'][0]['from_ns'])" "$stem.json" 2>/dev/null ||
	sed -n 's/.*"from_ns": \([0-9]*\).*/\1/p' "$stem.json" | head -1)
to=$(sed -n 's/.*"to_ns": \([0-9]*\).*/\1/p' "$stem.json" | head -1)
cpu_times "$file" "$C" >"$WORK/times"
before=$(awk -v t="$from" '$1 <= t' "$WORK/times" | wc -l)
after=$(awk -v t="$to" '$1 >= t' "$WORK/times" | wc -l)
during=$(awk -v a="$from" -v b="$to" '$1 > a && $1 < b' "$WORK/times" | wc -l)
note "cpu$C in perf script: $before records before its offline span, $after after, $during in it"
[ "$before" -gt 0 ] || fail "the history of cpu$C from before it went offline is gone"
[ "$after" -gt 0 ] || fail "no record of cpu$C after it came back"
[ "$during" = 0 ] || fail "$during records of cpu$C while it was offline"

# The next snapshot: the closed ring's history went to the one before.
file=$(dump_and_wait)
stem=${file%.perf.data}
perf_script_complete "$file"
sidecar_check "$stem.json" \
	"len(rings($C)) == 1 and not rings($C, True)" \
	"len(rings($C)[0]['offline']) == 1 and rings($C)[0]['offline'][0]['to_ns'] is not None"
# The log: one line when it went, one when it was back.
note "$(grep "cpu$C " "$WORK/daemon.log")"
grep -q "perfsnapd: cpu$C went offline at [0-9-]* [0-9:]*; its ring is kept for the next snapshots$" "$WORK/daemon.log" ||
	fail "no line says cpu$C went offline"
grep -q "perfsnapd: cpu$C is back online: recording on it again after [0-9.]* s$" "$WORK/daemon.log" ||
	fail "no line says cpu$C is back"
[ "$(grep -c "cpu$C " "$WORK/daemon.log")" = 2 ] || fail "not one line each for offline and back"
echo "PASS: cpu$C offline and back: its history kept, recording on it again, both said"
