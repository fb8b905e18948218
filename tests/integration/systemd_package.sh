#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The .deb as a user installs it, under a real systemd: a container booted
# from this machine's tree (/usr, /etc and /var overlays on it, so that dpkg can
# write and the host is untouched) with every capability a host has. dpkg -i starts the unit as shipped, on
# the configuration as shipped, and then:
#  - the service runs with exactly the capabilities its unit grants, and
#    logs no warning (kernel addresses readable, SCHED_FIFO allowed) but
#    the container's own PID namespace;
#  - perf report of its snapshot names the kernel's functions, without
#    warning that the kernel's address maps were restricted;
#  - [upload] ships a snapshot through perfsnapd-upload.socket: the
#    transfer runs in perfsnapd-upload@.service (a dynamic user, no
#    capability, seccomp), while perfsnapd.service has no network at all;
#  - `systemd-analyze security perfsnapd.service` is at most 2.5;
#  - without CAP_IPC_LOCK it runs, not restarted (rings cut if need be);
#  - dpkg -P stops and removes it.
source "$(dirname "$0")/lib.sh"
require_env
command -v capsh >/dev/null || prereq_missing "capsh (libcap2-bin)"
command -v curl >/dev/null || prereq_missing "curl"
source "$(dirname "$0")/container_lib.sh"
# The container shares the host's network: the helper reaches this server.
start_s3rver ctsnaps

build_deb "$WORK/build"
cp "$DEB" "$CT_DIR/"
deb="$CT_DIR/$(basename "$DEB")"
# Up to basic.target: the host's own services (its /etc enables them) stay
# out; dpkg starts perfsnapd.service itself.
CT_BOOT_ARGS=systemd.unit=basic.target
boot_container --volatile=yes --overlay=/usr::/usr --overlay=/etc::/etc --overlay=/var::/var \
	--capability=all
in_ct dpkg-query -W -f='${Status}' perfsnapd 2>/dev/null | grep -q 'ok installed' &&
	fail "perfsnapd is already installed in this tree"

journal() { in_ct journalctl -u perfsnapd.service --no-pager -o cat "$@"; }
prop() { in_ct systemctl show -p "$1" --value perfsnapd.service; }
snapshots() { in_ct find /var/lib/perfsnapd -name '*.perf.data' | sort; }
# wait_active: until the service is active and recording (bounded).
wait_active() {
	for _ in $(seq 1 150); do
		[ "$(prop ActiveState)" = active ] && journal | grep -q '^recording [0-9]* events' && return 0
		sleep 0.2
	done
	journal | tail -20 >&2
	fail "$1: perfsnapd.service is $(prop ActiveState)"
}
# dump_one LABEL: SIGUSR2, then the new snapshot's path in the container.
dump_one() {
	local before after
	before=$(snapshots | wc -l)
	in_ct kill -USR2 "$(prop MainPID)"
	for _ in $(seq 1 150); do
		after=$(snapshots | wc -l)
		[ "$after" -gt "$before" ] && break
		sleep 0.2
	done
	[ "$after" -gt "$before" ] || { journal | tail -20 >&2; fail "$1: no snapshot"; }
	snapshots | tail -1
}

# A build image's "start no service" policy (Docker's images ship one) is
# not a host's: in the container, dpkg starts the service as on a host.
in_ct rm -f /usr/sbin/policy-rc.d
timeout 120 nsenter -t "$INIT" -a dpkg -i "$deb" >"$WORK/dpkg.log" 2>&1 ||
	{ cat "$WORK/dpkg.log"; fail "dpkg -i in the container"; }
wait_active "after dpkg -i"
[ "$(in_ct systemctl is-enabled perfsnapd.service)" = enabled ] || fail "the unit was not enabled"

# Exactly the unit's capabilities: no more (the bounding set is the unit's),
# no fewer (systemd may take some away, as ProtectKernelLogs= does CAP_SYSLOG).
main=$(prop MainPID)
want=$(in_ct sed -n 's/^CapabilityBoundingSet=//p' /usr/lib/systemd/system/perfsnapd.service |
	tr 'A-Z ' 'a-z\n' | sort | tr '\n' ' ')
eff=$(in_ct sed -n 's/^CapEff:\t//p' "/proc/$main/status")
have=$(capsh --decode="$eff" | sed 's/^.*=//' | tr ',' '\n' | sort | tr '\n' ' ')
note "unit grants: $want"
[ "$have" = "$want" ] || fail "perfsnapd runs with '$have', the unit grants '$want'"

# No warning, then the kernel's functions by name in perf report.
file=$(dump_one "installed")
# But one: a container has a PID namespace of its own, and perfsnapd says
# so (a host's service runs in the host's).
journal -p warning | grep -v 'runs in a PID namespace of its own' >"$WORK/warnings.txt" || true
[ -s "$WORK/warnings.txt" ] && { cat "$WORK/warnings.txt" >&2; fail "the service logged warnings"; }
in_ct cat "$file" >"$WORK/snap.perf.data"
perf report -i "$WORK/snap.perf.data" --stdio --sort sym >"$WORK/report.txt" 2>"$WORK/report.err" ||
	{ cat "$WORK/report.err"; fail "perf report"; }
grep -qi 'restricted' "$WORK/report.txt" "$WORK/report.err" &&
	{ cat "$WORK/report.err"; fail "perf report: kernel address maps were restricted"; }
