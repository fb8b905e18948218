#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A CPU taken offline for a few seconds and brought back while perfsnapd
# records: the kernel never puts its perf events back, so perfsnapd must
# notice, keep what the CPU's ring held, and open its events anew. The log
# says both (one line each); the next snapshot has the CPU's history from
# before (its closed ring) and its records from after it came back (a new
# ring), and the sidecar gives the offline span of each of its rings in the
# records' clock; the snapshot after that has only the new ring, with the
# span. perf.data, trace.dat and .pftrace stay valid. A trigger fires on
# the CPU once it is back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
source "$(dirname "$0")/hotplug_lib.sh"
require_env
# About perf's rings: closed with their CPU and opened anew: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
require_hotplug
# Real loss: what the kernel dropped while an earlier dump paused the rings
# comes back as LOST records in the later ones (the sidecar's lost_events),
# which trace processor rightly reports as data loss.
PFTRACE_LOSS_OK=1

FORMATS="perf.data trace.dat perfetto" write_config "$WORK/p.conf" "cpu-clock sched:sched_switch" 1M
# A trigger on every CPU: a SIGWINCH sent on cpu$C once it is back must fire it.
printf '[trigger hp]\nevent = signal:signal_generate\nfilter = sig == 28\n' >>"$WORK/p.conf"
start_daemon "$WORK/p.conf"
on_cpu # history before

# Offline for 3 s: perfsnapd looks once a second, and the span checked is
# over 2.5 s: time that must pass.
cpu_offline
sleep 3
cpu_back
wait_back # records after

file=$(dump_and_wait)
stem=${file%.perf.data}
check_reopened "$file" 2.5e9 10e9
pftrace_decode "$stem.pftrace" "$WORK/pf.txt"
pftrace_same_counts "$file" "$WORK/pf.txt"

# The next snapshot: the closed ring's history went to the one before.
file=$(dump_and_wait)
stem=${file%.perf.data}
perf_script_complete "$file"
sidecar_check "$stem.json" \
	"len(rings($C)) == 1 and not rings($C, True)" \
	"len(rings($C)[0]['offline']) == 1 and rings($C)[0]['offline'][0]['to_ns'] is not None"
check_log_lines

# The trigger's events died with the CPU: they were opened anew with it.
grep -q 'triggers armed again, on every online CPU' "$WORK/daemon.log" || fail "the triggers were not armed again"
before=$(snapshot_count)
taskset -c "$C" sh -c 'kill -WINCH $$'
file=$(wait_snapshot "$before")
grep -q '"reason": "trigger hp"' "${file%.perf.data}.json" || fail "the snapshot after SIGWINCH on cpu$C is not the trigger's"
echo "PASS: cpu$C offline and back: its history kept, recording on it again, its triggers too, all said"
