#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The README's first command, as a new user meets it on a machine where
# the packaged perfsnapd already runs (here: one on the default control
# socket): scripts/run-demo says what it does at each step, installs no
# test tools (no npm), uses a socket and directory of its own, and ends
# with a snapshot that perf reads.
source "$(dirname "$0")/lib.sh"
require_env
SRC=${SOURCE_DIR:?set SOURCE_DIR}
DEFAULT_SOCKET=/run/perfsnapd/control.sock
[ -e "$DEFAULT_SOCKET" ] && prereq_missing "a perfsnapd already on $DEFAULT_SOCKET: refusing to touch it"

mkdir -p /run/perfsnapd
write_config "$WORK/p.conf" "sched:sched_switch" 1M
sed -i "s|^socket *=.*|socket = $DEFAULT_SOCKET|" "$WORK/p.conf"
grep -q "^socket = $DEFAULT_SOCKET" "$WORK/p.conf" || fail "the stand-in service is not on $DEFAULT_SOCKET"
start_daemon "$WORK/p.conf"

"$SRC/scripts/run-demo" >"$WORK/demo.out" 2>&1 || { cat "$WORK/demo.out"; fail "run-demo failed"; }
for step in "installing what is missing" "building perfsnapd" "perfsnapd --config" "kill -USR2"; do
	grep -q "^== $step" "$WORK/demo.out" || { cat "$WORK/demo.out"; fail "no '$step' step shown"; }
done
grep -qi 'npm' "$WORK/demo.out" && { cat "$WORK/demo.out"; fail "run-demo ran npm"; }
conf=$(sed -n 's/^== perfsnapd --config \([^ ]*\) .*/\1/p' "$WORK/demo.out")
grep -q "^socket = $(dirname "$conf")/control.sock" "$conf" || fail "run-demo's perfsnapd is not on a socket of its own"
snap=$(sed -n 's/^  perf script -i \(.*\)$/\1/p' "$WORK/demo.out")
[ -f "$snap" ] || { cat "$WORK/demo.out"; fail "no snapshot named at the end"; }
perf_script_complete "$snap"
kill -0 "$DAEMON_PID" || fail "the service on the default socket died"
"$PERFSNAPCTL" --socket "$DEFAULT_SOCKET" status >/dev/null || fail "the service on the default socket stopped answering"
rm -rf "$(dirname "$conf")"
echo "PASS: run-demo beside a service on the default socket: steps shown, no npm, snapshot read by perf"
