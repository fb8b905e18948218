#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The house rules can fail: each scripts/check-* runs in a scratch git
# tree of its own, once on a tree that keeps the rule (it must pass) and
# once with one breach added (it must fail, naming the file). A rule whose
# script passes everything would otherwise go unnoticed.
#
#   check_rules.sh SOURCE-DIR
set -euo pipefail
[ $# -eq 1 ] || {
	echo "usage: check_rules.sh SOURCE-DIR" >&2
	exit 2
}
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0 checked=0

# A scratch tree: the rule's script, .clang-format, and one clean file of
# each kind the rules look at.
new_tree() { # DIR
	mkdir -p "$1/scripts" "$1/common/base" "$1/daemon/base" "$1/tests/unit" "$1/docs"
	cp "$src"/scripts/check-* "$1/scripts/"
	cp "$src/.clang-format" "$1/"
	printf '%s\n' '/* SPDX-License-Identifier: GPL-2.0-only */' \
		'int thing__count(int n);' >"$1/common/base/thing.h"
	printf '%s\n' '// SPDX-License-Identifier: GPL-2.0-only' '#include "thing.h"' '' \
		'int thing__count(int n)' '{' '	return n + 1;' '}' >"$1/common/base/thing.c"
	printf '# Design\n' >"$1/docs/design.md"
	printf '# Benchmarks\n' >"$1/docs/benchmarks.md"
	git -C "$1" init -q
	git -C "$1" add -A
}

lines() { # N FILE: N lines of code that clang-format leaves alone
	local i
	for ((i = 0; i < $1; i++)); do echo "int v$i;"; done >"$2"
}

# expect RULE WHAT SETUP...: RULE passes on a clean tree and fails once SETUP
# (run in the tree) adds WHAT, printing the breach's file.
expect() {
	local rule=$1 what=$2 file=$3 dir
	shift 3
	dir=$tmp/$rule-$checked
	checked=$((checked + 1))
	new_tree "$dir"
	if ! (cd "$dir" && "scripts/$rule" >"$tmp/out" 2>&1); then
		echo "$rule fails on a clean tree:"
		sed 's/^/    /' "$tmp/out"
		status=1
		return
	fi
	(cd "$dir" && "$@" && git add -A)
	if (cd "$dir" && "scripts/$rule" >"$tmp/out" 2>&1); then
		echo "$rule passes with $what"
		status=1
	elif ! grep -qF "$file" "$tmp/out"; then
		echo "$rule fails with $what, but does not name $file:"
		sed 's/^/    /' "$tmp/out"
		status=1
	fi
}

expect check-names "an exported function without a prefix" common/base/thing.c \
	sh -c 'printf "\nint helper(void)\n{\n\treturn 0;\n}\n" >>common/base/thing.c'
expect check-names "a prefix that is not its file's" common/base/thing.c \
	sh -c 'printf "\nint other__x(void)\n{\n\treturn 0;\n}\n" >>common/base/thing.c'
expect check-sizes "a production file of 801 lines" daemon/base/big.c \
	bash -c "$(declare -f lines); lines 801 daemon/base/big.c"
expect check-sizes "a test of 1,201 lines" tests/unit/test_big.c \
	bash -c "$(declare -f lines); lines 1201 tests/unit/test_big.c"
expect check-sizes "a design.md of 451 lines" docs/design.md \
	bash -c 'seq 451 >docs/design.md'
expect check-sizes "a benchmarks.md of 501 lines" docs/benchmarks.md \
	bash -c 'seq 501 >docs/benchmarks.md'
expect check-no-logging "a printf in common/" common/base/thing.c \
	sed -i 's/return n + 1;/printf("x\\n");\n\treturn n + 1;/' common/base/thing.c
expect check-format "a line clang-format would change" common/base/thing.c \
	sed -i 's/return n + 1;/return n+1 ;/' common/base/thing.c

[ "$status" != 0 ] || echo "rules: $checked breaches, each caught"
exit $status
