#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# dtypes.bats - every dtype JAX has beyond numpy's (the float8 kinds,
# float4_e2m1fn, int2, int4, uint2, uint4; bfloat16 beside them) handed to
# jax.debug.callback by an unmodified program (tests/jax/dtypes.py), real
# jax and jaxlib from PyPI: hcbtrace records each operand bit for bit what
# the callback got (XLA's CPU runtime hands the sub-byte ones over packed,
# hcbtrace holds them one a byte, as numpy does), and it stays so through
# replay, convert (.jsonl, .hcbcap, .npz), diff and the Python reader
# (tests/tools/check_dtypes_truth.py compares with the program's truth).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run PYTHONPATH=$ROOT/python
    PROG=$ROOT/tests/jax/dtypes.py
}

teardown()
{
    _common_teardown
}

# record_dtypes VENV: the program under `record -- CMD`, into $T/rec.hcbcap
record_dtypes()
{
    need_python "$1" 'import jax, ml_dtypes; ml_dtypes.float8_e8m0fnu' "jax and ml_dtypes 0.5+"
    run --separate-stderr "$HCBTRACE" record -o "$T/rec.hcbcap" -- "$PY" "$PROG" "$T/truth.jsonl"
    assert_success
    assert_output "done 14"
    [[ "$stderr" == *"14 taps"*", 14 written, 0 lost"* ]]
    ! grep -Eq ' [1-9][0-9]* bad' <<<"$stderr"     # none malformed
}

@test "dtypes: jax 0.12: every float8, float4, int2/int4/uint2/uint4 operand recorded bit for bit; .jsonl, .hcbcap, .npz, the Python reader and back" {
    record_dtypes "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    "$HCBTRACE" convert "$T/rec.hcbcap" -o "$T/rec.jsonl"
    "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/back.hcbcap"
    "$HCBTRACE" convert "$T/back.hcbcap" -o "$T/back.jsonl"
    "$HCBTRACE" convert "$T/rec.hcbcap" -o "$T/rec.npz"
    "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/text.npz"
    "$HCBTRACE" replay "$T/rec.hcbcap" >"$T/rec.txt"
    run "$PY" "$ROOT/tests/tools/check_dtypes_truth.py" "$T/truth.jsonl" \
        --exact "$T/rec.hcbcap" --text "$T/rec.jsonl" --text "$T/back.hcbcap" \
        --text "$T/back.jsonl" --npz "$T/rec.npz" "$T/rec.hcbcap" --printed "$T/rec.txt"
    echo "# $output" >&3
    assert_success
    assert_output --partial "of 15 dtypes"
    assert_output --partial ": 0 problems"
    # JSONL text is a fixed point: .jsonl -> .hcbcap -> .jsonl is the same file
    cmp "$T/rec.jsonl" "$T/back.jsonl"
    # the .npz of the text is the text's (check_npz: value for value)
    run "$PY" "$ROOT/tests/tools/check_npz.py" "$T/rec.jsonl" "$T/text.npz"
    assert_success
    # replay prints the same whatever the format; as numpy prints them
    "$HCBTRACE" replay "$T/rec.jsonl" | cmp - "$T/rec.txt"
    "$HCBTRACE" replay "$T/back.hcbcap" | cmp - "$T/rec.txt"
    grep -qF '( [0 1 2 3 4 5 6 7 -8 -7 -6 -5 -4 -3 -2 -1]' "$T/rec.txt"
    grep -qF '( [0 1 -2 -1] ' "$T/rec.txt"
    grep -qF '( [0 0.5 1 1.5 2 3 4 6 -0 -0.5 -1 -1.5 -2 -3 -4 -6]' "$T/rec.txt"
    grep -qF '( [5.87747e-39 1.17549e-38 ' "$T/rec.txt"
    for dt in float8_e3m4 float8_e4m3 float8_e4m3fn float8_e4m3fnuz float8_e4m3b11fnuz float8_e5m2 \
              float8_e5m2fnuz float8_e8m0fnu float4_e2m1fn int2 int4 uint2 uint4; do
        grep -q "\"dtype\":\"$dt\",\"shape\":\[3,3\]" "$T/rec.jsonl"
    done
}

@test "dtypes: jax 0.10.2 packs sub-byte operands the same way: recorded bit for bit" {
    record_dtypes "${HCB_VENV_JAX:-$BUILD/venv-jax10}"
    run "$PY" "$ROOT/tests/tools/check_dtypes_truth.py" "$T/truth.jsonl" --exact "$T/rec.hcbcap"
    echo "# $output" >&3
    assert_success
    assert_output --partial ": 0 problems"
}

@test "dtypes: diff of a recording and its trip through JSONL: the same, NaN for NaN" {
    record_dtypes "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    "$HCBTRACE" convert "$T/rec.hcbcap" -o "$T/rec.jsonl"
    run "$HCBTRACE" diff --equal-nan "$T/rec.hcbcap" "$T/rec.jsonl"
    assert_success
    assert_output --partial "14 pairs compared, 14 same, 0 differ"
    # without --equal-nan a NaN is no NaN's match, as in numpy
    run "$HCBTRACE" diff "$T/rec.hcbcap" "$T/rec.jsonl"
    assert_failure 1
    assert_output --partial "float8_e8m0fnu[256]: mismatched elements: 1 / 256"
    assert_output --partial "float8_e4m3fnuz[256]: mismatched elements: 1 / 256"
}
