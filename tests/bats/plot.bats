#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# plot.bats - `hcbtrace diff --plot FILE.svg` (the picture of a drift): on
# every golden diff case the file is written exactly when the recordings
# differ, parses as self-contained SVG whose lines agree with their data
# (tests/tools/svg_summary.py), titles name the streams the text report
# names; known values at known indices, on a drift of the examples/ci job
# and on generated recordings (downsampling, heatmaps, escaping, --plot-stat);
# exit codes unchanged; memory still flat.

load common

setup()
{
    _common_setup
    CASES=$ROOT/tests/data/diff/cases
    SUMMARY=$ROOT/tests/tools/svg_summary.py
    GOLDEN=$ROOT/examples/ci/golden.jsonl
}
teardown() { _common_teardown; }

# summary FILE.svg: what the picture shows, as JSON in $T/sum.json (the
# checks of svg_summary.py pass, or the test fails)
summary()
{
    python3 "$SUMMARY" "$1" >"$T/sum.json"
}

# py CODE: run CODE with s = the last summary loaded
py()
{
    python3 -c "import json, struct, sys
s = json.load(open('$T/sum.json'))
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
$1"
}

@test "plot: every golden case: a file exactly when they differ, valid and naming what differs" {
    local d name n=0 args
    for d in "$CASES"/*/; do
        d=${d%/}
        name=${d##*/}
        read -r -a args <"$d/args" || true
        rm -f "$T/p.svg"
        run --separate-stderr "$HCBTRACE" diff "${args[@]}" --plot "$T/p.svg" "$d/ref.jsonl" "$d/new.jsonl"
        # the exit status is the one without --plot
        [ "$status" = "$(cat "$d/status")" ] || fail "case $name: exit $status, expected $(cat "$d/status"): $stderr"
        if [ "$status" != 1 ]; then
            [ ! -e "$T/p.svg" ] || fail "case $name: exit $status, yet a plot was written"
            continue
        fi
        [ -f "$T/p.svg" ] || fail "case $name: differs, but no plot"
        [ "$(stat -c %a "$T/p.svg")" = 600 ] || fail "case $name: mode $(stat -c %a "$T/p.svg")"
        summary "$T/p.svg" || fail "case $name: $(cat "$T/sum.json")"
        # every stream the text report names has a chart titled with it
        "$HCBTRACE" diff "${args[@]}" "$d/ref.jsonl" "$d/new.jsonl" >"$T/report" || true
        py "
import re
titles = [c['title'] for c in s['charts']]
streams = set()
for line in open('$T/report'):
    m = re.match(r'(?:tap|missing|extra) (\S+ .+?) #\d+', line)
    if m:
        streams.add(m.group(1))
for st in streams:
    assert any(t == st or t.startswith(st + ': ') for t in titles), (st, titles)
for c in s['charts']:
    assert c['legend'][:1] and c['legend'][0].startswith(('REF ', 'NEW ')), c['legend']
" || fail "case $name"
        n=$((n + 1))
    done
    [ "$n" -ge 10 ] || fail "only $n differing cases drew a plot"
}

