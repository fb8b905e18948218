#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A fleet on one machine: three perfsnapd "hosts" (each its own UTS
# namespace and host name, config, control socket and directory) upload to
# one S3-compatible server (s3rver, started here on 127.0.0.1) through a
# proxy that checks every SigV4 signature and injects faults. One trigger
# fired on all hosts at once must put every host's snapshot in the bucket,
# byte-identical to the local files. Then the faults: the server down during
# a dump (uploaded once it is back), 500s (retried with backoff), a 403 from
# the real server for a bad access key (a clear error, not retried forever,
# uploaded after the credentials are fixed and perfsnapd reloaded), a server
# that stalls (dumps answered, SIGTERM honoured), and a restart with
# uploads pending (they complete). The secret never shows in
# logs, status or argv. All traffic is to 127.0.0.1; every wait is bounded.
. "$(dirname "$0")/lib.sh"
require_env

CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
PROGS_SRC=${SOURCE_DIR:?}/tests/integration/progs
PROXY=$PROGS_SRC/s3_fault_proxy.py
command -v node >/dev/null || prereq_missing "node (nodejs)"
command -v python3 >/dev/null || prereq_missing "python3"
command -v curl >/dev/null || prereq_missing "curl"
command -v unshare >/dev/null || prereq_missing "unshare (util-linux)"

SECRET=perfsnap-test-secret-XYZZY42
BUCKET=fleet
HOSTS=(alpha bravo charlie)
declare -A PID
S3_PID= PROXY_PID=

stop_all() {
	for h in "${HOSTS[@]}"; do [ -n "${PID[$h]:-}" ] && kill -TERM "${PID[$h]}" 2>/dev/null; done
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null
	[ -n "$S3_PID" ] && kill "$S3_PID" 2>/dev/null
	wait 2>/dev/null
}
CLEANUP_HOOK=stop_all

# --- the server and the proxy -------------------------------------------
start_s3rver "$BUCKET"

: >"$WORK/mode"
start_proxy() { # [PORT]
	rm -f "$WORK/proxy.port"
	python3 "$PROXY" --upstream "$S3_PORT" --port "${1:-0}" --port-file "$WORK/proxy.port" \
		--mode-file "$WORK/mode" --log "$WORK/proxy.log" --secret "$SECRET" \
		>>"$WORK/proxy.out" 2>&1 &
	PROXY_PID=$!
	for _ in $(seq 1 200); do
		[ -s "$WORK/proxy.port" ] && break
		kill -0 "$PROXY_PID" 2>/dev/null || break
		sleep 0.05
	done
	[ -s "$WORK/proxy.port" ] || { cat "$WORK/proxy.out"; fail "proxy did not start"; }
	PROXY_PORT=$(cat "$WORK/proxy.port")
}
stop_proxy() {
	kill "$PROXY_PID" && wait "$PROXY_PID" 2>/dev/null
	PROXY_PID=
}
start_proxy

# --- the hosts -------------------------------------------------------------
write_credentials() { # FILE KEYID
	(umask 077 && printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
		"$2" "$SECRET" >"$1")
}
for h in "${HOSTS[@]}"; do
	mkdir -p "$WORK/$h/out"
	write_credentials "$WORK/$h/credentials" S3RVER
	cat >"$WORK/$h/perfsnapd.conf" <<CONF
[capture]
events = sched:sched_switch sched:sched_wakeup
buffer_size = 256K
[snapshot]
directory = $WORK/$h/out
formats = perf.data trace.dat
[control]
socket = $WORK/$h/control.sock
[upload]
url = s3://$BUCKET/perfsnap/{host}/
endpoint = http://127.0.0.1:$PROXY_PORT
path_style = yes
region = us-east-1
credentials = $WORK/$h/credentials
retry_min = 100ms
retry_max = 1s
CONF
done

start_host() { # NAME
	local h=$1
	rm -f "$WORK/$h/daemon.log"
	unshare --uts sh -c 'hostname "$1" && exec "$2" --config "$3"' sh "$h" "$PERFSNAPD" \
		"$WORK/$h/perfsnapd.conf" >"$WORK/$h/daemon.log" 2>&1 &
	PID[$h]=$!
	for _ in $(seq 1 200); do
		grep -q 'perfsnapd: recording' "$WORK/$h/daemon.log" 2>/dev/null && return 0
		kill -0 "${PID[$h]}" 2>/dev/null || break
		sleep 0.05
	done
	cat "$WORK/$h/daemon.log" >&2
	fail "$h: perfsnapd did not start"
}
stop_host() { # NAME: SIGTERM, and it must exit 0
	local h=$1 rc=0
	kill -TERM "${PID[$h]}" 2>/dev/null
	wait "${PID[$h]}" || rc=$?
	PID[$h]=
	[ "$rc" = 0 ] || { tail -n 20 "$WORK/$h/daemon.log" >&2; fail "$h: exit $rc on SIGTERM"; }
}
ctl() { "$CTL" --socket "$WORK/$1/control.sock" --timeout 30 "${@:2}"; }

