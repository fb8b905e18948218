#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A process that renames itself (prctl PR_SET_NAME) mid-run: its events
# before and after carry the old and the new name, even once it has exited.
source "$(dirname "$0")/lib.sh"
require_env

write_config "$WORK/p.conf" "raw_syscalls:sys_enter" 4M
start_daemon "$WORK/p.conf"
# dump_after signals the moment the renamer is reaped: a signal from here,
# forks later, would let a load on every CPU wrap the 4 MiB rings first.
before=$(snapshot_count)
"$PROGS/dump_after" "$DAEMON_PID" "$PROGS/renamer" psnap_before psnap_after 200 exit \
	>"$WORK/r.out" || fail "renamer"
rpid=$(awk '{print $2}' "$WORK/r.out")
file=$(wait_snapshot "$before")
perf_script_clean "$file" "$WORK/script.txt"
gawk -v pid="$rpid" '$2 == pid && /NR 4660 /' "$WORK/script.txt" >"$WORK/mine.txt"
[ "$(wc -l <"$WORK/mine.txt")" = 400 ] || fail "$(wc -l <"$WORK/mine.txt") marked events, want 400"
gawk '{
	match($0, /NR 4660 \([0-9a-f]+, ([01]),/, m)
	want = m[1] == "0" ? "psnap_before" : "psnap_after"
	if ($1 != want) { print "want " want ": " $0; exit 1 }
}' "$WORK/mine.txt" || fail "names around the rename are wrong"
echo "PASS: 200 events as psnap_before, 200 as psnap_after"
