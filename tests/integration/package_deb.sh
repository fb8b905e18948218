#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# CPack's .deb passes lintian with no error, installs on this Debian (man
# pages gzipped, the copyright and changelog in its doc directory), its
# perfsnapd starts on the installed configuration and writes a snapshot, a
# changed configuration survives an upgrade, and it removes cleanly.
# (systemd is not PID 1 in CI, so the installed binary is started by hand;
# the unit is verified by systemd_verify.)
source "$(dirname "$0")/lib.sh"
require_env
command -v lintian >/dev/null || prereq_missing "lintian"
dpkg-query -W -f='${Status}' perfsnapd 2>/dev/null | grep -q 'ok installed' &&
	prereq_missing "perfsnapd already installed from a package: refusing to touch it"

build_deb "$WORK/build"
deb=$DEB
# Debian's own check of the package: no errors; its warnings are listed.
lintian --fail-on error "$deb" >"$WORK/lintian.txt" 2>&1 ||
	{ cat "$WORK/lintian.txt"; fail "lintian found errors in $(basename "$deb")"; }
[ -s "$WORK/lintian.txt" ] && note "lintian: $(tr '\n' ';' <"$WORK/lintian.txt")"
CLEANUP_HOOK='dpkg -P perfsnapd >/dev/null 2>&1'
dpkg -i "$deb" >"$WORK/dpkg.log" 2>&1 || { cat "$WORK/dpkg.log"; fail "dpkg -i"; }
for f in /usr/sbin/perfsnapd /usr/bin/perfsnapctl /usr/bin/perfsnap-convert \
	/etc/perfsnapd/perfsnapd.conf /usr/lib/systemd/system/perfsnapd.service \
	/usr/share/man/man8/perfsnapd.8.gz /usr/share/man/man5/perfsnapd.conf.5.gz \
	/usr/share/man/man1/perfsnapctl.1.gz /usr/share/man/man1/perfsnap-convert.1.gz \
	/usr/share/doc/perfsnapd/copyright /usr/share/doc/perfsnapd/changelog.gz; do
	[ -e "$f" ] || fail "$f not installed"
done
man -w perfsnapd.conf >/dev/null 2>&1 || fail "man does not find perfsnapd.conf(5)"
[ -d /var/lib/perfsnapd ] || fail "/var/lib/perfsnapd not created"
/usr/sbin/perfsnapd --check-config >/dev/null 2>"$WORK/check.err" ||
	{ cat "$WORK/check.err"; fail "installed configuration refused"; }
grep -q '^ExecStart=/usr/sbin/perfsnapd --config /etc/perfsnapd/perfsnapd.conf' \
	/usr/lib/systemd/system/perfsnapd.service || fail "unit does not run the installed binary"

# Start it as the unit would, on the installed configuration, in a private
# snapshot directory (so a real /var/lib/perfsnapd is left alone).
sed "s|^directory *=.*|directory = $WORK/out|; s|^socket *=.*|socket = $WORK/control.sock|" \
	/etc/perfsnapd/perfsnapd.conf >"$WORK/installed.conf"
grep -q '^socket' "$WORK/installed.conf" || printf '[control]\nsocket = %s\n' "$WORK/control.sock" >>"$WORK/installed.conf"
mkdir -p "$WORK/out"
PERFSNAPD=/usr/sbin/perfsnapd start_daemon "$WORK/installed.conf"
file=$(dump_and_wait)
perf_script_clean "$file" /dev/null
/usr/bin/perfsnapctl --socket "$WORK/control.sock" status >/dev/null || fail "installed perfsnapctl"

# An operator's change to the conffile survives reinstalling.
echo "; changed by the operator" >>/etc/perfsnapd/perfsnapd.conf
dpkg -i "$deb" >"$WORK/dpkg2.log" 2>&1 || { cat "$WORK/dpkg2.log"; fail "reinstall"; }
grep -q 'changed by the operator' /etc/perfsnapd/perfsnapd.conf || fail "conffile overwritten"
dpkg -P perfsnapd >"$WORK/purge.log" 2>&1 || { cat "$WORK/purge.log"; fail "dpkg -P"; }
[ -e /usr/sbin/perfsnapd ] && fail "binary left after purge"
echo "PASS: $(basename "$deb") installs, runs, keeps the conffile, purges"
