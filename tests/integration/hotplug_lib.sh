# SPDX-License-Identifier: GPL-2.0-only
# Taking a CPU offline in a test (sourced after lib.sh). The machine is
# shared: whoever offlines a CPU holds /tmp/perfsnapd-cpu.lock meanwhile,
# keeps it offline a few seconds, and brings it back on every exit: the
# EXIT trap, a fatal signal turned into an exit, and, should the test be
# killed outright (SIGKILL), a guard in a session of its own that puts the
# CPU online after HOTPLUG_GUARD_S seconds.
HOTPLUG_CPU=${HOTPLUG_CPU:-1}
C=$HOTPLUG_CPU
HOTPLUG_ONLINE=/sys/devices/system/cpu/cpu$HOTPLUG_CPU/online
HOTPLUG_LOCK=/tmp/perfsnapd-cpu.lock
HOTPLUG_GUARD_S=30
HOTPLUG_GUARD=

require_hotplug() {
	[ -w "$HOTPLUG_ONLINE" ] || prereq_missing "a CPU $HOTPLUG_CPU that can go offline ($HOTPLUG_ONLINE)"
	[ "$(cat "$HOTPLUG_ONLINE")" = 1 ] || fail "cpu$HOTPLUG_CPU is offline before the test"
}

cpu_online() {
	echo 1 >"$HOTPLUG_ONLINE" 2>/dev/null
	[ "$(cat "$HOTPLUG_ONLINE")" = 1 ] || echo "cpu$HOTPLUG_CPU did not come back online" >&2
}

# Runs from lib.sh's cleanup, before the daemon is stopped or not.
hotplug_cleanup() {
	cpu_online
	[ -n "$HOTPLUG_GUARD" ] && kill -- "-$HOTPLUG_GUARD" 2>/dev/null
	exec 9>&-
}
CLEANUP_HOOK="hotplug_cleanup${CLEANUP_HOOK:+; $CLEANUP_HOOK}"
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# cpu_offline: takes the lock (waits up to 2 minutes for another holder),
# then takes the CPU offline.
cpu_offline() {
	exec 9>"$HOTPLUG_LOCK"
	flock -w 120 9 || fail "$HOTPLUG_LOCK is held by someone else for 2 minutes"
	# Not holding the lock (fd 9); a session of its own, killed whole.
	setsid bash -c "sleep $HOTPLUG_GUARD_S; echo 1 >'$HOTPLUG_ONLINE'" </dev/null >/dev/null 2>&1 9>&- &
	HOTPLUG_GUARD=$!
	echo 0 >"$HOTPLUG_ONLINE" || fail "cannot take cpu$HOTPLUG_CPU offline"
	note "cpu$HOTPLUG_CPU offline"
}

# cpu_back: the CPU online again, the guard and the lock let go.
cpu_back() {
	cpu_online
	[ "$(cat "$HOTPLUG_ONLINE")" = 1 ] || fail "cpu$HOTPLUG_CPU did not come back online"
	kill -- "-$HOTPLUG_GUARD" 2>/dev/null
	HOTPLUG_GUARD=
	exec 9>&-
	note "cpu$HOTPLUG_CPU online"
}

# on_cpu: a task runs on cpu$C and exits: a switch of its in cpu$C's ring, now.
on_cpu() { taskset -c "$C" true || fail "taskset -c $C true"; }

# wait_back: until perfsnapd says cpu$C is back (it looks once a second),
# then records of its new ring a second after it opened, which
# check_reopened wants: that second must pass, nothing says it has.
wait_back() {
	wait_until 10 log_has "perfsnapd: cpu$C is back online" ||
		fail "cpu$C not said back online 10 s after it was"
	sleep 1.1
	on_cpu
}

