#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# timeline.bats - `hcbtrace convert REC -o FILE.json`: a timeline in the
# Chrome Trace Event format (formats/TIMELINE.md) for Perfetto and
# chrome://tracing, checked by tests/tools/check_timeline.py against its
# format's required fields and against the recording it came from: real
# recordings (JSONL and .hcbcap), every dtype with drops, barriers, filters,
# an empty one; streamed (memory flat); a .json recording still read.

load common

setup()
{
    _common_setup
    CHECK=$ROOT/tests/tools/check_timeline.py
    BASIC=$ROOT/tests/golden/replay/basic/in.jsonl   # every dtype, drops, end
}
teardown() { _common_teardown; }

@test "timeline: a real recording, its fields and counts" {
    "$HCBTRACE" record -q -o "$T/r.jsonl" -- "$EXAMPLE" --steps 5 --interval-ms 0 --field-size 10000
    run --separate-stderr "$HCBTRACE" convert "$T/r.jsonl" -o "$T/r.json"
    assert_success
    assert_equal "$stderr" ""
    [ "$(stat -c %a "$T/r.json")" = 600 ]
    run python3 "$CHECK" "$T/r.json" "$T/r.jsonl"
    echo "$output"
    assert_success
    # 4 devices x 5 steps x 5 consumers; a process per device, a thread per consumer on each
    assert_output --regexp '^[0-9]+ events: 48 metadata, 100 taps, [0-9]+ counter points, 0 drops, 0 barriers: ok$'
    python3 - "$T/r.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
ev = o["traceEvents"]
procs = sorted(e["args"]["name"] for e in ev if e["name"] == "process_name")
assert procs == ["cpu:0", "cpu:1", "cpu:2", "cpu:3"], procs
threads = {e["args"]["name"] for e in ev if e["name"] == "thread_name"}
assert threads == {"loss", "power3", "params", "status", "field"}, threads
counters = {e["name"] for e in ev if e["ph"] == "C"}
assert {"loss", "power3[0]", "power3[1]", "params.b", "params.w", "field"} <= counters, counters
# arrays count by their mean, scalars by their value
assert all("mean" in e["args"] for e in ev if e["ph"] == "C" and e["name"] in ("params.w", "field"))
assert all("value" in e["args"] for e in ev if e["ph"] == "C" and e["name"] == "loss")
tap = next(e for e in ev if e["ph"] == "i" and e["name"] == "params")
assert tap["args"]["kwargs"] == {"what": "params"} and tap["args"]["summary"].startswith("b="), tap
assert o["otherData"]["provider"] == "hcbtap" and o["otherData"]["taps"] == 100
EOF
}

@test "timeline: from .hcbcap, and with filters" {
    "$HCBTRACE" record -q -o "$T/r.hcbcap" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0 --field-size 300
    "$HCBTRACE" convert "$T/r.hcbcap" -o "$T/r.jsonl"
    run --separate-stderr "$HCBTRACE" convert "$T/r.hcbcap" -o "$T/r.json"
    assert_success
    run python3 "$CHECK" "$T/r.json" "$T/r.jsonl"
    assert_success
    # only device 1's loss: what convert would write as JSONL, as a timeline
    "$HCBTRACE" convert "$T/r.hcbcap" --device 1 --consumer loss -o "$T/f.jsonl"
    "$HCBTRACE" convert "$T/r.hcbcap" --device 1 --consumer loss -o "$T/f.perfetto.json"
    run python3 "$CHECK" "$T/f.perfetto.json" "$T/f.jsonl"
    assert_success
    assert_output --regexp '^[0-9]+ events: 4 metadata, 3 taps, 3 counter points, 0 drops, 0 barriers: ok$'
    python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
# one process, the first met: device 1, its sort index
sort = {e["pid"]: e["args"]["sort_index"] for e in ev if e["name"] == "process_sort_index"}
assert sort == {1: 1} and {e["pid"] for e in ev} == {1}, ev
' "$T/f.perfetto.json"
}

