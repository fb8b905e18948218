#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# A library replaced between recording and reading: a program spends its
# time in a shared library of its own; after it exits, a new build of the
# library (the same code, its function renamed) takes the old one's path.
# Read where the new one is installed: without the pack perf must not name
# the old samples by the new file (the perf.data's build-ids tell them
# apart), and with the pack it names them by the old library's symbols.
source "$(dirname "$0")/lib.sh"
require_env
command -v cc >/dev/null || prereq_missing "cc (gcc)"

mkdir "$WORK/lib" "$WORK/cache" "$WORK/nocache"
# One body, two names of one length, so the code sits at the same offsets.
lib_source() {
	cat <<SRC
__attribute__((noinline)) unsigned long $1(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i * 7;
	return x;
}
SRC
}
lib_source psnap_lib_spin_old >"$WORK/old.c"
lib_source psnap_lib_spin_NEW >"$WORK/new.c"
cat >"$WORK/main.c" <<'SRC'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
unsigned long psnap_lib_spin_old(unsigned long n);
int main(int argc, char **argv)
{
	time_t end = time(NULL) + atoi(argv[1]);

	while (time(NULL) < end)
		psnap_lib_spin_old(100000);
	puts("done");
	fflush(stdout);
	pause();
	return 0;
}
SRC
cflags="-O1 -fno-omit-frame-pointer -Wl,--build-id"
cc $cflags -shared -fPIC -o "$WORK/lib/libpsnapspin.so" "$WORK/old.c" &&
	cc $cflags -shared -fPIC -o "$WORK/libpsnapspin.new" "$WORK/new.c" &&
	cc $cflags -o "$WORK/libspinner" "$WORK/main.c" -L"$WORK/lib" -lpsnapspin \
		-Wl,-rpath,"$WORK/lib" || fail "cc cannot build the test program"
old_id=$(perf buildid-list -i "$WORK/lib/libpsnapspin.so" 2>/dev/null | awk '{print $1}')
new_id=$(perf buildid-list -i "$WORK/libpsnapspin.new" 2>/dev/null | awk '{print $1}')
[ -n "$old_id" ] && [ "$old_id" != "$new_id" ] || fail "the two builds need distinct build-ids"
old_off=$(nm "$WORK/lib/libpsnapspin.so" | awk '/psnap_lib_spin_old/ {print $1}')
new_off=$(nm "$WORK/libpsnapspin.new" | awk '/psnap_lib_spin_NEW/ {print $1}')
[ "$old_off" = "$new_off" ] || fail "the function moved ($old_off, $new_off): the test would prove nothing"

write_config "$WORK/p.conf" "cpu-clock/freq=999,call-graph=fp/" 4M "symbols = pack"
start_daemon "$WORK/p.conf"
start_prog "$WORK/spin.out" "$WORK/libspinner" 3
spin=$LAST_PID
wait_for_line "$WORK/spin.out" '^done'
kill "$spin"
wait "$spin" 2>/dev/null
# The upgrade: a new file (a new inode) at the old path, as a package manager does.
mv -f "$WORK/libpsnapspin.new" "$WORK/lib/libpsnapspin.so"
file=$(dump_and_wait)
note "snapshot $file"
pack=${file%.perf.data}.symbols.tar
[ -s "$pack" ] || fail "no symbol pack beside the snapshot"
perf buildid-list -i "$file" 2>/dev/null | grep -q "^$old_id " ||
	fail "the perf.data does not list the old library's build-id"
tar -xf "$pack" -C "$WORK/cache" || fail "tar cannot extract the pack"

# lib_samples DIR OUT: "old new total" of the samples perf puts in the library.
lib_samples() {
	perf --buildid-dir "$1" script -F ip,sym,dso -i "$file" >"$2.script" 2>"$2.err" ||
		fail "perf script failed: $(head -3 "$2.err")"
	awk '/libpsnapspin\.so/ { t++; if (/psnap_lib_spin_old/) o++; if (/psnap_lib_spin_NEW/) n++ }
		END { print o + 0, n + 0, t + 0 }' "$2.script"
}

read -r old new total < <(lib_samples "$WORK/nocache" "$WORK/nopack")
note "without the pack: $old old, $new new of $total samples in the library"
[ "$total" -gt 100 ] || fail "only $total samples in the library"
[ "$new" = 0 ] || fail "perf names $new old samples by the new library's function"

read -r old new total < <(lib_samples "$WORK/cache" "$WORK/pack")
note "with the pack: $old old, $new new of $total samples in the library"
if grep -iE 'no symbols found|mismatch' "$WORK/pack.err"; then
	fail "perf warned reading the snapshot with the pack"
fi
[ "$new" = 0 ] || fail "perf names $new samples by the new library with the pack"
[ $((old * 100)) -ge $((total * 99)) ] || fail "fewer than 99% of the library's samples named"
echo "PASS: the replaced library's samples named by the pack: $old/$total"
