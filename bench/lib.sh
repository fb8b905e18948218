# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the bench/ scripts share; every one of them sources it,
#   . "$top/bench/lib.sh"   (after setting top, the tree's top)
# - building perfsnapd and the helper programs (bench/CMakeLists.txt);
# - putting their results into docs/benchmarks.md (their --update-docs
#   option). Each script owns one or two pairs of marker lines there,
#     <!-- TAG: begin -->
#     <!-- TAG: end -->
#   and replaces what lies between them, so the document's results are
#   always a script's output and never edited by hand.
: "${top:?set top (the top of the tree) before sourcing bench/lib.sh}"

# bench_build [-S SRC] BUILD TARGET...: builds TARGETs in BUILD, Release,
# configured from SRC (the tree by default) with warnings never errors, so
# that a new compiler's warning does not stop a benchmark; a new BUILD
# leaves the tests out (an existing one keeps its choice). The output goes
# to BUILD/bench-build.log; if the build fails, its end is shown and the
# script ends.
bench_build() {
	local src=$top build log opts=(-DCMAKE_BUILD_TYPE=Release -DPERFSNAPD_WERROR=OFF)
	if [ "$1" = -S ]; then
		src=$2
		shift 2
	fi
	build=$1
	shift
	[ -e "$build/CMakeCache.txt" ] || opts+=(-DBUILD_TESTING=OFF)
	mkdir -p "$build"
	log=$build/bench-build.log
	if ! { cmake -S "$src" -B "$build" "${opts[@]}" &&
		cmake --build "$build" -j"$(nproc)" --target "$@"; } >"$log" 2>&1; then
		tail -n 20 "$log" >&2
		echo "${0##*/}: cannot build $* in $build (the whole log: $log)" >&2
		exit 1
	fi
}

# bench_helpers TARGET...: programs of bench/CMakeLists.txt, built from the
# tree in build/bench; they are then in $bench_bin (the integration tests'
# programs under their own names: bench-marker is $bench_bin/marker).
# shellcheck disable=SC2034 # used by the scripts
bench_bin=$top/build/bench/bench
bench_helpers() { bench_build "$top/build/bench" "$@"; }

# median [NONE]: the median of the numbers on stdin, one a line (its first
# field; a line without a number does not count): the middle one as it is
# written or, of an even count, the mean of the two middle ones; NONE
# (default -) when there is no number.
# shellcheck disable=SC2120 # NONE is optional
median() {
	sort -g | awk -v none="${1--}" 'NF && $1 == $1 + 0 { v[++n] = $1 }
		END {
			if (!n) print none
			else if (n % 2) print v[(n + 1) / 2]
			else printf "%.15g\n", (v[n / 2] + v[n / 2 + 1]) / 2
		}'
}

# maximum [NONE]: the largest of the numbers on stdin, read as median reads
# them, as it is written; NONE (default -) when there is no number.
# shellcheck disable=SC2120 # NONE is optional
maximum() {
	awk -v none="${1--}" 'NF && $1 == $1 + 0 && (!n++ || $1 + 0 > m + 0) { m = $1 }
		END { print n ? m : none }'
}

# The document (BENCH_DOC overrides it, to try --update-docs on a copy).
bench_doc() { echo "${BENCH_DOC:-$top/docs/benchmarks.md}"; }

# The tree a run measured: its commit, "-dirty" with uncommitted changes.
bench_rev() { git -C "$top" describe --always --dirty --abbrev=7 2>/dev/null || echo unknown; }

# bench_tee FILE ... bench_tee_end: what the script prints in between
# goes to FILE too (the script's results, for --update-docs).
bench_tee() {
	exec 3>&1 > >(tee "$1")
	bench_tee_pid=$!
}
bench_tee_end() {
	exec >&3 3>&-
	wait "$bench_tee_pid" # tee has written the whole file
}

# bench_fence CMD FILE: FILE (a script's plain-text output) as a Markdown
# block, under a line saying when, on which tree and by which command.
bench_fence() {
	printf 'Run on %s UTC at %s: `%s`\n\n```\n' "$(date -u '+%Y-%m-%d %H:%M')" "$(bench_rev)" "$1"
	cat "$2"
	printf '```\n'
}

# bench_update_docs TAG FILE: the lines between TAG's markers become FILE.
bench_update_docs() {
	local tag=$1 file=$2 doc new
	doc=$(bench_doc)
	if ! grep -qx "<!-- $tag: begin -->" "$doc" || ! grep -qx "<!-- $tag: end -->" "$doc"; then
		echo "$0: $doc has no '<!-- $tag: begin -->' and '<!-- $tag: end -->' lines" >&2
		return 1
	fi
	new=$(mktemp)
	awk -v f="$file" -v tag="$tag" '
		$0 == "<!-- " tag ": end -->" { skip = 0 }
		!skip { print }
		$0 == "<!-- " tag ": begin -->" { while ((getline l < f) > 0) print l; skip = 1 }' \
		"$doc" >"$new"
	# cat, not mv: the document keeps its owner and mode.
	cat "$new" >"$doc"
	rm -f "$new"
	echo "== updated $doc ($tag)" >&2
}

# bench_update_docs_fenced TAG CMD FILE: FILE, plain text that CMD printed,
# fenced (bench_fence) between TAG's markers.
bench_update_docs_fenced() {
	local md rc=0
	md=$(mktemp)
	bench_fence "$2" "$3" >"$md"
	bench_update_docs "$1" "$md" || rc=$?
	rm -f "$md"
	return "$rc"
}
