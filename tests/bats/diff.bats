#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# diff.bats - `hcbtrace diff REF NEW` end to end (the diff command in man/hcbtrace.1): the golden cases
# of tests/data/diff/cases (one folder each: ref.jsonl, new.jsonl, args, and
# the expected stdout, stderr and exit status), agreement with numpy.isclose
# on generated recordings, real recordings, trouble (exit 2), and memory that
# stays flat on a recording of several hundred MB.

load common

setup()
{
    ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
    BUILD=${HCB_BUILD:-$ROOT/build}
    HCBTRACE=${HCBTRACE:-$BUILD/cli/hcbtrace}
    EXAMPLE=${HCB_EXAMPLE:-$BUILD/examples/hcb-example}
    CASES=$ROOT/tests/data/diff/cases
    ISCLOSE=$ROOT/tests/data/diff/isclose
    TOOLS_SRC=$ROOT/tests/tools
    export LC_ALL=C
    [ -x "$HCBTRACE" ] || { echo "hcbtrace not built at $HCBTRACE" >&2; return 1; }
    T=$BATS_TEST_TMPDIR
    PIDS=()
}

teardown() { _common_teardown; }

# Recording live needs BPF: root, and the example program.
need_live()
{
    if [ "$(id -u)" != 0 ]; then
        echo "!!! SKIPPING: recording a live process attaches BPF programs and must run as root !!!" >&2
        skip "needs root for BPF"
    fi
    [ -x "$EXAMPLE" ] || { echo "hcb-example not built at $EXAMPLE" >&2; return 1; }
}

# run_case DIR: hcbtrace diff with the case's args, from inside the case's
# folder (the report names the files as given).
run_case()
{
    local args
    read -r -a args <"$1/args" || true
    cd "$1"
    run --separate-stderr "$HCBTRACE" diff "${args[@]}" ref.jsonl new.jsonl
    cd - >/dev/null
}

@test "diff: golden cases (stdout, stderr, exit status)" {
    local d name n=0 bad=0
    for d in "$CASES"/*/; do
        d=${d%/}
        name=${d##*/}
        run_case "$d"
        n=$((n + 1))
        if [ "$status" != "$(cat "$d/status")" ]; then
            echo "case $name: exit $status, expected $(cat "$d/status"); stderr: $stderr" >&2
            bad=$((bad + 1))
            continue
        fi
        if [ "$output" != "$(cat "$d/stdout")" ]; then
            echo "case $name: stdout differs:" >&2
            diff <(printf '%s\n' "$output") "$d/stdout" >&2 || true
            bad=$((bad + 1))
        fi
        if [ "$stderr" != "$(cat "$d/stderr" 2>/dev/null)" ]; then
            echo "case $name: stderr '$stderr', expected '$(cat "$d/stderr" 2>/dev/null)'" >&2
            bad=$((bad + 1))
        fi
    done
    [ "$n" -ge 12 ] || fail "only $n golden cases found in $CASES"
    [ "$bad" -eq 0 ] || fail "$bad of $n golden cases failed"
}

@test "diff: mismatch counts and max differences agree with numpy on the committed sets" {
    run python3 "$TOOLS_SRC/check_diff_isclose.py" "$HCBTRACE" "$ISCLOSE"/set*
    echo "$output"
    assert_success
    assert_line --regexp '^6 sets, [0-9]+ taps, [0-9]+ leaves: 0 disagreements with numpy$'
}

@test "diff: agrees with numpy 1.26.4 on freshly generated sets" {
    # real numpy from PyPI: HCB_NUMPY_PYTHON, or the venv the generator's
    # docstring makes (python3 -m venv /tmp/npvenv3; pip install numpy==1.26.4)
    local py=${HCB_NUMPY_PYTHON:-${HCB_VENV:-$BUILD/venv}/bin/python}
    if ! "$py" -c 'import numpy; assert numpy.__version__ == "1.26.4"' 2>/dev/null; then
        echo "!!! SKIPPING: no python with numpy 1.26.4 at $py (set HCB_NUMPY_PYTHON) !!!" >&2
        skip "numpy 1.26.4 not available"
    fi
    local seed=$(( $(date +%s) % 100000 ))
    "$py" -W ignore "$TOOLS_SRC/gen_isclose_cases.py" "$T/sets" --seed "$seed" --sets 8 --taps 150
    run python3 "$TOOLS_SRC/check_diff_isclose.py" "$HCBTRACE" "$T"/sets/set*
    echo "seed $seed"
    echo "$output"
    assert_success
}

