#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# One permitted user holding 64 idle connections to the control socket
# locks out neither root nor another permitted user: the holder gets at
# most its share, root and the others are served at once (this was a
# refusal after up to 10 s). When the table is full of idle connections,
# the oldest is closed to make room.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v setpriv >/dev/null || prereq_missing "setpriv (util-linux)"
getent group users >/dev/null || prereq_missing "the group 'users'"

write_config "$WORK/p.conf" "sched:sched_switch" 1M "" ""
sed -i '/^\[control\]/a group = users' "$WORK/p.conf"
start_daemon "$WORK/p.conf"
sock=$WORK/control.sock
chmod 0755 "$WORK"

# hold_connections N SOCKET: N idle connections, kept until stdin closes
# (copied where other users may run it).
install -m 0755 "$PROGS/hold_connections" "$WORK/hold_connections"
mkfifo "$WORK/hold.in"
setpriv --reuid=65534 --regid=100 --clear-groups "$WORK/hold_connections" 64 "$sock" \
	<"$WORK/hold.in" >"$WORK/hold.out" 2>&1 &
CHILD_PIDS+=($!)
exec 9>"$WORK/hold.in" # keeps the holder's stdin open
wait_for_line "$WORK/hold.out" '^ready'
cat "$WORK/hold.out"
held=$(sed -n 's/^held \([0-9]*\) .*/\1/p' "$WORK/hold.out")
[ "$held" -le 8 ] || fail "one user holds $held connections"
grep -q '^error too many connections from uid 65534' "$WORK/hold.out" ||
	fail "the holder's extra connections were not refused with a reason"

# Root: served at once, well inside the 10 s idle timeout.
start=$(date +%s%N)
timeout 5 "$CTL" --socket "$sock" --timeout 3 status >"$WORK/root.out" 2>&1 ||
	{ cat "$WORK/root.out"; fail "root's status refused while a user holds connections"; }
ms=$((($(date +%s%N) - start) / 1000000))
note "root's status took $ms ms"
[ "$ms" -lt 2000 ] || fail "root's status took $ms ms"
# Another permitted user too.
timeout 5 setpriv --reuid=65533 --regid=100 --clear-groups "$CTL" --socket "$sock" --timeout 3 \
	status >"$WORK/other.out" 2>&1 || { cat "$WORK/other.out"; fail "another user's status refused"; }
grep -q '^state: recording' "$WORK/other.out" || fail "another user: no status"
exec 9>&-

# Many users fill their share with idle connections; root still gets in,
# and so does a newcomer, by closing the oldest idle one.
for uid in $(seq 65520 65527); do
	setpriv --reuid="$uid" --regid=100 --clear-groups "$WORK/hold_connections" 8 "$sock" \
		<"$WORK/hold.in" >"$WORK/hold.$uid" 2>&1 &
	CHILD_PIDS+=($!)
done
exec 9>"$WORK/hold.in"
for uid in $(seq 65520 65527); do wait_for_line "$WORK/hold.$uid" '^ready'; done
total=$(cat "$WORK"/hold.655* | sed -n 's/^held \([0-9]*\) .*/\1/p' | awk '{s += $1} END {print s}')
note "8 users hold $total connections"
timeout 5 "$CTL" --socket "$sock" --timeout 3 status >"$WORK/root.out" 2>&1 ||
	{ cat "$WORK/root.out"; fail "root's status refused with the users' share full"; }
timeout 5 setpriv --reuid=65533 --regid=100 --clear-groups "$CTL" --socket "$sock" --timeout 3 \
	status >"$WORK/other.out" 2>&1 || { cat "$WORK/other.out"; fail "a newcomer was refused with the table full of idle connections"; }
grep -q 'closing idle connection of pid .* the table is full' "$WORK/daemon.log" ||
	fail "no idle connection was closed to make room"
exec 9>&-
echo "PASS: one user's 64 idle connections: it holds $held; root in $ms ms; others served"
