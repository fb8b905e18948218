# SPDX-License-Identifier: GPL-2.0-only
# Helpers of the [capture] window tests (sourced after lib.sh).

CTL=${PERFSNAPCTL:?set PERFSNAPCTL}
command -v python3 >/dev/null || prereq_missing "python3"

# write_window_config FILE EVENTS WINDOW MEMORY
write_window_config() {
	mkdir -p "$WORK/out"
	cat >"$1" <<CONF
[capture]
events = $2
window = $3
memory = $4
[snapshot]
directory = $WORK/out
formats = perf.data
[control]
socket = $WORK/control.sock
CONF
}

window_status() { "$CTL" --socket "$WORK/control.sock" status; }

# ring_kib PID: KiB of the perf rings PID maps (every anon_inode:[perf_event] mapping).
ring_kib() {
	gawk '/anon_inode:\[perf_event\]/ { on = 1; next }
	      /^[0-9a-f]+-[0-9a-f]+ / { on = 0 }
	      on && /^Size:/ { kib += $2 }
	      END { print kib + 0 }' "/proc/$1/smaps"
}

# ring_maps PID: how many perf rings PID maps.
ring_maps() { grep -c 'anon_inode:\[perf_event\]' "/proc/$1/smaps"; }

# file_reach PERF_DATA: "CPU REACH_NS" per CPU, from the records perf script
# reads back: the newest record of the file less each CPU's oldest.
file_reach() {
	perf script -i "$1" -F cpu,time --ns 2>"$WORK/reach.err" |
		gawk '{ cpu = $1; gsub(/[\[\]]/, "", cpu); t = $2; sub(/:$/, "", t); split(t, p, ".")
			ns = p[1] * 1000000000 + p[2]
			if (!(cpu in old) || ns < old[cpu]) old[cpu] = ns
			if (ns > newest) newest = ns }
		      END { for (c in old) printf "%d %d\n", c, newest - old[c] }' | sort -n
}

# sidecar_reach JSON [KIND]: "CPU REACH_NS WINDOW_NS SHORT CUT" per CPU with
# a ring of KIND (overwrite: perf's; tracefs: the instance's); CUT: the
# ring with its oldest record had wrapped (older records were
# overwritten), else its history is whole since it opened.
sidecar_reach() {
	python3 - "$1" "${2:-overwrite}" <<'PY'
import json, sys
cpus = {}
for r in json.load(open(sys.argv[1]))["rings"]:
    if r["kind"] != sys.argv[2] or not r["records"]:
        continue
    c = cpus.setdefault(r["cpu"], [r, r])
    if r["first_time"] < c[1]["first_time"]:
        c[1] = r
    if c[0]["reach_ns"] != r["reach_ns"] or c[0].get("short") != r.get("short"):
        sys.exit("cpu%d: rings of one CPU differ in reach" % r["cpu"])
for cpu, (r, oldest) in sorted(cpus.items()):
    print(cpu, r["reach_ns"], r.get("window_ns", 0), str(r.get("short")).lower(),
          str(oldest["older_data_overwritten"]).lower())
PY
}

# check_reaches LABEL SIDE FILE WINDOW_NS: each ring of sidecar_reach's
# SIDE is for the window, not short, and where it had wrapped reaches the
# window, as far back as file_reach's FILE says its records go.
check_reaches() {
	local label=$1 side=$2 file=$3 window_ns=$4 cpu reach window short cut got
	while read -r cpu reach window short cut; do
		[ "$window" = "$window_ns" ] || fail "$label: cpu$cpu window_ns $window"
		[ "$short" = false ] || fail "$label: cpu$cpu said short at $reach ns"
		[ "$cut" = false ] && continue
		[ "$reach" -ge "$window_ns" ] || fail "$label: cpu$cpu's ring reaches $reach ns, under $window_ns"
		got=$(gawk -v c="$cpu" '$1 == c { print $2 }' "$file")
		[ "$got" = "$reach" ] || fail "$label: cpu$cpu's records reach $got ns back, the sidecar says $reach"
	done <"$side"
}