@test "diff: a real recording against itself, and two runs of the same program, are the same" {
    need_live
    "$HCBTRACE" record -q -o "$T/a.jsonl" -- "$EXAMPLE" --devices 2 --steps 4 --interval-ms 0 \
        --field-size 300 >/dev/null
    "$HCBTRACE" record -q -o "$T/b.hcbcap" -- "$EXAMPLE" --devices 2 --steps 4 --interval-ms 0 \
        --field-size 300 >/dev/null
    [ "$(grep -c '"type":"tap"' "$T/a.jsonl")" -ge 20 ]
    run --separate-stderr "$HCBTRACE" diff "$T/a.jsonl" "$T/a.jsonl"
    assert_success
    assert_equal "$stderr" ""
    assert_line --regexp '^([0-9]+) taps in REF, \1 in NEW: \1 pairs compared, \1 same, 0 differ; 0 missing, 0 extra$'
    # another run, in the binary format: devices interleave differently, taps still pair
    run --separate-stderr "$HCBTRACE" diff "$T/a.jsonl" "$T/b.hcbcap"
    assert_success
    run --separate-stderr "$HCBTRACE" diff -q "$T/b.hcbcap" "$T/a.jsonl"
    assert_success
    assert_output ""
}

@test "diff: -f json is one JSON object, with the same findings and counts" {
    run --separate-stderr "$HCBTRACE" diff -f json "$CASES/missing_extra/ref.jsonl" "$CASES/missing_extra/new.jsonl"
    assert_failure 1
    run python3 -c '
import json, sys
o = json.loads(sys.argv[1])
assert o["same"] is False
c = o["counts"]
assert (c["ref_taps"], c["new_taps"], c["compared"], c["missing"], c["extra"]) == (5, 3, 2, 3, 1), c
assert [(m["consumer"], m["index"], m["count"]) for m in o["missing"]] == [("loss", 1, 3)], o["missing"]
assert [(m["consumer"], m["index"], m["count"]) for m in o["extra"]] == [("acc", 0, 1)], o["extra"]
' "$output"
    assert_success
    run --separate-stderr "$HCBTRACE" diff --format=json "$CASES/ints/ref.jsonl" "$CASES/ints/new.jsonl"
    assert_failure 1
    run python3 -c '
import json, sys
o = json.loads(sys.argv[1])
(t,) = o["differences"]
assert t["consumer"] == "counts" and t["index"] == 0
assert [(l["leaf"], l["mismatched"], l["elements"]) for l in t["leaves"]] == [(1, 2, 3), (2, 1, 2)]
assert t["leaves"][0]["max_abs"] == 255 and t["leaves"][0]["examples"][0] == {"index": [0], "ref": 0, "new": 255}
' "$output"
    assert_success
    # same recordings: still the whole object, "same": true
    run --separate-stderr "$HCBTRACE" diff -f json "$CASES/same/ref.jsonl" "$CASES/same/new.jsonl"
    assert_success
    python3 -c 'import json, sys; o = json.loads(sys.argv[1]); assert o["same"] and o["counts"]["same"] == 3' "$output"
    # trouble: the object is closed, with the reader's message
    run --separate-stderr "$HCBTRACE" diff -f json "$CASES/damaged/ref.jsonl" "$CASES/damaged/new.jsonl"
    assert_failure 2
    python3 -c 'import json, sys; o = json.loads(sys.argv[1]); assert "new.jsonl:3:" in o["error"] and not o["same"]' "$output"
}

