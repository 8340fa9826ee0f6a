#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# hcbtap for JAX (python/): host_callback's documented examples with
# `import hcbtap as hcb`, in real jax and jaxlib from PyPI (a venv of
# scripts/lib.sh, with `pip install ./python`), traced by hcbtrace.
# HCB_VENV_JAX names the venv: scripts/test runs this file once with
# jax 0.10.2 (build/venv-jax10, the default) and once with the newest jax
# (build/venv-jax12).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_JAX:-$BUILD/venv-jax10}" 'import jax, hcbtap' "jax and hcbtap"
    TAPS=$ROOT/tests/jax/taps.py
}

teardown()
{
    _common_teardown
}

# taps SCENARIO...: taps.py under `hcbtrace record`, from its first tap;
# the recording in $T/rec.jsonl, the program's stdout in $T/out, both
# programs' stderr in $T/err, the text as attach prints it in $T/text.
taps()
{
    "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$TAPS" "$@" >"$T/out" 2>"$T/err"
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/text"
}

@test "jax: power3 under jit prints what id_print printed" {
    taps power3
    run cat "$T/text"
    assert_output "device: cpu:0 what: x,x^2
( 3. 9. )"
    grep -qx 'power3 27.0' "$T/out"
}

@test "jax: under vmap, one tap of the batch with host_callback's transforms" {
    taps vmap
    run cat "$T/text"
    assert_output "device: cpu:0 transforms: [('batch', {'batch_dims': (0, 0)})] what: x,x^2
( [3. 4.] [ 9. 16.] )"
    grep -qx 'vmap \[27.0, 64.0\]' "$T/out"
}

@test "jax: under jvp and grad, the primal values" {
    taps jvp grad
    run cat "$T/text"
    assert_output "device: cpu:0 what: x,x^2
( 3. 9. )
device: cpu:0 what: x,x^2
( 3. 9. )"
    grep -qx 'jvp (27.0, 2.700000047683716)' "$T/out"
    grep -qx 'grad 27.0' "$T/out"
}

@test "jax: in scan, while_loop and cond, every iteration in order" {
    taps scan while cond
    run cat "$T/text"
    assert_output "device: cpu:0 what: c
0.
device: cpu:0 what: c
0.
device: cpu:0 what: c
1.
device: cpu:0 what: while
0
device: cpu:0 what: while
1
device: cpu:0 what: while
2
device: cpu:0 what: pos
4.
device: cpu:0 what: neg
2."
}

@test "jax: eagerly, a dict of arrays and numbers, kwargs sorted" {
    taps eager
    run cat "$T/text"
    assert_output "device: cpu:0 step: 1 what: eager
{ a=[ 7 1.5 ] b=[1. 1.] }"
}

@test "jax: pmap over 4 CPU devices: each device taps its own values" {
    XLA_FLAGS=--xla_force_host_platform_device_count=4 taps pmap
    for d in 0 1 2 3; do
        run "$HCBTRACE" replay --no-wait --device "$d" "$T/rec.jsonl"
        assert_output "device: cpu:$d what: x,x^2
( $((d + 3)). $(((d + 3) * (d + 3))). )"
    done
    grep -qx 'pmap \[27.0, 64.0, 125.0, 216.0\]' "$T/out"
}

@test "jax: attached, every tap arrives and barrier_wait waits for it; detached, results are the same" {
    taps power3 vmap jvp grad scan while cond eager
    # barrier_wait in the program marked the point: every tap before it
    grep -q '"type":"barrier"' "$T/rec.jsonl"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/err" >"$T/issued"
    run python3 "$ROOT/tests/tools/check_delivery.py" "$T/rec.jsonl" "$T/issued" --exact
    assert_success
    [ "$(grep -c '"type":"tap"' "$T/rec.jsonl")" = 13 ]
    # the same program with nothing attached computes the same results
    "$PY" "$TAPS" power3 vmap jvp grad scan while cond eager >"$T/out.detached" 2>"$T/err.detached"
    diff "$T/out" "$T/out.detached"
    # and issued nothing: detached taps are not even counted
    grep -qx 'issued cpu:0 0' "$T/err.detached"
}

@test "jax: attach, record, barrier and list work on a running JAX program" {
    "$PY" "$TAPS" loop >"$T/loop.out" 2>"$T/loop.err" &
    pid=$!
    PIDS+=("$pid")
    wait_for "$T/loop.out" looping 60
    run "$HCBTRACE" list
    assert_success
    section=$(sed -n "/^$pid /,/^[0-9]/p" <<<"$output")
    grep -q 'library: .*/hcbtap/libhcbtap\.so$' <<<"$section"
    grep -Eq '^    [0-9]+ +x,x\^2 +\( \* \* \) float32\[\],float32\[\] what: x,x\^2$' <<<"$section"
    run --separate-stderr "$HCBTRACE" attach -c 2 "$pid"
    assert_success
    assert_output "device: cpu:0 what: x,x^2
( 3. 9. )
device: cpu:0 what: x,x^2
( 3. 9. )"
    "$HCBTRACE" record -p "$pid" -o "$T/live.jsonl" 2>/dev/null &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/live.jsonl" '"type":"tap"'
    run --separate-stderr "$HCBTRACE" barrier -t 30 "$pid"
    assert_success
    grep -q '"type":"barrier"' "$T/live.jsonl"
    kill -INT "$rec"
    wait "$rec"
}

