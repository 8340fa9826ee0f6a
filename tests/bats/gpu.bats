#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# hcbtap on a real GPU: a jax program on CUDA devices taps through the CUDA
# FFI handler (hcbtap/hcbtap_cuda.c), traced by hcbtrace; and the CUPTI
# injection library times the taps' copies.  Needs an NVIDIA GPU and the
# venv scripts/lib.sh makes where there is one (make_venv_jax_cuda:
# jax[cuda12] and this checkout's python/).  Without a GPU every test says
# so loudly and is skipped; cuda.bats and cupti.bats test what can be
# tested without one.

load common

NO_GPU="!!! SKIPPED: no GPU (nvidia-smi lists none): hcbtap's real-GPU tests did not run !!!"

has_gpu()
{
    nvidia-smi -L 2>/dev/null | grep -q '^GPU '
}

setup_file()
{
    has_gpu || echo "# $NO_GPU" >&3
}

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    has_gpu || skip "$NO_GPU"
    need_python "${HCB_VENV_JAX_CUDA:-$BUILD/venv-jax-cuda}" \
        'import jax, hcbtap; assert jax.devices()[0].platform == "gpu"' "jax on CUDA and hcbtap"
    TAPS=$ROOT/tests/jax/taps.py
}

teardown()
{
    _common_teardown
}

# taps.py on the GPU under hcbtrace record: $T/rec.jsonl, $T/out, $T/err
taps()
{
    "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$TAPS" "$@" >"$T/out" 2>"$T/err"
}

@test "gpu: power3 under jit on a CUDA device: the tap arrives with its values" {
    taps power3
    grep -qx 'power3 27.0' "$T/out"
    python3 - "$T/rec.jsonl" <<'PY'
import json, sys
taps = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "tap"]
assert len(taps) == 1, taps
assert [a["data"] for a in taps[0]["arrays"]] == [3.0, 9.0], taps
assert taps[0]["kwargs"] == {"what": "x,x^2"}
PY
    refute grep -q '"type":"drop"' "$T/rec.jsonl"
}

@test "gpu: three independent taps in one jitted function arrive in program order, every run" {
    taps order
    python3 - "$T/rec.jsonl" <<'PY'
import json, sys
taps = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "tap"]
assert [t["seq"] for t in taps] == list(range(900)), "gaps or reordering"
assert [t["name"] for t in taps] == ["a", "b", "c"] * 300
PY
}

@test "gpu: detached, nothing is issued and the results are the same" {
    taps power3 vmap scan
    "$PY" "$TAPS" power3 vmap scan >"$T/out.detached" 2>"$T/err.detached"
    diff "$T/out" "$T/out.detached"
    grep -qx 'issued cpu:0 0' "$T/err.detached"
}

@test "gpu: attach prints a running GPU program's taps as id_print did" {
    "$PY" "$TAPS" loop >"$T/loop.out" 2>"$T/loop.err" &
    pid=$!
    PIDS+=("$pid")
    wait_for "$T/loop.out" looping 120
    run --separate-stderr "$HCBTRACE" attach -c 2 "$pid"
    assert_success
    assert_output "device: cuda:0 what: x,x^2
( 3. 9. )
device: cuda:0 what: x,x^2
( 3. 9. )"
}

@test "gpu: with the CUPTI library injected, each tap's copy is timed on the device" {
    lib=$BUILD/hcbtap/libhcbtap_cupti.so
    [ -f "$lib" ] || { echo "no $lib: build with the CUDA toolkit's headers" >&2; return 1; }
    command -v bpftrace >/dev/null || { echo "bpftrace is needed" >&2; return 1; }
    tap=$("$PY" -c 'import hcbtap, os; print(os.path.dirname(hcbtap.__file__))')/libhcbtap.so
    # bpftrace stands in for hcbtrace's coming --cuda mode: it attaches the
    # packet probe (so the handler stages the taps) and the copy probe
    CUDA_INJECTION64_PATH=$lib timeout 300 bpftrace -q -c "$PY $TAPS order" \
        -e "usdt:$tap:hcbtap:packet { @packets = count(); }
            usdt:$lib:hcbtap_cupti:tap_copy { printf(\"copy %u %lu %lu %lu %lu %u\\n\", arg0, arg1, arg2, arg3, arg4, arg5); }" \
        >"$T/probes" 2>"$T/err"
    python3 - "$T/probes" <<'PY'
import sys
rows = [[int(v) for v in l.split()[1:]] for l in open(sys.argv[1]) if l.startswith("copy ")]
# every tap of order (900, one leaf each) timed, by its (device, seq)
assert sorted(r[1] for r in rows) == list(range(900)), len(rows)
for dev, seq, start, end, nbytes, ncopies in rows:
    assert dev == 0 and end >= start > 0 and nbytes > 0 and ncopies == 1
PY
}
