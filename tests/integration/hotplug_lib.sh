# SPDX-License-Identifier: GPL-2.0-only
# Taking a CPU offline in a test (sourced after lib.sh). The machine is
# shared: whoever offlines a CPU holds /tmp/perfsnapd-cpu.lock meanwhile,
# keeps it offline a few seconds, and brings it back on every exit: the
# EXIT trap, a fatal signal turned into an exit, and, should the test be
# killed outright (SIGKILL), a guard in a session of its own that puts the
# CPU online after HOTPLUG_GUARD_S seconds.
HOTPLUG_CPU=${HOTPLUG_CPU:-1}
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