@test "timeline: every dtype, drops, barriers, a file without session" {
    run --separate-stderr "$HCBTRACE" convert "$BASIC" -o "$T/b.json"
    assert_success
    run python3 "$CHECK" "$T/b.json" "$BASIC"
    echo "$output"
    assert_success
    assert_output --regexp ' 13 taps, [0-9]+ counter points, 1 drops, 0 barriers: ok$'
    # barriers (global instants), a drop before any tap, no session: t0 is the first tap's time
    cat >"$T/bar.jsonl" <<'EOF'
{"type":"drop","device":3,"count":2,"reason":"ring buffer full"}
{"type":"tap","device":3,"seq":2,"consumer":5,"name":"a \"quoted\" name","kwargs":{"k":"v\"w"},"tree":"( * * )","ts_ns":5000,"arrays":[{"dtype":"float32","shape":[],"data":["nan"]},{"dtype":"int8","shape":[2],"data":[1,2]}]}
{"type":"barrier","ts_ns":6500,"taps":1}
{"type":"tap","device":0,"seq":0,"consumer":6,"name":"b","kwargs":{},"tree":"*","ts_ns":4000,"arrays":[{"dtype":"float64","shape":[3],"data":["nan","nan","nan"]}]}
{"type":"barrier","ts_ns":7000,"taps":2}
EOF
    run --separate-stderr "$HCBTRACE" convert "$T/bar.jsonl" -o "$T/bar.json"
    assert_success
    run python3 "$CHECK" "$T/bar.json" "$T/bar.jsonl"
    echo "$output"
    assert_success
    assert_output --regexp ' 2 taps, 1 counter points, 1 drops, 2 barriers: ok$'
    python3 - "$T/bar.json" <<'EOF'
import json, sys
o = json.load(open(sys.argv[1]))
ev = [e for e in o["traceEvents"] if e["ph"] != "M"]
assert [(e["name"], e["ts"]) for e in ev] == [("drop", 0), ("a \"quoted\" name", 0), ("a \"quoted\" name[1]", 0),
                                              ("barrier", 1.5), ("b", -1), ("barrier", 2)], ev
assert ev[1]["args"]["summary"] == "[0]=nan [1]=int8[2] mean 1.5", ev[1]["args"]
assert ev[1]["args"]["kwargs"] == {"k": "v\"w"}
assert ev[4]["args"]["leaves"][0]["mean"] == "nan" and ev[4]["args"]["leaves"][0]["nan"] == 3
assert o["otherData"]["t0_ns"] == 5000 and "provider" not in o["otherData"]
EOF
    # nothing but a session and its end: still a timeline
    head -1 "$BASIC" >"$T/empty.jsonl"
    tail -1 "$BASIC" >>"$T/empty.jsonl"
    "$HCBTRACE" convert "$T/empty.jsonl" -o "$T/empty.json"
    run python3 "$CHECK" "$T/empty.json" "$T/empty.jsonl"
    assert_success
    assert_output "0 events: 0 metadata, 0 taps, 0 counter points, 0 drops, 0 barriers: ok"
}

@test "timeline: streamed, memory flat on a large recording" {
    python3 - "$T/big.jsonl" <<'EOF'
import sys
row = ",".join("%r" % ((i % 1000) / 64.0) for i in range(4096))
with open(sys.argv[1], "w") as f:
    f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":0}\n')
    for t in range(1500):
        f.write('{"type":"tap","device":%d,"seq":%d,"consumer":7,"name":"act","kwargs":{},"tree":"*",'
                '"ts_ns":%d,"arrays":[{"dtype":"float32","shape":[64,64],"data":[%s]}]}\n' % (t % 4, t // 4, t, row))
EOF
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    run --separate-stderr /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" convert "$T/big.jsonl" -o "$T/big.json"
    assert_success
    echo "# $(cat "$T/rss")" >&3
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 32768 ]
    run python3 "$CHECK" "$T/big.json" "$T/big.jsonl"
    assert_success
}

@test "timeline: write only; a .json that holds a recording still reads as one" {
    cp "$BASIC" "$T/rec.json"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/rec.json"
    assert_success
    [ "$(grep -c '^device: ' <<<"$output")" -eq 13 ]
    run --separate-stderr "$HCBTRACE" diff --equal-nan "$T/rec.json" "$BASIC"
    assert_success
    # a timeline is no recording: refused in one message
    "$HCBTRACE" convert "$BASIC" -o "$T/t.json"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/t.json"
    assert_failure 1
    [[ $stderr == "hcbtrace: $T/t.json:"* ]] || fail "$stderr"
    # record keeps to recordings
    run --separate-stderr "$HCBTRACE" record -o "$T/x.json" -- "$EXAMPLE" --steps 1
    assert_failure 2
    run --separate-stderr "$HCBTRACE" convert "$BASIC" -o "$T/x.csv"
    assert_failure 2
    [[ $stderr == *"name the output .jsonl, .hcbcap, .npz, .json (timeline) or .parquet"* ]]
}
