#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# perfsnapctl over the control socket: dump returns the paths of complete
# files, with the reason recorded; status and list tell the truth; a user
# who is neither root nor in the group is refused; a reason that is not
# UTF-8 reaches every output as text.
source "$(dirname "$0")/lib.sh"
require_env
CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v setpriv >/dev/null || prereq_missing "setpriv (util-linux)"
command -v strace >/dev/null || prereq_missing "strace"

FORMATS="perf.data trace.dat" write_config "$WORK/p.conf" "raw_syscalls:sys_enter sched:sched_switch" 1M
start_daemon "$WORK/p.conf"
sock="$WORK/control.sock"
[ -S "$sock" ] || fail "no control socket at $sock"
[ "$(stat -c %a "$sock")" = 660 ] || fail "socket mode $(stat -c %a "$sock"), want 660"

"$CTL" --socket "$sock" dump --reason "disk latency spike" >"$WORK/dump.out" 2>"$WORK/dump.err" ||
	{ cat "$WORK/dump.err"; fail "perfsnapctl dump"; }
grep -q '\.perf\.data$' "$WORK/dump.out" || fail "dump printed no perf.data path"
grep -q '\.trace\.dat$' "$WORK/dump.out" || fail "dump printed no trace.dat path"
while read -r f; do
	[ -f "$f" ] || fail "printed path $f does not exist"
	case "$f" in
	*.perf.data) perf_script_clean "$f" /dev/null ;;
	*.trace.dat) trace-cmd report "$f" >/dev/null 2>"$WORK/tc.err" && [ ! -s "$WORK/tc.err" ] ||
		fail "trace-cmd report $f" ;;
	*.json)
		# The operator's words as written (issue 55); who asked, its own field.
		python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
o = j.get("origin", {})
sys.exit(0 if j["reason"] == "disk latency spike" and o.get("kind") == "control" and
         o.get("uid") == 0 and o.get("pid", 0) > 0 else "reason %r, origin %r" % (j["reason"], o))' "$f" ||
			fail "reason or origin not in $f" ;;
	esac
done <"$WORK/dump.out"

"$CTL" --socket "$sock" status >"$WORK/status.out" || fail "perfsnapctl status"
grep -q '^state: recording' "$WORK/status.out" || fail "status: state"
grep -q "^cpus: $(nproc)" "$WORK/status.out" || fail "status: cpus"
grep -q '^snapshots: 1 written' "$WORK/status.out" || fail "status: snapshot count"
grep -q "^last: $(head -n 1 "$WORK/dump.out")" "$WORK/status.out" || fail "status: last path"
grep -q '^last reason: disk latency spike$' "$WORK/status.out" || fail "status: reason"
grep -q '^last origin: perfsnapctl, pid [0-9]*, uid 0$' "$WORK/status.out" || fail "status: origin"
grep -q 'reason disk latency spike (perfsnapctl, pid [0-9]*, uid 0)$' "$WORK/daemon.log" ||
	fail "the snapshot's log line does not say who asked"

kill -USR2 "$DAEMON_PID"
sig=$(wait_snapshot 1)
# The signal's sender: this shell (kill is its builtin).
python3 -c '
import json, sys
o = json.load(open(sys.argv[1])).get("origin", {})
sys.exit(0 if o == {"kind": "signal", "pid": int(sys.argv[2]), "uid": 0} else "origin %r" % o)' \
	"${sig%.perf.data}.json" "$$" || fail "the signal's snapshot does not say who sent it"
"$CTL" --socket "$sock" list >"$WORK/list.out" || fail "perfsnapctl list"
[ "$(wc -l <"$WORK/list.out")" = 2 ] || { cat "$WORK/list.out"; fail "list: want 2 snapshots"; }
grep -q ' disk latency spike$' "$WORK/list.out" || fail "list: reason of the first"
grep -q ' signal$' "$WORK/list.out" || fail "list: reason of the second"
# stem, bytes, upload, compression, reason; a header only on a terminal.
awk '$4 != "none" && $4 != "zstd" { exit 1 }' "$WORK/list.out" ||
	{ cat "$WORK/list.out"; fail "list: no compression column"; }
