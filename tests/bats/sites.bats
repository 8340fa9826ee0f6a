#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sites.bats - jax call sites named by the user's code (issue 29): a
# jax.debug.print site by its format string, a callback site by its
# function, read from the program's own Python objects; and diff pairing
# each site of two versions of a program with its own though XLA numbers
# them the other way round (tests/jax/sites_order.py), and of a program
# that ends right after its calls (tests/jax/sites_short.py); and a site's
# names read once, its later calls sent without them
# (tests/jax/sites_repeat.py).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_JAX12:-$BUILD/venv-jax12}" 'import jax' "jax"
    PROG=$ROOT/tests/jax/sites_order.py
}

teardown()
{
    _common_teardown
}

# record_order ORDER OUT: the program in ORDER, recorded whole to OUT
record_order()
{
    local dir=$T/$1
    mkdir -p "$dir"
    "$PY" "$PROG" "$1" "$dir/go" "$dir/end" >"$dir/prog.out" 2>"$dir/prog.err" &
    local pid=$!
    PIDS+=("$pid")
    wait_for "$dir/prog.out" '^ready$' 180
    "$HCBTRACE" record -p "$pid" -o "$2" 2>"$dir/rec.err" &
    local rec=$!
    PIDS+=("$rec")
    wait_session "$pid"
    touch "$dir/go"
    wait_for "$dir/prog.out" '^done$' 120
    # 4 sites x 3 steps, each written before the program may end
    retry 60 lines_at_least "$2" '"type":"tap"' 12
    touch "$dir/end"
    wait "$pid"
    wait "$rec"
}

@test "sites: prints named by their format strings, callbacks by their functions, the op kept" {
    record_order ab "$T/ab.jsonl"
    # the consumers' names and kwargs, as recorded
    grep -q '"name":"loss {l:.3f}","kwargs":{"callback":"loss {l:.3f}"' "$T/ab.jsonl"
    grep -q '"name":"grad {g}"' "$T/ab.jsonl"
    grep -q '"name":"log_loss"' "$T/ab.jsonl"
    grep -q '"name":"log_grad"' "$T/ab.jsonl"
    grep '"name":"log_loss"' "$T/ab.jsonl" | grep -q "\"file\":\"$PROG\""
    grep '"name":"log_loss"' "$T/ab.jsonl" | grep -q '"line":"25"'
    # XLA's op: debug_print.N (custom-call.N in older jaxlibs)
    grep '"name":"loss {l:.3f}"' "$T/ab.jsonl" | grep -Eq '"op":"[a-z_-]+\.[0-9]+"'
    # no site kept XLA's name
    refute grep -q "keeps XLA's name" "$T/ab/rec.err"
}

@test "sites: diff pairs each call site of two versions with its own, whatever XLA numbers them" {
    record_order ab "$T/ab.jsonl"
    record_order ba "$T/ba.jsonl"
    # XLA's numbering moved: the loss print is another op in each
    op_ab=$(grep -o '"name":"loss {l:.3f}","kwargs":{"callback":"loss {l:.3f}","op":"[^"]*"' "$T/ab.jsonl" | head -1)
    op_ba=$(grep -o '"name":"loss {l:.3f}","kwargs":{"callback":"loss {l:.3f}","op":"[^"]*"' "$T/ba.jsonl" | head -1)
    echo "# ab: $op_ab; ba: $op_ba" >&3
    [ -n "$op_ab" ]
    [ -n "$op_ba" ]
    [ "$op_ab" != "$op_ba" ]
    run "$HCBTRACE" diff "$T/ab.jsonl" "$T/ba.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial "12 pairs compared, 12 same, 0 differ; 0 missing, 0 extra"
}

@test "sites: a program that ends right after its calls: every run's sites named by its code, diff pairs all" {
    for i in 1 2 3; do
        "$HCBTRACE" record -o "$T/short$i.jsonl" -- "$PY" "$ROOT/tests/jax/sites_short.py" \
            >"$T/short$i.out" 2>"$T/short$i.err"
        [ "$(grep -c '"type":"tap"' "$T/short$i.jsonl")" = 6 ]
        grep -q '"name":"x {x}","kwargs":{"callback":"x {x}"' "$T/short$i.jsonl"
        grep -q '"name":"log_x","kwargs":{"callback":"log_x"' "$T/short$i.jsonl"
        refute grep -q "keeps XLA's name" "$T/short$i.err"
    done
    run "$HCBTRACE" diff "$T/short1.jsonl" "$T/short3.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial "6 pairs compared, 6 same, 0 differ; 0 missing, 0 extra"
}

