#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [control] group members get a budget, triggers keep theirs (issue 53: a
# member looping "perfsnapctl dump" spent max_per_hour, refusing the next
# crash trigger, and could reload). With member_max_per_hour = 2 and
# max_per_hour = 8: a member's third dump in the hour is refused with a
# clear message; members together stop at 6, the last quarter of
# max_per_hour being kept for triggers and root; then a configured
# trigger still fires, root still dumps, and a member may not reload.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v setpriv >/dev/null || prereq_missing "setpriv (util-linux)"
getent group users >/dev/null || prereq_missing "the group 'users'"

# Task names unique to this run: a concurrent run elsewhere must not fire this trigger.
tag=$(($$ % 90000 + 10000))
write_config "$WORK/p.conf" "sched:sched_switch" 1M "max_per_hour = 8"
sed -i '/^\[control\]/a group = users\nmember_max_per_hour = 2' "$WORK/p.conf"
cat >>"$WORK/p.conf" <<CONF
[trigger usr1]
event = signal:signal_generate
filter = sig == 10 && comm ~ "c$tag-*"
CONF
start_daemon "$WORK/p.conf"
sock=$WORK/control.sock
chmod 0755 "$WORK"
member() { # UID OUT COMMAND...
	local uid=$1 out=$2
	shift 2
	setpriv --reuid="$uid" --regid=100 --clear-groups "$CTL" --socket "$sock" --timeout 60 "$@" \
		>"$WORK/$out" 2>&1
}

member 65534 a1 dump || { cat "$WORK/a1" >&2; fail "a member's first dump was refused"; }
member 65534 a2 dump || { cat "$WORK/a2" >&2; fail "a member's second dump was refused"; }
member 65534 a3 dump && fail "a member's third dump in the hour was accepted"
grep -q "refused: uid 65534 has asked for its 2 dumps of the last hour (\[control\] member_max_per_hour)" \
	"$WORK/a3" || { cat "$WORK/a3" >&2; fail "no clear refusal of the member's third dump"; }
for uid in 65533 65532; do
	member $uid b1 dump && member $uid b2 dump || { cat "$WORK/b1" "$WORK/b2" >&2; fail "uid $uid refused"; }
done
member 65531 c1 dump && fail "members spent the triggers' quarter of max_per_hour"
grep -q "refused: the last 2 of max_per_hour = 8 are kept for triggers and root" "$WORK/c1" ||
	{ cat "$WORK/c1" >&2; fail "no clear refusal for the triggers' reserve"; }
[ "$(snapshot_count)" = 6 ] || fail "$(snapshot_count) snapshots, want the members' 6"

# The trigger's dump, a process dying of SIGUSR1.
"$PROGS/crasher" "c$tag-usr1" 5 usr1 &
wait $! && fail "the SIGUSR1 crasher did not die"
wait_snapshot 6 >/dev/null
"$CTL" --socket "$sock" status >"$WORK/status.txt" || fail "status failed"
grep -q "^trigger: usr1 (event signal:signal_generate): 1 matches, 1 fired, 1 dumps started, 0 refused" \
	"$WORK/status.txt" || { cat "$WORK/status.txt" >&2; fail "the trigger did not fire a dump"; }
"$CTL" --socket "$sock" dump >"$WORK/root.out" 2>&1 ||
	{ cat "$WORK/root.out" >&2; fail "root's dump refused"; }
member 65534 r reload && fail "a member could reload"
grep -q "only root may reload" "$WORK/r" || { cat "$WORK/r" >&2; fail "no clear refusal of a member's reload"; }
echo "PASS: members stop at their budget and at the triggers' reserve; the trigger and root still dump"