script -qec "$CTL --socket $sock list" /dev/null >"$WORK/list.tty" || fail "perfsnapctl list on a terminal"
head -n 1 "$WORK/list.tty" | grep -q '^STEM BYTES UPLOAD COMPRESSION REASON' ||
	{ cat "$WORK/list.tty"; fail "list on a terminal: no header"; }

# Not root, not in a group: refused, and nothing dumped. The socket's mode
# (0660) already keeps such a user out; with a mode that lets anyone
# connect (a socket unit's SocketMode, an admin's chmod), perfsnapd's own
# check refuses. It does so as it accepts, which may be before the
# request is sent: strace delays the send so that it always is, and
# perfsnapctl must still print the daemon's reason (it printed "cannot
# send the request: Broken pipe").
chmod 0755 "$WORK"
setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" --socket "$sock" dump \
	>"$WORK/nobody.out" 2>&1 && fail "an unprivileged user could dump"
grep -q 'Permission denied (need root' "$WORK/nobody.out" ||
	{ cat "$WORK/nobody.out"; fail "the socket's mode let an unprivileged user connect"; }
chmod 0666 "$sock"
strace -f -qq -o /dev/null -e trace=sendto -e inject=sendto:delay_enter=300000 \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" --socket "$sock" dump \
	>"$WORK/nobody.out" 2>&1 && fail "an unprivileged user could dump"
grep -q '^perfsnapctl: permission denied: need root$' "$WORK/nobody.out" ||
	{ cat "$WORK/nobody.out"; fail "no clear refusal"; }
[ "$(snapshot_count)" = 2 ] || fail "a refused client caused a dump"
# Refusals do not flood the log: one line, then at most one a minute.
for _ in $(seq 1 20); do
	setpriv --reuid=65534 --regid=65534 --clear-groups "$CTL" --socket "$sock" status \
		>/dev/null 2>&1 && fail "an unprivileged user got the status"
done
n=$(grep -c 'control: refused pid' "$WORK/daemon.log")
[ "$n" = 1 ] || fail "$n log lines for 21 refused connections"

# A reason that is not UTF-8, with a terminal's escape sequence: the
# sidecar is JSON, and the log, status and list are UTF-8 text without
# escapes, each such byte a '?'.
"$CTL" --socket "$sock" dump --reason $'bad\xff\xfe \e[31m' >"$WORK/bad.out" 2>"$WORK/bad.err" ||
	{ cat "$WORK/bad.err"; fail "perfsnapctl dump with a reason that is not UTF-8"; }
json=$(grep '\.json$' "$WORK/bad.out") || fail "dump printed no sidecar path"
python3 -c '
import json, sys
reason = json.load(open(sys.argv[1], encoding="utf-8"))["reason"]
sys.exit(0 if reason == "bad?? ?[31m" else "reason %r" % reason)' "$json" ||
	fail "the sidecar $json is not JSON with the reason sanitised"
"$CTL" --socket "$sock" status >"$WORK/status.out" || fail "perfsnapctl status"
"$CTL" --socket "$sock" list >"$WORK/list.out" || fail "perfsnapctl list"
grep -q '^last reason: bad?? ?\[31m$' "$WORK/status.out" || fail "status: the reason"
grep -q ' bad?? ?\[31m$' "$WORK/list.out" || fail "list: the reason"
for f in daemon.log status.out list.out; do
	python3 -c 'import sys; open(sys.argv[1], encoding="utf-8").read()' "$WORK/$f" ||
		fail "$f is not UTF-8"
	grep -q $'\e' "$WORK/$f" && fail "$f holds an escape character"
done
echo "PASS: dump, status, list, refusal, a reason that is not UTF-8"
