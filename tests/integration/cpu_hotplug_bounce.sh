#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A CPU offline for a tenth of a second, most likely between two of
# perfsnapd's reads of the online CPUs: sysfs shows nothing, but its
# events are as dead as after a long span. perfsnapd's probe on the CPU
# (its enabled time stops) tells, and says when it went: the snapshot has
# the CPU's history from before, its records from after, and a span that
# starts after the closed ring's newest record; the log says both.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/hotplug_lib.sh"
require_env
# About perf's rings: closed with their CPU and opened anew: on perf whatever PERFSNAP_BACKEND says.
unset PERFSNAP_BACKEND
require_hotplug

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "cpu-clock sched:sched_switch" 1M
start_daemon "$WORK/p.conf"
on_cpu # history before
cpu_offline
sleep 0.1 # the bounce: offline that long
cpu_back
wait_back # noticed within a second, then records after

file=$(dump_and_wait)
# From its going offline (by the probe) to its events opened anew.
check_reopened "$file" 0 2e9
check_log_lines
echo "PASS: cpu$C offline for 0.1 s: noticed, its history kept, recording on it again"
