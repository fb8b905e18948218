# SPDX-License-Identifier: GPL-2.0-only
#
# What the bench/ scripts share: putting their results into
# docs/benchmarks.md (their --update-docs option). Each script owns one or
# two pairs of marker lines there,
#   <!-- TAG: begin -->
#   <!-- TAG: end -->
# and replaces what lies between them, so the document's results are
# always a script's output and never edited by hand.
# Source it: . "$top/bench/lib.sh" (after setting top).

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
