#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# jaxgpu.bats - the jax-callback provider's CUDA side (src/providers/jaxcb/gpu.h) with no
# GPU: a process maps the real jax-cuda13-plugin 0.11.2 files (code mapped,
# never run: tests/tools/map_files.py) and a stand-in for the CUDA driver
# (a page of zeros named libcuda.so.1), and hcbtrace finds the handler there,
# loads its CUDA programs through the verifier and attaches them, or refuses
# in one line.  No CUDA callback runs here: that takes a GPU (scripts/gpu-check
# step 4).  The plugin comes from scripts/gpu-plugin (HCB_GPU_PLUGIN to name
# another), and the 411 MB PJRT plugin's xla_cuda_plugin.so, whose code proves
# the device ordinal, from scripts/gpu-plugin --pjrt (HCB_GPU_PJRT).

load common

setup()
{
    _common_setup
    PLUGIN=${HCB_GPU_PLUGIN:-$BUILD/gpu-wheels/jax_cuda13_plugin/cuda_plugin_extension.so}
    [ -f "$PLUGIN" ] || PLUGIN=$("$ROOT/scripts/gpu-plugin" "$BUILD/gpu-wheels")
    mkdir -p "$T/driver"
    head -c 4096 /dev/zero >"$T/driver/libcuda.so.1"
    CUDA=$T/driver/libcuda.so.1
}

teardown()
{
    _common_teardown
}

# start_mapped FILE...: a process mapping them; MAP_PID
start_mapped()
{
    python3 "$ROOT/tests/tools/map_files.py" "$T/go" "$@" >"$T/map.out" 2>&1 &
    MAP_PID=$!
    PIDS+=("$MAP_PID")
    wait_for "$T/map.out" '^mapped$' 30
}

@test "jaxgpu: the CUDA plugin without the CUDA driver is jax on CPU: not taken for a GPU" {
    start_mapped "$PLUGIN"
    run --separate-stderr "$HCBTRACE" record --provider jax-callback -p "$MAP_PID" -o "$T/rec.jsonl"
    [ "$status" = 3 ]
    [[ "$stderr" == *"has no libhcbtap loaded, nor a jaxlib whose taps hcbtrace reads"* ]]
    touch "$T/go"
}

@test "jaxgpu: the CUDA plugin without its PJRT plugin: refused in one line, the device ordinal unproven" {
    start_mapped "$PLUGIN" "$CUDA"
    run --separate-stderr "$HCBTRACE" record --provider jax-callback -p "$MAP_PID" -o "$T/rec.jsonl"
    [ "$status" = 3 ]
    [ "${#stderr_lines[@]}" = 1 ]
    [[ "$stderr" == *"cuda_plugin_extension.so is not the code hcbtrace knows: the device ordinal cannot be proven: no jax CUDA PJRT plugin (xla_cuda_plugin.so) mapped"* ]]
    touch "$T/go"
}

@test "jaxgpu: an altered plugin is refused, naming what did not check out" {
    mkdir -p "$T/jax_cuda13_plugin"
    cp "$PLUGIN" "$T/jax_cuda13_plugin/cuda_plugin_extension.so"
    # the body's one copy call (file offset 0x11b5ea) made a 5-byte nop
    printf '\x0f\x1f\x44\x00\x00' | dd of="$T/jax_cuda13_plugin/cuda_plugin_extension.so" \
        bs=1 seek=$((0x11b5ea)) conv=notrunc status=none
    start_mapped "$T/jax_cuda13_plugin/cuda_plugin_extension.so" "$CUDA"
    run --separate-stderr "$HCBTRACE" record --provider jax-callback -p "$MAP_PID" -o "$T/rec.jsonl"
    [ "$status" = 3 ]
    [ "${#stderr_lines[@]}" = 1 ]
    [[ "$stderr" == *"is not the code hcbtrace knows: "*"calls cudaMemcpyAsync 0 times before cudaStreamSynchronize, not once"* ]]
    touch "$T/go"
}

@test "jaxgpu: with the PJRT plugin, the CUDA programs pass the verifier, attach, and the session says cuda" {
    local pjrt=${HCB_GPU_PJRT:-$BUILD/gpu-wheels/jax_plugins/xla_cuda13/xla_cuda_plugin.so}
    [ -f "$pjrt" ] || pjrt=$("$ROOT/scripts/gpu-plugin" --pjrt "$BUILD/gpu-wheels")
    start_mapped "$PLUGIN" "$pjrt" "$CUDA"
    "$HCBTRACE" record --provider jax-callback -p "$MAP_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$MAP_PID" 60
    touch "$T/go"
    wait "$MAP_PID" || true
    wait "$rec"
    head -1 "$T/rec.jsonl" | grep -q '"provider":"jax-callback","platform":"cuda"'
    grep -q '"type":"end","taps":0,"drops":0' "$T/rec.jsonl"
    grep -q 'target exited' "$T/rec.err"
}

