#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Bad configurations: one clear line each naming file and line, exit 78,
# and nothing opened (no perf events, no files).
source "$(dirname "$0")/lib.sh"
require_env

mkdir -p "$WORK/out" "$WORK/ro"
chmod 0555 "$WORK/ro"
check() { # NAME EXPECTED-PATTERN  (config on stdin)
	cat >"$WORK/$1.conf"
	"$PERFSNAPD" --config "$WORK/$1.conf" >"$WORK/$1.out" 2>"$WORK/$1.err"
	rc=$?
	[ "$rc" = 78 ] || { cat "$WORK/$1.err"; fail "$1: exit $rc, want 78"; }
	lines=$(wc -l <"$WORK/$1.err")
	[ "$lines" = 1 ] || { cat "$WORK/$1.err"; fail "$1: $lines lines of errors, want 1"; }
	grep -q "^$WORK/$1.conf:[0-9]*: .*$2" "$WORK/$1.err" ||
		{ cat "$WORK/$1.err"; fail "$1: message does not match '$2'"; }
	note "$1: $(cat "$WORK/$1.err")"
}
check unknown_key "colour" <<CONF
[capture]
events = sched:sched_switch
colour = blue
[snapshot]
directory = $WORK/out
CONF
check bad_size "buffer_size" <<CONF
[capture]
events = sched:sched_switch
buffer_size = 4Q
[snapshot]
directory = $WORK/out
CONF
check unknown_event "no_such_event" <<CONF
[capture]
events = sched:no_such_event
[snapshot]
directory = $WORK/out
CONF
# A window the memory cannot hold on even the smallest ring of each CPU: at its line.
check window_memory "window: memory = 1024 KiB cannot hold the window" <<CONF
[capture]
events = sched:sched_switch
window = 10s
memory = 1M
[snapshot]
directory = $WORK/out
CONF
check window_and_buffer_size "buffer_size (line 3) sizes every ring alike" <<CONF
[capture]
events = sched:sched_switch
buffer_size = 4M
window = 10s
memory = 256M
[snapshot]
directory = $WORK/out
CONF
check no_events "events" <<CONF
[capture]
events =
[snapshot]
directory = $WORK/out
CONF
# Root ignores mode bits: a path under a file is unwritable for anyone.
touch "$WORK/afile"
check bad_directory "directory" <<CONF
[capture]
events = sched:sched_switch
[snapshot]
directory = $WORK/afile/sub
CONF
# A NUL ends no line early: the whole line is an error (it was read as
# "sched:sched_switch", exit 0).
printf '[capture]\nevents = sched:sched_switch\0 bogus:x\n[snapshot]\ndirectory = %s\n' \
	"$WORK/out" >"$WORK/nul_byte.conf"
rc=0
"$PERFSNAPD" --config "$WORK/nul_byte.conf" >/dev/null 2>"$WORK/nul_byte.err" || rc=$?
[ "$rc" = 78 ] || { cat "$WORK/nul_byte.err"; fail "nul_byte: exit $rc, want 78"; }
head -n 1 "$WORK/nul_byte.err" | grep -q "^$WORK/nul_byte.conf:2: control byte 0x00 at column 28" ||
	{ cat "$WORK/nul_byte.err"; fail "nul_byte: the first error is not the NUL at its line"; }
note "nul_byte: $(cat "$WORK/nul_byte.err")"
# 5000 errors print 20 and a count, not 5000 lines.
{
	printf '[capture]\nevents = sched:sched_switch\n'
	for i in $(seq 5000); do printf 'bogus%d = 1\n' "$i"; done
} >"$WORK/many.conf"
rc=0
"$PERFSNAPD" --config "$WORK/many.conf" >/dev/null 2>"$WORK/many.err" || rc=$?
[ "$rc" = 78 ] || fail "many errors: exit $rc, want 78"
[ "$(wc -l <"$WORK/many.err")" = 21 ] || fail "many errors: $(wc -l <"$WORK/many.err") lines, want 21"
more=$(tail -n1 "$WORK/many.err" | sed -n 's/^\.\.\. and \([0-9]*\) more errors$/\1/p')
[ -n "$more" ] && [ "$more" -ge 4980 ] ||
	fail "many errors: last line is '$(tail -n1 "$WORK/many.err")'"
ls -A "$WORK/out" | grep -q . && fail "files written by a rejected config"
# --check-config on a good file prints it and exits 0.
write_config "$WORK/good.conf" "sched:*" 3M
"$PERFSNAPD" --config "$WORK/good.conf" --check-config >"$WORK/good.out" 2>&1 ||
	{ cat "$WORK/good.out"; fail "--check-config rejected a good config"; }
grep -q 'sched:sched_switch' "$WORK/good.out" || fail "--check-config did not expand sched:*"
echo "PASS"