@test "sites: a program hcbtrace started waits, stopped, for its sites' names: a reader 3 s late names them all" {
    # the session takes 3 s over the first callable's entry it reads, as
    # a reader slow to wake on a loaded machine would; the program, held
    # at each new site's first call, cannot end first
    HCBTRACE_TEST_HOLD=slow:3000 "$HCBTRACE" record -o "$T/held.jsonl" -- \
        "$PY" "$ROOT/tests/jax/sites_short.py" >"$T/held.out" 2>"$T/held.err"
    [ "$(grep -c '"type":"tap"' "$T/held.jsonl")" = 6 ]
    [ "$(grep -c '"name":"x {x}","kwargs":{"callback":"x {x}"' "$T/held.jsonl")" = 3 ]
    [ "$(grep -c '"name":"log_x","kwargs":{"callback":"log_x"' "$T/held.jsonl")" = 3 ]
    refute grep -q "keeps XLA's name" "$T/held.err"
    # the control: not held, as a process attached to is, the same slow
    # reader finds the callables gone
    HCBTRACE_TEST_HOLD="off slow:3000" "$HCBTRACE" record -o "$T/unheld.jsonl" -- \
        "$PY" "$ROOT/tests/jax/sites_short.py" >"$T/unheld.out" 2>"$T/unheld.err"
    [ "$(grep -c '"type":"tap"' "$T/unheld.jsonl")" = 6 ]
    grep -q "keeps XLA's name: its Python callable was gone" "$T/unheld.err"
    refute grep -q '"name":"log_x"' "$T/unheld.jsonl"
}

# record_repeat MODE OUT [ARGS...]: tests/jax/sites_repeat.py's 2 x 150
# calls recorded to OUT (with record's ARGS), HCBTRACE_TEST_SITES=MODE (""
# for none; a word it does not know only names the run); the sites the
# probe learned, as tests/tools/site_cache.py reads them, in $T/MODE.sites,
# the programs hcbtrace held in $T/MODE.progs, where the call's and the
# callable's probes sat ("COOKIE OFFSET") in $T/MODE.call and $T/MODE.inner
record_repeat()
{
    local dir=$T/repeat-${1:-default} mode=$1 out=$2
    shift 2
    mkdir -p "$dir"
    "$PY" "$ROOT/tests/jax/sites_repeat.py" 150 "$dir/go" "$dir/end" >"$dir/prog.out" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait_for "$dir/prog.out" '^ready$' 180
    HCBTRACE_TEST_SITES=$mode "$HCBTRACE" record -p "$pid" -o "$out" "$@" 2>"$dir/rec.err" &
    local rec=$!
    PIDS+=("$rec")
    wait_session "$pid"
    touch "$dir/go"
    wait_for "$dir/prog.out" '^done$' 120
    retry 60 lines_at_least "$out" '"type":"tap"' 300
    python3 "$ROOT/tests/tools/site_cache.py" "$rec" "$pid" >"$T/${mode:-default}.sites"
    programs_of "$rec" >"$T/${mode:-default}.progs"
    uprobe_links "$rec" jaxffi_call >"$T/${mode:-default}.call" || :
    uprobe_links "$rec" jaxffi_inner >"$T/${mode:-default}.inner" || :
    touch "$dir/end"
    wait "$pid"
    wait "$rec"
}

# each_call_named OUT: 150 taps of log_a (0 .. 149) and of log_b (0, 2,
# .. 298) in OUT, each named by its function, in its own module; nothing else
each_call_named()
{
    python3 - "$1" <<'PY'
import json, sys
got = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] != "tap":
        continue
    kw = r["kwargs"]
    got.setdefault((r["name"], kw["module"]), []).append(int(r["arrays"][0]["data"][0]))
want = {("log_a", "jit_step_a"): list(range(150)), ("log_b", "jit_step_b"): list(range(0, 300, 2))}
assert {k: sorted(v) for k, v in got.items()} == want, {k: len(v) for k, v in got.items()}
PY
}

@test "sites: a site's names are read once, its later calls named alike; a thunk that reads otherwise is read whole" {
    record_repeat "" "$T/default.jsonl"
    each_call_named "$T/default.jsonl"
    # the probe holds both sites, as their taps name them, and sent most
    # of their calls without the names (all but those before it learned)
    op_a=$(grep -m1 '"name":"log_a"' "$T/default.jsonl" | sed 's/.*"op":"\([^"]*\)".*/\1/')
    op_b=$(grep -m1 '"name":"log_b"' "$T/default.jsonl" | sed 's/.*"op":"\([^"]*\)".*/\1/')
    [ "$(cut -d' ' -f1,2 "$T/default.sites")" = \
      "$(printf '%s jit_step_a\n%s jit_step_b\n' "$op_a" "$op_b" | sort)" ]
    [ "$(awk '$3 >= 100' "$T/default.sites" | wc -l)" = 2 ]
    refute grep -q "warning" "$T/repeat-default/rec.err"
    # every thunk as if freed and another's at its address since: no call
    # is taken for the site learned, each is read whole and named the same
    record_repeat stale "$T/stale.jsonl"
    each_call_named "$T/stale.jsonl"
    [ "$(awk '$3 == 0' "$T/stale.sites" | wc -l)" = 2 ]
    refute grep -q "warning" "$T/repeat-stale/rec.err"
    # and none learned: as before
    record_repeat off "$T/off.jsonl"
    each_call_named "$T/off.jsonl"
    [ ! -s "$T/off.sites" ]
}

