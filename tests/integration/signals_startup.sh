#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A signal at any moment of start-up, and while a reload reopens the rings,
# is never fatal: SIGUSR2 is served once recording runs (a snapshot is
# written), SIGHUP reloads, SIGTERM and SIGINT stop cleanly with exit 0.
# Each is sent at several moments from 10 to 300 ms after main() begins, on an
# idle machine and under a syscall load on every CPU.
source "$(dirname "$0")/lib.sh"
require_env

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" \
	"sched:sched_switch raw_syscalls:sys_enter raw_syscalls:sys_exit" 16M

# start_raw CONFIG: perfsnapd in the background; returns once its main()
# has begun, which is when the delays count from (before it, the process is
# still the shell or the dynamic loader, which no program can protect).
# SigBlk shows SIGHUP, SIGINT, SIGUSR2 and SIGTERM blocked: 0x4803.
start_raw() {
	local blk
	rm -f "$WORK/daemon.log"
	"$PERFSNAPD" --config "$1" >>"$WORK/daemon.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 1 5000); do
		blk=$(sed -n 's/^SigBlk:\t*//p' "/proc/$DAEMON_PID/status" 2>/dev/null)
		[ -n "$blk" ] && (((0x$blk & 0x4803) == 0x4803)) && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
	done
	cat "$WORK/daemon.log" >&2
	fail "perfsnapd does not block SIGHUP/SIGINT/SIGUSR2/SIGTERM from the start of main()"
}

wait_log() { # PATTERN WHAT
	for _ in $(seq 1 400); do
		grep -qE "$1" "$WORK/daemon.log" && return 0
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.025
	done
	cat "$WORK/daemon.log" >&2
	fail "$2"
}

# stop_clean WHAT: SIGTERM, and perfsnapd must exit 0.
stop_clean() {
	local rc=0
	kill -TERM "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	[ "$rc" = 0 ] || { cat "$WORK/daemon.log" >&2; fail "$1: exit $rc"; }
}

# one SIG DELAY LABEL: start, send SIG after DELAY seconds, check the outcome.
one() {
	local sig=$1 delay=$2 label=$3 rc=0
	start_raw "$WORK/p.conf"
	sleep "$delay"
	kill -"$sig" "$DAEMON_PID" || fail "$label: perfsnapd gone before SIG$sig"
	case $sig in
	TERM | INT)
		wait "$DAEMON_PID" || rc=$?
		DAEMON_PID=
		[ "$rc" = 0 ] || { cat "$WORK/daemon.log" >&2; fail "$label: SIG$sig -> exit $rc, want 0"; }
		;;
	USR2)
		wait_log "$SNAPSHOT_DONE_RE" "$label: SIGUSR2 at start-up gave no snapshot"
		stop_clean "$label"
		;;
	HUP)
		wait_log 'reloaded' "$label: SIGHUP at start-up did not reload"
		wait_log 'perfsnapd: recording' "$label: not recording after SIGHUP at start-up"
		stop_clean "$label"
		;;
	esac
}

run_all() { # LABEL
	for sig in USR2 HUP TERM INT; do
		for delay in 0.01 0.03 0.08 0.15 0.3; do
			one "$sig" "$delay" "$1 SIG$sig at +${delay}s"
		done
	done
}

run_all idle
# A syscall load on every CPU: start-up takes longer, so later signals land inside it.
for _ in $(seq 1 "$(nproc)"); do
	start_prog /dev/null dd if=/dev/zero of=/dev/null bs=1 count=2000000000
done
run_all loaded

# While a reload reopens the rings (new ring size), under the load.
for sig in USR2 HUP TERM; do
	for delay in 0 0.01 0.05 0.15; do
		start_raw "$WORK/p.conf"
		wait_log 'perfsnapd: recording' "reopen: not recording"
		sed -i "s|^buffer_size = .*|buffer_size = 8M|" "$WORK/p.conf"
		kill -HUP "$DAEMON_PID"
		sleep "$delay"
		kill -"$sig" "$DAEMON_PID" || fail "reopen SIG$sig +$delay: perfsnapd gone"
		case $sig in
		TERM)
			rc=0
			wait "$DAEMON_PID" || rc=$?
			DAEMON_PID=
			[ "$rc" = 0 ] || { cat "$WORK/daemon.log" >&2; fail "SIGTERM during reopen: exit $rc"; }
			;;
		USR2)
			wait_log "$SNAPSHOT_DONE_RE" "SIGUSR2 during reopen gave no snapshot"
			stop_clean "reopen SIGUSR2 +$delay"
			;;
		HUP)
			# Two SIGHUPs the loop has not read yet are one pending signal
			# (the kernel's rule): at least one reload, and still recording.
			wait_log 'rings reopened' "SIGHUP during reopen: no reload"
			wait_log 'perfsnapd: recording' "SIGHUP during reopen: not recording"
			before=$(snapshot_count)
			kill -USR2 "$DAEMON_PID"
			wait_snapshot "$before" >/dev/null
			stop_clean "reopen SIGHUP +$delay"
			;;
		esac
		sed -i "s|^buffer_size = .*|buffer_size = 16M|" "$WORK/p.conf"
	done
done
for f in "$WORK/out"/*.perf.data; do perf_script_complete "$f"; done
echo "PASS: SIGUSR2/SIGHUP/SIGTERM/SIGINT at 10-300 ms of start-up (idle and loaded) and during a reopen"
