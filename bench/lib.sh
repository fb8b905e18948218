# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# What the bench/ scripts share; every one of them sources it,
#   . "$top/bench/lib.sh"   (after setting top, the tree's top)
# - ending what they started and removing what they wrote, however they
#   end;
# - building perfsnapd and the helper programs (bench/CMakeLists.txt);
# - putting their results into docs/benchmarks.md (their --update-docs
#   option). Each script owns one or two pairs of marker lines there,
#     <!-- TAG: begin -->
#     <!-- TAG: end -->
#   and replaces what lies between them, so the document's results are
#   always a script's output and never edited by hand.
: "${top:?set top (the top of the tree) before sourcing bench/lib.sh}"

# Cleanup. What a script starts, it registers here, and when the script
# ends (done, failed under set -e, Ctrl-C or killed: INT and TERM end it
# through exit) the EXIT trap set here ends those processes, then runs
# those commands, then removes those paths:
#   bench_cleanup_pid PID...    processes to end (-PGID: a process group):
#                               SIGTERM (and SIGCONT, if one is stopped),
#                               then waited for;
#   bench_cleanup_cmd CMD       a command, e.g. one removing a tracefs
#                               instance (eval'd at the end, so its
#                               variables are read then);
#   bench_cleanup_path PATH...  removed, unless KEEP=1 (it says what it
#                               kept).
# bench_stop [-SIG] PID... ends processes before that: SIG (TERM) and
# SIGCONT to each, waits for each and forgets it; bench_forget PID...
# forgets processes the script has waited for itself, so that the end
# does not signal another process that got the same number.
bench_pids=() bench_cmds=() bench_paths=()
bench_shell=$BASHPID
bench_cleanup_pid() { bench_pids+=("$@"); }
bench_cleanup_cmd() { bench_cmds+=("$1"); }
bench_cleanup_path() { bench_paths+=("$@"); }
bench_forget() {
	local p q keep=()
	for p in "${bench_pids[@]}"; do
		for q; do [ "$p" != "$q" ] || continue 2; done
		keep+=("$p")
	done
	bench_pids=("${keep[@]}")
}

