#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The built unit under a real systemd: systemd booted as PID 1 of a
# container made from this machine's own tree (systemd-nspawn --volatile),
# perfsnapd installed there with the shipped perfsnapd.service and
# perfsnapd.socket (a drop-in only points ExecStart at the build and
# shortens the watchdog), and proved with the real PID 1:
#  - `systemctl start` returns once READY=1 was sent (active, recording);
#  - kill -USR2 and `systemctl reload` work;
#  - the journal carries the SNAPSHOT_* fields (journalctl -o json);
#  - a paired trigger loads its BPF program under the unit's capabilities
#    and SystemCallFilter=, fires on a 1 s pause(2), and the journal
#    carries TRIGGER_DURATION_NS and TRIGGER_KEY;
#  - a hung loop (SIGSTOP) is killed by the watchdog and restarted;
#  - a program in the container's /tmp (hidden by PrivateTmp=) has its
#    build-id read, through /proc/PID/map_files;
#  - socket activation: a request on the socket unit's socket starts it;
#  - `systemctl stop` exits 0, the service's result is success;
#  - the unit's hardening (SystemCallFilter= and the rest) leaves every
#    feature above working, with `systemd-analyze security` at most 2.2;
#  - with backend = auto and the host's tracefs in the container, the
#    tracepoints go to perfsnapd's own instance (ReadWritePaths=), its
#    snapshots hold them, and a stop removes the instance.
# Every wait is bounded; the container is powered off (or killed) at the end.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
UNIT_FILE=${UNIT_FILE:?set UNIT_FILE to the built perfsnapd.service}
SOCKET_UNIT=${SOCKET_UNIT:?set SOCKET_UNIT to systemd/perfsnapd.socket}
source "$(dirname "$0")/container_lib.sh"
DIR=$CT_DIR
mkdir -p "$DIR/bin" "$DIR/out"
install -m 0755 "$PERFSNAPD" "$CTL" "$DIR/bin/"
# pause(2)'s number on this machine, for a paired trigger nothing else fires.
sys_pause=$(printf '#include <sys/syscall.h>\nSYS_pause\n' | cc -E -P - | tail -n 1)
[[ $sys_pause =~ ^[0-9]+$ ]] || fail "no pause(2) system call here: $sys_pause"
cat >"$DIR/perfsnapd.conf" <<CONF
[capture]
events = sched:sched_switch raw_syscalls:sys_enter
buffer_size = 1M
backend = auto
[snapshot]
directory = $DIR/out
[control]
socket = /run/perfsnapd/control.sock
[trigger slow-pause]
start = raw_syscalls:sys_enter
end = raw_syscalls:sys_exit
key = common_pid
start_filter = id == $sys_pause
threshold = 500ms
max_per_hour = 1
CONF

# Every capability, as a host has: the service gets what its unit grants.
# The host's tracefs, as a host's systemd mounts it.
[ -e /sys/kernel/tracing/instances ] || mount -t tracefs nodev /sys/kernel/tracing ||
	prereq_missing "tracefs"
boot_container --volatile=yes --capability=all --bind=/sys/kernel/tracing

# The shipped units; a drop-in points ExecStart at the build, gives it the
# snapshot directory, and makes the watchdog quick enough to test.
in_ct sh -c 'cat >/etc/systemd/system/perfsnapd.service' <"$UNIT_FILE"
in_ct sh -c 'cat >/etc/systemd/system/perfsnapd.socket' <"$SOCKET_UNIT"
in_ct mkdir -p /etc/systemd/system/perfsnapd.service.d
in_ct sh -c 'cat >/etc/systemd/system/perfsnapd.service.d/test.conf' <<UNIT
[Service]
ExecStart=
ExecStart=$DIR/bin/perfsnapd --config $DIR/perfsnapd.conf
ReadWritePaths=$DIR/out
WatchdogSec=3s
TimeoutAbortSec=3s
UNIT
# LeakSanitizer stops the process with ptrace() at exit, which the unit's
# SystemCallFilter= rightly refuses: the ASan build runs here without it
# (every other test checks for leaks).
if ldd "$DIR/bin/perfsnapd" | grep -q libasan; then
	in_ct sh -c 'printf "[Service]\nEnvironment=ASAN_OPTIONS=detect_leaks=0\n" \
		>/etc/systemd/system/perfsnapd.service.d/asan.conf'
fi
in_ct systemctl daemon-reload
score=$(in_ct systemd-analyze security perfsnapd.service --no-pager 2>&1 | sed -n 's/.*Overall exposure level for perfsnapd.service: \([0-9.]*\).*/\1/p')
note "systemd-analyze security: $score"
awk -v s="$score" 'BEGIN { exit !(s != "" && s + 0 <= 2.2) }' || fail "exposure $score, want at most 2.2"

