#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# scripts/gpu-check, the check a GPU machine runs from a bundle, kept working
# on machines without one.  It runs from the normal build (--build) rather
# than a bundle, so no bundle is rebuilt here; a stand-in nvidia-smi makes
# "no GPU" (or one GPU) the same on every machine.

load common

setup()
{
    _common_setup
    mkdir -p "$T/bin"
}

teardown()
{
    _common_teardown
}

# stand_in_smi none|one: an nvidia-smi that finds no GPU, or one
stand_in_smi()
{
    if [ "$1" = none ]; then
        printf '#!/bin/sh\necho "No devices were found"\nexit 6\n' >"$T/bin/nvidia-smi"
    else
        printf '#!/bin/sh\ncase "$*" in *query-gpu*) echo "Stand-in GPU, 0.0, 0 MiB";; *) echo "GPU 0: Stand-in GPU";; esac\n' \
            >"$T/bin/nvidia-smi"
    fi
    chmod +x "$T/bin/nvidia-smi"
}

@test "gpu-check: without a GPU the BPF probe passes, every GPU step says why not, exit 0" {
    stand_in_smi none
    PATH=$T/bin:$PATH run --separate-stderr timeout 120 "$ROOT/scripts/gpu-check" --build "$BUILD" "$T/out"
    assert_success
    assert_line --regexp '^1 machine: pass: BPF programs and uprobes load \(hcb-example: ok: 50 taps from 2 devices match the truth\); kernel .*; no GPU \(nvidia-smi finds none\)$'
    assert_line '2 hcbtap-cuda: not possible here: no GPU (nvidia-smi finds none)'
    assert_line '3 record-cuda: not possible here: no GPU (nvidia-smi finds none)'
    assert_line '4 jax-callbacks: not possible here: no GPU (nvidia-smi finds none)'
    assert_line '5 staging: not possible here: no GPU (nvidia-smi finds none)'
    assert_line --regexp '^result: 0 failed, 1 passed, 4 not possible here'
    # the summary is what was printed, and the probe's recording is kept
    diff <(grep -E '^[0-9] |^result' <<<"$output") "$T/out/summary.txt"
    [ -s "$T/out/1-machine/probe.jsonl" ]
}

@test "gpu-check: its GPU steps, run on CPU devices, pass what a CPU can and fail what needs CUDA" {
    # HCB_GPU_TAPS_ANY=1 lets tests/gpu/gpu_taps.py use jax's CPU device:
    # this tests the check's own plumbing (records, truths, accounting),
    # and that the CUDA-only properties are not passed without CUDA
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, hcbtap' "jax >= 0.11 and hcbtap"
    stand_in_smi one
    PATH=$T/bin:$PATH HCB_GPU_TAPS_ANY=1 HCB_PYTHON=$PY run --separate-stderr timeout 300 \
        "$ROOT/scripts/gpu-check" --build "$BUILD" "$T/out"
    assert_failure 1
    assert_line --regexp '^1 machine: pass: .*1 GPU\(s\): Stand-in GPU.*CpuDevice'
    assert_line '2 hcbtap-cuda: pass: jit: 120 taps on 1 device(s) in program order, equal to the truth; pmap: not possible here: one GPU'
    assert_line --regexp '^3 record-cuda: fail: jit: device 0 seq 0: copy_ns None is not 0 < start <= end <= ts_ns'
    # (on CPU devices step 4's program is read by the provider's CPU probes)
    assert_line '4 jax-callbacks: pass: 30 taps on 1 device(s) in program order, equal to the truth (record exit 0)'
    assert_line "5 staging: fail: 1 MiB of staging; burst: device 0: no drop for 'device staging full' in the burst (drops: [])"
    assert_line --regexp '^result: 2 failed, 3 passed, 0 not possible here'
}