named=$(grep -cE '\[k\] [a-zA-Z_]' "$WORK/report.txt" || true)
raw=$(grep -cE '\[k\] 0x' "$WORK/report.txt" || true)
note "perf report: $named kernel symbols named, $raw raw addresses"
if [ "$named" = 0 ] || [ "$raw" != 0 ]; then
	head -30 "$WORK/report.txt"
	fail "kernel frames not named"
fi

# [upload]: the service itself has no network; its helper ships the files.
in_ct sh -c 'umask 077 && printf "[default]\naws_access_key_id = S3RVER\naws_secret_access_key = x\n" \
	>/etc/perfsnapd/credentials'
in_ct sh -c "printf '[upload]\nurl = s3://ctsnaps/{host}/\nendpoint = http://127.0.0.1:$S3_PORT\npath_style = yes\ncredentials = /etc/perfsnapd/credentials\nretry_min = 100ms\nretry_max = 500ms\n' >>/etc/perfsnapd/perfsnapd.conf"
in_ct systemctl reload perfsnapd.service
file=$(dump_one "with [upload]")
stem=$(basename "$file" .perf.data)
for _ in $(seq 1 150); do
	journal | grep -q "snapshot $stem uploaded to s3://ctsnaps/" && break
	sleep 0.2
done
journal | grep -q "snapshot $stem uploaded to s3://ctsnaps/" ||
	{ journal | tail -20 >&2; in_ct journalctl --no-pager -u 'perfsnapd-upload@*' | tail >&2; fail "not uploaded under systemd"; }
host=$(in_ct hostname | tr -c 'A-Za-z0-9._\n-' -)
in_ct cat "$file" >"$WORK/up.perf.data"
curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:x -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
	-o "$WORK/got" "http://127.0.0.1:$S3_PORT/ctsnaps/$host/$stem.perf.data" || fail "$stem.perf.data not in the bucket"
cmp "$WORK/up.perf.data" "$WORK/got" || fail "the uploaded perf.data differs"
helper=$(in_ct systemctl list-units --plain --no-legend --state=active 'perfsnapd-upload@*' | awk 'NR == 1 { print $1 }')
[ -n "$helper" ] || fail "no perfsnapd-upload@ instance is active"
hpid=$(in_ct systemctl show -p MainPID --value "$helper")
hst=$(in_ct cat "/proc/$hpid/status")
echo "$hst" | grep -qE '^Uid:\s+0\s' && fail "the helper runs as root"
for c in CapPrm CapEff CapBnd CapAmb; do
	echo "$hst" | grep -qE "^$c:\s+0000000000000000$" || fail "the helper holds capabilities ($c)"
done
echo "$hst" | grep -qE '^Seccomp:\s+2$' || fail "the helper has no seccomp filter"
[ "$(prop PrivateNetwork)" = yes ] || fail "perfsnapd.service has a network"
[ "$(prop RestrictAddressFamilies)" = AF_UNIX ] || fail "perfsnapd.service may open $(prop RestrictAddressFamilies)"
score=$(in_ct systemd-analyze security perfsnapd.service --no-pager 2>&1 |
	sed -n 's/.*Overall exposure level for perfsnapd.service: \([0-9.]*\).*/\1/p')
note "upload by $helper (pid $hpid); systemd-analyze security perfsnapd.service: $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 2.5) }' || fail "exposure $score, want at most 2.5"

# Without CAP_IPC_LOCK, as under a container runtime that drops it: the
# service runs, no restart (LimitMEMLOCK= lets the rings be locked where
# systemd may raise the limit; where it may not, as here, they are cut).
in_ct mkdir -p /etc/systemd/system/perfsnapd.service.d
in_ct sh -c 'printf "[Service]\nCapabilityBoundingSet=~CAP_IPC_LOCK\n" \
	>/etc/systemd/system/perfsnapd.service.d/no-ipc-lock.conf'
in_ct systemctl daemon-reload
timeout 60 nsenter -t "$INIT" -a systemctl restart perfsnapd.service ||
	{ journal | tail -20 >&2; fail "restart without CAP_IPC_LOCK"; }
wait_active "without CAP_IPC_LOCK"
capsh --decode="$(in_ct sed -n 's/^CapEff:\t//p' "/proc/$(prop MainPID)/status")" |
	grep -q cap_ipc_lock && fail "the drop-in did not take CAP_IPC_LOCK away"
dump_one "without CAP_IPC_LOCK" >/dev/null
[ "$(prop NRestarts)" = 0 ] || fail "perfsnapd was restarted $(prop NRestarts) times without CAP_IPC_LOCK"
note "without CAP_IPC_LOCK: $(journal | grep -o 'overwrite rings of [0-9]* KiB' | tail -1)"
in_ct rm /etc/systemd/system/perfsnapd.service.d/no-ipc-lock.conf
in_ct systemctl daemon-reload

timeout 120 nsenter -t "$INIT" -a dpkg -P perfsnapd >"$WORK/purge.log" 2>&1 ||
	{ cat "$WORK/purge.log"; fail "dpkg -P in the container"; }
[ "$(prop ActiveState)" = inactive ] || fail "perfsnapd still $(prop ActiveState) after dpkg -P"
in_ct test -e /usr/sbin/perfsnapd && fail "binary left after dpkg -P"
echo "PASS: the .deb under systemd: the unit's capabilities, no warnings, kernel frames named, uploads by an unprivileged helper, runs without CAP_IPC_LOCK, purges"
