#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# convert.bats - JSONL <-> .hcbcap without loss, .npz for numpy, damaged
# binary captures.

load common

setup() {
    _common_setup
    IN=$ROOT/tests/golden/replay/basic/in.jsonl   # every dtype, drops, end
    PY=${HCB_VENV:-$BUILD/venv}/bin/python
}
teardown() { _common_teardown; }

@test "convert: JSONL -> hcbcap -> JSONL is identical" {
    run --separate-stderr "$HCBTRACE" convert "$IN" -o "$T/a.jsonl"
    assert_success
    run --separate-stderr "$HCBTRACE" convert "$T/a.jsonl" -o "$T/b.hcbcap"
    assert_success
    [ "$(stat -c %a "$T/b.hcbcap")" = 600 ]
    [ "$(head -c 1 "$T/b.hcbcap")" = H ]
    run --separate-stderr "$HCBTRACE" convert "$T/b.hcbcap" -o "$T/c.jsonl"
    assert_success
    cmp "$T/a.jsonl" "$T/c.jsonl"
    # and the binary capture replays as the JSONL does
    diff <("$HCBTRACE" replay --no-wait "$T/b.hcbcap") <("$HCBTRACE" replay --no-wait "$IN")
}

@test "convert: a live recording in .hcbcap equals its JSONL twin" {
    run --separate-stderr "$HCBTRACE" record -o "$T/live.hcbcap" -- "$EXAMPLE" --devices 2 --steps 3 \
        --interval-ms 0 --field-size 3000 --truth "$T/truth.jsonl"
    assert_success
    "$HCBTRACE" convert "$T/live.hcbcap" -o "$T/live.jsonl"
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/live.jsonl" "$T/truth.jsonl" --all --devices 2
    assert_success
    # binary is smaller than the text for float data
    [ "$(stat -c %s "$T/live.hcbcap")" -lt "$(stat -c %s "$T/live.jsonl")" ]
}

@test "convert: .npz loads with numpy.load and matches the recording" {
    [ -x "$PY" ] || { echo "!!! no Python venv with numpy at $PY (scripts/test makes it)" >&2; false; }
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 2 --interval-ms 0 --field-size 50
    run --separate-stderr "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/rec.npz"
    assert_success
    run "$PY" "$ROOT/tests/tools/check_npz.py" "$T/rec.jsonl" "$T/rec.npz"
    assert_success
    run "$PY" -c "import numpy; z = numpy.load('$T/rec.npz'); print(sorted(z.files)[:3]); print(z['loss/cpu1/000001'].dtype)"
    assert_success
    assert_line "float32"
    # every dtype, including those numpy lacks (bfloat16 kept as bits, named in __dtypes__.json)
    "$HCBTRACE" convert "$IN" -o "$T/all.npz"
    run "$PY" "$ROOT/tests/tools/check_npz.py" "$IN" "$T/all.npz"
    assert_success
}

@test "convert: a truncated or corrupted capture says where, after what came before" {
    "$HCBTRACE" convert "$IN" -o "$T/a.hcbcap"
    size=$(stat -c %s "$T/a.hcbcap")
    head -c $((size - 7)) "$T/a.hcbcap" >"$T/cut.hcbcap"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/cut.hcbcap"
    assert_success
    [[ "$stderr" == *"warning: $T/cut.hcbcap"* ]]
    [ "$(grep -c '^device: ' <<<"$output")" -eq 13 ]
    # flip one byte in the middle: the CRC catches it, with the offset
    cp "$T/a.hcbcap" "$T/bad.hcbcap"
    printf '\x5a' | dd of="$T/bad.hcbcap" bs=1 seek=$((size / 2)) conv=notrunc status=none
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/bad.hcbcap"
    assert_failure 1
    [[ "$stderr" == "hcbtrace: $T/bad.hcbcap:offset "* ]]
    [ "$(grep -c '^device: ' <<<"$output")" -lt 13 ]
}

@test "convert: usage and file errors" {
    run --separate-stderr "$HCBTRACE" convert "$IN"
    assert_failure 2
    run --separate-stderr "$HCBTRACE" convert "$IN" -o "$T/x.csv"
    assert_failure 2
    [[ "$stderr" == *"name the output .jsonl, .hcbcap, .npz, .json (timeline) or .parquet"* ]]
    run --separate-stderr "$HCBTRACE" convert "$T/none.jsonl" -o "$T/x.jsonl"
    assert_failure 1
    [[ "$stderr" == *"cannot open '$T/none.jsonl': No such file or directory"* ]]
    run --separate-stderr "$HCBTRACE" convert "$T/x.npz" -o "$T/y.jsonl"
    assert_failure 1
}

@test "convert, replay: progress on a terminal's stderr, cleared at the end; nothing otherwise" {
    make_big_jsonl "$T/big.jsonl" 30 400000
    # stderr a terminal: "[ 43%] 21 MB of 48 MB, 12 MB/s", then the line is cleared
    in_terminal "$T/tty" HCBTRACE_PROGRESS_DELAY_MS=0 "$HCBTRACE" convert "$T/big.jsonl" -o "$T/out.jsonl"
    [ "$(cat "$T/tty.rc")" = 0 ]
    progress_shown_and_cleared "$T/tty"
    grep -q 'of 48 MB' "$T/tty"
    refute grep -q '%\]' "$T/tty.screen"
    [ "$(grep -c '^{"type":"tap"' "$T/out.jsonl")" = 30 ]
    # replay with its output elsewhere: the same
    in_terminal "$T/tty" HCBTRACE_PROGRESS_DELAY_MS=0 "$HCBTRACE" replay --no-wait "$T/big.jsonl" ">$T/replay.txt"
    [ "$(cat "$T/tty.rc")" = 0 ]
    progress_shown_and_cleared "$T/tty"
    # replay printing to that terminal: the taps, no progress among them
    in_terminal "$T/tty" HCBTRACE_PROGRESS_DELAY_MS=0 "$HCBTRACE" replay --no-wait -c 4 "$T/big.jsonl"
    refute grep -q '%\]' "$T/tty"
    # quick work shows nothing by default (HCBTRACE_PROGRESS_DELAY_MS=0 above
    # keeps those checks from depending on this machine's speed)
    in_terminal "$T/tty" "$HCBTRACE" convert "$IN" -o "$T/small.jsonl"
    [ "$(cat "$T/tty.rc")" = 0 ]
    refute grep -q '%\]' "$T/tty"
    # stderr not a terminal: nothing at all
    run --separate-stderr "$HCBTRACE" convert "$T/big.jsonl" -o "$T/out.hcbcap"
    assert_success
    [ -z "$stderr" ]
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/out.hcbcap"
    assert_success
    [ -z "$stderr" ]
}
