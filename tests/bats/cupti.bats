#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libhcbtap_cupti.so, the CUPTI injection library of CUDA launch mode
# (hcbtap/cupti_inject.c), on a machine without a GPU: it is built, it has
# its probes, and a program that has it injected runs as it would without
# it, quietly.  What it records needs a GPU: tests/bats/gpu.bats.

load common

setup()
{
    _common_setup
    LIB=$BUILD/hcbtap/libhcbtap_cupti.so
    CHECK=$BUILD/tests/tools/cupti_check
    if [ ! -f "$LIB" ]; then
        # an optional part (meson -Dcupti=auto): built where the CUDA
        # toolkit's headers are
        echo "!!! SKIPPED: no CUDA toolkit headers here, so no $LIB (meson -Dcupti=enabled says why) !!!" >&2
        skip "libhcbtap_cupti.so not built (no cupti.h)"
    fi
}

teardown()
{
    _common_teardown
}

@test "cupti: the injection library has InitializeInjection, its hooks, its status and its two probes" {
    run nm -D --defined-only "$LIB"
    assert_line --regexp ' T InitializeInjection$'
    assert_line --regexp ' D hcbtap_cupti_hooks$'
    assert_line --regexp ' D hcbtap_cupti_status$'
    run readelf -n "$LIB"
    assert_output --partial 'Provider: hcbtap_cupti
    Name: tap_copy'
    assert_output --partial 'Provider: hcbtap_cupti
    Name: kernel'
    # no link to libcupti or the driver: both are opened when the driver calls
    run readelf -d "$LIB"
    refute_output --partial 'libcupti'
    refute_output --partial 'libcuda'
}

@test "cupti: a CUDA program started with it injected and no GPU runs normally, and quietly" {
    for libcuda in libcuda.so.1 /usr/local/cuda/lib64/stubs/libcuda.so; do
        HCB_LIBCUDA=$libcuda CUDA_INJECTION64_PATH=$LIB "$CHECK" driver >"$T/out" 2>"$T/err"
        HCB_LIBCUDA=$libcuda "$CHECK" driver >"$T/out.plain" 2>"$T/err.plain"
        diff "$T/out.plain" "$T/out"
        [ ! -s "$T/err" ]
    done
}

@test "cupti: called as the driver calls it, without a GPU: no harm done, and the status says why" {
    run --separate-stderr env CUDA_INJECTION64_PATH="$LIB" "$CHECK" direct
    assert_success
    [ -z "$stderr" ]
    # CUPTI refuses (or is not there): FAILED, and where; the hooks the tap
    # handler calls are harmless either way
    assert_output --regexp '^state 2 step [1-4] error -?[0-9]+ clock [01] message .+$'
    run --separate-stderr env CUDA_INJECTION64_PATH="$LIB" HCBTAP_CUPTI=/nonexistent/libcupti.so "$CHECK" direct
    assert_success
    assert_output 'state 2 step 1 error 0 clock 0 message no libcupti (set HCBTAP_CUPTI to its path)'
}

@test "cupti: a JAX program with it injected taps as without it" {
    need_python "${HCB_VENV_JAX:-$BUILD/venv-jax10}" 'import jax, hcbtap' "jax and hcbtap"
    export HCBTRACE_RUNDIR=$T/run
    CUDA_INJECTION64_PATH=$LIB "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$ROOT/tests/jax/taps.py" power3 >"$T/out" 2>"$T/err"
    grep -qx 'power3 27.0' "$T/out"
    run "$HCBTRACE" replay --no-wait "$T/rec.jsonl"
    assert_output "device: cpu:0 what: x,x^2
( 3. 9. )"
}

@test "cupti: run --cuda without a GPU: CMD runs, its taps are captured as usual, one notice, CMD's exit status" {
    export HCBTRACE_RUNDIR=$T/run
    run --separate-stderr "$HCBTRACE" record --cuda -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0 --field-size 8
    assert_success
    [ "$(grep -c '"type":"tap"' "$T/rec.jsonl")" = 30 ]
    [ "$(grep -c -- '--cuda' <<<"$stderr")" = 1 ]
    [[ "$stderr" == *"hcbtrace: warning: --cuda: no device-side copy times (the program never started a CUDA device (no GPU?)); the taps are recorded as usual"* ]]
    # no copy times where none came
    refute grep -q copy_ns "$T/rec.jsonl"
    # CMD's own exit status, and its environment had the library
    run --separate-stderr "$HCBTRACE" run --cuda -q -- sh -c 'echo "$CUDA_INJECTION64_PATH"; exit 7'
    assert_failure 7
    [[ "$output" == */libhcbtap_cupti.so ]]
    # a library that is not there is named
    HCBTRACE_CUPTI_LIB=/nonexistent/libhcbtap_cupti.so run --separate-stderr "$HCBTRACE" run --cuda -- true
    assert_failure 4
    [[ "$stderr" == *"--cuda needs the CUPTI injection library, libhcbtap_cupti.so: none at /nonexistent/libhcbtap_cupti.so"* ]]
    # CUPTI loads only as a program starts
    run --separate-stderr "$HCBTRACE" record --cuda -p 1 -o "$T/x.jsonl"
    assert_failure 2
    [[ "$stderr" == *"--cuda is for a command hcbtrace starts"* ]]
}
