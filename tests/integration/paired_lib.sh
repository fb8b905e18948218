# SPDX-License-Identifier: GPL-2.0-only
# What the paired-trigger tests share (trigger_paired*.sh): the path
# (PAIRED_MODE=bpf, or fallback: the user-space pairing forced by
# PERFSNAPD_PAIRED_NO_BPF=1), when the daemon's figures have settled, and
# a trigger's figures in status (take_status, figures).
MODE=${PAIRED_MODE:-bpf}
if [ "$MODE" = fallback ]; then
	export PERFSNAPD_PAIRED_NO_BPF=1
	measured="in user space (fallback)"
else
	unset PERFSNAPD_PAIRED_NO_BPF
	measured="in the kernel (BPF)"
fi
# settled N: N snapshots written, and the pairs counted the same in looks
# 0.2 s apart (the fallback counts what it reads every 10 ms, BPF at once).
SETTLED='' SETTLED_AT=0
settled() {
	local now=${EPOCHREALTIME/[.,]/} pairs
	[ "$(snapshot_count)" -ge "$1" ] || return 1
	"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/settle.txt" || return 1
	pairs=$(grep 'pairs seen' "$WORK/settle.txt")
	[ "$pairs" = "$SETTLED" ] && [ $((now - SETTLED_AT)) -ge 200000 ] && return 0
	[ "$pairs" = "$SETTLED" ] || SETTLED=$pairs SETTLED_AT=$now
	return 1
}
# "trigger: NAME: measured ...; P pairs seen, O over T us, largest L us (D ns)"
figures() {
	sed -n "s/^trigger: $1: measured $measured; \([0-9]*\) pairs seen, \([0-9]*\) over .*/\1 \2/p" \
		"$WORK/status.txt"
}
# take_status PATTERN: status into status.txt; its lines matching PATTERN shown.
take_status() {
	"$PERFSNAPCTL" --socket "$WORK/control.sock" status >"$WORK/status.txt" ||
		fail "perfsnapctl status failed"
	grep "$1" "$WORK/status.txt"
}
