#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# common/'s (or daemon/'s) layering, compiled. For each layer, with the include
# directories, definitions and C standard its own sources compile with
# (the build writes them to FLAGS-DIR/LAYER.*, see tests/CMakeLists.txt):
#   - its own headers and those of the layers it links (but their
#     -internal.h ones) compile together: a legitimate include builds;
#   - no header of a layer after it in LAYER... (lowest first) is found
#     (__has_include, one compile for them all), and including the first
#     header of the next layer up fails for want of it: an upward include
#     does not build.
# Prints each breach and exits 1; prints a summary and exits 0 otherwise.
#
# Layer X of DIR is the library PREFIX_X (perfsnap_ for common/, perfsnapd_
# for daemon/); a linked library of another prefix is a package or a lower
# tree's layer, whose headers the include path brings.
#
#   check_layers.sh CC DIR PREFIX FLAGS-DIR LAYER...
set -euo pipefail
[ $# -ge 5 ] || {
	echo "usage: check_layers.sh CC DIR PREFIX FLAGS-DIR LAYER..." >&2
	exit 2
}
cc=$1 top=$2 prefix=$3 flags=$4
shift 4
layers=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 legit=0 upward=0

headers() { # LAYER: the names of its headers
	local h
	for h in "$top/$1"/*.h; do [ ! -e "$h" ] || echo "${h##*/}"; done
}

args=()
compile() { # compiles $tmp/probe.c with args, its diagnostics in $tmp/out
	"$cc" "${args[@]}" -fsyntax-only "$tmp/probe.c" >"$tmp/out" 2>&1
}

breach() { # MESSAGE: reports it with the compiler's output
	echo "$1"
	sed 's/^/    /' "$tmp/out"
	status=1
}

for ((i = 0; i < ${#layers[@]}; i++)); do
	layer=${layers[i]}
	args=()
	while IFS= read -r l; do [ -z "$l" ] || args+=("-I$l"); done <"$flags/$layer.includes"
	while IFS= read -r l; do [ -z "$l" ] || args+=("-D$l"); done <"$flags/$layer.defines"
	args+=("$(cat "$flags/$layer.std")")

	# Legitimate: its own headers, then those of the layers it links.
	own=$(headers "$layer")
	linked=()
	while IFS= read -r l; do
		case $l in "$prefix"_*) ;; *) continue ;; esac # a package or a lower tree
		l=${l#"$prefix"_}
		if [ -n "$l" ] && [ -d "$top/$l" ]; then linked+=("$l"); fi
	done <"$flags/$layer.links"
	for h in $own; do echo "#include \"$h\""; done >"$tmp/probe.c"
	for l in "${linked[@]}"; do
		for h in $(headers "$l"); do
			case $h in *-internal.h) ;; *) echo "#include \"$h\"" ;; esac
		done
	done >>"$tmp/probe.c"
	if compile; then
		legit=$((legit + $(wc -l <"$tmp/probe.c")))
	else
		breach "$layer: its own headers or those of the layers it links (${linked[*]:-none}) do not build:"
	fi

	# Upward: no header of a higher layer may be found.
	: >"$tmp/probe.c"
	for ((j = i + 1; j < ${#layers[@]}; j++)); do
		for h in $(headers "${layers[j]}"); do
			printf '#if __has_include("%s")\n#error "%s" found\n#endif\n' "$h" "${layers[j]}/$h"
			upward=$((upward + 1))
		done >>"$tmp/probe.c"
	done
	compile || breach "$layer sees headers of higher layers:"

	# And one included for real: the build fails, for want of that header.
	[ $((i + 1)) -lt ${#layers[@]} ] || continue
	up=${layers[i + 1]}
	mapfile -t hs < <(headers "$up")
	h=${hs[0]}
	echo "#include \"$h\"" >"$tmp/probe.c"
	if compile; then
		breach "$layer includes $up/$h, a higher layer's header, and it builds"
	elif ! grep -F "$h" "$tmp/out" | grep -qE 'No such file|not found'; then
		breach "$layer: including $up/$h fails, but not for want of it:"
	fi
done
[ "$status" != 0 ] || echo "layers ${layers[*]}: $legit legitimate includes build; $upward upward ones are not found"
exit $status
