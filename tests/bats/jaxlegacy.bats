#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# jaxlegacy.bats - JAX's callbacks on a jaxlib before 0.6 (jax.debug.print,
# jax.debug.callback, io_callback, pure_callback as the legacy custom call
# xla_python_cpu_callback: src/providers/jaxcb/legacy.h), unmodified, on the jax 0.4.31
# of the tests' venv: under XLA's classic CPU runtime (its default: the
# device from the run, sites named by descriptor) and under the thunk
# runtime (the device and names from the thunk).  Every value checked
# against what the program's callbacks were handed (tests/jax/modern.py,
# tests/tools/check_jaxffi_truth.py).  The other releases from 0.4.26 to
# 0.5.3 are scripts/jax-matrix's (docs/COMPATIBILITY.md).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV:-$BUILD/venv}" \
        'import jax, ml_dtypes; assert jax.__version__ == "0.4.31"' "jax 0.4.31 and ml_dtypes"
    PROG=$ROOT/tests/jax/modern.py
    CHECK=("$PY" "$ROOT/tests/tools/check_jaxffi_truth.py")
}

teardown()
{
    _common_teardown
}

# record_and_check: record it by pid through the callbacks' provider (on
# 0.4.31 the outfeed one answers first), let it run to its end, and check
# every value; the check's summary in $output
record_and_check()
{
    "$HCBTRACE" record --provider jax-callback -p "$MOD_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$MOD_PID"
    touch "$T/go"
    wait "$MOD_PID"
    grep -q '^done [1-9][0-9]*$' "$T/prog.out"
    refute grep -qi 'error\|traceback' "$T/prog.err"
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    run "${CHECK[@]}" "$T/truth.jsonl" "$T/rec.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial ", 0 mismatches"
    head -1 "$T/rec.jsonl" | grep -q '"provider":"jax-callback","platform":"cpu"'
    for d in 0 1 2 3; do grep -q "\"type\":\"tap\",\"device\":$d," "$T/rec.jsonl"; done
}

@test "legacy callbacks, classic runtime: every value the program passed, on its device; sites by descriptor" {
    start_modern
    record_and_check
    # no thunk: no op or module names exist at the call, and none is made up
    assert_output --partial "said unknown"
    grep -q '"name":"callback\.1","kwargs":{"callback":"callback\.1","module":"unknown"}' \
        "$T/rec.jsonl"
    refute grep -q '"name":"custom-call' "$T/rec.jsonl"
}

@test "legacy callbacks, thunk runtime: every value, on its device, named by op and module" {
    XLA_FLAGS=--xla_cpu_use_thunk_runtime=true start_modern
    record_and_check
    refute_output --partial "said unknown"
    grep -q '"name":"custom-call\.[0-9]*","kwargs":{"callback":"custom-call\.[0-9]*","module":"jit_' \
        "$T/rec.jsonl"
}

@test "legacy callbacks: a descriptor that does not read as one is refused in one line; detached or killed, the program runs on" {
    start_modern --until "$T/stop"
    touch "$T/go"
    # Arg read a word too long: no descriptor's vectors hold whole ones
    HCBTRACE_TEST_JAXFFI_SHIFT=8 run --separate-stderr "$HCBTRACE" attach --provider jax-callback "$MOD_PID"
    assert_failure 3
    # attached mid-run, a call under way has no run seen: it is counted on
    # no device and said once, before the refusal if it came first (as
    # unshifted); besides that, the refusal is all
    refusal=$(grep -v '^hcbtrace: warning: calls whose device is not known ' <<<"$stderr")
    [ "$(wc -l <<<"$refusal")" = 1 ]
    [[ "$refusal" == "hcbtrace: process $MOD_PID ("*") runs jaxlib 0.4.31, whose callbacks did not pass hcbtrace's layout check: the callback descriptor at 0x"*" does not read as xla::CpuCallback: "*"; hcbtrace reads no more of it" ]]
    [ "$(wc -l <<<"$stderr")" -le 2 ]
    [ -z "$output" ]
    # unshifted, the next attach reads it; detached, it runs to its end
    run --separate-stderr "$HCBTRACE" attach --provider jax-callback -f jsonl -c 5 "$MOD_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" = 5 ]
    # killed, its probes go with it
    "$HCBTRACE" record --provider jax-callback -p "$MOD_PID" -o "$T/killed.jsonl" 2>/dev/null &
    rec=$!
    wait_for "$T/killed.jsonl" '"type":"tap"' 60
    kill -9 "$rec"
    wait "$rec" || true
    touch "$T/stop"
    wait "$MOD_PID"
    grep -q '^done [1-9]' "$T/prog.out"
    refute grep -qi 'error\|traceback' "$T/prog.err"
}

@test "legacy callbacks: a jaxlib whose host_callback taps are outfeed hcbtrace cannot read says so once" {
    # a process mapping a "jaxlib/xla_extension.so" of 0.4.27 that has the
    # legacy callback's function: attached, it is told host_callback's
    # outfeed (jax's default for id_print up to 0.4.33) is not read there
    mkdir -p "$T/fake/jaxlib"
    printf '%s\n' 'void cb(void *o, void **in, void *st) __asm__("_ZN3xla20XlaPythonCpuCallbackEPvPS0_P20XlaCustomCallStatus_");' \
        'void cb(void *o, void **in, void *st) { (void)o; (void)in; (void)st; }' >"$T/fake/cb.c"
    cc -shared -fPIC -o "$T/fake/jaxlib/xla_extension.so" "$T/fake/cb.c"
    echo '_version = "0.4.27"' >"$T/fake/jaxlib/version.py"
    python3 -c 'import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); print("up", flush=True); time.sleep(60)' \
        "$T/fake/jaxlib/xla_extension.so" >"$T/fake.out" &
    fake=$!
    PIDS+=("$fake")
    wait_for "$T/fake.out" up
    "$HCBTRACE" attach "$fake" >"$T/att.out" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_for "$T/att.err" "host_callback's outfeed taps"
    kill -INT "$att"
    wait "$att" || true
    [ "$(grep -c "^hcbtrace: warning: process $fake runs jaxlib 0.4.27: host_callback's outfeed taps (id_tap, id_print, jax's default for them up to 0.4.33) are not read on it, only on jaxlib 0.4.31; JAX_HOST_CALLBACK_LEGACY=False in the program makes them callbacks, which are$" "$T/att.err")" = 1 ]
    # and `list` names the provider that answers
    run "$HCBTRACE" list
    grep -q "^  jaxlib 0.4.27: JAX's callbacks" <<<"$output"
}
