#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check a timeline of hcbtrace convert -o FILE.json against its recording.

usage: tests/tools/check_timeline.py TIMELINE.json RECORDING.jsonl

The timeline must be what formats/TIMELINE.md says, as Perfetto's and
chrome://tracing's JSON importers need it: one JSON object with a
"traceEvents" list, "displayTimeUnit" "ns" and "otherData"; every event
with name (string), ph, ts (a number), pid and tid (integers); "M" events
naming each process and thread that other events use; instants ("i") with
a scope; counters ("C") with one numeric arg.  Against RECORDING (the JSONL
the timeline was made from, filters applied): one tap event per tap record,
in order, with its name, seq, kwargs, time and values; one counter point
per leaf with a finite value; one drop event per drop record, one barrier
event per barrier record; otherData's counts.  Prints one summary line and
exits 0, or the first problem and exits 1.
"""
import json
import math
import struct
import sys


def fail(msg):
    print("check_timeline: %s" % msg, file=sys.stderr)
    sys.exit(1)


def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def element(dtype, v):
    """A JSONL element as the float hcbtrace computes with."""
    if dtype == "bool":
        return 1.0 if v else 0.0
    if isinstance(v, list):
        v = v[0]                       # complex: the real part
    if isinstance(v, str):
        return float(v)                # "nan", "inf", "-inf"
    if dtype in ("float32", "complex64"):
        return struct.unpack("<f", struct.pack("<f", float(v)))[0]
    if dtype == "float16":
        return struct.unpack("<e", struct.pack("<e", float(v)))[0]
    if dtype == "bfloat16":             # float32's upper half, rounded to nearest even
        if not math.isfinite(float(v)):
            return float(v)
        bits = struct.unpack("<I", struct.pack("<f", float(v)))[0]
        bits = (bits + 0x7fff + ((bits >> 16) & 1)) & 0xffff0000
        return struct.unpack("<f", struct.pack("<I", bits))[0]
    if dtype.startswith("float8"):
        fail("float8 elements: not checked here")
    return float(v)


def device_name(platform, device):
    platform = platform or "cpu"
    i = platform.find("%")
    if i >= 0 and platform[i + 1:i + 2] == "u" and "%" not in platform[i + 2:]:
        return platform[:i] + str(device) + platform[i + 2:]
    return "%s:%d" % (platform, device)


def check_event(i, e):
    where = "event %d (%s)" % (i, json.dumps(e)[:120])
    for k in ("name", "ph", "ts", "pid", "tid"):
        if k not in e:
            fail("%s: no %s" % (where, k))
    if not isinstance(e["name"], str) or not e["name"]:
        fail("%s: name is not a string" % where)
    if not number(e["ts"]) or not math.isfinite(e["ts"]):
        fail("%s: ts is not a number" % where)
    if not isinstance(e["pid"], int) or not isinstance(e["tid"], int) or e["pid"] < 1 or \
            e["pid"] >= 1 << 32 or not 0 <= e["tid"] < 1 << 32:
        fail("%s: pid and tid must be integers of 32 bits, pid > 0" % where)
    if e["ph"] == "M":
        if e["name"] not in ("process_name", "process_sort_index", "thread_name", "thread_sort_index"):
            fail("%s: unknown metadata" % where)
        key = "name" if e["name"].endswith("_name") else "sort_index"
        if key not in e.get("args", {}):
            fail("%s: no args.%s" % (where, key))
    elif e["ph"] == "i":
        if e.get("s") not in ("t", "p", "g"):
            fail("%s: an instant without a scope" % where)
    elif e["ph"] == "C":
        args = e.get("args", {})
        if len(args) != 1 or not all(number(v) for v in args.values()):
            fail("%s: a counter needs one numeric arg" % where)
    else:
        fail("%s: unexpected ph" % where)


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_names(events, platform):
    """The threads (tid: (pid, name)) and each pid's device (its sort
    index: pids are numbered in order of appearance, not by device)."""
    procs, threads, device_of = {}, {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "process_sort_index":
            if e["pid"] in device_of or e["args"]["sort_index"] in device_of.values():
                fail("pid %d, or its device, sorted twice" % e["pid"])
            device_of[e["pid"]] = e["args"]["sort_index"]
        elif e["ph"] == "M" and e["name"] == "thread_name":
            if e["tid"] in threads:
                fail("tid %d named twice" % e["tid"])
            threads[e["tid"]] = (e["pid"], e["args"]["name"])
    if set(threads) & set(procs):
        fail("tids that are pids: %s" % sorted(set(threads) & set(procs))[:5])
    for e in events:
        if e["ph"] == "M" or e.get("s") == "g":
            continue
        if e["pid"] not in procs or e["pid"] not in device_of:
            fail("pid %d has no process_name or sort index" % e["pid"])
        if procs[e["pid"]] != device_name(platform, device_of[e["pid"]]):
            fail("pid %d is named %r" % (e["pid"], procs[e["pid"]]))
        if e.get("s") != "p" and (e["tid"] not in threads or threads[e["tid"]][0] != e["pid"]):
            fail("tid %d of pid %d has no thread_name there" % (e["tid"], e["pid"]))
    return threads, device_of


DEVICE_OF = {}


def check_tap(r, ev, counters, t0, threads):
    name = r["name"] or "consumer %d" % r["consumer"]
    where = "tap %s seq %s" % (name, r["seq"])
    if ev["name"] != name or DEVICE_OF[ev["pid"]] != r["device"] or threads[ev["tid"]][1] != name:
        fail("%s: event %s on pid %d" % (where, ev["name"], ev["pid"]))
    a = ev["args"]
    if a["seq"] != r["seq"] or a["consumer"] != r["consumer"] or a["kwargs"] != r.get("kwargs", {}) \
            or a["tree"] != r["tree"]:
        fail("%s: args %s" % (where, json.dumps(a)[:200]))
    if abs(ev["ts"] * 1000 - (r.get("ts_ns", 0) - t0)) > 0.5:
        fail("%s: ts %r for ts_ns %d - t0 %d" % (where, ev["ts"], r.get("ts_ns", 0), t0))
    if len(a["leaves"]) != min(16, len(r["arrays"])) or not isinstance(a["summary"], str):
        fail("%s: %d leaves described" % (where, len(a["leaves"])))
    for leaf, arr in zip(a["leaves"], r["arrays"]):
        vals = [element(arr["dtype"], v) for v in arr["data"]]
        if leaf["dtype"] != arr["dtype"] or leaf["shape"] != arr["shape"]:
            fail("%s: leaf %s" % (where, leaf))
        nums = [v for v in vals if not math.isnan(v)]
        want = vals[0] if len(vals) == 1 else (sum(nums) / len(nums) if nums else float("nan"))
        got = leaf.get("value", leaf.get("mean"))
        got = element(arr["dtype"], got) if len(vals) == 1 else (float(got) if isinstance(got, str) else got)
        if not (got == want or (math.isnan(got) and math.isnan(want)) or
                (math.isfinite(want) and abs(got - want) <= 1e-9 * max(1.0, abs(want)))):
            fail("%s: leaf %r is %r, expected %r" % (where, leaf["path"], got, want))
        if math.isfinite(want):
            suffix = leaf["path"] if leaf["path"][:1] in ("", "[") else "." + leaf["path"]
            c = counters.pop((ev["pid"], ev["tid"], ev["ts"], name + suffix), None)
            if c is None:
                fail("%s: no counter point for leaf %r" % (where, leaf["path"]))
            point = list(c["args"].values())[0]
            if len(vals) == 1:           # the element in its own dtype's digits
                point = element(arr["dtype"], point) if arr["dtype"] != "bool" else point
            if abs(point - want) > 1e-9 * max(1.0, abs(want)):
                fail("%s: counter %s is %r, expected %r" % (where, c["name"], c["args"], want))


def main(tl_path, rec_path):
    with open(tl_path) as f:
        try:
            tl = json.load(f)
        except ValueError as e:
            fail("%s: not JSON: %s" % (tl_path, e))
    if not isinstance(tl, dict) or not isinstance(tl.get("traceEvents"), list):
        fail("no traceEvents list")
    if tl.get("displayTimeUnit") != "ns" or not isinstance(tl.get("otherData"), dict):
        fail("displayTimeUnit or otherData missing")
    events = tl["traceEvents"]
    for i, e in enumerate(events):
        check_event(i, e)
    recs = records(rec_path)
    session = next((r for r in recs if r["type"] == "session"), None)
    taps = [r for r in recs if r["type"] == "tap"]
    drops = [r for r in recs if r["type"] == "drop"]
    barriers = [r for r in recs if r["type"] == "barrier"]
    t0 = session["start_ns"] if session else (taps[0].get("ts_ns", 0) if taps else 0)
    od = tl["otherData"]
    if od["t0_ns"] != t0 or od["taps"] != len(taps) or od["barriers"] != len(barriers) \
            or od["drops"] != sum(d["count"] for d in drops):
        fail("otherData %s" % od)
    global DEVICE_OF
    threads, DEVICE_OF = check_names(events, session.get("platform", "cpu") if session else "cpu")
    tap_ev = [e for e in events if e["ph"] == "i" and e["cat"] == "tap"]
    drop_ev = [e for e in events if e["ph"] == "i" and e["cat"] == "drop"]
    bar_ev = [e for e in events if e["ph"] == "i" and e["cat"] == "barrier"]
    counters = {(e["pid"], e["tid"], e["ts"], e["name"]): e for e in events if e["ph"] == "C"}
    ncounters = len(counters)
    if (len(tap_ev), len(drop_ev), len(bar_ev)) != (len(taps), len(drops), len(barriers)):
        fail("%d tap, %d drop, %d barrier events for %d taps, %d drops, %d barriers" % (
            len(tap_ev), len(drop_ev), len(bar_ev), len(taps), len(drops), len(barriers)))
    for r, ev in zip(taps, tap_ev):
        check_tap(r, ev, counters, t0, threads)
    if counters:
        fail("counter points of no tap: %s" % list(counters)[:3])
    for r, ev in zip(drops, drop_ev):
        if ev["s"] != "p" or DEVICE_OF[ev["pid"]] != r["device"] or \
                ev["args"] != {"count": r["count"], "reason": r.get("reason", "")}:
            fail("drop %s as %s" % (r, ev))
    for r, ev in zip(barriers, bar_ev):
        if ev["s"] != "g" or ev["args"] != {"taps": r["taps"]} or abs(ev["ts"] * 1000 - (r["ts_ns"] - t0)) > 0.5:
            fail("barrier %s as %s" % (r, ev))
    meta = sum(1 for e in events if e["ph"] == "M")
    if len(events) != meta + len(taps) + ncounters + len(drops) + len(barriers):
        fail("%d events, more than metadata, taps, counters, drops and barriers" % len(events))
    print("%d events: %d metadata, %d taps, %d counter points, %d drops, %d barriers: ok" % (
        len(events), meta, len(taps), ncounters, len(drops), len(barriers)))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: check_timeline.py TIMELINE.json RECORDING.jsonl")
    main(sys.argv[1], sys.argv[2])
