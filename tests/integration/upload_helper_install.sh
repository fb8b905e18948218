#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [upload] and the helper perfsnapd starts: an install relocated with
# "cmake --install --prefix DIR" finds DIR's perfsnapd-upload, as it lays
# it out relative to perfsnapd (issue 53: it looked only where the build
# was configured, then retried every upload for ever). Without a helper
# anywhere, --check-config and the start exit 78 naming where it looked,
# and a reload that adds [upload] is refused the same way; given
# --upload-socket, perfsnapd starts none and needs none.
source "$(dirname "$0")/lib.sh"
require_env
build=$(cd "$PROGS/.." && pwd)
prefix=$WORK/inst
cmake --install "$build" --prefix "$prefix" >"$WORK/install.log" 2>&1 ||
	{ cat "$WORK/install.log" >&2; fail "cmake --install --prefix failed"; }
daemon=$(find "$prefix" -type f -name perfsnapd -perm -u+x | head -n1)
helper=$(find "$prefix" -type f -name perfsnapd-upload -perm -u+x | head -n1)
[ -n "$daemon" ] && [ -n "$helper" ] || fail "the install has no perfsnapd or no perfsnapd-upload"
configured=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$build/CMakeCache.txt")/libexec/perfsnapd

(umask 077 && printf '[default]\naws_access_key_id = K\naws_secret_access_key = x\n' \
	>"$WORK/credentials")
write_config "$WORK/p.conf" "sched:sched_switch" 64K
cp "$WORK/p.conf" "$WORK/plain.conf"
cat >>"$WORK/p.conf" <<CONF
[upload]
url = s3://snaps/p/
endpoint = http://127.0.0.1:9
path_style = yes
credentials = $WORK/credentials
CONF

"$daemon" --check-config -c "$WORK/p.conf" >/dev/null 2>"$WORK/check.err" ||
	{ cat "$WORK/check.err" >&2; fail "the relocated install does not find its helper"; }

mv "$helper" "$WORK/helper.moved"
if [ -x "${configured}/perfsnapd-upload" ]; then
	note "a helper is installed at $configured: the missing case cannot be shown here"
	echo "PASS: a relocated install finds its helper"
	exit 0
fi
rc=0
"$daemon" --check-config -c "$WORK/p.conf" >/dev/null 2>"$WORK/check.err" || rc=$?
[ "$rc" = 78 ] || fail "--check-config without a helper exited $rc, want 78"
grep -q "needs the upload helper perfsnapd-upload, which is not at $(dirname "$daemon")/perfsnapd-upload, " \
	"$WORK/check.err" || { cat "$WORK/check.err" >&2; fail "no clear error naming where it looked"; }
rc=0
"$daemon" -c "$WORK/p.conf" >/dev/null 2>"$WORK/start.err" || rc=$?
[ "$rc" = 78 ] || fail "a start without a helper exited $rc, want 78"
"$daemon" --check-config --upload-socket "$WORK/none.sock" -c "$WORK/p.conf" >/dev/null ||
	fail "--upload-socket: perfsnapd starts no helper, and should need none"

# A running perfsnapd without [upload], reloaded with it: refused, the old configuration stays.
PERFSNAPD=$daemon start_daemon "$WORK/plain.conf"
cp "$WORK/p.conf" "$WORK/plain.conf"
"$PERFSNAPCTL" --socket "$WORK/control.sock" reload >"$WORK/reload.out" 2>&1 &&
	fail "a reload adding [upload] without a helper was accepted"
grep -q "needs the upload helper" "$WORK/reload.out" ||
	{ cat "$WORK/reload.out" >&2; fail "the reload's refusal does not say why"; }
echo "PASS: a relocated install finds its helper; without one, exit 78 and a refused reload say where it looked"