# upload_state HOST STEM: the upload column of `perfsnapctl list`.
upload_state() { ctl "$1" list | awk -v s="$2" '$1 == s { print $3 }'; }

wait_state() { # HOST STEM STATE [SECONDS]
	local st=
	for _ in $(seq 1 $((${4:-30} * 10))); do
		st=$(upload_state "$1" "$2")
		[ "$st" = "$3" ] && return 0
		sleep 0.1
	done
	ctl "$1" status >&2
	tail -n 20 "$WORK/$1/daemon.log" >&2
	fail "$1: $2 is '$st', not '$3'"
}

# in_bucket HOST STEM: every local file of the snapshot, fetched from the
# bucket (SigV4-signed GET through the proxy), is byte-identical.
in_bucket() {
	local h=$1 stem=$2 n=0 f
	for f in "$WORK/$h/out/$stem".*; do
		curl -sf --aws-sigv4 aws:amz:us-east-1:s3 --user "S3RVER:$SECRET" \
			-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
			-o "$WORK/got" "http://127.0.0.1:$PROXY_PORT/$BUCKET/perfsnap/$h/${f##*/}" ||
			fail "$h: ${f##*/} not in the bucket"
		cmp "$f" "$WORK/got" || fail "$h: ${f##*/} differs in the bucket"
		n=$((n + 1))
	done
	[ "$n" = 3 ] || fail "$h: $stem has $n files, want perf.data, trace.dat and json"
}

stem_of() { basename "$1" .perf.data; }

for h in "${HOSTS[@]}"; do start_host "$h"; done
note "s3rver on $S3_PORT, proxy on $PROXY_PORT, hosts ${HOSTS[*]}"

# --- one trigger on the whole fleet at once: the shipped Ansible playbook ---
command -v ansible-playbook >/dev/null || prereq_missing "ansible-playbook (ansible-core)"
{
	echo "[perfsnapd]"
	for h in "${HOSTS[@]}"; do
		echo "$h ansible_connection=local ansible_become=false" \
			"ansible_python_interpreter=/usr/bin/python3 perfsnapctl=$CTL" \
			"perfsnap_socket=$WORK/$h/control.sock"
	done
} >"$WORK/inventory"
ANSIBLE_LOCAL_TEMP=$WORK/ansible-tmp ANSIBLE_HOME=$WORK/ansible \
	ansible-playbook -i "$WORK/inventory" -f 3 -e 'perfsnap_reason="incident 42"' \
	"$SOURCE_DIR/packaging/fleet/ansible/perfsnap-dump.yml" >"$WORK/ansible.out" 2>&1 ||
	{ cat "$WORK/ansible.out"; fail "the playbook failed"; }
declare -A STEM
for h in "${HOSTS[@]}"; do
	f=$(ls "$WORK/$h/out/"*.perf.data 2>/dev/null)
	[ "$(echo "$f" | wc -w)" = 1 ] || fail "$h: want one snapshot from the playbook, got: $f"
	STEM[$h]=$(stem_of "$f")
	[[ ${STEM[$h]} == "$h"-* ]] || fail "$h: stem '${STEM[$h]}' does not carry its host name"
	grep -q '"reason": "incident 42"' "$WORK/$h/out/${STEM[$h]}.json" ||
		fail "$h: the playbook's reason is not in the sidecar"
	grep -q "${STEM[$h]}.perf.data" "$WORK/ansible.out" || fail "$h: the playbook does not show its files"
done
for h in "${HOSTS[@]}"; do
	wait_state "$h" "${STEM[$h]}" uploaded
	in_bucket "$h" "${STEM[$h]}"
	grep -q "snapshot ${STEM[$h]} uploaded to s3://$BUCKET/perfsnap/$h/" "$WORK/$h/daemon.log" ||
		fail "$h: no upload log line"
	ctl "$h" status | grep -q '^uploads: 0 pending, 0 failing, 0 failed, 1 uploaded$' ||
		fail "$h: status does not count the upload"
