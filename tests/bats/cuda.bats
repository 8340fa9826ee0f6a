#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# hcbtap's CUDA tap handler (hcbtap/hcbtap_cuda.c) traced by the real
# hcbtrace, on a machine without a GPU: tests/tools/cuda_tapper makes the
# FFI calls XLA would make, against the stand-in runtime
# tests/tools/fake_cudart.c (HCBTAP_CUDART, the handler's test hook).
# tests/bats/gpu.bats runs the real thing where there is a GPU.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    TAPPER=$BUILD/tests/cuda_tapper
    if [ ! -x "$TAPPER" ]; then
        echo "!!! $TAPPER not built: meson found no jaxlib XLA FFI header (run scripts/test) !!!" >&2
        return 1
    fi
    export HCBTAP_CUDART=$BUILD/tests/libfake_cudart.so HCBTAP_CUDA_STAGING_MB=1
}

teardown()
{
    _common_teardown
}

@test "cuda (stand-in runtime): taps staged, emitted in stream order; one without room is lost in its place" {
    run --separate-stderr "$HCBTRACE" record -o "$T/rec.jsonl" -- "$TAPPER"
    assert_success
    [[ "$stderr" == *"issued 0 55"* ]]
    # a packet the emitter reports lost is a loss with its reason, not a malformed packet
    [[ "$stderr" != *"magic"* ]]
    python3 - "$T/rec.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
body = [r for r in recs if r["type"] in ("tap", "drop")]
# 50 x, 3 big, the lost big as a drop record in its place, the last x
assert [r.get("name", "drop") for r in body] == ["x"] * 50 + ["big"] * 3 + ["drop", "x"], body
taps = [r for r in body if r["type"] == "tap"]
assert [t["seq"] for t in taps] == list(range(53)) + [54]
for k, t in enumerate(taps[:50] + taps[-1:]):
    k = k if k < 50 else 50
    assert t["arrays"][0]["data"] == [10. * k + j for j in range(4)], t
for b, t in enumerate(taps[50:53]):
    assert set(t["arrays"][0]["data"]) == {b + 1}
assert body[53]["device"] == 0 and body[53]["count"] == 1
assert body[53]["reason"] == "device staging full", body[53]
# barrier_wait in the program was answered after every one of them
assert recs[-2]["type"] == "barrier" and recs[-1]["type"] == "end"
PY
}

@test "cuda (stand-in runtime): nothing attached, nothing staged or emitted" {
    run --separate-stderr "$TAPPER"
    assert_success
    [[ "$stderr" == *"issued 0 0"* ]]
    [[ "$stderr" == *"cuda calls 0"* ]]
}
