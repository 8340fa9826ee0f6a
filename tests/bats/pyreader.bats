#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pyreader.bats - hcbtap.recording (python/hcbtap/recording/), the Python
# reader of recordings, against hcbtrace itself: tests/python/test_reader.py
# CHECK (each prints what it compared), run from this checkout's python/ in
# the venvs of scripts/lib.sh: build/venv (numpy 1.26, ml_dtypes, pandas)
# and build/venv-jax10 (numpy 2), neither needing jax for this.

load common

setup()
{
    _common_setup
    export HCBTRACE HCB_EXAMPLE=$EXAMPLE PYTHONPATH=$ROOT/python:$ROOT/tests/python
    VENV_NP1=${HCB_VENV:-$BUILD/venv}
    VENV_NP2=${HCB_VENV_JAX:-$BUILD/venv-jax10}
}

teardown()
{
    _common_teardown
}

# check VENV CHECK: tests/python/test_reader.py CHECK with VENV's python
check()
{
    local venv=$1
    shift
    if [ "$venv" = "$VENV_NP1" ]; then
        need_python "$venv" 'import numpy, ml_dtypes, pandas; assert numpy.__version__ < "2"' \
            "numpy 1.26, ml_dtypes and pandas"
    else
        need_python "$venv" 'import numpy, ml_dtypes; assert numpy.__version__ >= "2"' \
            "numpy 2 and ml_dtypes"
    fi
    mkdir -p "$T/$1"
    run "$PY" "$ROOT/tests/python/test_reader.py" "$1" "$T/$1"
    echo "$output"
    assert_success
    grep -v '^numpy ' <<<"$output" | sed 's/^/# /' >&3    # what was compared, in the log
}

@test "pyreader: every dtype, from .jsonl, .hcbcap and back, is hcbtrace's .npz bit for bit (numpy 1.26)" {
    check "$VENV_NP1" dtypes
}

@test "pyreader: every dtype, from .jsonl, .hcbcap and back, is hcbtrace's .npz bit for bit (numpy 2)" {
    check "$VENV_NP2" dtypes
}

@test "pyreader: .hcbcap payloads of random bits keep NaN payloads and signs (numpy 1.26 and 2)" {
    check "$VENV_NP1" raw
    check "$VENV_NP2" raw
}

@test "pyreader: hcb-example recorded by hcbtrace, .jsonl and .hcbcap" {
    check "$VENV_NP1" live
}

@test "pyreader: damaged recordings fail where hcbtrace replay fails, after the same records" {
    check "$VENV_NP1" damage
}

@test "pyreader: the golden damaged recordings give hcbtrace's messages" {
    check "$VENV_NP1" golden
}

@test "pyreader: a 300 MB recording, .jsonl and .hcbcap, reads with flat memory" {
    check "$VENV_NP1" stream
}

@test "pyreader: scalars() is a pandas DataFrame of the scalar leaves" {
    check "$VENV_NP1" table
}

@test "pyreader: '-', file objects, truncated=; no jax, and no ml_dtypes or pandas until needed" {
    check "$VENV_NP1" sources
    check "$VENV_NP2" sources
}

@test "pyreader: taps' copy_ns from .jsonl and .hcbcap, refused in hcbtrace's words, from a live record --cuda" {
    # the live part through the test stand-in of the CUPTI library
    export HCBTRACE_CUPTI_LIB=$BUILD/tests/fake_cupti/libhcbtap_cupti.so HCBTRACE_RUNDIR=$T/run
    [ -f "$HCBTRACE_CUPTI_LIB" ]
    check "$VENV_NP1" copyns
    check "$VENV_NP2" copyns
}
