#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# id_print fidelity, against the real references from PyPI in the test venv:
# fresh random arrays against numpy 1.26.4's array2string (ml_dtypes for
# bfloat16 and float8), with id_print's options and with others; fresh
# random pytrees against jax 0.4.31's own host_callback.id_print.  Each
# recording is replayed by hcbtrace and must print byte for byte the same.
#
# The seed changes from run to run (HCB_FIDELITY_SEED fixes it); a failure
# names it, and the differing case, so it can be kept as a golden case.

load common

setup()
{
    _common_setup
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy, ml_dtypes, jax' "numpy, ml_dtypes and jax"
    SEED=${HCB_FIDELITY_SEED:-$(date +%s)}
    TOOL=$ROOT/tests/tools/idprint_fidelity.py
}

teardown()
{
    _common_teardown
}

# same EXPECT GOT: byte for byte, or the first differing case and the seed
same()
{
    if cmp -s "$1" "$2"; then
        return 0
    fi
    echo "seed $SEED: $(basename "$2") differs from the reference; first difference:" >&3
    diff "$1" "$2" | head -20 >&3
    line=$(cmp "$1" "$2" | sed -n 's/.* line \([0-9]*\)$/\1/p')
    head -n "$line" "$1" | grep 'what: case-' | tail -1 >&3
    return 1
}

@test "fidelity: 10,200 fresh random arrays of every dtype print as numpy 1.26 array2string, with every print option" {
    run "$PY" "$TOOL" arrays "$T/f" 10200 "$SEED"
    assert_success
    echo "$output" >&3
    for k in 0 1 2 3 4 5; do
        # shellcheck disable=SC2046  # the options are words
        "$HCBTRACE" replay --no-wait $(cat "$T/f/arrays-$k.opts") "$T/f/arrays-$k.jsonl" >"$T/f/got-$k.txt"
        same "$T/f/arrays-$k.txt" "$T/f/got-$k.txt"
    done
    # the cases are what the issue asks for: all dtypes, ranks 0-4, around the threshold
    n=$(grep -c '"type":"tap"' "$T"/f/arrays-*.jsonl | awk -F: '{ s += $2 } END { print s }')
    [ "$n" -ge 10000 ]
    for dt in bool int8 uint64 float16 bfloat16 float32 float64 complex64 complex128 \
        float8_e4m3fn float8_e5m2; do
        grep -q "\"dtype\":\"$dt\"" "$T/f/arrays-0.jsonl"
    done
    grep -q '"shape":\[1025\]' "$T"/f/arrays-*.jsonl
    grep -q '\.\.\.' "$T/f/arrays-0.txt"
    grep -q 'nan' "$T/f/arrays-0.txt"
}

@test "fidelity: 300 fresh random pytrees print as jax 0.4.31's host_callback.id_print printed them" {
    run "$PY" "$TOOL" pytrees "$T/f" 300 "$SEED"
    assert_success
    echo "$output" >&3
    "$HCBTRACE" replay --no-wait "$T/f/pytrees.jsonl" >"$T/f/got.txt"
    same "$T/f/pytrees.txt" "$T/f/got.txt"
    # tuples, lists and dicts, and groups too wide for one line that broke
    grep -q '^( ' "$T/f/got.txt"
    grep -q '{ [a-z0-9]*=' "$T/f/got.txt"
    grep -q '^\[ ' "$T/f/got.txt"
    grep -Eq '^  +[[({]? ?[a-z0-9]*=?[-0-9[]' "$T/f/got.txt"
    grep -q '^device: TFRT_CPU_0 what: case-299$' "$T/f/got.txt"
}

@test "fidelity: print options are checked (a bad value is a usage error naming it)" {
    run --separate-stderr "$HCBTRACE" replay --precision 101 /dev/null
    assert_failure 2
    [[ "$stderr" == *"invalid precision '101': expected a whole number from 0 to 100"* ]]
    run --separate-stderr "$HCBTRACE" replay --linewidth 0 /dev/null
    assert_failure 2
    [[ "$stderr" == *"invalid line width '0'"* ]]
    run --separate-stderr "$HCBTRACE" attach --threshold x 1
    assert_failure 2
    [[ "$stderr" == *"invalid threshold 'x'"* ]]
}
