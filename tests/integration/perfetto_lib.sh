# SPDX-License-Identifier: GPL-2.0-only
# Helpers for the tests of Perfetto output (sourced after lib.sh): decoding
# with protoc against Perfetto's own schema (common/perfetto/schema), and
# counting what the decoded text holds.
PROTO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../common/perfetto/schema" && pwd)"
command -v protoc >/dev/null || prereq_missing "protoc (protobuf-compiler)"

# pftrace_decode FILE OUT: FILE (plain, gzip or zstd) as protoc's text format.
pftrace_decode() {
	local raw=$1
	case "$(head -c 4 "$1" | od -An -tx1 | tr -d ' ')" in
	1f8b*) gzip -dc "$1" >"$2.raw" || fail "gzip -d $1"; raw=$2.raw ;;
	28b52ffd) zstd -q -dc "$1" >"$2.raw" || fail "zstd -d $1"; raw=$2.raw ;;
	esac
	protoc --proto_path="$PROTO_DIR" --decode=perfetto.protos.Trace perfetto_trace.proto \
		<"$raw" >"$2" 2>"$2.err" || { head -5 "$2.err" >&2; fail "protoc cannot decode $1"; }
	[ -s "$2.err" ] && { head -5 "$2.err" >&2; fail "protoc warned about $1"; }
	# A field the schema does not know is printed by number: a writer bug.
	grep -qE '^ *[0-9]+ (\{|:)' "$2" && fail "$1 has fields unknown to perfetto_trace.proto"
	return 0
}

# pftrace_count DECODED TYPE: events of tracepoint TYPE ("sched:sched_switch")
# in the decoded trace: compact rows, typed messages (an event's message,
# "irq_handler_entry {", in packet > ftrace_events > event) or generic
# events (event_name), whichever the writer chose.
pftrace_count() {
	local name=${2#*:} compact=0
	case "$name" in
	sched_switch) compact=$(grep -c '^ *switch_timestamp:' "$1") ;;
	sched_waking) compact=$(grep -c '^ *waking_timestamp:' "$1") ;;
	esac
	echo $((compact + $(grep -cE "^      $name \{|^ *event_name: \"$name\"" "$1")))
}

# pftrace_samples DECODED [KIND]: the samples of DECODED, as PerfSamples
# (KIND perf_sample, the default: the loss marks, kernel_records_lost, not
# counted) or StackSamples (stack_sample).
pftrace_samples() {
	case "${2:-perf_sample}" in
	perf_sample) echo $(($(grep -c '^  perf_sample {' "$1") - $(grep -c '^    kernel_records_lost:' "$1"))) ;;
	stack_sample) grep -c '^  stack_sample {' "$1" ;;
	*) fail "pftrace_samples: no kind '$2'" ;;
	esac
}

# pftrace_same_counts DATA DECODED [KIND]: every tracepoint type perf script
# shows in DATA has as many events in DECODED, and the samples as many
# samples of KIND (pftrace_samples); so do the tracepoints recorded with
# their callchains (sample_type CALLCHAIN in perf evlist -v), whose stacks
# are samples too.
pftrace_same_counts() {
	local type n got samples
	perf script -i "$1" -F event 2>/dev/null | sed 's/^ *//; s/: *$//' | sort | uniq -c >"$WORK/counts.txt"
	[ -s "$WORK/counts.txt" ] || fail "perf script shows nothing in $1"
	perf evlist -v -i "$1" 2>/dev/null |
		sed -n 's/^\([^ :]*:[^ :]*\): type: 2,.*sample_type: [A-Z|]*CALLCHAIN.*/\1/p' >"$WORK/stacked.txt"
	samples=0
	while read -r n type; do
		case "$type" in
		*:*) got=$(pftrace_count "$2" "$type")
		     [ "$got" = "$n" ] || fail "$type: perf script shows $n, the trace has $got"
		     note "$type: $n events"
		     if grep -qxF "$type" "$WORK/stacked.txt"; then
			     samples=$((samples + n))
			     note "$type: $n callstacks"
		     fi ;;
		*) samples=$((samples + n)) ;;
		esac
	done <"$WORK/counts.txt"
	got=$(pftrace_samples "$2" "${3:-perf_sample}")
	[ "$got" = "$samples" ] || fail "perf script shows $samples samples and stacked tracepoints, the trace $got ${3:-perf_sample}s"
	note "samples: $samples"
}

