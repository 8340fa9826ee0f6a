#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# thunkoff.bats - the probe on XLA's custom-call thunks stays only while a
# call site's naming needs it (issue 39): once the sites seen are named by
# their Python callables it goes off, their calls named alike without it,
# and a site first called after that puts it on again until it is named
# (tests/jax/thunk_phases.py).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
}

teardown()
{
    _common_teardown
}

# phases_named OUT STEPS: every call of thunk_phases.py in OUT, once, each
# named by its code and in its own module, with its value, and each print
# with its text; nothing else
phases_named()
{
    python3 - "$1" "$2" <<'PY'
import json, sys
n = int(sys.argv[2])
got, texts = {}, []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] != "tap":
        continue
    v = int(r["arrays"][0]["data"][0])
    got.setdefault((r["name"], r["kwargs"]["module"]), []).append(v)
    if r["name"] == "p={i}":
        texts.append((v, r.get("text")))
want = {("log_a", "jit_step_a"): list(range(3 * n)),
        ("p={i}", "jit_step_p"): list(range(2 * n)),
        ("log_c", "jit_step_c"): [3 * i for i in range(2 * n, 3 * n)]}
assert {k: sorted(v) for k, v in got.items()} == want, {k: len(v) for k, v in got.items()}
bad = [t for t in texts if t[1] != "p=%d" % t[0]]
assert not bad, bad[:5]
PY
}

# start_phases STEPS MODE: thunk_phases.py of STEPS steps a phase, ready,
# in $dir, its pid in $pid, recorded to $T/rec.jsonl by $rec with
# HCBTRACE_TEST_THUNK=MODE
start_phases()
{
    dir=$T/phases
    mkdir -p "$dir"
    "$PY" "$ROOT/tests/jax/thunk_phases.py" "$1" "$dir" >"$dir/prog.out" 2>&1 &
    pid=$!
    PIDS+=("$pid")
    wait_for "$dir/prog.out" '^ready$' 180
    HCBTRACE_TEST_THUNK=$2 "$HCBTRACE" record -p "$pid" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$pid"
}

@test "thunkoff: the thunk probe goes once the sites are named, and comes back for a new one" {
    local dir pid rec steps=100
    start_phases "$steps" quiet:0
    uprobe_links "$rec" jaxffi_thunk >/dev/null
    touch "$dir/go1"
    wait_for "$dir/prog.out" '^1a$' 120
    # the sites came round, each named by its callable: the probe went
    wait_for "$T/rec.err" "custom-call thunks is off" 60
    retry 10 refute uprobe_links "$rec" jaxffi_thunk
    retry 60 lines_at_least "$T/rec.jsonl" '"type":"tap"' $((2 * steps))
    python3 "$ROOT/tests/tools/site_cache.py" "$rec" "$pid" >"$T/before.sites"
    # its next 200 calls come without a thunk: none is a thunk learned
    touch "$dir/go1b"
    wait_for "$dir/prog.out" '^1b$' 120
    retry 60 lines_at_least "$T/rec.jsonl" '"type":"tap"' $((4 * steps))
    python3 "$ROOT/tests/tools/site_cache.py" "$rec" "$pid" >"$T/after.sites"
    cmp "$T/before.sites" "$T/after.sites"
    refute uprobe_links "$rec" jaxffi_thunk
    refute grep -q "thunks is on again" "$T/rec.err"
    # a site compiled now: its callable names none, the probe comes back
    touch "$dir/go2"
    wait_for "$dir/prog.out" '^2$' 120
    retry 60 lines_at_least "$T/rec.jsonl" '"type":"tap"' $((6 * steps))
    touch "$dir/end"
    wait "$pid"
    wait "$rec"
    grep -q "custom-call thunks is on again" "$T/rec.err"
    phases_named "$T/rec.jsonl" "$steps"
    refute grep -q "warning" "$T/rec.err"
}

@test "thunkoff: a program that ends right after its calls has them all named" {
    local dir pid rec steps=300
    start_phases "$steps" quiet:0
    touch "$dir/go1"
    wait_for "$dir/prog.out" '^1a$' 120
    wait_for "$T/rec.err" "custom-call thunks is off" 60
    # its last calls are read as it finalizes, its callables freed, or
    # after it is gone: each is named by its site all the same
    touch "$dir/quit" "$dir/go1b"
    wait "$pid"
    wait "$rec"
    python3 - "$T/rec.jsonl" "$steps" <<'PY'
import json, sys
n = int(sys.argv[2])
got = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "tap":
        got.setdefault((r["name"], r["kwargs"]["module"]), []).append(int(r["arrays"][0]["data"][0]))
want = {("log_a", "jit_step_a"): list(range(2 * n)), ("p={i}", "jit_step_p"): list(range(2 * n))}
assert {k: sorted(v) for k, v in got.items()} == want, {k: len(v) for k, v in got.items()}
PY
    refute grep -q "warning" "$T/rec.err"
}

@test "thunkoff: kept on, it names the same calls alike" {
    local dir pid rec steps=100
    start_phases "$steps" on
    touch "$dir/go1" "$dir/go1b" "$dir/go2"
    wait_for "$dir/prog.out" '^2$' 120
    retry 60 lines_at_least "$T/rec.jsonl" '"type":"tap"' $((6 * steps))
    uprobe_links "$rec" jaxffi_thunk >/dev/null
    touch "$dir/end"
    wait "$pid"
    wait "$rec"
    refute grep -q "custom-call thunks" "$T/rec.err"
    phases_named "$T/rec.jsonl" "$steps"
}
