#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Samples and SystemInfo as Perfetto's own importer reads them
# (trace_processor_shell), from perfsnap-convert (issue #35, items 6 and 7):
# cpu-clock recorded with call-graph=fp under a known workload is, written
# as PerfSamples (the default) or StackSamples, as many rows of perf_sample
# or stack_sample as perf script shows samples, with named frames (the
# workload's own functions among them), and only packets of that kind
# (protoc); the gzip output loads the same;
# and a perf.data whose header names another release and arch keeps them
# in the metadata table (system_release, system_machine), not this
# machine's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
find_trace_processor
CONVERT=${PERFSNAP_CONVERT:?set PERFSNAP_CONVERT to the perfsnap-convert binary}
command -v python3 >/dev/null || prereq_missing python3
cd "$WORK" || fail "no work dir"

perf record -q -e cpu-clock --call-graph=fp -o cc.data -- timeout -s KILL 10 "$PROGS/spinner" 1 \
	>/dev/null 2>&1
[ -s cc.data ] || fail "perf record -o cc.data"
want=$(perf script -i cc.data -F event 2>/dev/null | grep -c cpu-clock)
[ "$want" -gt 100 ] || fail "only $want samples recorded"

# samples FILE TABLE: the rows of TABLE, and those whose leaf frame has a name.
samples() {
	tp_query "$1" "select count(*), sum(f.name is not null) from $2 s
		left join stack_profile_callsite c on s.callsite_id = c.id
		left join stack_profile_frame f on c.frame_id = f.id"
}
# in_stacks FILE TABLE FUNCTION: FUNCTION is a frame of some sample's stack.
in_stacks() {
	tp_query "$1" "select count(*) from $2 s
		join experimental_ancestor_stack_profile_callsite(s.callsite_id) a
		join stack_profile_frame f on a.frame_id = f.id where f.name = '$3'"
}

for kind in perf_sample stack_sample; do
	"$CONVERT" --to-perfetto "$kind.pftrace" -i cc.data --samples $kind >/dev/null 2>conv.err ||
		{ cat conv.err >&2; fail "perfsnap-convert --samples $kind"; }
	tp_no_errors "$kind.pftrace"
	IFS=, read -r n named <<<"$(samples "$kind.pftrace" $kind)"
	[ "$n" = "$want" ] || fail "$kind: perf script shows $want samples, trace_processor $n"
	[ "$named" -gt $((n / 2)) ] || fail "$kind: $named of $n leaf frames are named"
	[ "$(in_stacks "$kind.pftrace" $kind psnap_spin_outer)" -gt 0 ] ||
		fail "$kind: psnap_spin_outer is in no stack"
	note "$kind: $n samples, $named leaf frames named"
done
# The packets themselves (trace processor v58 fills both tables from
# either): each kind's output holds only its own, as many as perf script's.
for kind in perf_sample stack_sample; do
	pftrace_decode $kind.pftrace $kind.txt
	pftrace_same_counts cc.data $kind.txt $kind
done
[ "$(pftrace_samples perf_sample.txt stack_sample)" = 0 ] || fail "perf_sample output has StackSamples"
[ "$(pftrace_samples stack_sample.txt perf_sample)" = 0 ] || fail "stack_sample output has PerfSamples"

# gzip, which every Perfetto version opens.
"$CONVERT" --to-perfetto gz.pftrace -i cc.data --compression gzip >/dev/null 2>&1 ||
	fail "perfsnap-convert --compression gzip"
[ "$(head -c 2 gz.pftrace | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "gz.pftrace is no gzip"
IFS=, read -r n named <<<"$(samples gz.pftrace perf_sample)"
[ "$n" = "$want" ] || fail "gzip: $n samples, want $want"

# Another machine's recording: HEADER_OSRELEASE and HEADER_ARCH rewritten in
# place (perf pads header strings to 64 bytes: room for either).
python3 - cc.data other.data <<'PY' || fail "cannot rewrite the header strings"
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
assert b[:8] == b'PERFILE2'
data_off, data_size = struct.unpack_from('<QQ', b, 40)
feats = int.from_bytes(b[72:104], 'little')
at = data_off + data_size
new = {4: b'4.19.0-other', 6: b'aarch64'}
for bit in range(256):
    if not feats >> bit & 1:
        continue
    off, size = struct.unpack_from('<QQ', b, at)
    at += 16
    if bit in new:
        n, = struct.unpack_from('<I', b, off)
        assert len(new[bit]) < n
        b[off + 4:off + 4 + n] = new[bit].ljust(n, b'\0')
        del new[bit]
assert not new, 'features missing: %s' % new
open(sys.argv[2], 'wb').write(b)
PY
perf report -i other.data --header-only 2>/dev/null | grep -q 'os release : 4.19.0-other' ||
	fail "perf does not read the rewritten release"
"$CONVERT" --to-perfetto other.pftrace -i other.data >/dev/null 2>&1 ||
	fail "perfsnap-convert other.data"
release=$(tp_query other.pftrace "select str_value from metadata where name = 'system_release'")
machine=$(tp_query other.pftrace "select str_value from metadata where name = 'system_machine'")
sysname=$(tp_query other.pftrace "select str_value from metadata where name = 'system_name'")
[ "$release" = 4.19.0-other ] || fail "system_release is '$release', not the recording's"
[ "$machine" = aarch64 ] || fail "system_machine is '$machine', not the recording's"
[ "$sysname" = Linux ] || fail "system_name is '$sysname'"
note "converted elsewhere: $sysname $release $machine"
note "ok"