journal() { in_ct journalctl -u perfsnapd.service --no-pager -o cat "$@"; }
prop() { in_ct systemctl show -p "$1" --value perfsnapd.service; }
count() { find "$DIR/out" -name '*.perf.data' | wc -l; }
wait_count() { # N: until N snapshots exist (bounded)
	for _ in $(seq 1 150); do
		[ "$(count)" -ge "$1" ] && return 0
		sleep 0.2
	done
	journal | tail -20 >&2
	fail "no snapshot $1 in $DIR/out"
}

# 1. start returns once READY=1 was sent: active at once, recording logged.
timeout 60 nsenter -t "$INIT" -a systemctl start perfsnapd.service ||
	{ journal | tail -20 >&2; fail "systemctl start perfsnapd failed"; }
[ "$(prop ActiveState)" = active ] || fail "start returned but the service is $(prop ActiveState)"
journal | grep -q 'recording' || { journal | tail -20 >&2; fail "start returned before perfsnapd was recording"; }
grep -q '^Type=notify' "$UNIT_FILE" || fail "the unit is not Type=notify"
journal | grep -q 'trigger slow-pause: .* paired in the kernel by a BPF program' ||
	{ journal | grep -i trigger >&2; fail "the paired trigger's BPF program did not load under the unit"; }
main=$(prop MainPID)
note "perfsnapd is pid $main in the container"
inst=$(journal | sed -n 's/.*recorded in tracefs instance \(perfsnapd-[0-9.]*\).*/\1/p' | tail -n 1)
[ -n "$inst" ] && [ -d "/sys/kernel/tracing/instances/$inst" ] ||
	{ journal | grep -i 'backend\|tracefs' >&2; fail "backend auto did not record in a tracefs instance under the unit"; }
note "tracepoints in tracefs instance $inst"

# 2. SIGUSR2 and reload.
in_ct kill -USR2 "$main"
wait_count 1
timeout 60 nsenter -t "$INIT" -a systemctl reload perfsnapd.service || fail "systemctl reload failed"
[ "$(prop ActiveState)" = active ] || fail "not active after reload"
[ "$(prop MainPID)" = "$main" ] || fail "reload restarted perfsnapd"
in_ct kill -USR2 "$main"
wait_count 2

# 3. The journal's fields.
in_ct journalctl -u perfsnapd.service --no-pager -o json >"$WORK/journal.json"
for f in SNAPSHOT_PATH SNAPSHOT_EVENTS SNAPSHOT_BYTES PAUSED_USEC DUMP_USEC REASON; do
	grep -q "\"$f\"" "$WORK/journal.json" || fail "no $f in the journal"
done
grep -q "\"SNAPSHOT_PATH\":\"$DIR/out/[^\"]*\.perf\.data\"" "$WORK/journal.json" ||
	fail "SNAPSHOT_PATH does not name a snapshot"

# 4. The watchdog: a stopped loop sends no WATCHDOG=1; systemd kills and restarts it.
in_ct kill -STOP "$main"
for _ in $(seq 1 150); do
	new=$(prop MainPID)
	[ "$(prop NRestarts)" -ge 1 ] && [ -n "$new" ] && [ "$new" != 0 ] && [ "$new" != "$main" ] &&
		[ "$(prop ActiveState)" = active ] && break
	sleep 0.2
done
[ "$(prop NRestarts)" -ge 1 ] || { journal | tail -20 >&2; fail "the watchdog did not restart a hung perfsnapd"; }
in_ct journalctl --no-pager -o cat | grep -qi 'watchdog timeout' || fail "no watchdog timeout in the journal"
main=$(prop MainPID)
note "restarted by the watchdog as pid $main"
in_ct kill -USR2 "$main"
wait_count 3

# 4b. The paired trigger: a 1 s pause(2) in the container fires it.
in_ct perl -MPOSIX -e '$SIG{ALRM} = sub {}; alarm 1; POSIX::pause()' || fail "perl's pause failed"
wait_count 4
in_ct journalctl -u perfsnapd.service --no-pager -o json >"$WORK/journal.json"
ns=$(sed -n 's/.*"TRIGGER_DURATION_NS":"\([0-9]*\)".*/\1/p' "$WORK/journal.json" | tail -n 1)
key=$(sed -n 's/.*"TRIGGER_KEY":"\([0-9]*\)".*/\1/p' "$WORK/journal.json" | tail -n 1)
note "paired trigger in the journal: TRIGGER_DURATION_NS=$ns TRIGGER_KEY=$key"
[ -n "$ns" ] && [ "$ns" -ge 900000000 ] && [ "$ns" -lt 5000000000 ] ||
	fail "TRIGGER_DURATION_NS '$ns', want the pause's 1 s"
[ -n "$key" ] && [ "$key" -gt 0 ] || fail "TRIGGER_KEY '$key', want the pausing task's pid"