done
# The JSON is the last object of each snapshot to arrive.
for h in "${HOSTS[@]}"; do
	grep "PUT /$BUCKET/perfsnap/$h/${STEM[$h]}" "$WORK/proxy.log" | tail -n 1 |
		grep -q '\.json 200$' || fail "$h: the JSON was not uploaded last"
done
grep -q badsig "$WORK/proxy.log" && fail "a request had a bad SigV4 signature"
note "fleet trigger (Ansible playbook): 3 hosts, every snapshot in the bucket, byte-identical"

# --- the same through the Kubernetes trigger script (kubectl exec per pod) ---
PERFSNAPCTL=$CTL FAKE_K8S_WORK=$WORK FAKE_K8S_HOSTS="${HOSTS[*]}" KUBECTL=$PROGS_SRC/fake-kubectl \
	"$SOURCE_DIR/packaging/fleet/kubernetes/perfsnap-k8s-dump" --reason "k8s incident" \
	>"$WORK/k8s.out" 2>&1 || { cat "$WORK/k8s.out"; fail "perfsnap-k8s-dump failed"; }
for h in "${HOSTS[@]}"; do
	f=$(grep "^$h: .*\.perf\.data$" "$WORK/k8s.out" | sed "s/^$h: //")
	[ -f "$f" ] || { cat "$WORK/k8s.out"; fail "$h: perfsnap-k8s-dump shows no snapshot"; }
	wait_state "$h" "$(stem_of "$f")" uploaded
	in_bucket "$h" "$(stem_of "$f")"
done
note "fleet trigger (kubectl exec over the pods): 3 more snapshots uploaded"

# --- the server down during a dump -----------------------------------------
port=$PROXY_PORT
stop_proxy
start=$(date +%s%N)
ctl alpha dump --reason "server down" >"$WORK/down.out" || fail "dump refused with the server down"
took=$((($(date +%s%N) - start) / 1000000))
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/down.out")")
wait_state alpha "$stem" failing 10
ctl alpha status | grep -q "^upload failing: $stem: [0-9]* attempts, last error: .*connect" ||
	{ ctl alpha status; fail "status does not say why the upload fails"; }
start_proxy "$port"
wait_state alpha "$stem" uploaded 30
in_bucket alpha "$stem"
note "server down: dump answered in $took ms, uploaded once the server was back"

# --- 500s: retried with backoff ---------------------------------------------
echo "500 3" >"$WORK/mode"
ctl bravo dump --reason "five hundreds" >"$WORK/500.out" || fail "dump with 500s"
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/500.out")")
wait_state bravo "$stem" uploaded 30
in_bucket bravo "$stem"
[ "$(grep -c "PUT /$BUCKET/perfsnap/bravo/$stem.* 500 injected" "$WORK/proxy.log")" = 3 ] ||
	fail "want 3 injected 500s"
grep -q "$stem to s3://$BUCKET/perfsnap/bravo/: attempt 3 failed: HTTP 500 InternalError" \
	"$WORK/bravo/daemon.log" || fail "the 500s are not logged clearly"
note "500s: 3 failed attempts, then uploaded"

# --- 403 from the real server: a clear error, not retried forever ----------
write_credentials "$WORK/charlie/credentials" WRONGKEYID
ctl charlie reload >/dev/null || fail "reload with a wrong key id"
ctl charlie dump --reason "bad key" >"$WORK/403.out" || fail "dump with a wrong key id"
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/403.out")")
wait_state charlie "$stem" failed 30
ctl charlie status | grep -q "^upload failed: $stem: 3 attempts, last error: HTTP 403 InvalidAccessKeyId" ||
	{ ctl charlie status; fail "status does not show the 403"; }
grep -q "failed after 3 attempts: HTTP 403 InvalidAccessKeyId.*not retried until perfsnapd is reloaded or restarted" \
	"$WORK/charlie/daemon.log" || fail "no clear 403 error in the log"
n403=$(grep -c "PUT /$BUCKET/perfsnap/charlie/$stem.* 403$" "$WORK/proxy.log")
[ "$n403" = 3 ] || fail "want 3 refused PUTs, got $n403"
sleep 2 # four times retry_max: a retrying uploader would have tried again
[ "$(grep -c "PUT /$BUCKET/perfsnap/charlie/$stem.* 403$" "$WORK/proxy.log")" = 3 ] ||
	fail "a 403 was retried"
