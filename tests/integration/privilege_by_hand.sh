#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# privilege_by_hand: perfsnapd started by hand as root (every capability)
# keeps only the table's (docs/privileges.md): CAP_PERFMON and the others
# it uses, none of CAP_SYS_ADMIN, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH;
# its bounding set, and so what a post_command gets, adds only what its
# upload helper needs to give up root. With that it records, dumps,
# reopens its rings at a reload and dumps again.
. "$(dirname "$0")/lib.sh"
require_env
command -v capsh >/dev/null || prereq_missing "capsh (libcap2-bin)"
[ "$(id -u)" = 0 ] || prereq_missing "root"
capsh --decode="$(sed -n 's/^CapEff:\t//p' /proc/self/status)" | grep -q 'cap_setpcap.*cap_sys_admin' ||
	prereq_missing "root with CAP_SETPCAP and CAP_SYS_ADMIN (outside a container)"

caps() { # PID FIELD: the capabilities, one a line, sorted
	capsh --decode="$(sed -n "s/^$2:\t//p" "/proc/$1/status")" | sed 's/^.*=//' | tr ',' '\n' | sort
}
own="cap_bpf cap_checkpoint_restore cap_chown cap_ipc_lock cap_kill cap_perfmon cap_sys_nice cap_sys_ptrace cap_syslog"
bound="$own cap_setgid cap_setpcap cap_setuid"
sorted() { tr ' ' '\n' <<<"$1" | sort; }

cat >"$WORK/post" <<SCRIPT
#!/bin/sh
grep '^Cap' /proc/self/status >"$WORK/post.caps.tmp" && mv "$WORK/post.caps.tmp" "$WORK/post.caps"
SCRIPT
chmod 0755 "$WORK/post"
write_config "$WORK/perfsnapd.conf" "sched:sched_switch" 1M "post_command = $WORK/post"
start_daemon "$WORK/perfsnapd.conf"

[ "$(caps "$DAEMON_PID" CapEff)" = "$(sorted "$own")" ] ||
	fail "effective: $(caps "$DAEMON_PID" CapEff | xargs), want $own"
[ "$(caps "$DAEMON_PID" CapPrm)" = "$(sorted "$own")" ] ||
	fail "permitted: $(caps "$DAEMON_PID" CapPrm | xargs), want $own"
[ "$(caps "$DAEMON_PID" CapBnd)" = "$(sorted "$bound")" ] ||
	fail "bounding: $(caps "$DAEMON_PID" CapBnd | xargs), want $bound"
grep -q $'^CapAmb:\t0*$' "/proc/$DAEMON_PID/status" || fail "ambient capabilities left"
grep -q $'^CapInh:\t0*$' "/proc/$DAEMON_PID/status" || fail "inheritable capabilities left"
# Every thread alike (capabilities are per thread; it limits them before any starts).
for t in /proc/"$DAEMON_PID"/task/*; do
	[ "$(sed -n 's/^CapEff:\t//p' "$t/status")" = "$(sed -n 's/^CapEff:\t//p' "/proc/$DAEMON_PID/status")" ] ||
		fail "thread ${t##*/} holds other capabilities"
done
log_has 'capabilit' && { cat "$WORK/daemon.log"; fail "a warning about capabilities"; }

dump_and_wait >/dev/null
wait_until 10 test -e "$WORK/post.caps" || fail "post_command did not run"
pbnd=$(capsh --decode="$(sed -n 's/^CapBnd:\t//p' "$WORK/post.caps")" | sed 's/^.*=//' | tr ',' '\n' | sort)
[ "$pbnd" = "$(sorted "$bound")" ] || fail "post_command's bounding set: $(xargs <<<"$pbnd")"

# New rings at a reload, opened with what is left.
write_config "$WORK/perfsnapd.conf" "sched:sched_switch signal:signal_generate" 2M \
	"post_command = $WORK/post"
kill -HUP "$DAEMON_PID"
wait_until 10 log_has 'rings reopened' || { cat "$WORK/daemon.log"; fail "the reload did not reopen the rings"; }
file=$(dump_and_wait)
perf_script_complete "$file"
echo "PASS: by hand as root it keeps $(wc -w <<<"$own") capabilities; its children are bounded; it reloads and dumps"
