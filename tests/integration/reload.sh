#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Reload: a retention change applies with the same rings (the next snapshot
# still holds events from before the reload); a broken configuration, a
# FIFO and a device are refused and recording continues; an event change
# reopens the rings.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}

# Signals as marks (see signal_marks): a busy machine does not overwrite them.
write_config "$WORK/p.conf" "signal:signal_generate" 4M
start_daemon "$WORK/p.conf"
signal_marks psnap_before 20
write_config "$WORK/p.conf" "signal:signal_generate" 4M "max_snapshots = 5"
"$CTL" --socket "$WORK/control.sock" reload >"$WORK/reload.out" 2>&1 ||
	{ cat "$WORK/reload.out"; fail "reload refused a good config"; }
grep -q 'history kept' "$WORK/reload.out" || { cat "$WORK/reload.out"; fail "rings not kept"; }
# It says what changed, as the file names it.
grep -q 'history kept; changed: \[snapshot\] max_snapshots$' "$WORK/reload.out" ||
	{ cat "$WORK/reload.out"; fail "the reload does not say what changed"; }
grep -q "reloaded '.*': same events and rings, history kept; changed: \[snapshot\] max_snapshots" \
	"$WORK/daemon.log" || fail "the log does not say what the reload changed"
file=$(dump_and_wait)
perf_script_clean "$file" "$WORK/script.txt"
[ "$(count_signal_marks "$WORK/script.txt" psnap_before "$MARK_PID")" = 20 ] ||
	fail "events from before the reload are gone"

# A broken file: refused with its line, old config kept, still recording.
printf '[capture]\nevents = signal:signal_generate\nbuffer_size = lots\n' >"$WORK/p.conf"
echo "directory = $WORK/out" >>"$WORK/p.conf"
"$CTL" --socket "$WORK/control.sock" reload >"$WORK/bad.out" 2>&1 && fail "a broken config was accepted"
grep -q "p.conf:3: .*buffer_size" "$WORK/bad.out" || { cat "$WORK/bad.out"; fail "no line-precise error"; }
kill -HUP "$DAEMON_PID"
wait_until 10 log_has 'reload refused' || fail "SIGHUP reload of a broken file not logged"
kill -0 "$DAEMON_PID" || fail "perfsnapd died on a broken reload"
signal_marks psnap_after 20
file=$(dump_and_wait)
perf_script_complete "$file"
perf script -i "$file" >"$WORK/script2.txt" 2>/dev/null
[ "$(count_signal_marks "$WORK/script2.txt" psnap_after "$MARK_PID")" = 20 ] || fail "not recording after a refused reload"

# The path turned into a FIFO, then into a link to /dev/zero: each reload
# is refused at once and the daemon goes on answering (a FIFO used to hold
# the event loop until a writer came; /dev/zero was read without end).
rm "$WORK/p.conf"
mkfifo "$WORK/p.conf"
timeout 5 "$CTL" --socket "$WORK/control.sock" reload >"$WORK/fifo.out" 2>&1 &&
	fail "a FIFO was accepted as the configuration"
grep -q 'p.conf:0: .*it is a FIFO, not a regular file' "$WORK/fifo.out" ||
	{ cat "$WORK/fifo.out"; fail "no clear refusal of a FIFO"; }
timeout 5 "$CTL" --socket "$WORK/control.sock" status >/dev/null || fail "no status after a FIFO reload"
rm "$WORK/p.conf"
ln -s /dev/zero "$WORK/p.conf"
timeout 5 "$CTL" --socket "$WORK/control.sock" reload >"$WORK/zero.out" 2>&1 &&
	fail "/dev/zero was accepted as the configuration"
grep -q 'it is a device, not a regular file' "$WORK/zero.out" ||
	{ cat "$WORK/zero.out"; fail "no clear refusal of /dev/zero"; }
rm "$WORK/p.conf"

# A new event set: rings reopened, and the new event is recorded.
write_config "$WORK/p.conf" "signal:signal_generate sched:sched_switch" 4M
kill -HUP "$DAEMON_PID"
wait_until 10 log_has 'rings reopened' || fail "event change did not reopen the rings"
grep -q 'rings reopened, .*; changed: \[capture\] events' "$WORK/daemon.log" ||
	fail "the reopening reload does not say what changed"
# A switch on each CPU, made after the new rings record.
for c in $(seq 0 $(($(nproc) - 1))); do taskset -c "$c" true; done
file=$(dump_and_wait)
perf_script_complete "$file"
perf script -i "$file" >"$WORK/script3.txt" 2>/dev/null
grep -q 'sched:sched_switch:' "$WORK/script3.txt" || fail "new event not recorded after reload"
echo "PASS: same-ring reload keeps history; broken config, FIFO, device refused; event change reopens"
