# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for perfsnapd integration tests (sourced by each test).
# Tests run as root with perf_event_open and tracefs. A missing
# prerequisite fails the test under CI=true and skips it (exit 77) elsewhere.
set -u

PERFSNAPD=${PERFSNAPD:?set PERFSNAPD to the perfsnapd binary}
PROGS=${PROGS:?set PROGS to the test programs directory}
WORK=$(mktemp -d /tmp/perfsnapd-test.XXXXXX)
DAEMON_PID=
CHILD_PIDS=()

fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "# $*"; }

prereq_missing() {
	if [ "${CI:-}" = true ]; then
		fail "prerequisite missing: $*"
	fi
	echo "SKIP: prerequisite missing: $*"
	exit 77
}

cleanup() {
	local status=$? rc=0
	for p in "${CHILD_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	if [ -n "$DAEMON_PID" ]; then
		kill -TERM "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
		rc=$?
	fi
	# Undo what the test set up outside $WORK (mounts, packages).
	[ -n "${CLEANUP_HOOK:-}" ] && eval "$CLEANUP_HOOK"
	[ "$status" = 0 ] && { pftrace_load_all || status=1; }
	# A clean stop exits 0: a crash, or a leak under LeakSanitizer, does not.
	if [ "$rc" != 0 ] && [ "$status" = 0 ]; then
		tail -n 30 "$WORK/daemon.log" >&2
		echo "FAIL: perfsnapd exited $rc on SIGTERM" >&2
		status=1
	fi
	if [ "${KEEP_WORK:-}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
	exit "$status"
}
trap cleanup EXIT

# pftrace_load_all: every .pftrace the test wrote loads in Perfetto's own
# trace processor with no stat of severity error, nor data_loss unless the
# test causes real loss (PFTRACE_LOSS_OK=1). Run at a passing test's exit, so
# no test's Perfetto output goes unread; without the binary it is skipped
# with a note, except under CI, where it must be present.
pftrace_load_all() {
	local tp="" c f raw bad severities="'error', 'data_loss'" n=0
	[ -n "$(find "$WORK" -name '*.pftrace' -print -quit 2>/dev/null)" ] || return 0
	for c in "${TRACE_PROCESSOR:-}" "${SOURCE_DIR:-}/../shared/tools/trace_processor_shell" \
		/work/shared/tools/trace_processor_shell; do
		[ -n "$c" ] && [ -x "$c" ] && { tp=$c; break; }
	done
	if [ -z "$tp" ]; then
		[ "${CI:-}" = true ] && { echo "FAIL: trace_processor_shell missing" >&2; return 1; }
		note "trace_processor_shell missing: .pftrace files not loaded"
		return 0
	fi
	[ "${PFTRACE_LOSS_OK:-}" = 1 ] && severities="'error'"
	printf '%s\n' "select name || '[' || ifnull(idx, '') || ']=' || value from stats" \
		"where value > 0 and severity in ($severities)" >"$WORK/tp-all.sql"
	while IFS= read -r -d '' f; do
		raw=$f
		# This trace processor is built without zstd: read what it would.
		if [ "$(head -c 4 "$f" | od -An -tx1 | tr -d ' ')" = 28b52ffd ]; then
			raw=$WORK/tp-all.raw
			zstd -q -dc "$f" >"$raw" || { echo "FAIL: zstd -d $f" >&2; return 1; }
		fi
		if ! bad=$("$tp" -q "$WORK/tp-all.sql" "$raw" 2>"$WORK/tp-all.err"); then
			tail -5 "$WORK/tp-all.err" >&2
			echo "FAIL: trace_processor cannot load $f" >&2
			return 1
		fi
		bad=$(tail -n +2 <<<"$bad" | tr -d '"')
		[ -z "$bad" ] || { echo "FAIL: trace_processor reports for $f: $bad" >&2; return 1; }
		n=$((n + 1))
	done < <(find "$WORK" -name '*.pftrace' -print0)
	note "trace_processor loads all $n .pftrace files without errors"
}

require_env() {
	[ "$(id -u)" = 0 ] || prereq_missing "must run as root"
	command -v perf >/dev/null || prereq_missing "perf (linux-perf)"
	if [ ! -e /sys/kernel/tracing/events/sched ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
			prereq_missing "tracefs at /sys/kernel/tracing"
	fi
}

# shipped_events: the events of conf/perfsnapd.conf, on one line.
shipped_events() {
	local e
	e=$(awk '/^events *=/ { on = 1; sub(/^events *= */, ""); printf "%s ", $0; next }
		on && /^\t/ { printf "%s ", $0; next } { on = 0 }' "$SOURCE_DIR/conf/perfsnapd.conf")
	[ -n "$e" ] || fail "no events in conf/perfsnapd.conf"
	echo "$e"
}

# no_stderr NAME FILE: a tool printed nothing but blank lines on stderr.
no_stderr() {
	grep -v '^ *$' "$2" | grep -q . && { cat "$2" >&2; fail "$1 printed on stderr"; }
	return 0
}

# write_config FILE EVENTS BUFFER [extra [snapshot] lines] [extra [capture] lines]
# FORMATS (default perf.data) and CONTROL_SOCKET may be set by the caller;
# PERFSNAP_BACKEND (perf, tracefs, auto) sets [capture] backend.
write_config() {
	local events
	mkdir -p "$WORK/out"
	# Four events a line: a config line holds at most 197 characters.
	events=$(xargs -n 4 <<<"$2" | sed '2,$s/^/\t/')
	cat >"$1" <<CONF
[capture]
events = $events
buffer_size = $3
cpus = all
${PERFSNAP_BACKEND:+backend = $PERFSNAP_BACKEND}
${5:-}
[snapshot]
directory = $WORK/out
formats = ${FORMATS:-perf.data}
${4:-}
[control]
socket = ${CONTROL_SOCKET:-$WORK/control.sock}
CONF
}

# start_daemon CONFIG: starts perfsnapd and waits until it records; sets
# DAEMON_SINCE_US to when it was seen recording (its rings opened before).
start_daemon() {
	# A previous daemon's log must not be mistaken for this one's.
	rm -f "$WORK/daemon.log"
	"$PERFSNAPD" --config "$1" >>"$WORK/daemon.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 1 200); do
		if grep -q 'perfsnapd: recording' "$WORK/daemon.log" 2>/dev/null; then
			DAEMON_SINCE_US=$(now_us)
			return 0
		fi
		kill -0 "$DAEMON_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$WORK/daemon.log" >&2
	fail "perfsnapd did not start"
}

# now_us: the wall clock in microseconds.
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }

# us_of SECONDS: SECONDS (2, 0.25) in microseconds.
us_of() {
	local int=${1%%.*} frac=
	[[ $1 == *.* ]] && frac=${1#*.}
	frac=${frac}000000
	echo $((10#${int:-0} * 1000000 + 10#${frac:0:6}))
}

# wait_until SECONDS CMD [ARG...]: runs CMD every 50 ms until it succeeds
# (0), or SECONDS have passed (1). For what a test waits on: a line, a
# file, a state; never a fixed sleep.
wait_until() {
	local end=$((${EPOCHREALTIME/[.,]/} + $(us_of "$1")))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/[.,]/}" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# log_has PATTERN: the daemon's log has a line matching PATTERN (grep -E).
log_has() { grep -qE -- "$1" "$WORK/daemon.log"; }

# wait_recorded SECONDS: until the daemon has recorded SECONDS since
# start_daemon: its rings, unless they wrapped, reach back that far.
wait_recorded() {
	wait_until $(($(us_of "$1") / 1000000 + 10)) recorded_for "$1" ||
		fail "the daemon did not record for $1 s"
}
recorded_for() { [ $((${EPOCHREALTIME/[.,]/} - DAEMON_SINCE_US)) -ge "$(us_of "$1")" ]; }

# work_of cpu|io PID: what PID has done so far: clock ticks of CPU time
# (user and system, 1/100 s each), or read and write calls; fails once
# PID is gone.
work_of() {
	local s
	case $1 in
	cpu)
		s=$(cat "/proc/$2/stat" 2>/dev/null) || return 1
		# Past the name, which may hold spaces: utime and stime are 12th and 13th.
		# shellcheck disable=SC2086
		set -- ${s##*) }
		echo $((${12} + ${13}))
		;;
	io)
		s=$(cat "/proc/$2/io" 2>/dev/null) || return 1
		gawk '/^sysc[rw]:/ { n += $2 } END { print n + 0 }' <<<"$s"
		;;
	esac
}

# wait_work cpu|io AMOUNT PID...: until each PID has done AMOUNT more (see
# work_of) than now, or exited: a load has made that many records, a
# program run that long, however busy the machine. Fails after 60 s.
WORK_GOAL=()
wait_work() {
	local what=$1 amount=$2 p n
	shift 2
	WORK_GOAL=()
	for p; do
		n=$(work_of "$what" "$p") || n=0
		WORK_GOAL+=($((n + amount)))
	done
	wait_until 60 work_done "$what" "$@" ||
		fail "pid $* did not do $amount more ($what) in 60 s"
}
work_done() {
	local what=$1 p n i=0
	shift
	for p; do
		n=$(work_of "$what" "$p") && [ "$n" -lt "${WORK_GOAL[i]}" ] && return 1
		i=$((i + 1))
	done
	return 0
}

# The one line that says a snapshot is complete (logged once it is in
# place). Other lines name the snapshot too: the stages' times and the
# warning that the kernel overwrote the oldest bytes before their copy.
SNAPSHOT_DONE_RE='perfsnapd: snapshot .*\.perf\.data: [0-9]+ events, '
snapshot_count() { grep -cE "$SNAPSHOT_DONE_RE" "$WORK/daemon.log"; }

# dump_and_wait: SIGUSR2, then the path of the new perf.data on stdout.
dump_and_wait() {
	local before
	before=$(snapshot_count)
	kill -USR2 "$DAEMON_PID"
	wait_snapshot "$before"
}

# wait_snapshot COUNT: waits for snapshot number COUNT+1, prints its path.
wait_snapshot() {
	local before=$1
	for _ in $(seq 1 600); do
		if [ "$(snapshot_count)" -gt "$before" ]; then
			grep -E "$SNAPSHOT_DONE_RE" "$WORK/daemon.log" | tail -n 1 |
				sed 's/.*perfsnapd: snapshot \(.*\.perf\.data\):.*/\1/'
			return 0
		fi
		grep -q 'snapshot failed' "$WORK/daemon.log" && break
		sleep 0.05
	done
	cat "$WORK/daemon.log" >&2
	fail "no snapshot after SIGUSR2"
}

# perf_script_clean FILE OUT: perf script must succeed with nothing on stderr.
perf_script_clean() {
	perf script -i "$1" >"$2" 2>"$WORK/script.err" || {
		cat "$WORK/script.err" >&2
		fail "perf script -i $1 failed"
	}
	if [ -s "$WORK/script.err" ]; then
		cat "$WORK/script.err" >&2
		fail "perf script -i $1 printed on stderr"
	fi
}

# perf_script_complete FILE: like perf_script_clean, but a file that holds
# the kernel's LOST records (events dropped while an earlier dump paused the
# ring) may carry perf's truthful "lost N chunks" warning, and nothing else.
perf_script_complete() {
	perf script -i "$1" >/dev/null 2>"$WORK/script.err" || {
		cat "$WORK/script.err" >&2
		fail "perf script -i $1 failed"
	}
	if grep -vE '^(Warning:|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|)$' \
		"$WORK/script.err" | grep -q .; then
		cat "$WORK/script.err" >&2
		fail "perf script -i $1 printed more than the lost-events warning"
	fi
}

# start_prog OUTFILE PROG ARGS...: runs a test program in the background.
start_prog() {
	local out=$1
	shift
	"$@" >"$out" 2>&1 &
	CHILD_PIDS+=($!)
	LAST_PID=$!
}

wait_for_line() { # FILE PATTERN
	for _ in $(seq 1 400); do
		grep -q "$2" "$1" && return 0
		sleep 0.05
	done
	fail "timed out waiting for '$2' in $1"
}

# signal_marks NAME COUNT: a task named NAME sends itself COUNT SIGWINCH
# (ignored) and exits; sets MARK_PID. Tests whose marks must outlive a busy
# machine record them with signal:signal_generate, which no syscall load
# makes, where marked system calls would be overwritten in seconds.
signal_marks() {
	printf '#!/bin/bash\nfor _ in $(seq 1 %d); do kill -WINCH $$; done\n' "$2" >"$WORK/$1"
	chmod +x "$WORK/$1"
	"$WORK/$1" &
	MARK_PID=$!
	wait "$MARK_PID" || fail "$1 failed"
}

# count_signal_marks SCRIPT NAME PID: how many of signal_marks' marks SCRIPT holds.
count_signal_marks() {
	grep -cE "^ *$2 +$3 .*signal:signal_generate: sig=28 " "$1" || true
}

# build_deb DIR: the .deb as CPack makes it from SOURCE_DIR, built in DIR
# for /usr; sets DEB to its path.
build_deb() {
	local src=${SOURCE_DIR:?set SOURCE_DIR}
	command -v cpack >/dev/null || prereq_missing "cpack"
	command -v dpkg-shlibdeps >/dev/null || prereq_missing "dpkg-dev"
	cmake -S "$src" -B "$1" -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >"$WORK/cmake.log" 2>&1 || { cat "$WORK/cmake.log" >&2; fail "cmake"; }
	cmake --build "$1" -j"$(nproc)" >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log" >&2; fail "build"; }
	(cd "$1" && cpack -G DEB) >"$WORK/cpack.log" 2>&1 || { cat "$WORK/cpack.log" >&2; fail "cpack"; }
	DEB=$(ls "$1"/perfsnapd_*.deb)
}

# start_s3rver BUCKET: an S3 server (s3rver) on 127.0.0.1 with BUCKET made;
# sets S3_PORT and S3_PID (killed at exit).
start_s3rver() {
	local s3rver=${SOURCE_DIR:?}/tests/s3rver/node_modules/.bin/s3rver
	[ -x "$s3rver" ] || prereq_missing "s3rver (scripts/install-deps runs npm ci in tests/s3rver)"
	mkdir -p "$WORK/s3"
	"$s3rver" -d "$WORK/s3" -a 127.0.0.1 -p 0 --configure-bucket "$1" >"$WORK/s3.log" 2>&1 &
	S3_PID=$!
	CHILD_PIDS+=("$S3_PID")
	for _ in $(seq 1 200); do
		grep -q 'listening on 127.0.0.1:' "$WORK/s3.log" && break
		kill -0 "$S3_PID" 2>/dev/null || break
		sleep 0.05
	done
	S3_PORT=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$WORK/s3.log" | head -n 1)
	[ -n "$S3_PORT" ] || { cat "$WORK/s3.log"; fail "s3rver did not start"; }
}