# record_late FILE...: `record -- CMD` on an unmodified JAX program that maps
# FILE... after jaxlib (tests/tools/map_late.py), as jax loads its CUDA
# plugin when it starts its backends: the session attaches on jaxlib, then
# the files come; the program then runs one jax.debug.print on the CPU.
record_late()
{
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    "$HCBTRACE" record --provider jax-callback -o "$T/rec.jsonl" -- \
        "$PY" "$ROOT/tests/tools/map_late.py" "$T/go" "$@" >"$T/map.out" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/map.out" '^jax [0-9]*$' 60
    local pid
    pid=$(sed -n 's/^jax \([0-9]*\)$/\1/p' "$T/map.out")
    PIDS+=("$pid")
    wait_session "$pid" 60
    # attached on jaxlib alone: no CUDA plugin mapped yet
    [ "$(grep -c 'after the session attached' "$T/rec.err")" = 0 ]
    touch "$T/go"
    wait_for "$T/map.out" '^mapped$' 60
    wait_for "$T/rec.err" 'after the session attached' 60
    touch "$T/go.more"
    wait "$rec"
    grep -q '^done$' "$T/map.out"
    # the session began on the CPU jaxlib, and its CPU callbacks go on
    head -1 "$T/rec.jsonl" | grep -q '"provider":"jax-callback","platform":"cpu"'
    grep -q '"type":"tap","device":0,.*"data":\[7\.0\]}\],"text":"late 7\.0"' "$T/rec.jsonl"
    grep -q '"type":"end","taps":1,"drops":0' "$T/rec.jsonl"
    [ "$(grep -c 'after the session attached' "$T/rec.err")" = 1 ]
}

@test "jaxgpu: record -- CMD takes up the CUDA plugin CMD loads after jaxlib: its CUDA programs attach then, its CPU ones go on" {
    local pjrt=${HCB_GPU_PJRT:-$BUILD/gpu-wheels/jax_plugins/xla_cuda13/xla_cuda_plugin.so}
    [ -f "$pjrt" ] || pjrt=$("$ROOT/scripts/gpu-plugin" --pjrt "$BUILD/gpu-wheels")
    record_late "$PLUGIN" "$pjrt" "$CUDA"
    # the verifier passed and the probes are in place: said once, with when
    grep -q "loaded .*/jax_cuda13_plugin/cuda_plugin_extension.so (version [^)]*) after the session attached: its cuda callbacks are read from [0-9:.]* on (any before were not seen, .*device N is cuda device N); its CPU callbacks still are$" "$T/rec.err"
}

@test "jaxgpu: record -- CMD, an altered CUDA plugin loaded after jaxlib: one line, its CPU callbacks go on" {
    local pjrt=${HCB_GPU_PJRT:-$BUILD/gpu-wheels/jax_plugins/xla_cuda13/xla_cuda_plugin.so}
    [ -f "$pjrt" ] || pjrt=$("$ROOT/scripts/gpu-plugin" --pjrt "$BUILD/gpu-wheels")
    mkdir -p "$T/jax_cuda13_plugin"
    cp "$PLUGIN" "$T/jax_cuda13_plugin/cuda_plugin_extension.so"
    printf '\x0f\x1f\x44\x00\x00' | dd of="$T/jax_cuda13_plugin/cuda_plugin_extension.so" \
        bs=1 seek=$((0x11b5ea)) conv=notrunc status=none
    record_late "$T/jax_cuda13_plugin/cuda_plugin_extension.so" "$pjrt" "$CUDA"
    grep -q "cuda_plugin_extension.so (version [^)]*) after the session attached, which is not the code hcbtrace knows: .*calls cudaMemcpyAsync 0 times before cudaStreamSynchronize, not once: its cuda callbacks are not read; its CPU callbacks still are" "$T/rec.err"
}

@test "jaxgpu: a session on a CPU jax program that never loads the CUDA plugin says nothing of it, to its end" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    "$PY" "$ROOT/tests/tools/map_late.py" "$T/go" >"$T/map.out" 2>&1 &
    PIDS+=("$!")
    wait_for "$T/map.out" '^jax [0-9]*$' 60
    local pid
    pid=$(sed -n 's/^jax \([0-9]*\)$/\1/p' "$T/map.out")
    "$HCBTRACE" record --provider jax-callback -p "$pid" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$pid" 60
    touch "$T/go" "$T/go.more"
    wait_for "$T/map.out" '^done$' 60
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    grep -q '"type":"end","taps":1,"drops":0' "$T/rec.jsonl"
    [ "$(grep -c 'after the session attached' "$T/rec.err")" = 0 ]
}
