#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# [snapshot] symbols = pack: a program copied to a directory of its own is
# profiled (cpu-clock, frame-pointer callchains), exits, and its binary is
# deleted before the dump. The snapshot's <stem>.symbols.tar holds it (the
# daemon kept it open from its mmap) and the kernel's symbols; extracted
# into a directory, it lets perf --buildid-dir name, in a mount namespace
# where the program's directory is empty and /proc/kallsyms and
# /sys/kernel/notes read nothing (as on another machine), at least 99% of
# the program's user samples and every kernel sample, with no warning.
# perf finds objects by the build-ids of the perf.data (HEADER_BUILD_ID).
# The same there for perfsnap-convert --to-pprof and --to-perfetto, with
# the pack beside the snapshot or --symbols DIR (go tool pprof -top and
# trace processor name the program's function), and for the daemon's own
# .pb.gz and .pftrace, written from the objects it keeps open.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/perfetto_lib.sh"
require_env
command -v unshare >/dev/null || prereq_missing "unshare (util-linux)"
command -v go >/dev/null || prereq_missing "go (Debian's golang-go) for go tool pprof"
find_trace_processor
CONVERT=${PERFSNAP_CONVERT:?set PERFSNAP_CONVERT to the perfsnap-convert binary}
export HOME="$WORK" GOCACHE="$WORK/gocache" PPROF_TMPDIR="$WORK/pprof-tmp"

FORMATS="perf.data perfetto pprof" write_config "$WORK/p.conf" "cpu-clock/freq=999,call-graph=fp/" 4M "symbols = pack"
start_daemon "$WORK/p.conf"
mkdir "$WORK/bin" "$WORK/cache" "$WORK/empty"
cp "$PROGS/spinner" "$WORK/bin/spinner"
id=$(perf buildid-list -i "$WORK/bin/spinner" 2>/dev/null | awk '{print $1}')
[ -n "$id" ] || fail "the test program has no build-id"
start_prog "$WORK/spin.out" "$WORK/bin/spinner" 3
spin=$LAST_PID
wait_for_line "$WORK/spin.out" '^done'
# It has run its course: it exits, and its binary goes.
kill "$spin"
wait "$spin" 2>/dev/null
rm "$WORK/bin/spinner"
file=$(dump_and_wait)
note "snapshot $file"
stem=${file%.perf.data}
pack=$stem.symbols.tar
[ -s "$pack" ] || fail "no symbol pack beside the snapshot"
grep -q "\"$(basename "$pack")\"" "$stem.json" || fail "the sidecar does not list the pack"
grep -o '"symbols": {[^}]*' "$stem.json" | head -c 300
echo

tar -tvf "$pack" >"$WORK/pack.txt" || fail "tar cannot list the pack"
rel=${WORK#/}/bin/spinner
grep -q " $rel/$id/elf\$" "$WORK/pack.txt" || fail "the deleted program is not in the pack"
grep -qF " .build-id/${id:0:2}/${id:2} -> ../../$rel/$id" "$WORK/pack.txt" ||
	fail "no .build-id link to the program"
grep -qE ' \[kernel\.kallsyms\]/[0-9a-f]+/kallsyms$' "$WORK/pack.txt" ||
	fail "no kernel symbols in the pack"
tar -xf "$pack" -C "$WORK/cache" || fail "tar cannot extract the pack"

# perf looks objects up by the build-ids the perf.data lists.
perf buildid-list -i "$file" >"$WORK/buildids.txt" 2>/dev/null
grep -q "^$id " "$WORK/buildids.txt" ||
	fail "the perf.data lists no build-id for the program (HEADER_BUILD_ID, written by the build-ids work): perf cannot find it in the pack"

# perf script and report as on another machine, with build-id dir $1.
elsewhere() {
	unshare -m --propagation private bash -c '
		mount -t tmpfs none "$1/bin" && mount --bind /dev/null /proc/kallsyms &&
			mount --bind /dev/null /sys/kernel/notes || exit 99
		[ -z "$(ls -A "$1/bin")" ] && [ ! -s /proc/kallsyms ] || exit 98
		perf --buildid-dir "$2" script -G -F comm,ip,sym,dso -i "$3" >"$4.script" 2>"$4.err" &&
			perf --buildid-dir "$2" report -i "$3" --stdio --no-children --sort dso,sym \
				>"$4.report" 2>>"$4.err"' _ "$WORK" "$1" "$file" "$2"
}

# user_named OUT: "named total" of the program's samples in user space.
user_named() {
	awk '$1 == "psnap_spinner" && $NF != "([kernel.kallsyms])" {
		t++; if ($3 != "[unknown]") n++ } END { print n + 0, t + 0 }' "$1.script"
}

