#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# [trigger oom] on oom:mark_victim: a task that the OOM killer takes in a
# 32M memory group of its own is in the snapshot its kill triggered, with
# its exit within `after = 200ms` (the crash-oom example's trigger).
. "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || prereq_missing "python3"
[ -e /sys/kernel/tracing/events/oom/mark_victim ] || prereq_missing "oom:mark_victim tracepoint"

# A memory-limited group: cgroup v1 memory, else cgroup v2 memory.max.
name=perfsnapd-test-oom-$$
if [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	group=/sys/fs/cgroup/memory/$name
	limit=memory.limit_in_bytes
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	echo "+memory" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null
	group=/sys/fs/cgroup/$name
	limit=memory.max
else
	prereq_missing "a memory cgroup controller"
fi
remove_group() {
	[ -d "$group" ] || return 0
	while read -r p; do kill -9 "$p" 2>/dev/null; done <"$group/cgroup.procs"
	for _ in $(seq 1 100); do rmdir "$group" 2>/dev/null && break; sleep 0.05; done
}
CLEANUP_HOOK=remove_group
mkdir "$group" || fail "cannot create $group"
echo 32M >"$group/$limit"
# No swap use: the task must be killed, not swapped out.
[ -f "$group/memory.swappiness" ] && echo 0 >"$group/memory.swappiness"
[ -f "$group/memory.swap.max" ] && echo 0 >"$group/memory.swap.max"

# Task names unique to this run: a concurrent run of this test elsewhere
# on the machine must not match its filter.
tag=$(($$ % 90000 + 10000))
FORMATS="perf.data trace.dat"
write_config "$WORK/p.conf" "sched:sched_switch sched:sched_process_exit" 2M
cat >>"$WORK/p.conf" <<CONF
[trigger oom]
event = oom:mark_victim
filter = comm == "o$tag-hog"
after = 200ms
CONF
start_daemon "$WORK/p.conf"
sh -c 'echo $$ >"$1/cgroup.procs"; exec "$2" "$3" 0 oom' sh "$group" "$PROGS/crasher" "o$tag-hog" &
pid=$!
wait "$pid"
rc=$?
[ "$rc" = 137 ] || fail "the hog exited $rc, want 137 (SIGKILL by the OOM killer)"
data=$(wait_snapshot 0)
python3 - "${data%.perf.data}.json" "$pid" "o$tag-hog" <<'PY' || fail "sidecar: wrong trigger"
import json, sys
j = json.load(open(sys.argv[1]))
t = j["trigger"]
assert j["reason"] == "trigger oom", j["reason"]
assert t["kind"] == "event" and t["event"] == "oom:mark_victim", t
assert j["events"]["oom:mark_victim"] >= 1, j["events"]
PY
perf_script_clean "$data" "$WORK/script.txt"
grep -qE "oom:mark_victim: pid=$pid comm=o$tag-hog " "$WORK/script.txt" ||
	fail "perf script: no mark_victim of the hog"
grep -qE "sched:sched_process_exit: comm=o$tag-hog pid=$pid " "$WORK/script.txt" ||
	fail "perf script: the hog's exit (within after = 200ms) is missing"
trace-cmd report "${data%.perf.data}.trace.dat" 2>/dev/null | grep -q "mark_victim: .*pid=$pid" ||
	fail "trace.dat: no mark_victim of the hog"
echo "PASS"
