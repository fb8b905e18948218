#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# compare_script_report.sh PERF_SCRIPT_OUT TRACE_CMD_OUT
#
# Compares `perf script --ns --show-task-events` output of a perf.data with
# `trace-cmd report -N -t` output of its conversion, event for event: the
# same number of tracepoint events, and for each one the same time (ns),
# CPU, tid, event name and field text. Both are normalised to "time cpu tid
# event fields" and sorted (events at the same ns on two CPUs may come in
# either order). Comms are compared apart: trace-cmd names a pid by its
# last COMM (so a renamed or exec'd task shows its last name throughout)
# and calls pid 0 "<idle>", so a trace-cmd comm must be one perf script
# shows for that tid, on a sample or a PERF_RECORD_COMM line (or "<...>"
# where perf script shows ":tid", a task neither can name). Prints the
# count on success; the first differences and exit 1 otherwise.
set -u
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Read twice below (events, then COMM lines): a pipe (<(perf script ...))
# gives its lines once, so both inputs are copied first.
cat "$1" >"$work/perf.in" && cat "$2" >"$work/tc.in" || exit 1
perf_out=$work/perf.in
tc_out=$work/tc.in

# Both become "time cpu event fields<TAB>tid<TAB>comm", sorted.
# perf script: "  comm  tid [cpu] sec.ns: system:event: fields". A sample
# taken while its task was exiting has tid -1 and comm ":-1"; trace-cmd
# shows the tracepoint's common_pid instead, so -1 matches any tid.
gawk '
	!/ PERF_RECORD_/ && match($0, /^ *(.*[^ ]) +(-?[0-9]+) +\[([0-9]+)\] +([0-9]+\.[0-9]+): +([^ :]+):([^ :]+): *(.*)$/, m) {
		f = m[7]; sub(/ +$/, "", f)
		tid = m[2] == -1 ? "?" : m[2]
		printf "%s %d %s %s\t%s\t%s\n", m[4], m[3], m[6], f, tid, tid == "?" ? "?" : m[1]
	}' "$perf_out" | sort >"$work/perf"
# "... PERF_RECORD_COMM[ exec]: comm:pid/tid": names a tid had.
gawk 'match($0, /PERF_RECORD_COMM( exec)?: (.*):(-?[0-9]+)\/(-?[0-9]+)$/, m) {
	printf "%s\t%s\n", m[4], m[2]
}' "$perf_out" >"$work/comms"
# trace-cmd report -t: "  comm-tid [cpu] sec.ns: event: fields"
gawk '
	match($0, /^ *(.*)-([0-9]+) +\[([0-9]+)\] +([0-9]+\.[0-9]+): +([^ :]+): *(.*)$/, m) {
		f = m[6]; sub(/ +$/, "", f)
		printf "%s %d %s %s\t%s\t%s\n", m[4], m[3], m[5], f, m[2], m[1]
	}' "$tc_out" | sort >"$work/tc"

n_perf=$(wc -l <"$work/perf")
n_tc=$(wc -l <"$work/tc")
if [ "$n_perf" -eq 0 ]; then
	echo "compare: no tracepoint events in $1" >&2
	exit 1
fi
if [ "$n_perf" != "$n_tc" ]; then
	echo "compare: perf script has $n_perf events, trace-cmd report $n_tc" >&2
fi
cut -f1 "$work/perf" >"$work/perf.ev"
cut -f1 "$work/tc" >"$work/tc.ev"
if ! diff -u "$work/perf.ev" "$work/tc.ev" >"$work/diff"; then
	echo "compare: events differ (- perf script, + trace-cmd report):" >&2
	head -n 40 "$work/diff" >&2
	exit 1
fi
[ "$n_perf" = "$n_tc" ] || exit 1

# Line i of both sorted files is the same event now: tids, then comms.
paste "$work/perf" "$work/tc" | gawk -F '\t' -v comms="$work/comms" '
	BEGIN { while ((getline line < comms) > 0) { split(line, c, "\t"); seen[c[1]][c[2]] = 1 } }
	{ ev[NR] = $1; pt[NR] = $2; pc[NR] = $3; t[NR] = $5; tc[NR] = $6; seen[$2][$3] = 1 }
	END {
		bad = 0
		for (i = 1; i <= NR; i++) {
			if (pt[i] != "?" && pt[i] != t[i]) {
				if (bad++ < 20)
					printf "compare: tid %s in trace-cmd, %s in perf script: %s\n", t[i], pt[i], ev[i] > "/dev/stderr"
				continue
			}
			# An unnamed task: ":tid" in perf script, "<...>" in trace-cmd.
			if (pc[i] == tc[i] || pc[i] == "?" || (t[i] == 0 && tc[i] == "<idle>") ||
			    (pc[i] == ":" t[i] && tc[i] == "<...>") || (tc[i] in seen[t[i]]))
				continue
			if (bad++ < 20)
				printf "compare: comm %s in trace-cmd, %s in perf script: %s\n", tc[i], pc[i], ev[i] > "/dev/stderr"
		}
		exit bad != 0
	}' || exit 1
echo "compare: $n_perf events match"
