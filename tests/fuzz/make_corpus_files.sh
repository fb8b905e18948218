#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Remakes the seed corpora of fuzz_elf (elf_corpus/) and fuzz_ustar
# (ustar_corpus/) beside this script: a few tiny ELF objects built here (a
# shared object with a SHA-1 build-id, one with an MD5 id, the same
# stripped, a relocatable object) and small archives in the layouts a
# symbol pack and tar(1) write (ustar, pax, GNU long names, links to
# directories, a link loop), then truncated and bit-flipped copies of
# each. Needs cc, strip and GNU tar. Inputs the fuzzer found are kept
# under crash-* / found-* names; this script leaves them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# flip FILE OFFSET: inverts one byte in place.
flip() {
	local b
	b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	printf "$(printf '\\%03o' $((b ^ 0xff)))" |
		dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# mutate DIR EXT: cut and flipped copies of each seed-*.EXT in DIR.
mutate() {
	local f base size
	cd "$1"
	for f in seed-*."$2"; do
		base=${f%."$2"}
		size=$(stat -c %s "$f")
		for cut in 52 64 512 $((size / 2)) $((size - 8)); do
			[ "$cut" -lt "$size" ] && head -c "$cut" "$f" >"$base.cut$cut"
		done
		# The headers first (sizes, offsets, counts), then anywhere.
		for off in 4 32 40 124 148 156 $((RANDOM % size)) $((RANDOM % size)); do
			[ "$off" -lt "$size" ] || continue
			cp "$f" "$base.flip$off"
			flip "$base.flip$off" "$off"
		done
	done
	chmod 0644 ./*
}

RANDOM=11
elf=$here/elf_corpus
mkdir -p "$elf"
printf 'int psnap_fuzz_a(int x) { return x + 1; }\nint psnap_fuzz_b;\n' >"$tmp/a.c"
so="-O2 -fPIC -shared -nostdlib -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096"
# shellcheck disable=SC2086
cc $so -Wl,--build-id=sha1 -o "$elf/seed-so-sha1.elf" "$tmp/a.c"
# shellcheck disable=SC2086
cc $so -Wl,--build-id=md5 -o "$elf/seed-so-md5.elf" "$tmp/a.c"
strip -o "$elf/seed-so-stripped.elf" "$elf/seed-so-sha1.elf"
cc -O2 -c -o "$elf/seed-rel.elf" "$tmp/a.c"
mutate "$elf" elf

tar=$here/ustar_corpus
mkdir -p "$tar" "$tmp/t/dir" "$tmp/t/usr/lib/libc.so.6/0123456789abcdef0123456789abcdef01234567" \
	"$tmp/t/.build-id/ab"
cd "$tmp/t"
echo a >a
echo file >dir/file
echo elf >usr/lib/libc.so.6/0123456789abcdef0123456789abcdef01234567/elf
ln -s dir link
ln -s loop loop
ln -s ../../usr/lib/libc.so.6/0123456789abcdef0123456789abcdef01234567 \
	.build-id/ab/cdef0123456789abcdef0123456789abcdef01
long=$(printf 'n%.0s' $(seq 1 150))
echo long >"$long"
tar --format=ustar -cf "$tar/seed-ustar.tar" a dir link loop .build-id usr
tar --format=pax -cf "$tar/seed-pax.tar" a dir link "$long"
tar --format=gnu -cf "$tar/seed-gnu.tar" a dir link "$long"
cd "$tmp"
mutate "$tar" tar
ls "$elf" | wc -l
ls "$tar" | wc -l
