#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A CPU present but offline when perfsnapd starts (cpus = all) is recorded
# once it comes online: the log says it is offline at start and when it is
# back, and the next snapshot has its records from then on, its ring's
# offline span in the sidecar (from the start, to its coming back). A
# trigger opens on the CPUs online at start and fires on it once it is back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hotplug_lib.sh"
require_env
# About perf's rings: opened for a CPU that comes online: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
require_hotplug

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "cpu-clock sched:sched_switch" 1M
# A trigger too: at start it opens on the online CPUs, then on cpu$C as well.
printf '[trigger hp]\nevent = signal:signal_generate\nfilter = sig == 28\n' >>"$WORK/p.conf"
cpu_offline
start_daemon "$WORK/p.conf"
# perfsnapd looks at once, then once a second.
wait_until 10 log_has "perfsnapd: cpu$C is offline: recording on it starts" ||
	fail "cpu$C not said offline at start"
sleep 0.6 # offline past the 0.5 s the span checked must exceed: time that must pass
cpu_back
wait_back

file=$(dump_and_wait)
stem=${file%.perf.data}
perf_script_complete "$file"
trace-cmd report "$stem.trace.dat" >/dev/null 2>"$WORK/tc.err" && [ ! -s "$WORK/tc.err" ] ||
	{ cat "$WORK/tc.err" >&2; fail "trace-cmd report $stem.trace.dat"; }
sidecar_check "$stem.json" \
	"len(rings($C)) == 1 and not rings($C, True)" \
	"len(rings($C)[0]['offline']) == 1" \
	"0.5e9 < rings($C)[0]['offline'][0]['to_ns'] - rings($C)[0]['offline'][0]['from_ns'] < 10e9" \
	"rings($C)[0]['records'] > 0 and rings($C)[0]['last_time'] > rings($C)[0]['offline'][0]['to_ns'] + 1e9"
[ "$(cpu_times "$file" "$C" | wc -l)" -gt 0 ] || fail "perf script shows no record of cpu$C"
trace-cmd report --cpu "$C" "$stem.trace.dat" 2>/dev/null | grep -q sched_switch ||
	fail "trace.dat has no sched_switch on cpu$C"
"${PERFSNAPCTL:?}" --socket "$WORK/control.sock" status | grep -q "^cpus: 2" ||
	fail "status does not count cpu$C"
note "$(grep "cpu$C " "$WORK/daemon.log")"
grep -q "recording 2 events on 1 CPUs" "$WORK/daemon.log" || fail "not said: recording on 1 CPU at start"
grep -q "perfsnapd: cpu$C is offline: recording on it starts when it comes online$" "$WORK/daemon.log" ||
	fail "no line says cpu$C is offline at start"
grep -q "perfsnapd: cpu$C is back online: recording on it again after [0-9.]* s$" "$WORK/daemon.log" ||
	fail "no line says cpu$C is back"
before=$(snapshot_count)
taskset -c "$C" sh -c 'kill -WINCH $$'
file=$(wait_snapshot "$before")
grep -q '"reason": "trigger hp"' "${file%.perf.data}.json" || fail "the trigger did not fire on cpu$C"
echo "PASS: cpu$C offline at start is recorded once online, and its trigger fires"