# bench_reap PID: returns once PID (or the process group -PGID) has ended.
# A child of this shell still running 30 s after its signal gets SIGKILL;
# any other process (one a subshell started, the rest of a group) is
# given 5 s.
bench_reap() {
	local p=${1#-} i st='' ppid=''
	for ((i = 0; i < 600; i++)); do
		# State and parent; an exited child stays a zombie (Z) until waited for.
		read -r st ppid <<<"$(sed -n 's/^[0-9]* (.*) \([A-Za-z]\) \([0-9]*\) .*/\1 \2/p' \
			"/proc/$p/stat" 2>/dev/null)"
		if [ -z "$st" ] || [ "$st" = Z ]; then break; fi
		[ "$ppid" = "$BASHPID" ] || [ "$i" -lt 100 ] || break
		sleep 0.05
	done
	if [ -n "$st" ] && [ "$st" != Z ] && [ "$ppid" = "$BASHPID" ]; then
		echo "${0##*/}: process $p still runs 30 s after its signal: SIGKILL" >&2
		kill -KILL "$p" 2>/dev/null || true
	fi
	[ "$ppid" != "$BASHPID" ] || wait "$p" 2>/dev/null || true
	if [ "$1" != "$p" ]; then
		for ((i = 0; i < 100; i++)); do
			kill -0 -- "$1" 2>/dev/null || break
			sleep 0.05
		done
	fi
}

bench_stop() {
	local sig=TERM p
	case ${1:-} in -[A-Z]*)
		sig=${1#-}
		shift
		;;
	esac
	for p; do
		kill -"$sig" -- "$p" 2>/dev/null || true
		kill -CONT -- "$p" 2>/dev/null || true
	done
	for p; do bench_reap "$p"; done
	bench_forget "$@"
}

bench_cleanup() {
	local p c
	# Not in a child killed between its fork and its exec: still this
	# shell, with this trap, but what it would end is not its own.
	[ "$BASHPID" = "$bench_shell" ] || return 0
	for p in "${bench_pids[@]}"; do
		kill -TERM -- "$p" 2>/dev/null || true
		kill -CONT -- "$p" 2>/dev/null || true
	done
	for p in "${bench_pids[@]}"; do bench_reap "$p"; done
	for c in "${bench_cmds[@]}"; do eval "$c" || true; done
	if [ "${KEEP:-}" = 1 ]; then
		for p in "${bench_paths[@]}"; do echo "kept $p" >&2; done
	else
		rm -rf -- "${bench_paths[@]}"
	fi
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# cpu_ticks PID: the process's CPU time, utime + stime, in clock ticks
# (getconf CLK_TCK a second).
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# The interleaving of what a script compares (recorders, builds,
# settings): rounds, each running every one of them in turn, so that a
# drift of the machine's speed falls on all of them alike.
# bench_interleave ROUNDS FN ITEM...: runs "FN ITEM ROUND" for each ITEM,
# in the order given, in each of ROUNDS rounds (numbered from 1).
bench_interleave() {
	local rounds=$1 fn=$2 round item
	shift 2
	for ((round = 1; round <= rounds; round++)); do
		for item; do "$fn" "$item" "$round"; done
	done
}

# bench_turn ROUND ITEM...: the ITEMs in the order of round ROUND when each
# round starts one further along (round R with ITEM number R mod N, from
# 0), so that none always runs first; one a line.
bench_turn() {
	local round=$1 i j
	shift
	for ((i = 0; i < $#; i++)); do
		j=$(((i + round) % $# + 1))
		echo "${!j}"
	done
}

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

# bench_shipped_events [CONF]: the events of CONF (conf/perfsnapd.conf),
# on one line.
bench_shipped_events() {
	awk '/^events *=/ { on = 1; sub(/^events *=/, ""); print; next }
		on && /^[ \t]/ { print; next } { on = 0 }' "${1:-$top/conf/perfsnapd.conf}" | xargs
}

# bench_tracepoints EVENTS: the tracepoints among EVENTS (terms dropped),
# globs expanded against tracefs's available_events, each once, one a
# line: set_event takes no glob within a name (syscalls:sys_*_fsync).
bench_tracepoints() {
	local ev name avail
	local -A seen=()
	for ev in $1; do
		name=${ev%%/*}
		[[ $name == *:* ]] || continue
		while read -r avail; do
			# shellcheck disable=SC2053 # name is a glob
			[[ $avail == $name && -z ${seen[$avail]:-} ]] || continue
			seen[$avail]=1
			echo "$avail"
		done </sys/kernel/tracing/available_events
	done
}

# bench_conf_events EVENTS: the events = line of a configuration, four
# events a line, the rest indented by spaces (a line holds at most 197
# characters; <<- here-documents strip tabs).
bench_conf_events() {
	echo "events = $(xargs -n 4 <<<"$1" | sed '2,$s/^/  /')"
}

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

# The tree a run measured: its commit, "-dirty" with uncommitted changes
# other than the results this run or an earlier block of it wrote.
bench_rev() {
	local rev
	rev=$(git -C "$top" rev-parse --short=7 HEAD 2>/dev/null) || { echo unknown; return; }
	git -C "$top" status --porcelain -- . ':!docs/benchmarks.md' ':!docs/recording-cost.md' 2>/dev/null | grep -q . &&
		rev=$rev-dirty
	echo "$rev"
}

# bench_tee FILE [ALL] ... bench_tee_end: what the script prints in
# between goes to FILE too (the script's results, for --update-docs),
# except the lines it prints through bench_raw; ALL gets every line.
# bench_raw [LINE...]: LINEs, or the lines of stdin, as a run's raw rows
# (per dump, per pair, per run; the commands it ran): its working data,
# printed (and in ALL) but not in FILE, so not in the document, which
# holds the run's header and summary. Outside bench_tee, just printed.
bench_raw_mark=$'\036' # starts a raw row on its way to bench_tee's awk
bench_tee_pid=
bench_tee() {
	exec 3>&1 > >(awk -v doc="$1" -v all="${2:-/dev/null}" -v mark="$bench_raw_mark" '
		BEGIN { printf "" >doc; printf "" >all }
		{ raw = substr($0, 1, 1) == mark }
		raw { $0 = substr($0, 2) }
		{ print; fflush(); print >all; fflush(all) }
		!raw { print >doc; fflush(doc) }')
	bench_tee_pid=$!
}
bench_tee_end() {
	exec >&3 3>&-
	wait "$bench_tee_pid" # awk has written the whole files
	bench_tee_pid=
}
bench_raw() {
	local m='' l
	[ -z "$bench_tee_pid" ] || m=$bench_raw_mark
	if [ $# -eq 0 ]; then
		sed "s/^/$m/"
	else
		for l; do printf '%s%s\n' "$m" "$l"; done
	fi
}

# bench_raw_note WHAT FILE: the line of a results block that says where
# the run's raw rows (WHAT) are: in its output, kept in FILE in its work
# directory (bench_tee's ALL), which is removed at the end unless KEEP=1.
bench_raw_note() {
	local kept=' (removed at its end; KEEP=1 keeps it)'
	[ "${KEEP:-}" != 1 ] || kept=
	printf "%s: in the run's output, kept in %s%s.\n" "$1" "$2" "$kept"
}

# bench_fence CMD FILE: FILE (a script's plain-text output) as a Markdown
# block, under a line saying when, on which tree and by which command.
bench_fence() {
	printf 'Run on %s UTC at %s: `%s`\n\n```\n' "$(date -u '+%Y-%m-%d %H:%M')" "$(bench_rev)" "$1"
	cat "$2"
	printf '```\n'
}

# bench_update_docs TAG FILE [WHAT OUTPUT]: the lines between TAG's markers
# become FILE, and with WHAT and OUTPUT, after a blank line, the line
# that says the raw rows (WHAT) are in OUTPUT (bench_raw_note).
bench_update_docs() {
	local tag=$1 file=$2 doc new block=
	doc=$(bench_doc)
	if ! grep -qx "<!-- $tag: begin -->" "$doc" || ! grep -qx "<!-- $tag: end -->" "$doc"; then
		echo "$0: $doc has no '<!-- $tag: begin -->' and '<!-- $tag: end -->' lines" >&2
		return 1
	fi
	if [ $# -ge 4 ]; then
		block=$(mktemp)
		{ cat "$file"; echo; bench_raw_note "$3" "$4"; } >"$block"
		file=$block
	fi
	new=$(mktemp)
	awk -v f="$file" -v tag="$tag" '
		$0 == "<!-- " tag ": end -->" { skip = 0 }
		!skip { print }
		$0 == "<!-- " tag ": begin -->" { while ((getline l < f) > 0) print l; skip = 1 }' \
		"$doc" >"$new"
	# cat, not mv: the document keeps its owner and mode.
	cat "$new" >"$doc"
	rm -f "$new" ${block:+"$block"}
	echo "== updated $doc ($tag)" >&2
}

# bench_update_docs_fenced TAG CMD FILE [WHAT OUTPUT]: FILE, plain text that
# CMD printed, fenced (bench_fence) between TAG's markers; WHAT and OUTPUT
# as for bench_update_docs.
bench_update_docs_fenced() {
	local md rc=0
	md=$(mktemp)
	bench_fence "$2" "$3" >"$md"
	bench_update_docs "$1" "$md" "${@:4}" || rc=$?
	rm -f "$md"
	return "$rc"
}