@test "plot: the values drawn are the recordings', at their indices" {
    run --separate-stderr "$HCBTRACE" diff --plot "$T/p.svg" "$CASES/missing_extra/ref.jsonl" "$CASES/missing_extra/new.jsonl"
    assert_failure 1
    summary "$T/p.svg"
    # each chart's lines hold the taps of their side, in order
    python3 - "$CASES/missing_extra" "$T/sum.json" <<'EOF'
import json, struct, sys
case, s = sys.argv[1], json.load(open(sys.argv[2]))
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
def taps(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "tap":
            key = "cpu:%d %s" % (r["device"], r["name"])
            a = r["arrays"][0]
            vals = [f32(float(v)) if a["dtype"] == "float32" else float(v) for v in a["data"]]
            out.setdefault(key, []).append(sum(vals) / len(vals))
    return out
want = [taps(case + "/ref.jsonl"), taps(case + "/new.jsonl")]
seen = 0
for c in s["charts"]:
    for line in c["lines"]:
        side = 0 if line["class"] == "ref" else 1
        assert line["x"] == list(range(line["points"])), line
        assert line["y"] == want[side][c["title"]], (c["title"], line, want[side][c["title"]])
        seen += 1
assert seen >= 3, s
# missing from NEW: the chart says where the first unmatched tap is
loss = [c for c in s["charts"] if c["title"] == "cpu:0 loss"][0]
assert loss["mark_label"].startswith("first unmatched tap #") and "missing from NEW" in loss["subtitle"], loss
EOF
}

@test "plot: the examples/ci drift: charts per device and consumer, the first difference marked" {
    "$HCBTRACE" record -q -o "$T/run.jsonl" -- "$EXAMPLE" --devices 2 --steps 5 --interval-ms 0 \
        --field-size 1000 --learning-rate 0.06
    run --separate-stderr "$HCBTRACE" diff -q --rtol 1e-5 --atol 1e-6 --plot "$T/drift.svg" "$GOLDEN" "$T/run.jsonl"
    assert_failure 1
    assert_output ""
    summary "$T/drift.svg"
    python3 - "$GOLDEN" "$T/run.jsonl" "$T/sum.json" <<'EOF'
import json, struct, sys
f32 = lambda x: struct.unpack('<f', struct.pack('<f', x))[0]
s = json.load(open(sys.argv[3]))
def values(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        if r["type"] == "tap":
            out.setdefault((r["device"], r["name"]), []).append(r["arrays"])
    return out
want = [values(sys.argv[1]), values(sys.argv[2])]
charts = {c["title"]: c for c in s["charts"]}
assert s["title"] == "hcbtrace diff: REF golden.jsonl vs NEW run.jsonl", s["title"]
for d in (0, 1):
    for title, name, leaf, first in (("loss", "loss", 0, 1), ("params: b", "params", 0, 0),
                                     ("params: w", "params", 1, 0), ("status: [2]", "status", 2, 1)):
        c = charts["cpu:%d %s" % (d, title)]
        assert c["mark"] == first and c["mark_label"] == "first difference #%d" % first, c
        assert c["flags"] == [float(i) for i in range(first, 5)], c
        assert c["legend"] == ["REF golden.jsonl", "NEW run.jsonl", "first difference #%d" % first, "taps that differ"], c
        assert c["xmin"] == 0 and c["xmax"] == 4, c
        for line in c["lines"]:
            side = 0 if line["class"] == "ref" else 1
            assert line["points"] == 5, line
            for k in range(5):
                a = want[side][(d, name)][k][leaf]
                vals = [f32(float(v)) if a["dtype"] == "float32" else float(v) for v in a["data"]]
                exp = sum(vals) / len(vals)
                assert abs(line["y"][k] - exp) <= 1e-12 * max(1, abs(exp)), (c["title"], k, line["y"][k], exp)
        assert c["ymin"] == min(min(l["y"]) for l in c["lines"]) and c["ymax"] == max(max(l["y"]) for l in c["lines"])
    assert "cpu:%d field" % d not in charts and "cpu:%d power3: [0]" % d not in charts
    assert charts["cpu:%d params: w" % d]["subtitle"].startswith("float32[4], the mean of its elements per tap | 5 of 5 pairs differ")
# the close-up: the first array the report names (cpu:1 params #0, leaf w)
# (the pair the engine compares first: the devices' order in the files decides)
close = [c for c in s["charts"] if "the first array that differs" in c["title"]]
assert len(close) == 1 and close[0]["title"] in ["cpu:%d params: w #0, per element: the first array that differs" % d
                                                 for d in (0, 1)], close
dev = int(close[0]["title"][4])
ref = [f32(float(v)) for v in want[0][(dev, "params")][0][1]["data"]]
assert close[0]["lines"][0]["y"] == ref and close[0]["flags"] == [0.0, 1.0, 2.0, 3.0], close[0]
assert "mismatched elements: 4 / 4" in close[0]["subtitle"]
assert s["charts"][-1]["title"] == "NEW - REF per element"
EOF
}

# gen_long DIR: two recordings: a scalar stream of 3000 taps that drifts from
# #1500, a 5000-element array, a 200 x 300 grid, odd names
gen_long()
{
    python3 - "$1" <<'EOF'
import math, sys
d = sys.argv[1]
for side in (0, 1):
    with open("%s/%s.jsonl" % (d, "ref" if side == 0 else "new"), "w") as f:
        f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"TFRT_CPU_%u","start_ns":0}\n')
        g = [[math.sin(r / 20.0) * math.cos(c / 30.0) for c in range(300)] for r in range(200)]
        if side:
            g[150][250] += 3.0
        f.write('{"type":"tap","device":1,"seq":0,"consumer":9,"name":"grid","kwargs":{},"tree":"{ g=* }","ts_ns":1,'
                '"arrays":[{"dtype":"float64","shape":[200,300],"data":[%s]}]}\n' % ",".join(repr(x) for row in g for x in row))
        for t in range(3000):
            v = math.sin(t / 100.0) + (0.001 * (t - 1500) if side and t >= 1500 else 0)
            f.write('{"type":"tap","device":0,"seq":%d,"consumer":7,"name":"l\\u00f6ss<&>\\"\\u0027","kwargs":{},'
                    '"tree":"*","ts_ns":%d,"arrays":[{"dtype":"float64","shape":[],"data":[%r]}]}\n' % (t, t, v))
        data = [math.cos(i / 300.0) for i in range(5000)]
        if side:
            data[2050] += 0.5
        f.write('{"type":"tap","device":1,"seq":1,"consumer":8,"name":"field","kwargs":{},"tree":"*","ts_ns":5,'
                '"arrays":[{"dtype":"float64","shape":[5000],"data":[%s]}]}\n' % ",".join(repr(x) for x in data))
EOF
}

@test "plot: long streams downsampled and said so, a 2-D close-up as heatmaps, names escaped" {
    gen_long "$T"
    run --separate-stderr "$HCBTRACE" diff --plot "$T/p.svg" "$T/ref.jsonl" "$T/new.jsonl"
    assert_failure 1
    summary "$T/p.svg"
    # the name: escaped in the file, shown as it is
    grep -qF "$(printf 'TFRT_CPU_0 l\xc3\xb6ss&lt;&amp;&gt;&quot;&#39;')" "$T/p.svg"
    py "
c = [c for c in s['charts'] if c['title'].startswith('TFRT_CPU_0 l')][0]
assert c['title'] == 'TFRT_CPU_0 l\u00f6ss<&>\"\'', c['title']
assert c['mark'] == 1501 and c['xmax'] == 2999, c
for line in c['lines']:
    # 3000 taps: width 16, 188 points, each the mean of 16 taps
    assert line['points'] == 188, line['points']
    assert 128 <= line['points'] <= 256
    assert line['x'][0] == 7.5 and line['x'][-1] == 2995.5, line['x'][-3:]
assert c['bands'] >= 2 and 'Downsampled to at most 256 points: each point is the mean of 16 consecutive taps' in c['note'], c
assert c['flags'][0] == 1495.5 and len(c['flags']) == 188 - 93, c['flags'][:3]
(h,) = s['heatmaps']
assert h['title'] == 'TFRT_CPU_1 grid: g #0, per element: the first array that differs', h
assert [(m['title'], m['rows'], m['cols'], m['diverging']) for m in h['maps']] == [('REF', 50, 60, False), ('NEW', 50, 60, False), ('NEW - REF', 50, 60, True)], h
assert h['maps'][2]['hi'] == 3.0 and h['maps'][2]['lo'] == -3.0 and h['maps'][2]['marks'] == 1, h
"
}

@test "plot: --plot-stat picks what arrays become; 1-D close-up reduced with its mismatches" {
    gen_long "$T"
    grep -v '"name":"grid"' "$T/ref.jsonl" >"$T/r.jsonl"
    grep -v '"name":"grid"' "$T/new.jsonl" >"$T/n.jsonl"
    for stat in mean min max norm; do
        run --separate-stderr "$HCBTRACE" diff -q --plot "$T/$stat.svg" --plot-stat "$stat" "$T/r.jsonl" "$T/n.jsonl"
        assert_failure 1
        summary "$T/$stat.svg"
        STAT=$stat py "
import math, os
stat = os.environ['STAT']
data = [math.cos(i / 300.0) for i in range(5000)]
new = list(data); new[2050] += 0.5
want = {'mean': lambda v: sum(v) / len(v), 'min': min, 'max': max, 'norm': lambda v: math.sqrt(sum(x * x for x in v))}[stat]
c = [c for c in s['charts'] if c['title'] == 'TFRT_CPU_1 field'][0]
assert 'the %s of its elements per tap' % stat in c['subtitle'], c['subtitle']
assert 'arrays drawn as their %s' % stat in s['subtitles'][-1]
for line, v in zip(c['lines'], (data, new)):
    assert abs(line['y'][0] - want(v)) <= 1e-9 * max(1, abs(want(v))), (stat, line['y'], want(v))
z = [c for c in s['charts'] if 'per element' in c['title']]
assert z[0]['xmax'] == 4999 and z[0]['lines'][0]['points'] == 250, z[0]
assert z[0]['flags'] == [2050.0 - 2050 % 20 + 9.5], z[0]['flags']
assert 'each point is the mean of 20 consecutive elements' in z[0]['note']
"
    done
}

@test "plot: exit codes and usage: same is 0 with no file, trouble is 2" {
    # same: exit 0, nothing written, an old file left alone
    echo old >"$T/old.svg"
    run --separate-stderr "$HCBTRACE" diff --plot "$T/old.svg" "$CASES/same/ref.jsonl" "$CASES/same/new.jsonl"
    assert_success
    assert_equal "$(cat "$T/old.svg")" old
    # -q --plot: silent, yet the whole picture
    run --separate-stderr "$HCBTRACE" diff -q --plot "$T/q.svg" "$CASES/missing_extra/ref.jsonl" "$CASES/missing_extra/new.jsonl"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" ""
    summary "$T/q.svg"
    py "assert [c['title'] for c in s['charts']] == ['cpu:0 acc', 'cpu:0 loss'], s['charts']"
    # -f json and --plot: the report as before, and the picture
    run --separate-stderr "$HCBTRACE" diff -f json --plot "$T/j.svg" "$CASES/ints/ref.jsonl" "$CASES/ints/new.jsonl"
    assert_failure 1
    python3 -c 'import json, sys; assert json.loads(sys.argv[1])["same"] is False' "$output"
    [ -f "$T/j.svg" ]
    # a plot that cannot be written: trouble, after the report
    run --separate-stderr "$HCBTRACE" diff --plot "$T/no/such/dir.svg" "$CASES/ints/ref.jsonl" "$CASES/ints/new.jsonl"
    assert_failure 2
    assert_line --partial "1 differ"
    assert_equal "$stderr" "hcbtrace: cannot write the plot '$T/no/such/dir.svg': No such file or directory"
    [ -z "$(ls "$T"/no 2>/dev/null)" ]
    # a damaged recording: trouble, no plot
    run --separate-stderr "$HCBTRACE" diff --plot "$T/d.svg" "$CASES/damaged/ref.jsonl" "$CASES/damaged/new.jsonl"
    assert_failure 2
    [ ! -e "$T/d.svg" ]
    # usage
    run --separate-stderr "$HCBTRACE" diff --plot-stat max "$CASES/ints/ref.jsonl" "$CASES/ints/new.jsonl"
    assert_failure 2
    [[ $stderr == *"--plot-stat chooses what --plot draws"* ]]
    run --separate-stderr "$HCBTRACE" diff --plot "$T/p.svg" --plot-stat median a.jsonl b.jsonl
    assert_failure 2
    [[ $stderr == *"unknown --plot-stat 'median': expected mean, min, max or norm"* ]]
    run --separate-stderr "$HCBTRACE" diff --plot b.jsonl a.jsonl b.jsonl
    assert_failure 2
    [[ $stderr == *"'b.jsonl' is both a recording and the plot"* ]]
    run --separate-stderr "$HCBTRACE" diff --plot "" a.jsonl b.jsonl
    assert_failure 2
    run --separate-stderr "$HCBTRACE" diff --plot
    assert_failure 2
    [[ $stderr == *"needs an argument"* ]]
}

# bats test_tags=big
@test "plot: memory stays flat with --plot (peak RSS under 64 MB on ~100 MB recordings)" {
    python3 - "$T/a.jsonl" "$T/b.jsonl" <<'EOF'
import sys
row = ",".join("%r" % ((i % 1000) / 64.0) for i in range(4096))
for path, change in ((sys.argv[1], -1), (sys.argv[2], 1234)):
    with open(path, "w") as f:
        f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":0}\n')
        for t in range(3000):
            data = row if t < change or change < 0 else "99.5," + row.split(",", 1)[1]
            f.write('{"type":"tap","device":%d,"seq":%d,"consumer":7,"name":"act","kwargs":{},"tree":"*",'
                    '"ts_ns":%d,"arrays":[{"dtype":"float32","shape":[64,64],"data":[%s]}]}\n' % (t % 4, t // 4, t, data))
EOF
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    run --separate-stderr /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" diff -q --plot "$T/p.svg" "$T/a.jsonl" "$T/b.jsonl"
    assert_failure 1
    echo "# $(cat "$T/rss")" >&3
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 65536 ]
    summary "$T/p.svg"
    # taps 1234.. differ: on each device from its occurrence 308 or 309 on
    py "
for c in s['charts']:
    assert c['xmax'] == 749 and c['mark'] in (308, 309), (c['title'], c['mark'])
    assert all(l['points'] <= 256 for l in c['lines'])
assert len(s['heatmaps']) == 1
"
}
