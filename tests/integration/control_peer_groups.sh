#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [control] group: a member by a supplementary group is served even when
# it exited before perfsnapd accepted its connection (issue 53: the
# groups were read from /proc/<pid>/status, gone by then, or another
# process's once its pid is reused). With perfsnapd stopped, a member
# (uid 65534, primary group nogroup, supplementary 'users') connects,
# sends "status", hands the connection to this test over a socketpair
# and exits; perfsnapd, continued, answers it. A non-member that does the
# same is refused.
source "$(dirname "$0")/lib.sh"
require_env
command -v python3 >/dev/null || prereq_missing "python3"
users=$(getent group users | cut -d: -f3)
[ -n "$users" ] || prereq_missing "the group 'users'"

write_config "$WORK/p.conf" "sched:sched_switch" 1M "" ""
sed -i '/^\[control\]/a group = users' "$WORK/p.conf"
start_daemon "$WORK/p.conf"
chmod 0755 "$WORK"

# ask_then_exit GROUPS: the reply to a child's "status", the child gone
# before perfsnapd looked at its connection.
ask_then_exit() {
	python3 - "$WORK/control.sock" "$DAEMON_PID" "$1" <<'PY'
import os, signal, socket, sys

path, daemon, groups = sys.argv[1], int(sys.argv[2]), [int(g) for g in sys.argv[3].split(",") if g]
parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
os.kill(daemon, signal.SIGSTOP)
try:
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups(groups)
            os.setgid(65534)
            os.setuid(65534)
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(path)
            s.sendall(b"status\n")
            socket.send_fds(child, [b"x"], [s.fileno()])
        except Exception as e:
            print(f"child: {e}", file=sys.stderr)
            os._exit(1)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    if status:
        sys.exit(1)
    _, fds, _, _ = socket.recv_fds(parent, 1, 1)
finally:
    os.kill(daemon, signal.SIGCONT)
conn = socket.socket(fileno=fds[0])
conn.settimeout(10)
reply = b""
while not reply.endswith(b"ok\n") and b"error" not in reply:
    data = conn.recv(65536)
    if not data:
        break
    reply += data
sys.stdout.write(reply.decode(errors="replace"))
PY
}

ask_then_exit "$users" >"$WORK/member.out" || fail "the member's request failed"
grep -q '^state: recording' "$WORK/member.out" ||
	{ cat "$WORK/member.out" >&2; fail "a member by a supplementary group who exited was not served"; }
# The socket's mode keeps others out first; opened to all, perfsnapd must.
chmod 0666 "$WORK/control.sock"
ask_then_exit "" >"$WORK/other.out" || fail "the non-member's request failed"
grep -q '^error permission denied' "$WORK/other.out" ||
	{ cat "$WORK/other.out" >&2; fail "a non-member was not refused"; }
echo "PASS: a member by its supplementary group is served after it exited; a non-member is refused"
