#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pytext.bats - jax.debug.print as the program prints it (issue 29): real,
# unmodified JAX programs (tests/jax/prints.py: jit, vmap, scan, ordered,
# pmap on 4 CPU devices, named and positional fields, a format spec, a
# pytree, a multi-line array, non-ASCII, numpy print options) on four
# jax/Python pairs (Python 3.10 to 3.13); every line the program wrote
# while hcbtrace was attached is in hcbtrace's output byte for byte, under
# its device
# (tests/tools/check_print_text.py compares the two files); recordings keep
# it; a str layout that does not check out shows the operands, never text;
# --no-text leaves the concatenation probe off: operands, no text.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    PROG=$ROOT/tests/jax/prints.py
    CHECK=(python3 "$ROOT/tests/tools/check_print_text.py")
}

teardown()
{
    _common_teardown
}

# start_prints VENV: the program under VENV's python, compiled and waiting
start_prints()
{
    need_python "$1" 'import jax' "jax"
    "$PY" "$PROG" "$T/go" >"$T/prog.out" 2>"$T/prog.err" &
    PR_PID=$!
    PIDS+=("$PR_PID")
    wait_for "$T/prog.out" '^ready$' 180
}

# attach_and_check VENV [VAR=VALUE...]: attached (with those in its
# environment), the program run to its end; every line it printed shown,
# per device
attach_and_check()
{
    start_prints "$1"
    env "${@:2}" "$HCBTRACE" attach "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    touch "$T/go"
    wait "$PR_PID"
    wait "$att"
    grep -q '^done$' "$T/prog.out"
    run "${CHECK[@]}" "$T/prog.out" "$T/att.txt"
    echo "# $output" >&3
    assert_success
    # every print site's text was taken: no notice of a fallback
    refute grep -q 'not shown' "$T/att.err"
}

@test "pytext: jax 0.12.0.1 on Python 3.12: every line the program printed, byte for byte, per device" {
    attach_and_check "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
}

@test "pytext: jax 0.12.0.1 on Python 3.13: every line the program printed, byte for byte, per device" {
    # Python 3.13 publishes its code and str offsets (_Py_DebugOffsets),
    # which the walker checks its table against on the running process
    attach_and_check "${HCB_VENV_JAX12_PY313:-$BUILD/venv-jax12-py313}"
    grep -Eq '^callback: step \{i\} loss=\{l:.3f\} device: cpu:0 module: jit_named op: debug_print\.[0-9]+$' "$T/att.txt"
}

@test "pytext: jax 0.10.2 on Python 3.11: every line the program printed, byte for byte, per device" {
    attach_and_check "${HCB_VENV_JAX:-$BUILD/venv-jax10}"
}

@test "pytext: jax 0.6.2 on Python 3.10: every line the program printed, byte for byte, per device" {
    # jaxlib 0.6 names every callback's custom call custom-call.N: what
    # says a site is a print is its own objects (the walk); Python 3.10
    # concatenates with PyUnicode_Append, its str has wstr; jaxlib 0.6's
    # inner function is xla::'s
    attach_and_check "${HCB_VENV_JAX6:-$BUILD/venv-jax6-py310}"
    grep -Eq '^callback: step \{i\} loss=\{l:.3f\} device: cpu:0 module: jit_named op: custom-call\.[0-9]+$' "$T/att.txt"
}

@test "pytext: recordings keep the text: replay of JSONL and .hcbcap, convert, the Python reader" {
    start_prints "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    "$HCBTRACE" record -p "$PR_PID" -o "$T/rec.hcbcap" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$PR_PID"
    touch "$T/go"
    wait "$PR_PID"
    wait "$rec"
    "$HCBTRACE" replay "$T/rec.hcbcap" >"$T/replay.txt"
    run "${CHECK[@]}" "$T/prog.out" "$T/replay.txt"
    assert_success
    "$HCBTRACE" convert "$T/rec.hcbcap" -o "$T/rec.jsonl"
    "$HCBTRACE" replay "$T/rec.jsonl" >"$T/replay2.txt"
    cmp "$T/replay.txt" "$T/replay2.txt"
    # the operands are kept beside the text
    # (the site named by its format string, XLA's op a kwarg: sites.bats)
    grep -q '"name":"step {i} loss={l:.3f}".*"op":"debug_print\.[0-9]*".*"arrays":\[{"dtype":"int32".*"text":"step 1 loss=' "$T/rec.jsonl"
    # the Python reader reads the same texts from both
    for f in rec.jsonl rec.hcbcap; do
        PYTHONPATH=$ROOT/python "$PY" -c '
import sys, hcbtap.recording as r
for t in r.records(sys.argv[1]):
    if t.kind == "tap":
        print(t.text)' "$T/$f" >"$T/$f.texts"
    done
    cmp "$T/rec.jsonl.texts" "$T/rec.hcbcap.texts"
    grep -qx 'step 1 loss=30.000' "$T/rec.jsonl.texts"
    [ "$(grep -c 'None' "$T/rec.jsonl.texts")" = 0 ]
}

