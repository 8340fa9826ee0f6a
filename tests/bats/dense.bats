#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# dense.bats - every call of a dense jax program named and whole (issue
# 36): tests/jax/dense.py prints and calls back from jit, scan, vmap,
# ordered=True and pmap over 4 CPU devices, thousands of calls a second on
# several threads, and is recorded by pid while it runs; every site has
# one name, its own, every line it printed is shown as printed, every
# value its callbacks were handed is recorded (tests/tools/check_dense.py
# compares), with no warning and nothing over a bound: alone, with a CPU
# hog on each core, and with calls whose thunk was not seen.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax, ml_dtypes' "jax and ml_dtypes"
    PROG=$ROOT/tests/jax/dense.py
    CHECK=("$PY" "$ROOT/tests/tools/check_dense.py")
}

teardown()
{
    _common_teardown
}

# hog: a `yes` on each core, started by pid (killed by pid in teardown)
hog()
{
    local i
    for i in $(seq "$(nproc)"); do
        yes >/dev/null &
        PIDS+=($!)
    done
}

# record_dense [VAR=VALUE...]: the program running, recorded by pid (with
# those in hcbtrace's environment) from the middle of its run, then 40
# rounds under the probes, then it ends; the recording checked
record_dense()
{
    "$PY" "$PROG" "$T/go" "$T/stop" "$T/truth.jsonl" --rounds 40 >"$T/prog.out" 2>"$T/prog.err" &
    local pid=$!
    PIDS+=("$pid")
    wait_for "$T/prog.out" '^running$' 240
    env "$@" "$HCBTRACE" record -p "$pid" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    local rec=$!
    PIDS+=("$rec")
    wait_session "$pid" 240
    touch "$T/go"
    wait_for "$T/prog.out" '^done ' 600
    touch "$T/stop"
    wait "$pid"
    wait "$rec"
    grep -q '^end [1-9]' "$T/prog.out"
    grep -q 'target exited' "$T/rec.err"
    run "${CHECK[@]}" "$T/prog.out" "$T/truth.jsonl" "$T/rec.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial " 0 named by no site, 0 prints without text, 0 drops;"
    # every call taken: none lost, none over a bound, not one warning
    grep -Eq 'written, 0 lost$' "$T/rec.err"
    refute grep -qi 'over a bound' "$T/rec.err"
    refute grep -q 'warning' "$T/rec.err"
}

@test "dense: attached mid-run, every site one name, every line as printed, every value" {
    record_dense
}

@test "dense: attached mid-run with a CPU hog on each core, every site one name, every line, every value" {
    hog
    record_dense
}

@test "dense: calls whose thunk was not seen are named by their callables, whole" {
    # one thunk in four passed over, as a call begun before the probe was
    # in place: each such call named as its callable's site, not after
    # its index, its text and values its own
    record_dense HCBTRACE_TEST_JAXFFI_NOTHUNK=4
}
