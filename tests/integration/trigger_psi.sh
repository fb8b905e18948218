#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# A PSI trigger fires under real memory pressure. The test makes its own
# groups: a cgroup v1 memory group with a 32M limit (the pressure) and a
# cgroup v2 group (under the hybrid mount at /sys/fs/cgroup/unified), whose
# memory.pressure the trigger watches, so only this test's load can fire
# it. The load reads a 256M file over and over: under the limit its page
# cache is reclaimed and refaulted, and that reclaim is memory stall.
. "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || prereq_missing "python3"

V1_ROOT=/sys/fs/cgroup/memory
V2_ROOT=/sys/fs/cgroup/unified
if [ -f /sys/fs/cgroup/cgroup.controllers ] && [ ! -d "$V1_ROOT" ]; then
	V2_ROOT=/sys/fs/cgroup # pure cgroup v2: memory.max on the same group
	V1_ROOT=
fi
[ -f "$V2_ROOT/cgroup.procs" ] || prereq_missing "cgroup v2 (at /sys/fs/cgroup/unified or /sys/fs/cgroup)"
[ -f "$V2_ROOT/memory.pressure" ] || prereq_missing "PSI in the kernel (memory.pressure)"
[ -z "$V1_ROOT" ] || [ -f "$V1_ROOT/memory.limit_in_bytes" ] ||
	prereq_missing "cgroup v1 memory controller at $V1_ROOT"

name=perfsnapd-test-psi-$$
V2="$V2_ROOT/$name"
V1=${V1_ROOT:+$V1_ROOT/$name}
LOAD_PID=
remove_groups() {
	[ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
	for g in "$V2" ${V1:+"$V1"}; do
		[ -d "$g" ] || continue
		# Whatever is left in the group leaves with it.
		while read -r p; do kill -9 "$p" 2>/dev/null; done <"$g/cgroup.procs"
		for _ in $(seq 1 100); do rmdir "$g" 2>/dev/null && break; sleep 0.05; done
	done
}
CLEANUP_HOOK=remove_groups
mkdir "$V2" || fail "cannot create $V2"
if [ -n "$V1" ]; then
	mkdir "$V1" || fail "cannot create $V1"
	echo 32M >"$V1/memory.limit_in_bytes"
else
	echo "+memory" >"$V2_ROOT/cgroup.subtree_control" 2>/dev/null
	echo 32M >"$V2/memory.max" || prereq_missing "memory controller in cgroup v2"
fi

# Page cache needs a real file system, not tmpfs (whose pages cannot be dropped).
dir=$WORK
[ "$(stat -f -c %T "$dir")" = tmpfs ] && dir=/var/tmp
big=$(mktemp "$dir/perfsnapd-psi.XXXXXX")
CLEANUP_HOOK="remove_groups; rm -f '$big'"
head -c 256M /dev/urandom >"$big"

write_config "$WORK/p.conf" "sched:sched_switch" 1M
cat >>"$WORK/p.conf" <<CONF
[trigger memory-pressure]
psi = memory some 20ms 2s
psi_file = $V2/memory.pressure
CONF
start_daemon "$WORK/p.conf"
"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt"
grep -q "^trigger: memory-pressure (psi memory some 20ms 2s): 0 matches" "$WORK/status.txt" ||
	fail "status: $(grep trigger "$WORK/status.txt")"

# The load runs in both groups until the trigger has fired (at most 60 s).
sh -c 'for g; do echo $$ >"$g/cgroup.procs"; done
	dd if="$0" iflag=nocache count=0 status=none
	while :; do cat "$0" >/dev/null; done' "$big" "$V2" ${V1:+"$V1"} &
LOAD_PID=$!
for _ in $(seq 1 1200); do
	ls "$WORK/out"/*.json >/dev/null 2>&1 && break
	kill -0 "$LOAD_PID" 2>/dev/null || fail "the load stopped"
	sleep 0.05
done
kill "$LOAD_PID"
wait "$LOAD_PID" 2>/dev/null
LOAD_PID=
data=$(wait_snapshot 0)
note "$(grep 'some' "$V2/memory.pressure")"
python3 - "${data%.perf.data}.json" "$V2/memory.pressure" <<'PY' || fail "sidecar: wrong trigger"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["trigger"]
assert j["reason"] == "trigger memory-pressure", j["reason"]
assert t["kind"] == "psi" and t["resource"] == "memory", t
assert t["threshold"] == "some 20ms 2s" and t["file"] == sys.argv[2], t
PY
perf_script_clean "$data" "$WORK/script.txt"
grep -q "^trigger: memory-pressure" <("$PERFSNAPCTL" --socket "$WORK/control.sock" status) ||
	fail "status lost the trigger"
echo "PASS"
