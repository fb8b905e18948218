#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Retention and uploads: with the object store unreachable, max_snapshots
# keeps every snapshot not yet uploaded; max_total_size still deletes them
# when nothing else is left, and the log says so (their state files go
# too). Then, with the store back and keep_local = no (both by reload), the
# pending snapshot is uploaded byte-identical and its local files and state
# file are deleted. Traffic to 127.0.0.1 only; every wait bounded.
. "$(dirname "$0")/lib.sh"
require_env

CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v curl >/dev/null || prereq_missing "curl"
command -v python3 >/dev/null || prereq_missing "python3"

start_s3rver keep
port=$S3_PORT
# A port nobody listens on: bound, then closed (connections are refused).
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

(umask 077 && printf '[default]\naws_access_key_id = S3RVER\naws_secret_access_key = x\n' \
	>"$WORK/credentials")
conf() { # ENDPOINT_PORT MAX_TOTAL_SIZE KEEP_LOCAL
	write_config "$WORK/perfsnapd.conf" "sched:sched_switch" 64K "max_snapshots = 1
max_total_size = $2"
	cat >>"$WORK/perfsnapd.conf" <<CONF
[upload]
url = s3://keep/r/
endpoint = http://127.0.0.1:$1
path_style = yes
credentials = $WORK/credentials
keep_local = $3
retry_min = 100ms
retry_max = 200ms
CONF
}
ctl() { "$CTL" --socket "$WORK/control.sock" --timeout 30 "$@"; }
state_of() { ctl list | awk -v s="$1" '$1 == s { print $3 }'; }
wait_state() { # STEM STATE
	for _ in $(seq 1 300); do
		[ "$(state_of "$1")" = "$2" ] && return 0
		sleep 0.1
	done
	ctl status >&2
	fail "$1 is '$(state_of "$1")', not '$2'"
}
dump() { basename "$(ctl dump --reason "$1" | grep '\.perf\.data$')" .perf.data; }

conf "$dead" 0 yes
start_daemon "$WORK/perfsnapd.conf"

# max_snapshots = 1, but none is uploaded: all three stay.
stems=()
for i in 1 2 3; do
	stems+=("$(dump "held $i")")
	wait_state "${stems[-1]}" failing
done
[ "$(ctl list | wc -l)" = 3 ] || { ctl list; fail "retention deleted a snapshot not yet uploaded"; }
grep -q 'retention: deleted' "$WORK/daemon.log" && fail "retention deleted something"

# max_total_size = 1 byte: nothing but the held ones to delete; all but the newest go.
conf "$dead" 1 yes
ctl reload >/dev/null || fail "reload"
last=$(dump "forced")
[ "$(ctl list | awk '{ print $1 }')" = "$last" ] || { ctl list; fail "want only the newest left"; }
for s in "${stems[@]}"; do
	grep -q "retention: deleted snapshot $s (.* bytes) before it was uploaded, to keep max_total_size = 1" \
		"$WORK/daemon.log" || fail "no forced-deletion warning for $s"
	[ -e "$WORK/out/.$s.upload" ] && fail "the state file of deleted $s stayed"
done
wait_state "$last" failing
mkdir -p "$WORK/saved"
cp "$WORK/out/$last".* "$WORK/saved/"

# The store is back, keep_local = no: uploaded, then the local files go.
conf "$port" 0 no
ctl reload >/dev/null || fail "reload"
for _ in $(seq 1 300); do
	[ -z "$(ls "$WORK/out")" ] && [ -z "$(ls -A "$WORK/out" | grep -v '^\.' || true)" ] && break
	sleep 0.1
done
[ -z "$(ls -A "$WORK/out")" ] || { ls -la "$WORK/out"; fail "keep_local = no left files behind"; }
grep -q "snapshot $last uploaded to s3://keep/r/: .*; local files deleted (keep_local = no)" \
	"$WORK/daemon.log" || fail "no upload line for $last"
n=0
for f in "$WORK/saved/"*; do
	curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:x \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' -o "$WORK/got" \
		"http://127.0.0.1:$port/keep/r/${f##*/}" || fail "${f##*/} not in the bucket"
	cmp "$f" "$WORK/got" || fail "${f##*/} differs in the bucket"
	n=$((n + 1))
done
[ "$n" = 2 ] || fail "want perf.data and json, got $n files"
for s in "${stems[@]}"; do
	curl -s -o /dev/null -w '%{http_code}' --aws-sigv4 aws:amz:us-east-1:s3 --user S3RVER:x \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
		"http://127.0.0.1:$port/keep/r/$s.json" | grep -q 404 || fail "deleted $s was uploaded"
done
echo "PASS: retention holds what is not uploaded, max_total_size forces and says so, keep_local = no"
