# SPDX-License-Identifier: GPL-2.0-only
# Sourced after lib.sh: a container booted with systemd as its PID 1, made
# from this machine's own tree (systemd-nspawn -D /), for the tests that
# need a real systemd. boot_container sets INIT (the container's PID 1, a
# host pid); in_ct runs a command in it; the container is powered off (or
# killed) at the end of the test, and CT_DIR removed.
command -v systemd-nspawn >/dev/null || prereq_missing "systemd-nspawn (systemd-container)"
command -v nsenter >/dev/null || prereq_missing "nsenter (util-linux)"
[ -x /lib/systemd/systemd ] || prereq_missing "systemd"

# Outside /tmp: perfsnapd.service has PrivateTmp=yes. Bound into the container.
CT_DIR=$(mktemp -d /var/lib/perfsnapd-nspawn.XXXXXX)
NSPAWN_PID=
INIT=
stop_container() {
	if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
		[ -n "$INIT" ] && timeout 20 nsenter -t "$INIT" -a systemctl poweroff >/dev/null 2>&1
		for _ in $(seq 1 100); do
			kill -0 "$NSPAWN_PID" 2>/dev/null || break
			sleep 0.2
		done
		kill -9 "$NSPAWN_PID" 2>/dev/null
		wait "$NSPAWN_PID" 2>/dev/null
	fi
	rm -rf "$CT_DIR"
}
CLEANUP_HOOK=stop_container

in_ct() { nsenter -t "$INIT" -a "$@"; }

# boot_container NSPAWN-OPTIONS...: boots, waits (at most 90 s) until the
# container's systemd is running, and mounts tracefs in it. CT_BOOT_ARGS
# are more arguments for its systemd. nspawn's own system call filter
# refuses perf_event_open and bpf (a paired trigger's program) unless named.
boot_container() {
	local state=
	setsid systemd-nspawn -D / --register=no --keep-unit --bind="$CT_DIR" \
		--system-call-filter="perf_event_open bpf" --console=passive "$@" \
		-b -- systemd.firstboot=off ${CT_BOOT_ARGS:-} >"$WORK/nspawn.log" 2>&1 &
	NSPAWN_PID=$!
	for _ in $(seq 1 100); do
		INIT=$(pgrep -P "$NSPAWN_PID" -x systemd || true)
		[ -n "$INIT" ] && break
		kill -0 "$NSPAWN_PID" 2>/dev/null || break
		sleep 0.2
	done
	[ -n "$INIT" ] || { cat "$WORK/nspawn.log"; fail "the container's systemd did not start"; }
	# Until its bus is up, systemctl cannot even ask: try again for 90 s.
	# "offline" too is what it says before systemd has made
	# /run/systemd/system, early in a boot that a loaded machine slows.
	for _ in $(seq 1 180); do
		state=$(timeout 30 nsenter -t "$INIT" -a systemctl is-system-running --wait 2>&1 || true)
		case "$state" in running | degraded | stopping) break ;; esac
		sleep 0.5
	done
	note "container PID 1 is host pid $INIT: $state"
	case "$state" in running | degraded) ;; *) fail "the container did not boot: '$state'" ;; esac
	in_ct mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
	in_ct test -e /sys/kernel/tracing/events/sched || fail "no tracefs in the container"
}