@test "diff: -q prints nothing, whatever the verdict" {
    run --separate-stderr "$HCBTRACE" diff -q "$CASES/same/ref.jsonl" "$CASES/same/new.jsonl"
    assert_success
    assert_output ""
    run --separate-stderr "$HCBTRACE" diff -q "$CASES/missing_extra/ref.jsonl" "$CASES/missing_extra/new.jsonl"
    assert_failure 1
    assert_output ""
    assert_equal "$stderr" ""
    run --separate-stderr "$HCBTRACE" diff --quiet "$CASES/devices_differ/ref.jsonl" "$CASES/devices_differ/new.jsonl"
    assert_failure 1
    assert_output ""
}

@test "diff: trouble is exit 2 with one clear message (missing, damaged, unreadable files)" {
    run --separate-stderr "$HCBTRACE" diff "$T/nope.jsonl" "$CASES/same/new.jsonl"
    assert_failure 2
    assert_output ""
    assert_equal "$stderr" "hcbtrace: cannot open '$T/nope.jsonl': No such file or directory"
    run --separate-stderr "$HCBTRACE" diff "$CASES/same/ref.jsonl" "$T/nope.jsonl"
    assert_failure 2
    assert_equal "$stderr" "hcbtrace: cannot open '$T/nope.jsonl': No such file or directory"
    # damaged JSONL: file and line
    sed '3s/"float32"/"float33"/' "$CASES/same/ref.jsonl" >"$T/bad.jsonl"
    run --separate-stderr "$HCBTRACE" diff "$CASES/same/ref.jsonl" "$T/bad.jsonl"
    assert_failure 2
    [[ $stderr == "hcbtrace: $T/bad.jsonl:3:"*"float33"* ]] || fail "damage not located: $stderr"
    # damaged .hcbcap: file and byte offset
    "$HCBTRACE" convert -o "$T/r.hcbcap" "$CASES/same/ref.jsonl"
    cp "$T/r.hcbcap" "$T/bad.hcbcap"
    local size
    size=$(stat -c %s "$T/bad.hcbcap")
    printf '\377' | dd of="$T/bad.hcbcap" bs=1 seek=$((size / 2)) conv=notrunc status=none
    run --separate-stderr "$HCBTRACE" diff "$T/r.hcbcap" "$T/bad.hcbcap"
    assert_failure 2
    [[ $stderr == "hcbtrace: $T/bad.hcbcap:"*"offset "* ]] || fail "damage not located: $stderr"
    # not a recording at all
    echo "hello" >"$T/hello.txt"
    run --separate-stderr "$HCBTRACE" diff "$T/hello.txt" "$CASES/same/new.jsonl"
    assert_failure 2
    [[ $stderr == "hcbtrace: "*"$T/hello.txt"*"not a"*"recording"* ]] || fail "$stderr"
}

@test "diff: usage errors exit 2 with a hint" {
    run --separate-stderr "$HCBTRACE" diff
    assert_failure 2
    [[ $stderr == *"which recordings?"* ]]
    [[ $stderr == *"Try 'hcbtrace diff --help'."* ]]
    run --separate-stderr "$HCBTRACE" diff a.jsonl
    assert_failure 2
    [[ $stderr == *"which recording to compare with 'a.jsonl'?"* ]]
    run --separate-stderr "$HCBTRACE" diff a.jsonl b.jsonl c.jsonl
    assert_failure 2
    [[ $stderr == *"unexpected argument 'c.jsonl'"* ]]
    run --separate-stderr "$HCBTRACE" diff --rtol abc a.jsonl b.jsonl
    assert_failure 2
    [[ $stderr == *"invalid --rtol 'abc'"* ]]
    run --separate-stderr "$HCBTRACE" diff --atol -1 a.jsonl b.jsonl
    assert_failure 2
    [[ $stderr == *"invalid --atol '-1'"* ]]
    run --separate-stderr "$HCBTRACE" diff -f xml a.jsonl b.jsonl
    assert_failure 2
    [[ $stderr == *"unknown format 'xml'"* ]]
    run --separate-stderr "$HCBTRACE" diff --rtol
    assert_failure 2
    [[ $stderr == *"needs an argument"* ]]
    run --separate-stderr "$HCBTRACE" diff --nope a b
    assert_failure 2
    [[ $stderr == *"unknown option '--nope'"* ]]
    # options may follow the files, as in the usage line of the man page
    run --separate-stderr "$HCBTRACE" diff "$CASES/one_element_off/ref.jsonl" "$CASES/one_element_off/new.jsonl" --rtol 1e-3
    assert_success
    run --separate-stderr "$HCBTRACE" diff --help
    assert_success
    assert_line "Usage: hcbtrace diff [OPTIONS] REF NEW | --across-processes DIR"
}