# names DEVICE: the names of DEVICE's taps in $T/rec.jsonl in seq order,
# one line, after checking the seqs run 0, 1, 2, ... without a gap
names()
{
    python3 - "$T/rec.jsonl" "$1" <<'PY'
import json, sys
taps = [r for r in map(json.loads, open(sys.argv[1]))
        if r["type"] == "tap" and r["device"] == int(sys.argv[2])]
assert [t["seq"] for t in taps] == list(range(len(taps))), "seqs not 0..n-1"
print(" ".join(t["name"] for t in taps))
PY
}

@test "jax: three independent taps in one jitted function arrive in program order, every run" {
    taps order
    grep -qx 'order 300' "$T/out"
    run names 0
    assert_success
    # 300 runs (100 each of three shapes): a b c every time
    [ "$output" = "$(printf 'a b c%.0s ' $(seq 300) | sed 's/ $//')" ]
}

@test "jax: under pmap and shard_map each device's taps arrive in program order" {
    XLA_FLAGS=--xla_force_host_platform_device_count=4 taps pmap_order shard_map
    for d in 0 1 2 3; do
        run names "$d"
        assert_success
        assert_output "a b a b"
        # pmap taps the device's element, shard_map its block of one
        run "$HCBTRACE" replay --no-wait --device "$d" "$T/rec.jsonl"
        assert_output "device: cpu:$d what: a
$((d + 3)).
device: cpu:$d what: b
$((d + 4)).
device: cpu:$d what: a
[$((d + 3)).]
device: cpu:$d what: b
[$((d + 4)).]"
    done
    grep -qx 'pmap_order \[6.0, 8.0, 10.0, 12.0\]' "$T/out"
    grep -qx 'shard_map \[6.0, 8.0, 10.0, 12.0\]' "$T/out"
}

@test "jax: taps thread an XLA token; HCBTAP_ORDERED=0 makes them unordered, still delivered" {
    "$PY" "$TAPS" lower_cpu >"$T/ordered" 2>&1
    grep -q 'stablehlo.custom_call @hcbtap_tap(%arg0, %arg1, %0).*(!stablehlo.token, tensor<f32>, tensor<f32>) -> (!stablehlo.token, tensor<f32>, tensor<f32>)' "$T/ordered"
    HCBTAP_ORDERED=0 taps lower_cpu order
    grep -q 'stablehlo.custom_call @hcbtap_tap(%arg0, %0)' "$T/out"
    refute grep -q 'token' "$T/out"
    [ "$(grep -c '"type":"tap"' "$T/rec.jsonl")" = 900 ]
}

@test "jax: a tapped function lowers for CUDA without a GPU: the custom call, its attributes, the token" {
    run --separate-stderr "$PY" "$TAPS" lower_cuda
    assert_success
    # the same call as on CPU: token first in and out, consumer and ntap
    # attributes, the operands aliased to the results
    assert_line --regexp 'stablehlo.custom_call @hcbtap_tap\(%arg0, %arg1, %0\) \{.*has_side_effect = true, mhlo.backend_config = \{consumer = [0-9]+ : i64, ntap = 2 : i64\}.*output_operand_aliases = \[#stablehlo.output_operand_alias<output_tuple_indices = \[1\], operand_index = 1, .*output_tuple_indices = \[2\], operand_index = 2, .*\(!stablehlo.token, tensor<f32>, tensor<f32>\) -> \(!stablehlo.token, tensor<f32>, tensor<f32>\)'
    assert_line 'lowering rule for cuda True'
    # handed to jaxlib for its CUDA plugin, which this machine may lack
    assert_line 'ffi target pending for CUDA: True'
}

@test "jax: a program tapping through hcbtap and jax.debug.print: both traced, each its own provider; --provider picks" {
    taps mixed
    grep -qx 'debug 40.0' "$T/out"
    head -1 "$T/rec.jsonl" | grep -q '"provider":"[a-z+-]*"'
    # hcbtap's tap, and the debug.print's operand at its call site
    grep -qx 'device: cpu:0 what: hcbtap' "$T/text"
    # by its op, or by its format string with the op a kwarg (issue 29)
    grep -Eq '^callback: (debug_print\.[0-9]+ device: cpu:0 module: jit_mixed|debug \{\} device: cpu:0 module: jit_mixed op: debug_print\.[0-9]+)$' "$T/text"
    [ "$(grep -c '"type":"tap"' "$T/rec.jsonl")" = 2 ]
    # through one provider only
    "$HCBTRACE" record --provider hcbtap -o "$T/only.jsonl" -- "$PY" "$TAPS" mixed >/dev/null 2>&1
    [ "$(grep -c '"type":"tap"' "$T/only.jsonl")" = 1 ]
    grep -q '"name":"hcbtap"' "$T/only.jsonl" || grep -q '"what":"hcbtap"' "$T/only.jsonl"
    "$HCBTRACE" record --provider jax-callback -o "$T/only.jsonl" -- "$PY" "$TAPS" mixed >/dev/null 2>&1
    [ "$(grep -c '"type":"tap"' "$T/only.jsonl")" = 1 ]
    grep -Eq '"(callback|op)":"debug_print' "$T/only.jsonl"
    run --separate-stderr "$HCBTRACE" record --provider nope -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"unknown provider 'nope': expected hcbtap, xla-outfeed or jax-callback"* ]]
}