# Without the pack the program's samples cannot be named: the test sees what another machine sees.
elsewhere "$WORK/empty" "$WORK/nopack" || fail "perf in a mount namespace failed ($?)"
read -r named total < <(user_named "$WORK/nopack")
note "without the pack: $named of $total user samples of the program named"
[ "$total" -gt 100 ] || fail "only $total user samples of the program"
[ "$named" -lt "$total" ] || fail "the program is named without the pack: the test would prove nothing"

elsewhere "$WORK/cache" "$WORK/pack" || fail "perf in a mount namespace failed ($?)"
if grep -iE 'no symbols found|mismatch|build.id' "$WORK/pack.err"; then
	fail "perf warned reading the snapshot with the pack"
fi
read -r named total < <(user_named "$WORK/pack")
note "with the pack: $named of $total user samples of the program named"
[ $((named * 100)) -ge $((total * 99)) ] || fail "fewer than 99% of the program's user samples named"
grep -q 'psnap_spin_inner' "$WORK/pack.report" || fail "perf report does not name psnap_spin_inner"
kernel=$(awk '$NF == "([kernel.kallsyms])"' "$WORK/pack.script" | wc -l)
unnamed=$(awk '$NF == "([kernel.kallsyms])" && $3 == "[unknown]"' "$WORK/pack.script" | wc -l)
note "with the pack: $((kernel - unnamed)) of $kernel kernel samples named"
[ "$kernel" -gt 0 ] || fail "no kernel samples"
[ "$unnamed" = 0 ] || fail "$unnamed kernel samples unnamed"

# convert_elsewhere OUT ARGS...: perfsnap-convert ARGS -i the snapshot, as
# on another machine (the snapshot's directory holds the pack).
convert_elsewhere() {
	local out=$1
	shift
	unshare -m --propagation private bash -c '
		w=$1 convert=$2 out=$3
		shift 3
		mount -t tmpfs none "$w/bin" && mount --bind /dev/null /proc/kallsyms || exit 99
		"$convert" "$@" >"$out.log" 2>"$out.err"' _ "$WORK" "$CONVERT" "$out" "$@" ||
		{ cat "$out.err" >&2; fail "perfsnap-convert $* failed elsewhere"; }
	[ -s "$out.err" ] && { cat "$out.err" >&2; fail "perfsnap-convert $* warned"; }
	return 0
}
# pprof_names PROFILE: go tool pprof -top names the program's inner loop.
pprof_names() {
	go tool pprof -top -symbolize=none "$1" >"$1.top" 2>"$1.top.err" ||
		{ cat "$1.top.err" >&2; fail "go tool pprof -top $1 failed"; }
	grep -q ' psnap_spin_inner$' "$1.top"
}
# tp_names PFTRACE: trace processor's frames of the stack samples name it.
tp_names() {
	[ "$(tp_query "$1" "select count(*) from stack_profile_frame f
		join stack_profile_callsite c on c.frame_id = f.id
		join perf_sample s on s.callsite_id = c.id where f.name = 'psnap_spin_inner'")" -gt 0 ]
}

# The daemon's own files, written from the objects it kept open.
pprof_names "$stem.pb.gz" || fail "the daemon's .pb.gz does not name psnap_spin_inner"
tp_names "$stem.pftrace" || fail "the daemon's .pftrace does not name psnap_spin_inner"

# Converted elsewhere: without symbols the program stays unnamed ...
convert_elsewhere "$WORK/none.pb.gz" --symbols "$WORK/empty" --to-pprof "$WORK/none.pb.gz" -i "$file"
! pprof_names "$WORK/none.pb.gz" || fail "named without the pack: the test would prove nothing"
# ... with the pack beside the snapshot (found by its stem) it is named ...
convert_elsewhere "$WORK/pack.pb.gz" --to-pprof "$WORK/pack.pb.gz" -i "$file"
grep -q "symbols of [1-9][0-9]* objects from '$pack'" "$WORK/pack.pb.gz.log" ||
	fail "perfsnap-convert does not say it used the pack: $(cat "$WORK/pack.pb.gz.log")"
pprof_names "$WORK/pack.pb.gz" || fail "--to-pprof with the pack does not name psnap_spin_inner"
convert_elsewhere "$WORK/pack.pftrace" --to-perfetto "$WORK/pack.pftrace" -i "$file"
tp_no_errors "$WORK/pack.pftrace"
tp_names "$WORK/pack.pftrace" || fail "--to-perfetto with the pack does not name psnap_spin_inner"
# ... and from the pack extracted, as --symbols DIR.
convert_elsewhere "$WORK/dir.pb.gz" --symbols "$WORK/cache" --to-pprof "$WORK/dir.pb.gz" -i "$file"
pprof_names "$WORK/dir.pb.gz" || fail "--symbols DIR does not name psnap_spin_inner"
echo "PASS: the deleted program named by the pack elsewhere: $named/$total user, $kernel kernel samples; by perfsnap-convert with the pack and its directory, and in the daemon's pprof and Perfetto files"