@test "pytext: a str layout that does not check out: the operands as before, one notice a site, never text" {
    start_prints "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    HCBTRACE_TEST_PYSTR_SHIFT=8 "$HCBTRACE" attach "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    touch "$T/go"
    wait "$PR_PID"
    wait "$att"
    # no line of the program's own words is shown (an array's rows are
    # numpy's, in the operands too); its taps are, with operands
    sed -n '/^go$/,/^done$/p' "$T/prog.out" | sed '1d;$d' | grep '^[a-z]' | sort -u >"$T/printed"
    [ -s "$T/printed" ]
    refute grep -Fxq -f "$T/printed" "$T/att.txt"
    grep -Eq '^callback: .* device: cpu:0 module: jit_named op: debug_print\.[0-9]+$' "$T/att.txt"
    grep -Eq '^\( [0-9]+ [0-9.]+ \)$' "$T/att.txt"
    # the notice, once for a site (the session says three, then counts)
    grep -q 'debug_print\.[0-9]*: the text it printed is not shown, its operands are: none was seen' "$T/att.err"
    [ "$(grep -c 'jit_scanned\|debug_print.1: the text' "$T/att.err")" -le 1 ]
}

# sessions_on PID N: N sessions attached to PID
sessions_on()
{
    "$HCBTRACE" list 2>/dev/null | sed -n "/^$1 /,/^[0-9]/p" | grep -Eq "^  sessions: $2\$"
}

# concat_probed PID: hcbtrace process PID holds the text probe's link
concat_probed()
{
    linked "$1" pytext_concat
}

@test "pytext: HCBTRACE_TEST_TEXT=format: with no probe, every line of a provable site is the program's, byte for byte" {
    # issue 39: the line hcbtrace makes from fmt, the print options and the
    # operands, alone; the pytree site ("tree {t}") cannot be made (one
    # field, three leaves): its operands, one notice
    start_prints "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    HCBTRACE_TEST_TEXT=format "$HCBTRACE" attach "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    refute concat_probed "$att"
    touch "$T/go"
    wait "$PR_PID"
    wait "$att"
    grep -q '^done$' "$T/prog.out"
    run "${CHECK[@]}" "$T/prog.out" "$T/att.txt" --unprovable 'tree {t}'
    echo "# $output" >&3
    assert_success
    [ "$(grep -c 'not shown' "$T/att.err")" -eq 1 ]
    grep -q "cannot make its line (HCBTRACE_TEST_TEXT=format)" "$T/att.err"
    # and without it the check fails: the pytree site's lines are missing
    run "${CHECK[@]}" "$T/prog.out" "$T/att.txt"
    assert_failure
}

# provable_attach [OPTION...]: prints_provable.py attached with those
# options, run through its prints; sets PR_PID, att
provable_attach()
{
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    "$PY" "$ROOT/tests/jax/prints_provable.py" "$T/go" >"$T/prog.out" 2>"$T/prog.err" &
    PR_PID=$!
    PIDS+=("$PR_PID")
    wait_for "$T/prog.out" '^ready$' 180
    "$HCBTRACE" attach "$@" "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    concat_probed "$att"
    touch "$T/go"
    wait_for "$T/prog.err" '^printed$' 120
}

