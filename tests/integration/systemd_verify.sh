#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# systemd-analyze verify accepts the unit (as configured by the build, with
# ExecStart pointing at the binary under test), and its security exposure
# is reported.
source "$(dirname "$0")/lib.sh"
command -v systemd-analyze >/dev/null || prereq_missing "systemd-analyze"
unit=${UNIT_FILE:?set UNIT_FILE to the configured perfsnapd.service}
mkdir -p "$WORK/units"
sed -e "s|^ExecStart=[^ ]*|ExecStart=$PERFSNAPD|" "$unit" >"$WORK/units/perfsnapd.service"
if [ -n "${SOCKET_UNIT:-}" ]; then
	cp "$SOCKET_UNIT" "$WORK/units/perfsnapd.socket"
fi
# Man pages are checked where installed; here they are not.
SYSTEMD_LOG_LEVEL=warning systemd-analyze verify --man=no "$WORK/units/"* \
	>"$WORK/verify.out" 2>&1 || { cat "$WORK/verify.out"; fail "systemd-analyze verify"; }
# Warnings count as failures too (verify exits 0 on some of them).
grep -v '^$' "$WORK/verify.out" | grep -q . && { cat "$WORK/verify.out"; fail "verify warned"; }
systemd-analyze security --offline=true "$WORK/units/perfsnapd.service" >"$WORK/security.out" 2>&1 ||
	true
note "$(grep -i 'overall exposure' "$WORK/security.out" || tail -n 1 "$WORK/security.out")"
echo "PASS: systemd-analyze verify"
