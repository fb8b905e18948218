#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# max_total_size as a share of the directory's file system (issue 53: a
# disk budget that fits every host): snapshots go to a 4 MiB tmpfs with
# max_total_size = 25%, so at most 1 MiB stays. Dumps are taken until
# retention deletes one; the log names the budget in bytes, measured from
# the file system, and the directory never holds more.
. "$(dirname "$0")/lib.sh"
require_env

mkdir -p "$WORK/out"
mount -t tmpfs -o size=4M,mode=0750 perfsnapd-test "$WORK/out" || prereq_missing "a tmpfs mount"
CLEANUP_HOOK="umount -l '$WORK/out'"
write_config "$WORK/p.conf" "sched:sched_switch" 256K "max_total_size = 25%"
"$PERFSNAPD" --config "$WORK/p.conf" --check-config 2>&1 | grep -q "^max_total_size = 25%" ||
	fail "--check-config does not print max_total_size = 25%"
start_daemon "$WORK/p.conf"
# Switches to fill the rings between dumps.
"$PROGS/spinner" 600 >/dev/null 2>&1 &
CHILD_PIDS+=($!)

budget=$((4 * 1024 * 1024 / 4))
for i in $(seq 1 30); do
	dump_and_wait >/dev/null
	used=$(du -sb "$WORK/out" | cut -f1)
	[ "$used" -le "$budget" ] || fail "$used bytes in the directory after dump $i, budget $budget"
	log_has "retention: deleted snapshot .* max_total_size = $budget" && break
done
log_has "retention: deleted snapshot .* max_total_size = $budget" ||
	{ tail -n 5 "$WORK/daemon.log" >&2; fail "no snapshot deleted for a budget of $budget bytes after $i dumps"; }
note "$i dumps; retention kept $(du -sb "$WORK/out" | cut -f1) of $budget bytes"
echo "PASS"