write_credentials "$WORK/charlie/credentials" S3RVER
ctl charlie reload >/dev/null || fail "reload with the right key id"
wait_state charlie "$stem" uploaded 30
in_bucket charlie "$stem"
note "403: 3 attempts, a clear error, no more tries; uploaded after the fix and a reload"

# --- a stalled server: the dump is not held up, a stop is not either --------
echo hang >"$WORK/mode"
ctl bravo dump --reason "stalled server" >"$WORK/hang.out" || fail "dump with a stalled server"
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/hang.out")")
for _ in $(seq 1 100); do
	grep -q "PUT /$BUCKET/perfsnap/bravo/$stem.* hang" "$WORK/proxy.log" && break
	sleep 0.1
done
grep -q "PUT /$BUCKET/perfsnap/bravo/$stem.* hang" "$WORK/proxy.log" || fail "no PUT reached the stall"
[ "$(upload_state bravo "$stem")" = pending ] || fail "a stalled upload is not pending"
ctl bravo dump --reason "during the stall" >/dev/null || fail "a second dump during the stall"
kill -TERM "${PID[bravo]}"
for _ in $(seq 1 200); do kill -0 "${PID[bravo]}" 2>/dev/null || break; sleep 0.1; done
kill -0 "${PID[bravo]}" 2>/dev/null && fail "bravo did not stop within 20 s of SIGTERM during a stalled upload"
stop_host bravo
: >"$WORK/mode"
start_host bravo
wait_state bravo "$stem" uploaded 30
in_bucket bravo "$stem"
note "stalled server: dumps answered, SIGTERM stopped it, uploaded after the restart"

# --- restart with uploads pending -------------------------------------------
port=$PROXY_PORT
stop_proxy
ctl alpha dump --reason "pending at restart" >"$WORK/restart.out" || fail "dump before restart"
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/restart.out")")
wait_state alpha "$stem" failing 10
[ -f "$WORK/alpha/out/.$stem.upload" ] || fail "no state file beside the snapshot"
stop_host alpha
start_proxy "$port"
start_host alpha
grep -q "upload: 1 snapshots in $WORK/alpha/out not yet uploaded: resuming" "$WORK/alpha/daemon.log" ||
	fail "the restart did not resume the pending upload"
wait_state alpha "$stem" uploaded 30
in_bucket alpha "$stem"
note "restart: the pending upload completed"

# --- a reload to a directory with uploads pending ---------------------------
# perfsnapd started on another directory; a reload back to the one with a
# pending snapshot finds it there, as a start would.
port=$PROXY_PORT
stop_proxy
ctl alpha dump --reason "pending before the move" >"$WORK/move.out" || fail "dump before the move"
stem=$(stem_of "$(grep '\.perf\.data$' "$WORK/move.out")")
wait_state alpha "$stem" failing 10
stop_host alpha
sed -i "s|^directory = .*|directory = $WORK/alpha/elsewhere|" "$WORK/alpha/perfsnapd.conf"
mkdir -p "$WORK/alpha/elsewhere"
start_proxy "$port"
start_host alpha
ctl alpha list | grep -q "$stem" && fail "a snapshot of another directory is listed"
sed -i "s|^directory = .*|directory = $WORK/alpha/out|" "$WORK/alpha/perfsnapd.conf"
ctl alpha reload >/dev/null || fail "reload to the old directory refused"
grep -q "upload: 1 snapshots in $WORK/alpha/out not yet uploaded: resuming" "$WORK/alpha/daemon.log" ||
	fail "the reload did not find the pending upload"
wait_state alpha "$stem" uploaded 30
in_bucket alpha "$stem"
note "reload to another directory: its pending upload completed"

# --- no secret anywhere -----------------------------------------------------
for h in "${HOSTS[@]}"; do
	grep -q "$SECRET" "$WORK/$h/daemon.log" && fail "$h: the secret is in the log"
	ctl "$h" status | grep -q "$SECRET" && fail "$h: the secret is in status"
	tr '\0' ' ' <"/proc/${PID[$h]}/cmdline" | grep -q "$SECRET" && fail "$h: the secret is in argv"
	grep -q "$SECRET" "$WORK/$h/out/".*.upload && fail "$h: the secret is in a state file"
done
grep -q badsig "$WORK/proxy.log" && fail "a request had a bad SigV4 signature"

for h in "${HOSTS[@]}"; do stop_host "$h"; done
echo "PASS: fleet trigger, byte-identical uploads, server down, 500s, 403, stalled server, restart"