@test "pytext: every print site proven: the text probe goes off, the lines stay the program's byte for byte" {
    # issue 39: the probe on str concatenation until each print site's
    # made line equalled its probed one, then off (the concatenation
    # loop after the prints runs unprobed); --text-probe keeps it
    provable_attach
    wait_for "$T/att.err" 'the text probe on str concatenation is off' 60
    refute concat_probed "$att"
    touch "$T/go.concat"
    wait "$PR_PID"
    wait "$att"
    run "${CHECK[@]}" "$T/prog.out" "$T/att.txt"
    echo "# $output; $(grep concat "$T/prog.err")" >&3
    assert_success
    refute grep -q 'not shown\|differs' "$T/att.err"

    rm -f "$T/go" "$T/go.concat"
    provable_attach --text-probe
    concat_probed "$att"
    touch "$T/go.concat"
    wait "$PR_PID"
    wait "$att"
    run "${CHECK[@]}" "$T/prog.out" "$T/att.txt"
    echo "# --text-probe: $output; $(grep concat "$T/prog.err")" >&3
    assert_success
    refute grep -q 'probe on str concatenation is off' "$T/att.err"
}

@test "pytext: --no-text: the operands shown and recorded, no text, sites keep their names" {
    start_prints "${HCB_VENV_JAX12:-$BUILD/venv-jax12}"
    "$HCBTRACE" attach --no-text "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    "$HCBTRACE" record --no-text -p "$PR_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    retry 120 sessions_on "$PR_PID" 2
    # neither session loaded the concatenation probe; the inner
    # function's (the call's, with the callable's entry: cookie 13), which
    # names the sites, both did
    for p in "$att" "$rec"; do
        programs_of "$p" >"$T/progs.$p"
        refute grep -qx pytext_concat "$T/progs.$p"
        uprobe_links "$p" jaxffi_call | grep -q '^13 '
    done
    touch "$T/go"
    wait "$PR_PID"
    wait "$att"
    wait "$rec"
    grep -q '^done$' "$T/prog.out"
    "$HCBTRACE" replay "$T/rec.jsonl" >"$T/replay.txt"
    # no line of the program's own words, live or replayed
    sed -n '/^go$/,/^done$/p' "$T/prog.out" | sed '1d;$d' | grep '^[a-z]' | sort -u >"$T/printed"
    [ -s "$T/printed" ]
    for f in att.txt replay.txt; do
        refute grep -Fxq -f "$T/printed" "$T/$f"
        # the site by its format string (the walk still runs), its operands
        grep -Eq '^callback: step \{i\} loss=\{l:.3f\} device: cpu:0 module: jit_named op: debug_print\.[0-9]+$' "$T/$f"
        grep -Eq '^\( [0-9]+ [0-9.]+ \)$' "$T/$f"
    done
    # recorded: the operands, no text
    grep -q '"name":"step {i} loss={l:.3f}".*"arrays":\[{"dtype":"int32"' "$T/rec.jsonl"
    refute grep -q '"text":' "$T/rec.jsonl"
    # left off on purpose: no notice that the text was not seen
    refute grep -q 'not shown' "$T/att.err" "$T/rec.err"
}

@test "pytext: a callback that raises, under the probes: the program goes on; its tap has no text, a print's has" {
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    cat >"$T/raising.py" <<'PY'
import os, sys, time
import jax, jax.numpy as jnp
def bad(x):
    raise ValueError("boom")
f = jax.jit(lambda x: jax.pure_callback(bad, jax.ShapeDtypeStruct(x.shape, x.dtype), x))
@jax.jit
def g(x):
    jax.debug.print("ok {}", x)
    return x
g(jnp.ones(2))
print("ready", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.01)
for i in range(3):
    try:
        f(jnp.ones(2)).block_until_ready()
    except Exception as e:
        print("caught", type(e).__name__, flush=True)
    g(jnp.ones(2) * i)
jax.effects_barrier()
print("done", flush=True)
PY
    "$PY" "$T/raising.py" "$T/go" >"$T/prog.out" 2>"$T/prog.err" &
    PR_PID=$!
    PIDS+=("$PR_PID")
    wait_for "$T/prog.out" '^ready$' 180
    "$HCBTRACE" attach "$PR_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$PR_PID"
    touch "$T/go"
    wait "$PR_PID"
    wait "$att"
    [ "$(grep -c '^caught ' "$T/prog.out")" = 3 ]
    grep -q '^done$' "$T/prog.out"
    # the traceback jax logs in the callback is no text of its tap
    [ "$(grep -A1 '^callback: .* op: pure_callback\.[0-9]*' "$T/att.txt" | grep -c '^\[1\. 1\.\]$')" = 3 ]
    refute grep -q 'Traceback' "$T/att.txt"
    for i in 0 1 2; do grep -qx "ok \[$i\. $i\.\]" "$T/att.txt"; done
}
