#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The network side runs without perfsnapd's privileges: with [upload], the
# transfers are made by perfsnapd-upload, a child that is "nobody", holds
# no capability (not even in its bounding set), has no_new_privs and a
# seccomp filter, and holds no ring and no file of the snapshot
# directory; perfsnapd itself holds no IP socket, during or after the
# upload. A helper that dies is replaced at the next upload, which is
# byte-identical. Traffic to 127.0.0.1 only; every wait bounded.
. "$(dirname "$0")/lib.sh"
require_env

CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v curl >/dev/null || prereq_missing "curl"
start_s3rver snaps

(umask 077 && printf '[default]\naws_access_key_id = S3RVER\naws_secret_access_key = x\n' \
	>"$WORK/credentials")
write_config "$WORK/perfsnapd.conf" "sched:sched_switch" 64K
cat >>"$WORK/perfsnapd.conf" <<CONF
[upload]
url = s3://snaps/p/
endpoint = http://127.0.0.1:$S3_PORT
path_style = yes
credentials = $WORK/credentials
retry_min = 100ms
retry_max = 200ms
CONF
ctl() { "$CTL" --socket "$WORK/control.sock" --timeout 30 "$@"; }
dump() { basename "$(ctl dump --reason "$1" | grep '\.perf\.data$')" .perf.data; }
wait_uploaded() { # STEM
	for _ in $(seq 1 300); do
		grep -q "snapshot $1 uploaded to s3://snaps/p/" "$WORK/daemon.log" && return 0
		sleep 0.1
	done
	tail -20 "$WORK/daemon.log" >&2
	fail "$1 was not uploaded"
}
in_bucket() { # STEM: each of its files in the bucket, byte for byte
	for f in "$WORK/out/$1".*; do
		curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:x \
			-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o "$WORK/got" \
			"http://127.0.0.1:$S3_PORT/snaps/p/${f##*/}" || fail "${f##*/} not in the bucket"
		cmp "$f" "$WORK/got" || fail "${f##*/} differs in the bucket"
	done
}
helper_pid() { ps --ppid "$DAEMON_PID" -o pid=,comm= | awk '$2 ~ /^perfsnapd-uplo/ { print $1 }'; }
# IP sockets (TCP or UDP, v4 or v6) among the descriptors of PID.
ip_sockets() {
	local inodes
	inodes=$(find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null |
		sed 's/socket:\[\([0-9]*\)\]/\1/')
	[ -n "$inodes" ] || return 0
	awk 'NR == FNR { want[$1] = 1; next } FNR > 1 && ($10 in want) { print FILENAME, $3 }' \
		<(echo "$inodes") /proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6
}

start_daemon "$WORK/perfsnapd.conf"
[ -z "$(helper_pid)" ] || fail "a helper runs before there is anything to upload"

# A dump, uploaded; perfsnapd holds no IP socket while the upload runs.
s1=$(dump first)
[ -n "$s1" ] || fail "no snapshot"
for _ in $(seq 1 100); do
	[ -z "$(ip_sockets "$DAEMON_PID")" ] || fail "perfsnapd holds an IP socket: $(ip_sockets "$DAEMON_PID")"
	grep -q "snapshot $s1 uploaded" "$WORK/daemon.log" && break
	sleep 0.02
done
wait_uploaded "$s1"
in_bucket "$s1"
[ -z "$(ip_sockets "$DAEMON_PID")" ] || fail "perfsnapd holds an IP socket: $(ip_sockets "$DAEMON_PID")"

# The helper: who it is and what it holds.
h=$(helper_pid)
[ -n "$h" ] || { ps -ef --forest >&2; fail "no upload helper among perfsnapd's children"; }
st=/proc/$h/status
nobody=$(id -u nobody)
grep -qE "^Uid:\s+$nobody\s+$nobody\s+$nobody\s+$nobody$" "$st" || { grep Uid "$st"; fail "helper not running as nobody"; }
grep -qE "^Gid:\s+$(id -g nobody)\s" "$st" || { grep Gid "$st"; fail "helper not in nobody's group"; }
grep -qE "^Groups:\s*$" "$st" || { grep Groups "$st"; fail "helper kept supplementary groups"; }
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	grep -qE "^$c:\s+0000000000000000$" "$st" || { grep "^$c" "$st"; fail "helper holds capabilities ($c)"; }
done
grep -qE '^NoNewPrivs:\s+1$' "$st" || fail "helper without no_new_privs"
grep -qE '^Seccomp:\s+2$' "$st" || fail "helper without a seccomp filter"
fds=$(find "/proc/$h/fd" -mindepth 1 -printf '%l\n')
echo "$fds" | grep -q 'perf_event' && fail "the helper holds a perf event: $fds"
echo "$fds" | grep -qF "$WORK/out" && fail "the helper still holds a snapshot file: $fds"
echo "$fds" | grep -qF "$WORK/control.sock" && fail "the helper holds the control socket"
note "helper pid $h: $(echo "$fds" | tr '\n' ' ')"

# Killed: the next upload starts another one, and says so. Dead (a zombie
# or reaped) before the next dump: under ASan its exit takes a while, and
# a helper still exiting is not idle but dying in the upload's hands.
kill -KILL "$h"
helper_dead() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
wait_until 10 helper_dead "$h" || fail "the helper outlived SIGKILL by 10 s"
s2=$(dump second)
wait_uploaded "$s2"
in_bucket "$s2"
h2=$(helper_pid)
[ -n "$h2" ] && [ "$h2" != "$h" ] || fail "no new helper (was $h, now '$h2')"
grep -q "upload helper (pid $h) went away while idle: .*signal 9; starting another" "$WORK/daemon.log" ||
	fail "the helper's death was not logged"
[ -z "$(ip_sockets "$DAEMON_PID")" ] || fail "perfsnapd holds an IP socket"
echo "PASS: uploads by an unprivileged, filtered helper; perfsnapd holds no IP socket"