# big_recording FILE TAPS [CHANGE]: a recording of TAPS taps over 4 devices,
# each tap a float32[64,64] (about 35 KB of text); with CHANGE, tap number
# CHANGE holds one element off.
big_recording()
{
    python3 - "$@" <<'EOF'
import sys
path, taps = sys.argv[1], int(sys.argv[2])
change = int(sys.argv[3]) if len(sys.argv) > 3 else -1
rows = []
for v in range(8):
    rows.append(",".join("%r" % (((i * 7 + v * 13) % 1000) / 64.0 - 7.8125) for i in range(4096)))
seq = [0] * 4
with open(path, "w") as f:
    f.write('{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":0}\n')
    for t in range(taps):
        dev = t % 4
        data = rows[(t // 4) % 8]
        if t == change:
            data = "1234.5," + data.split(",", 1)[1]
        f.write('{"type":"tap","device":%d,"seq":%d,"consumer":7,"name":"act","kwargs":{},'
                '"tree":"*","ts_ns":%d,"arrays":[{"dtype":"float32","shape":[64,64],"data":[%s]}]}\n'
                % (dev, seq[dev], t, data))
        seq[dev] += 1
    f.write('{"type":"end","taps":%d,"drops":0,"end_ns":0}\n' % taps)
EOF
}

# bats test_tags=big
@test "diff: memory stays flat on a recording of several hundred MB (peak RSS under 64 MB)" {
    local taps=8600   # ~300 MB
    big_recording "$T/big.jsonl" $taps
    big_recording "$T/big2.jsonl" $taps 3301
    [ "$(stat -c %s "$T/big.jsonl")" -gt $((280 * 1000 * 1000)) ]
    # peak resident memory, measured: an address-space limit (ulimit -v)
    # cannot apply to an ASan build, which reserves terabytes up front; its
    # quarantine of freed memory is kept small so that it measures the
    # same thing in both builds
    export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8
    run --separate-stderr /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" diff "$T/big.jsonl" "$T/big.jsonl"
    assert_success
    assert_output "$taps taps in REF, $taps in NEW: $taps pairs compared, $taps same, 0 differ; 0 missing, 0 extra"
    echo "# $(cat "$T/rss")" >&3
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 65536 ]
    run --separate-stderr /usr/bin/time -f 'peak %M kB' -o "$T/rss" "$HCBTRACE" diff "$T/big.jsonl" "$T/big2.jsonl"
    assert_failure 1
    assert_line "tap cpu:1 act #825 (REF seq 825, NEW seq 825)"
    assert_line "    [0,0]: REF -7.609375, NEW 1234.5"
    assert_line --partial "1 differ; 0 missing, 0 extra"
    [ "$(awk '/^peak/ { print $2 }' "$T/rss")" -lt 65536 ]
}

@test "diff: progress on a terminal's stderr, cleared at the end; nothing otherwise" {
    make_big_jsonl "$T/big.jsonl" 30 400000
    in_terminal "$T/tty" HCBTRACE_PROGRESS_DELAY_MS=0 "$HCBTRACE" diff "$T/big.jsonl" "$T/big.jsonl" ">$T/report.txt"
    [ "$(cat "$T/tty.rc")" = 0 ]
    progress_shown_and_cleared "$T/tty"
    # both files count: 96 MB in all
    grep -q 'of 96 MB' "$T/tty"
    grep -q '30 same, 0 differ' "$T/report.txt"
    refute grep -q '%\]' "$T/tty.screen"
    run --separate-stderr "$HCBTRACE" diff "$T/big.jsonl" "$T/big.jsonl"
    assert_success
    [ -z "$stderr" ]
}
