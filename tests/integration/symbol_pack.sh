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
source "$(dirname "$0")/lib.sh"
require_env
command -v unshare >/dev/null || prereq_missing "unshare (util-linux)"

write_config "$WORK/p.conf" "cpu-clock/freq=999,call-graph=fp/" 4M "symbols = pack"
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
echo "PASS: the deleted program named by the pack elsewhere: $named/$total user, $kernel kernel samples"
