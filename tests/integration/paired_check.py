#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""paired_check.py SIDECAR START_KEY END_KEY THRESHOLD_NS TP_SHELL|-

A paired trigger's snapshot holds the pair that fired it: the sidecar's
"trigger" names it (duration over the threshold, key, start and end
times), and perf.data (perf script), trace.dat (trace-cmd report) and the
.pftrace (trace processor), where they exist, each hold a start record
and an end record of that key at those times (within TOLERANCE_NS: the
BPF program's clock is read apart from the record's stamp), as far apart
as the duration says."""
import json
import os
import re
import subprocess
import sys

TOLERANCE_NS = 500000

sidecar, start_key, end_key, threshold, tp = sys.argv[1:6]
threshold = int(threshold)
j = json.load(open(sidecar))
t = j["trigger"]
assert t["kind"] == "paired", t
assert t["duration_ns"] >= threshold, t
assert t["end_time"] - t["start_time"] == t["duration_ns"], t
assert t["pairs"] >= 1 and t["max_ns"] >= t["duration_ns"], t
assert sum(b["count"] for b in t["histogram_usecs"]) == t["pairs"], t
key = t["key"]
stem = sidecar[: -len(".json")]
sides = [(t["start_event"], start_key, t["start_time"]), (t["event"], end_key, t["end_time"])]


def nearest(records, name, field, want):
    """records: (time_ns, tid, event short name, text)."""
    best = None
    short = name.split(":")[1]
    for ts, tid, ev, text in records:
        if ev != short:
            continue
        if field == "common_pid":
            if tid != key:
                continue
        elif not re.search(r"\b%s=%d\b" % (re.escape(field), key), text):
            continue
        if best is None or abs(ts - want) < abs(best - want):
            best = ts
    return best


def check(fmt, records):
    found = []
    for name, field, want in sides:
        ts = nearest(records, name, field, want)
        assert ts is not None, "%s: no %s with %s=%d in %s" % (fmt, name, field, key, stem)
        assert abs(ts - want) <= TOLERANCE_NS, "%s: %s of key %d at %d, sidecar says %d" % (
            fmt, name, key, ts, want)
        found.append(ts)
    assert abs((found[1] - found[0]) - t["duration_ns"]) <= TOLERANCE_NS, (fmt, found, t)


def secs_to_ns(s):
    whole, frac = s.split(".")
    return int(whole) * 1000000000 + int(frac.ljust(9, "0")[:9])


out = subprocess.run(["perf", "script", "-i", stem + ".perf.data", "--ns", "-F",
                      "tid,time,event,trace"], capture_output=True, text=True, check=True)
recs = []
for line in out.stdout.splitlines():
    m = re.match(r"\s*(\d+)\s+(\d+\.\d+):\s+(\S+):(\S+):\s*(.*)", line)
    if m:
        recs.append((secs_to_ns(m.group(2)), int(m.group(1)), m.group(4), m.group(5)))
check("perf.data", recs)

if os.path.exists(stem + ".trace.dat"):
    out = subprocess.run(["trace-cmd", "report", "-R", "-t", stem + ".trace.dat"],
                         capture_output=True, text=True, check=True)
    assert not out.stderr.strip(), out.stderr
    recs = []
    for line in out.stdout.splitlines():
        m = re.match(r"\s*.*-(\d+)\s+\[\d+\]\s+(\d+\.\d+):\s+(\w+):\s*(.*)", line)
        if m:
            recs.append((secs_to_ns(m.group(2)), int(m.group(1)), m.group(3), m.group(4)))
    check("trace.dat", recs)

if tp != "-" and os.path.exists(stem + ".pftrace"):
    sql = stem + ".sql"
    found = []
    for name, field, want in sides:
        short = name.split(":")[1]
        if field == "common_pid":
            cond = "utid in (select utid from thread where tid = %d)" % key
        else:
            cond = "extract_arg(arg_set_id, '%s') = %d" % (field, key)
        with open(sql, "w") as f:
            f.write("select ts from ftrace_event where name = '%s' and %s "
                    "order by abs(ts - %d) limit 1;\n" % (short, cond, want))
        out = subprocess.run([tp, "-q", sql, stem + ".pftrace"], capture_output=True,
                             text=True, check=True)
        rows = [r.strip('"') for r in out.stdout.splitlines()[1:] if r.strip()]
        assert rows, "pftrace: no %s with %s=%d" % (name, field, key)
        ts = int(rows[0])
        assert abs(ts - want) <= TOLERANCE_NS, ("pftrace", name, ts, want)
        found.append(ts)
    assert abs((found[1] - found[0]) - t["duration_ns"]) <= TOLERANCE_NS, ("pftrace", found, t)
    os.unlink(sql)
print("ok %s %s key %d %d ns" % (os.path.basename(stem), t["name"], key, t["duration_ns"]))
