#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Unmodified host_callback programs on jaxlib 0.4.31's legacy CPU outfeed
# (JAX_HOST_CALLBACK_OUTFEED=1), real jax and jaxlib from PyPI in the test
# venv: hcbtrace attaches by pid and decodes the real packets (src/providers/outfeed/outfeed.h).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV:-$BUILD/venv}" 'import jax; assert jax.__version__ == "0.4.31"' "jax 0.4.31"
    PROG=$ROOT/tests/jax/legacy.py
}

teardown()
{
    _common_teardown
}

# start_legacy: the program, compiled and waiting for $T/go; sets LEG_PID
start_legacy()
{
    JAX_HOST_CALLBACK_OUTFEED=1 XLA_FLAGS=--xla_force_host_platform_device_count=2 \
        "$PY" "$PROG" "$T/go" >"$T/prog.out" 2>"$T/prog.err" &
    LEG_PID=$!
    PIDS+=("$LEG_PID")
    wait_for "$T/prog.out" '^ready$' 120
}

@test "legacy: id_print under jit and pmap on 2 CPU devices, attached by pid: the program's values, per device" {
    start_legacy
    "$HCBTRACE" attach "$LEG_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$LEG_PID"
    touch "$T/go"
    wait "$LEG_PID"
    wait "$att"
    grep -q 'target exited' "$T/att.err"
    run python3 "$ROOT/tests/tools/compare_idprint_blocks.py" "$T/prog.out" "$T/att.txt"
    echo "$output" >&3
    assert_success
    assert_line "device TFRT_CPU_0: 5 taps, the same values"
    assert_line "device TFRT_CPU_1: 1 taps, the same values"
    # the id_print layout, with what the packets hold: consumer id and device
    grep -Eq '^consumer: [0-9]+ device: TFRT_CPU_1$' "$T/att.txt"
    grep -qx '( 7. 49. )' "$T/att.txt"
    # the program's own printing is undisturbed: all its taps, in its own words
    [ "$(sed -n '/^ready$/,/^done$/p' "$T/prog.out" | grep -c '^device: TFRT_CPU_0 what: x,x^2$')" = 4 ]
    grep -qx ' \[ 6.  8. 10.\]\]' "$T/prog.out"
}

@test "legacy: record, replay, convert and diff work on a legacy session; list recognises it" {
    start_legacy
    run "$HCBTRACE" list
    assert_success
    section=$(sed -n "/^$LEG_PID /,/^[0-9]/p" <<<"$output")
    grep -q '^  library: .*/jaxlib/xla_extension\.so$' <<<"$section"
    grep -q "^  jaxlib 0.4.31: host_callback's outfeed" <<<"$section"
    "$HCBTRACE" record -p "$LEG_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$LEG_PID"
    # barrier needs libhcbtap's counters: it says so
    run --separate-stderr "$HCBTRACE" barrier "$LEG_PID"
    assert_failure 3
    [[ "$stderr" == *"taps through jaxlib 0.4.31's legacy outfeed"*"barrier needs libhcbtap"* ]]
    touch "$T/go"
    wait "$LEG_PID"
    wait "$rec"
    grep -q '"platform":"TFRT_CPU_%u"' "$T/rec.jsonl"
    grep -q '"name":"consumer-[0-9]*","kwargs":{"consumer":"[0-9]*"},"tree":"( \* \* )"' "$T/rec.jsonl"
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/replay.txt"
    run python3 "$ROOT/tests/tools/compare_idprint_blocks.py" "$T/prog.out" "$T/replay.txt"
    assert_success
    run "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/rec.hcbcap"
    assert_success
    run "$HCBTRACE" diff "$T/rec.jsonl" "$T/rec.hcbcap"
    assert_success
    # .npz members are named by the devices' own names
    run "$HCBTRACE" convert "$T/rec.jsonl" -o "$T/rec.npz"
    assert_success
    unzip -l "$T/rec.npz" | grep -Eq ' consumer-[0-9]+/TFRT_CPU_1/000000_1\.npy$'
}

@test "legacy: record -- CMD attaches as soon as CMD maps jaxlib: every tap, and CMD's exit status" {
    touch "$T/go"
    JAX_HOST_CALLBACK_OUTFEED=1 XLA_FLAGS=--xla_force_host_platform_device_count=2 \
        run --separate-stderr "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$PROG" "$T/go"
    assert_success
    printf '%s\n' "$output" >"$T/prog.out"
    [[ "$stderr" == *"target exited"* ]]
    # and says what of such a program it does not read, once
    [ "$(grep -c "runs jaxlib 0.4.31: only host_callback's outfeed taps (id_tap, id_print) are read: jax.debug.print and JAX's other callbacks are read by --provider jax-callback (one provider a session)" <<<"$stderr")" = 1 ]
    "$HCBTRACE" replay --no-wait "$T/rec.jsonl" >"$T/replay.txt"
    # the compile-time taps before "ready" too: hcbtrace was attached before XLA compiled
    run python3 "$ROOT/tests/tools/compare_idprint_blocks.py" "$T/prog.out" "$T/replay.txt" --all
    echo "$output" >&3
    assert_success
    assert_line "device TFRT_CPU_0: 8 taps, the same values"
    assert_line "device TFRT_CPU_1: 2 taps, the same values"
}

@test "legacy: an unsupported jaxlib is named in one clear line with the supported versions" {
    # a process that maps a "jaxlib/xla_extension.so" of another version
    mkdir -p "$T/fake/jaxlib"
    # any plain shared library will do (not an ASan-built one: python has no ASan runtime)
    cp "$(ldconfig -p | awk '/libz\.so\.1 / { print $NF; exit }')" "$T/fake/jaxlib/xla_extension.so"
    echo '_version = "0.4.99"' >"$T/fake/jaxlib/version.py"
    python3 -c 'import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); print("up", flush=True); time.sleep(60)' \
        "$T/fake/jaxlib/xla_extension.so" >"$T/fake.out" &
    fake=$!
    PIDS+=("$fake")
    wait_for "$T/fake.out" up
    run --separate-stderr "$HCBTRACE" attach "$fake"
    assert_failure 3
    [ "${#lines[@]}" = 0 ]
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ "$stderr" == "hcbtrace: process $fake ("*"/jaxlib/xla_extension.so) runs jaxlib 0.4.99, whose outfeed hcbtrace cannot read; supported jaxlib versions: 0.4.31 (host_callback's outfeed); JAX's callbacks (jax.debug.print and its kin): 0.4.26 and later" ]]
    run "$HCBTRACE" list
    grep -q "^  jaxlib 0.4.99: not supported (supported jaxlib versions: 0.4.31 (host_callback's outfeed); JAX's callbacks (jax.debug.print and its kin): 0.4.26 and later)$" <<<"$output"
}