@test "sites: a callback's call is probed where its callable is, one trap and one program for both; or on its handler, alike" {
    # on the handler itself (as where no inner function is known): a trap
    # more, the callable's entry a program of its own at the inner function
    HCBTRACE_TEST_JAXFFI_INNER=handler record_repeat handler "$T/handler.jsonl"
    each_call_named "$T/handler.jsonl"
    inner=$(awk '{print $2}' "$T/handler.inner")
    [ -n "$inner" ]
    grep -q "^1 " "$T/handler.call"
    refute grep -q " $inner\$" "$T/handler.call"
    [ "$(awk '$3 >= 100' "$T/handler.sites" | wc -l)" = 2 ]
    refute grep -q "warning" "$T/repeat-handler/rec.err"
    # by default the call's probe (cookie 13: the Python handler's, at its
    # inner function, with the entry) sits where the callable is, the
    # entry's program not loaded: the same calls, named alike
    record_repeat "" "$T/default.jsonl"
    each_call_named "$T/default.jsonl"
    grep -qx "13 $inner" "$T/default.call"
    [ ! -s "$T/default.inner" ]
    refute grep -qx jaxffi_inner "$T/default.progs"
    refute grep -q "warning" "$T/repeat-default/rec.err"
}

@test "sites: at the inner function, a frame that does not prove itself is a counted loss, never a value" {
    # the frame read 8 bytes off where the inner function's args say it
    # is: no call proves it, each is counted lost, none is shown
    local dir=$T/shift
    mkdir -p "$dir"
    "$PY" "$ROOT/tests/jax/sites_repeat.py" 150 "$dir/go" "$dir/end" >"$dir/prog.out" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait_for "$dir/prog.out" '^ready$' 180
    HCBTRACE_TEST_JAXFFI_INNER=shift "$HCBTRACE" record -p "$pid" -o "$dir/rec.jsonl" \
        2>"$dir/rec.err" &
    local rec=$!
    PIDS+=("$rec")
    wait_session "$pid"
    touch "$dir/go"
    wait_for "$dir/prog.out" '^done$' 120
    touch "$dir/end"
    wait "$pid"
    wait "$rec"
    grep -q "target exited: 0 taps .* 0 written, 300 lost" "$dir/rec.err"
    grep -q "(no device) .* 300 dropped" "$dir/rec.err"
    refute grep -q '"type":"tap"' "$dir/rec.jsonl"
}

@test "sites: --no-text probes no return: each call goes at its entry, named by its function" {
    # the return probe (a uretprobe, two traps a call) ends a print's text;
    # with no text to wait for it is not loaded
    record_repeat "" "$T/default.jsonl"
    grep -qx jaxffi_inner_ret "$T/default.progs"
    record_repeat notext "$T/notext.jsonl" --no-text
    each_call_named "$T/notext.jsonl"
    grep -qx "13 .*" "$T/notext.call"
    refute grep -qx jaxffi_inner_ret "$T/notext.progs"
    [ "$(awk '$3 >= 100' "$T/notext.sites" | wc -l)" = 2 ]
    refute grep -q "warning" "$T/repeat-notext/rec.err"
}

@test "sites: a busy program of callbacks alone: the text probe goes; Ctrl-C loses no call's names" {
    local dir=$T/busy
    mkdir -p "$dir"
    touch "$dir/go"
    "$PY" "$ROOT/tests/jax/sites_repeat.py" 1000000 "$dir/go" "$dir/end" >"$dir/prog.out" 2>&1 &
    local pid=$!
    PIDS+=("$pid")
    wait_for "$dir/prog.out" '^ready$' 180
    "$HCBTRACE" record -p "$pid" -o "$dir/rec.jsonl" 2>"$dir/rec.err" &
    local rec=$!
    PIDS+=("$rec")
    retry 60 lines_at_least "$dir/rec.jsonl" '"type":"tap"' 300
    # callbacks alone, round and round: the probe on every str
    # concatenation of the program goes, said once (issue 39)
    wait_for "$dir/rec.err" "callbacks came round with no print among them" 60
    [ "$(grep -c "text probe" "$dir/rec.err")" = 1 ]
    # and the return probe with it (a call goes at its entry): the entry,
    # the call's probe's, stays
    retry 60 refute linked "$rec" jaxffi_inner_ret
    refute linked "$rec" pytext_concat
    [ "$(uprobe_links "$rec" jaxffi_call | awk '$1 == 13' | wc -l)" = 1 ]
    retry 60 lines_at_least "$dir/rec.jsonl" '"type":"tap"' 1000
    kill -INT "$rec"
    wait "$rec"
    # each probe goes after what needs it: the handler's first
    refute grep -q "warning" "$dir/rec.err"
    grep -q "interrupted: .* 0 lost" "$dir/rec.err"
    [ -z "$(grep '"type":"tap"' "$dir/rec.jsonl" | grep -v '"name":"log_[ab]"')" ]
    kill "$pid"
}