# pftrace_thread_named DECODED NAME: a ProcessTree thread carries NAME; prints its tid.
pftrace_thread_named() {
	awk -v want="$2" '
		/^    threads {/ { t = 1; tid = ""; next }
		t && /^      tid:/ { tid = $2 }
		t && /^      name:/ { n = $0; sub(/^ *name: "/, "", n); sub(/"$/, "", n); if (n == want) { print tid; exit } }
		/^    }/ { t = 0 }' "$1"
}

# pftrace_thread_is DECODED TID NAME: a ProcessTree thread TID carries NAME
# (tests beside this one may run programs of the same name: by tid, not name).
pftrace_thread_is() {
	awk -v want="$2" -v name="$3" '
		/^    threads {/ { t = 1; tid = ""; n = ""; next }
		t && /^      tid:/ { tid = $2 }
		t && /^      name:/ { n = $0; sub(/^ *name: "/, "", n); sub(/"$/, "", n) }
		t && /^    }/ { if (tid == want && n == name) found = 1; t = 0 }
		END { exit !found }' "$1"
}

# pftrace_in_callstack DECODED FUNCTION [STREAM]: FUNCTION is the name of a
# frame that an interned callstack holds (iids are per sequence; one sequence
# suffices), in the StackSamples of STREAM (the event's name) if given.
pftrace_in_callstack() {
	awk -v want="$2" -v stream="${3:-}" '
		/^  trusted_packet_sequence_id:/ { seq = $2 }
		/^        name:/ { n = $0; sub(/^ *name: "/, "", n); sub(/"$/, "", n); if (n == stream) mine[seq] = 1 }
		/^  [a-z_]+ {/ && stream != "" && !(seq in mine) { sect = ""; skip = 1; next }
		/^  [a-z_]+ {/ { skip = 0 }
		skip { next }
		/^    function_names {/ { sect = "fn"; iid = ""; next }
		/^    frames {/ { sect = "fr"; iid = ""; fname = ""; next }
		/^    callstacks {/ { sect = "cs"; next }
		/^    [a-z_]+ {/ { sect = ""; next }
		sect == "fn" && /^      iid:/ { iid = $2 }
		sect == "fn" && /^      str:/ { s = $0; sub(/^ *str: "/, "", s); sub(/"$/, "", s); if (s == want) fn[iid] = 1 }
		sect == "fr" && /^      iid:/ { iid = $2 }
		sect == "fr" && /^      function_name_id:/ { if ($2 in fn) fr[iid] = 1 }
		sect == "cs" && /^      frame_ids:/ { if ($2 in fr) { found = 1; exit } }
		END { exit !found }' "$1"
}

# Perfetto's own trace processor (built from google/perfetto's source, see
# ../shared/tools/trace_processor_shell.BUILD-NOTES.txt): TRACE_PROCESSOR,
# or beside the project's checkout.
find_trace_processor() {
	local c
	for c in "${TRACE_PROCESSOR:-}" "${SOURCE_DIR:?}/../shared/tools/trace_processor_shell" \
		/work/shared/tools/trace_processor_shell; do
		[ -n "$c" ] && [ -x "$c" ] && { TP_SHELL=$c; return 0; }
	done
	prereq_missing "trace_processor_shell (set TRACE_PROCESSOR, or ../shared/tools)"
}

# tp_query FILE SQL: the query's rows as CSV, without the header; fails if
# the trace does not load.
tp_query() {
	printf '%s\n' "$2" >"$WORK/tp.sql"
	"$TP_SHELL" -q "$WORK/tp.sql" "$1" >"$WORK/tp.out" 2>"$WORK/tp.err" ||
		{ cat "$WORK/tp.err" >&2; fail "trace_processor cannot load $1"; }
	tail -n +2 "$WORK/tp.out" | tr -d '"'
}

# tp_no_errors FILE: no stat of severity error, nor data_loss unless the
# test causes real loss (PFTRACE_LOSS_OK=1, as pftrace_load_all).
tp_no_errors() {
	local bad severities="'error', 'data_loss'"
	[ "${PFTRACE_LOSS_OK:-}" = 1 ] && severities="'error'"
	bad=$(tp_query "$1" "select name || '[' || ifnull(idx, '') || ']=' || value from stats where value > 0 and severity in ($severities)")
	[ -z "$bad" ] || fail "trace_processor reports for $1: $bad"
}