# 4c. Build-ids through /proc/PID/map_files under the unit (it takes
# CAP_CHECKPOINT_RESTORE): a program in the container's /tmp, which the
# service's PrivateTmp= hides, has its build-id read, counted by status.
# (Its events name no task here: the tracefs instance records the host's
# pids, the side-band the container's.)
ids() { # the "build-ids:" line's read, unknown and waiting counts
	in_ct "$DIR/bin/perfsnapctl" --socket /run/perfsnapd/control.sock status |
		sed -n 's/^build-ids: [0-9]* from the kernel, \([0-9]*\) read from files, \([0-9]*\) unknown, \([0-9]*\) waiting$/\1 \2 \3/p'
}
read -r read0 unknown0 _ <<<"$(ids)"
[ -n "$read0" ] || fail "no build-ids line in status"
in_ct cp /bin/sleep /tmp/psnap_sleeper
in_ct sh -c '/tmp/psnap_sleeper 30 </dev/null >/dev/null 2>&1 &'
# Its program, ld.so and libc read, nothing waiting.
sleeper_read() {
	local r u w
	read -r r u w <<<"$(ids)"
	[ -n "$r" ] && [ "$r" -ge $((read0 + 3)) ] && [ "$w" = 0 ]
}
wait_until 10 sleeper_read || fail "the sleeper's build-ids were not read: $(ids), from $read0 $unknown0"
read -r read1 unknown1 _ <<<"$(ids)"
in_ct pkill -x psnap_sleeper
note "build-ids read from files $read0 -> $read1, unknown $unknown0 -> $unknown1"
[ "$unknown1" = "$unknown0" ] ||
	fail "a build-id of the program in the container's /tmp was not read under the unit"

# 5. stop exits 0 and the service ends well.
timeout 60 nsenter -t "$INIT" -a systemctl stop perfsnapd.service ||
	{ journal | tail -20 >&2; fail "systemctl stop failed"; }
[ "$(prop Result)" = success ] || fail "result after stop: $(prop Result)"
[ "$(prop ExecMainStatus)" = 0 ] || fail "perfsnapd exited $(prop ExecMainStatus) on stop"
# The watchdog's restart made an instance of its own; every one is gone.
ls /sys/kernel/tracing/instances | grep -q "^$inst\$" && fail "instance $inst left after the stop"
n=$(perf script -i "$(find "$DIR/out" -name '*.perf.data' | sort | head -n 1)" -F event 2>/dev/null |
	grep -c 'sched:sched_switch' || true)
[ "$n" -gt 0 ] || fail "no sched_switch from the instance in the first snapshot"

# 6. Socket activation: the first request starts perfsnapd on systemd's socket.
timeout 30 nsenter -t "$INIT" -a systemctl start perfsnapd.socket || fail "cannot start perfsnapd.socket"
[ "$(prop ActiveState)" = inactive ] || fail "perfsnapd started before any request"
timeout 60 nsenter -t "$INIT" -a "$DIR/bin/perfsnapctl" --socket /run/perfsnapd/control.sock \
	--timeout 30 status >"$WORK/status.txt" 2>&1 || { cat "$WORK/status.txt"; fail "status through the socket unit"; }
grep -q '^state: recording' "$WORK/status.txt" || fail "socket-activated status: $(cat "$WORK/status.txt")"
[ "$(prop ActiveState)" = active ] || fail "the request did not start perfsnapd"
timeout 60 nsenter -t "$INIT" -a "$DIR/bin/perfsnapctl" --socket /run/perfsnapd/control.sock \
	--timeout 30 dump >"$WORK/dump.txt" 2>&1 || { cat "$WORK/dump.txt"; fail "dump through the socket unit"; }
wait_count 5
# Stopped, then asked again: the socket is still there and starts it again.
timeout 60 nsenter -t "$INIT" -a systemctl stop perfsnapd.service || fail "systemctl stop (activated) failed"
[ "$(prop ExecMainStatus)" = 0 ] || fail "the activated perfsnapd exited $(prop ExecMainStatus)"
timeout 60 nsenter -t "$INIT" -a "$DIR/bin/perfsnapctl" --socket /run/perfsnapd/control.sock \
	--timeout 30 status >"$WORK/status.txt" 2>&1 || { cat "$WORK/status.txt"; fail "status after a stop, through the socket unit"; }
timeout 60 nsenter -t "$INIT" -a systemctl stop perfsnapd.service perfsnapd.socket || fail "final stop failed"
[ "$(prop Result)" = success ] || fail "result after the final stop: $(prop Result)"
in_ct journalctl --no-pager -o cat -u perfsnapd.service | grep -E 'status=31/SYS|SIGSYS' &&
	fail "a system call outside SystemCallFilter= killed perfsnapd"
for f in "$DIR"/out/*.perf.data; do perf_script_complete "$f"; done
echo "PASS: under systemd (container): notify start, USR2, reload, journal fields, paired trigger (BPF), watchdog restart, socket activation, clean stop, tracefs instance $inst; exposure $score"
