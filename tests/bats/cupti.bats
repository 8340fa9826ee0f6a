#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libhcbtap_cupti.so, the CUPTI injection library of CUDA launch mode
# (hcbtap/cupti_inject.c), on a machine without a GPU: it is built, it has
# its probes, and a program that has it injected runs as it would without
# it, quietly.  What it records needs a GPU: tests/bats/gpu.bats.  What
# hcbtrace makes of what it records (every tap's copy_ns, kept by replay
# and convert) is tested here through a stand-in of it, tests/fake_cupti/.

load common

setup()
{
    _common_setup
    LIB=$BUILD/hcbtap/libhcbtap_cupti.so
    CHECK=$BUILD/tests/tools/cupti_check
    FAKE=$BUILD/tests/fake_cupti/libhcbtap_cupti.so
    # In an ASan build (scripts/test's second pass) a program gets the ASan
    # runtime as a library it needs, so after what --cuda preloads, and
    # ASan refuses to start then; the order does no harm here (the library
    # preloaded defines nothing ASan intercepts)
    if ldd "$EXAMPLE" 2>/dev/null | grep -q 'libasan'; then
        export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
    fi
}

# need_lib: the real injection library, or skip
need_lib()
{
    if [ ! -f "$LIB" ]; then
        # an optional part (meson -Dcupti=auto): built where the CUDA
        # toolkit's headers are
        echo "!!! SKIPPED: no CUDA toolkit headers here, so no $LIB (meson -Dcupti=enabled says why) !!!" >&2
        skip "libhcbtap_cupti.so not built (no cupti.h)"
    fi
}

# check_copy_ns FILE TAPS: FILE (.jsonl) has TAPS taps, each with copy_ns
# as the stand-in makes them up: an end 1 us before it looked at the clock,
# after the tap's own time, so no earlier than ts_ns - 1000, and a length
# of 1000 + 100000 * device + 10 * (seq % 1000) ns (a tap given another's
# times, or times converted to another clock than ts_ns, fails)
check_copy_ns()
{
    python3 - "$@" <<'PY'
import json, sys
path, want = sys.argv[1], int(sys.argv[2])
taps = [r for r in map(json.loads, open(path)) if r["type"] == "tap"]
bad = []
for t in taps:
    start, end = t.get("copy_ns", (None, None))
    if start is None or not 0 < start <= end or end - start != 1000 + 100000 * t["device"] + 10 * (t["seq"] % 1000) \
            or not t["ts_ns"] - 1000 <= end < t["ts_ns"] + 10**10:
        bad.append(t)
if len(taps) != want or bad:
    sys.exit("%s: %d taps (want %d); wrong copy_ns: %s" % (path, len(taps), want,
             [(t["device"], t["seq"], t["ts_ns"], t.get("copy_ns")) for t in bad[:5]]))
PY
}

teardown()
{
    _common_teardown
}

@test "cupti: the injection library has InitializeInjection, its hooks, its status and its two probes" {
    need_lib
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
    need_lib
    for libcuda in libcuda.so.1 /usr/local/cuda/lib64/stubs/libcuda.so; do
        HCB_LIBCUDA=$libcuda CUDA_INJECTION64_PATH=$LIB "$CHECK" driver >"$T/out" 2>"$T/err"
        HCB_LIBCUDA=$libcuda "$CHECK" driver >"$T/out.plain" 2>"$T/err.plain"
        diff "$T/out.plain" "$T/out"
        [ ! -s "$T/err" ]
    done
}

@test "cupti: called as the driver calls it, without a GPU: no harm done, and the status says why" {
    need_lib
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
    need_lib
    need_python "${HCB_VENV_JAX:-$BUILD/venv-jax10}" 'import jax, hcbtap' "jax and hcbtap"
    export HCBTRACE_RUNDIR=$T/run
    CUDA_INJECTION64_PATH=$LIB "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$ROOT/tests/jax/taps.py" power3 >"$T/out" 2>"$T/err"
    grep -qx 'power3 27.0' "$T/out"
    run "$HCBTRACE" replay --no-wait "$T/rec.jsonl"
    assert_output "device: cpu:0 what: x,x^2
( 3. 9. )"
}

@test "cupti: run --cuda without a GPU: CMD runs, its taps are captured as usual, one notice, CMD's exit status" {
    need_lib
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

@test "cupti: record --cuda through a test stand-in of the library (no GPU): every tap has copy_ns, replay and convert keep it" {
    [ -f "$FAKE" ]
    export HCBTRACE_RUNDIR=$T/run HCBTRACE_CUPTI_LIB=$FAKE
    # small taps (one read in the probe) and large ones (chunks)
    run --separate-stderr "$HCBTRACE" record --cuda -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 4 --interval-ms 0 --field-size 8
    assert_success
    refute grep -q -- '--cuda' <<<"$stderr"
    check_copy_ns "$T/rec.jsonl" 40
    run --separate-stderr "$HCBTRACE" record --cuda -o "$T/big.hcbcap" -- "$EXAMPLE" --devices 2 --steps 3 --interval-ms 0 --field-size 5000
    assert_success
    refute grep -q -- '--cuda' <<<"$stderr"
    "$HCBTRACE" convert "$T/big.hcbcap" -o "$T/big.jsonl"
    check_copy_ns "$T/big.jsonl" 30
    # replay -f jsonl writes the same lines; .jsonl -> .hcbcap -> .jsonl the same bytes
    "$HCBTRACE" replay --no-wait -f jsonl "$T/rec.jsonl" >"$T/replayed.jsonl"
    cmp "$T/rec.jsonl" "$T/replayed.jsonl"
    "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/rec.hcbcap"
    "$HCBTRACE" convert "$T/rec.hcbcap" -o "$T/back.jsonl"
    cmp "$T/rec.jsonl" "$T/back.jsonl"
    "$HCBTRACE" replay --no-wait -f jsonl "$T/big.hcbcap" | cmp "$T/big.jsonl" -
    # id_print's text is as it is without them
    sed 's/,"copy_ns":\[[0-9]*,[0-9]*\]//' "$T/rec.jsonl" >"$T/plain.jsonl"
    refute grep -q copy_ns "$T/plain.jsonl"
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/text"
    "$HCBTRACE" replay --no-wait "$T/plain.jsonl" | diff - "$T/text"
    [ "$(grep -c '^device: cpu:' "$T/text")" = 40 ]
}

@test "cupti: run --cuda through the stand-in, taps printed live: id_print's text, no copy times in it" {
    [ -f "$FAKE" ]
    export HCBTRACE_RUNDIR=$T/run
    HCBTRACE_CUPTI_LIB=$FAKE "$HCBTRACE" run --cuda -q -- "$EXAMPLE" --devices 1 --steps 2 --interval-ms 0 --field-size 4 >"$T/with" 2>"$T/with.err"
    "$HCBTRACE" run -q -- "$EXAMPLE" --devices 1 --steps 2 --interval-ms 0 --field-size 4 >"$T/without" 2>"$T/without.err"
    diff "$T/without" "$T/with"
    [ "$(grep -c '^device: cpu:0' "$T/with")" = 10 ]
    # and -f jsonl, live: copy_ns on every tap
    HCBTRACE_CUPTI_LIB=$FAKE "$HCBTRACE" run --cuda -q -f jsonl -- "$EXAMPLE" --devices 1 --steps 2 --interval-ms 0 --field-size 4 >"$T/live.jsonl"
    check_copy_ns "$T/live.jsonl" 10
}