# sidecar_check JSON PYTHON-ASSERTIONS...: runs them with j the sidecar and
# rings(cpu, closed) its overwrite rings of that CPU.
sidecar_check() {
	local json=$1
	shift
	python3 - "$json" "$@" <<'PY' || fail "sidecar $json: see above"
import json, sys
j = json.load(open(sys.argv[1]))
def rings(cpu, closed=False):
    return [r for r in j["rings"] if r["cpu"] == cpu and r["kind"] == "overwrite"
            and r.get("closed", False) == closed]
for check in sys.argv[2:]:
    if not eval(check):
        print("FAIL: not true of %s: %s" % (sys.argv[1], check), file=sys.stderr)
        print(json.dumps(j["rings"], indent=1), file=sys.stderr)
        sys.exit(1)
PY
}

# cpu_times FILE CPU: the times (ns) of CPU's records in a perf.data, one a line.
cpu_times() {
	perf script --ns -i "$1" -C "$2" -F time 2>/dev/null |
		awk '{ t = $1; sub(/:$/, "", t); split(t, p, "."); printf "%d%09d\n", p[1], p[2] }'
}

# check_reopened PERFDATA MIN_NS MAX_NS: the snapshot taken after cpu$C went
# offline and came back: valid files; no spread of the newest records (the
# issue's symptom: the CPU's stuck at its going offline); the CPU's closed
# ring with its history from before the span, its new ring with records
# after it, both with the one span (MIN_NS to MAX_NS long); perf script
# shows records of the CPU before and after the span, none inside.
check_reopened() {
	local file=$1 stem=${1%.perf.data} from to before after during
	perf_script_complete "$file"
	if [ -e "$stem.trace.dat" ]; then
		trace-cmd report "$stem.trace.dat" >/dev/null 2>"$WORK/tc.err" && [ ! -s "$WORK/tc.err" ] ||
			{ cat "$WORK/tc.err" >&2; fail "trace-cmd report $stem.trace.dat"; }
	fi
	sidecar_check "$stem.json" \
		"j['newest_record_spread_ns'] < 1e9" \
		"len(rings($C)) == 1 and len(rings($C, True)) == 1" \
		"rings($C)[0]['offline'] == rings($C, True)[0]['offline'] and len(rings($C)[0]['offline']) == 1" \
		"$2 < rings($C)[0]['offline'][0]['to_ns'] - rings($C)[0]['offline'][0]['from_ns'] < $3" \
		"rings($C, True)[0]['records'] > 0" \
		"rings($C, True)[0]['last_time'] <= rings($C)[0]['offline'][0]['from_ns']" \
		"rings($C)[0]['records'] > 0" \
		"rings($C)[0]['last_time'] > rings($C)[0]['offline'][0]['to_ns'] + 1e9" \
		"'offline' not in rings(0)[0]"
	from=$(sed -n 's/.*"from_ns": \([0-9]*\).*/\1/p' "$stem.json" | head -1)
	to=$(sed -n 's/.*"to_ns": \([0-9]*\).*/\1/p' "$stem.json" | head -1)
	cpu_times "$file" "$C" >"$WORK/times"
	before=$(awk -v t="$from" '$1 <= t' "$WORK/times" | wc -l)
	after=$(awk -v t="$to" '$1 >= t' "$WORK/times" | wc -l)
	during=$(awk -v a="$from" -v b="$to" '$1 > a && $1 < b' "$WORK/times" | wc -l)
	note "cpu$C in perf script: $before records before its offline span, $after after, $during in it"
	[ "$before" -gt 0 ] || fail "the history of cpu$C from before it went offline is gone"
	[ "$after" -gt 0 ] || fail "no record of cpu$C after it came back"
	[ "$during" = 0 ] || fail "$during records of cpu$C while it was offline"
}

# check_log_lines: one line when cpu$C went, one when it was back.
check_log_lines() {
	note "$(grep "cpu$C " "$WORK/daemon.log")"
	grep -q "perfsnapd: cpu$C went offline at [0-9-]* [0-9:]*; its ring is kept for the next snapshots$" "$WORK/daemon.log" ||
		fail "no line says cpu$C went offline"
	grep -q "perfsnapd: cpu$C is back online: recording on it again after [0-9.]* s$" "$WORK/daemon.log" ||
		fail "no line says cpu$C is back"
	[ "$(grep -c "cpu$C " "$WORK/daemon.log")" = 2 ] || fail "not one line each for offline and back"
}
