#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# modern.bats - unmodified modern JAX programs (jax.debug.print,
# jax.debug.callback, io_callback, pure_callback, buffer_callback), real jax
# and jaxlib from PyPI: hcbtrace attaches through the jax-callback provider
# (src/providers/jaxcb/jaxcb.h) and every value it writes is checked against what the
# program's own callbacks were handed (tests/jax/modern.py writes that
# truth; tests/tools/check_jaxffi_truth.py compares).  Run once per jax
# version: HCB_VENV_MODERN names the venv (scripts/test: jax 0.10.2 on
# Python 3.11, and the newest jax on Python 3.12).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" \
        'import jax, ml_dtypes' "jax and ml_dtypes"
    PROG=$ROOT/tests/jax/modern.py
    CHECK=("$PY" "$ROOT/tests/tools/check_jaxffi_truth.py")
}

teardown()
{
    _common_teardown
}

# site_re KIND DEVICE MODULE: a header's words after "callback: " for a
# call site of KIND (debug_print, pure_callback...): named by its op, or by
# the user's code with the op a kwarg (issue 29: file and line for a
# callback, ordered for an ordered print)
site_re()
{
    echo "($1\\.[0-9]+ device: $2 module: $3|.+ device: $2 (file: .+ line: [0-9]+ )?module: $3 op: $1\\.[0-9]+( ordered: true)?)"
}

# finish_modern: let it run, wait for it; it must end well
finish_modern()
{
    touch "$T/go"
    wait "$MOD_PID"
    grep -q '^done [1-9][0-9]*$' "$T/prog.out"
}

@test "modern jax: attached by pid, every callback kind under jit, vmap, scan, while, cond, grad, pmap: each value the program passed, on its device" {
    start_modern
    "$HCBTRACE" record -p "$MOD_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_session "$MOD_PID"
    finish_modern
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    # every call a tap, or lost as counted (a loaded machine loses some)
    run "${CHECK[@]}" "$T/truth.jsonl" "$T/rec.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial ", 0 mismatches"
    # the session says how its taps were taken
    head -1 "$T/rec.jsonl" | grep -q '"provider":"jax-callback","platform":"cpu"'
    # the dtypes and the 1 Mi-element operand are among them, on four devices
    for dt in bfloat16 float16 int8 bool float32; do
        grep -q "\"dtype\":\"$dt\"" "$T/rec.jsonl"
    done
    grep -q '"shape":\[1048576\]' "$T/rec.jsonl"
    for d in 0 1 2 3; do grep -q "\"type\":\"tap\",\"device\":$d," "$T/rec.jsonl"; done
    # and the program's callbacks got what they get untraced
    "$PY" "$PROG" "$T/go" "$T/untraced.jsonl" >/dev/null 2>&1
    diff <(sort "$T/truth.jsonl") <(sort "$T/untraced.jsonl") >/dev/null
}

# record_modern OUT [VAR=VALUE...]: the program started, recorded to OUT
# (its stderr OUT.err) with VAR=VALUE in hcbtrace's environment, to its end
record_modern()
{
    local out=$1
    shift
    rm -f "$T/go"
    start_modern
    env "$@" "$HCBTRACE" record -p "$MOD_PID" -o "$out" 2>"$out.err" &
    local rec=$!
    PIDS+=("$rec")
    wait_session "$MOD_PID"
    finish_modern
    wait "$rec"
}

@test "modern jax: each operand's type read, each device read apart from its frame: the same values; a type no buffer's, every call a counted loss" {
    # a buffer that says the C API's buffer size is one, its type not
    # read; here no size is taken (a test's knob), so each operand has its
    # argument type read, as for a buffer grown in a later C API.  And the
    # frame is read alone, so the device ordinal of the context after it
    # is read apart, as where a jaxlib keeps it elsewhere: four devices
    record_modern "$T/rec.jsonl" HCBTRACE_TEST_JAXFFI_TYPES=read HCBTRACE_TEST_JAXFFI_SPAN=frame
    run "${CHECK[@]}" "$T/truth.jsonl" "$T/rec.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial ", 0 mismatches"
    [ "$(grep -c '"type":"tap"' "$T/rec.jsonl")" -ge 20 ]
    for d in 0 1 2 3; do grep -q "\"type\":\"tap\",\"device\":$d," "$T/rec.jsonl"; done
    # and where no type is taken as a buffer's, no operand is read as
    # one: every call is lost, counted, none shown
    record_modern "$T/refused.jsonl" HCBTRACE_TEST_JAXFFI_TYPES=refuse
    refute grep -q '"type":"tap"' "$T/refused.jsonl"
    grep -Eq "target exited: 0 taps .* 0 written, [1-9][0-9]* lost" "$T/refused.jsonl.err"
}

@test "modern jax: printed as id_print printed: the call site, the device and the module; operands as a tuple" {
    start_modern
    "$HCBTRACE" attach "$MOD_PID" >"$T/att.txt" 2>"$T/att.err" &
    att=$!
    PIDS+=("$att")
    wait_session "$MOD_PID"
    finish_modern
    wait "$att"
    # the site by the user's code, its op a kwarg (sites.bats), or by the op
    grep -Eq "^callback: $(site_re debug_print cpu:0 jit_f_kinds)\$" "$T/att.txt"
    grep -Eq "^callback: $(site_re pure_callback cpu:0 jit_f_kinds)\$" "$T/att.txt"
    grep -Eq '^callback: .+ device: cpu:3 (.+ )?module: ' "$T/att.txt"
    # a debug.callback of an array and a scalar: a tuple, as id_print laid
    # it out; a debug.print of them: the line the program printed (issue 29)
    grep -Eq '^\( \[[0-9. ]+\] [0-9.]+ \)$' "$T/att.txt"
    grep -EA1 "^callback: $(site_re debug_print cpu:0 jit_f_kinds)\$" "$T/att.txt" |
        grep -Eq '^x=\[[0-9. ]+\] sum=[0-9.]+$'
    grep -Eq '^x=\[[0-9. ]+\] sum=[0-9.]+$' "$T/prog.out"
    # the program's own output is undisturbed: what its debug.print said
    grep -q '^done ' "$T/prog.out"
    refute grep -qi 'error\|traceback' "$T/prog.err"
}

@test "modern jax: record -- CMD attaches as soon as CMD maps jaxlib: every callback from the first" {
    touch "$T/go"
    run --separate-stderr "$HCBTRACE" record -o "$T/rec.jsonl" -- "$PY" "$PROG" "$T/go" "$T/truth.jsonl" --all
    assert_success
    [[ "$stderr" == *"target exited"* ]]
    grep -q '^done [1-9]' <<<"$output"
    # the compile-time run before "ready" too: hcbtrace was there before XLA compiled
    run "${CHECK[@]}" "$T/truth.jsonl" "$T/rec.jsonl"
    echo "# $output" >&3
    assert_success
    assert_output --partial ", 0 mismatches"
}

# check_flood REC CALLS [CAUSE...]: every one of flood.py's CALLS calls is
# a whole tap or counted lost, none twice, the end record agrees; and, for
# each CAUSE, some were lost for that reason.  Which cause a loss gets, and how
# many, is the machine's speed: only what the product promises is checked.
check_flood()
{
    "$PY" - "$@" <<'EOF'
import collections, json, sys
path, calls = sys.argv[1], int(sys.argv[2])
causes = {"ring buffer full", "output too far behind"}
taps, lost = [], collections.Counter()
for line in open(path):
    r = json.loads(line)
    if r["type"] == "tap":
        d = r["arrays"][0]["data"]
        assert len(d) == 65536 and d.count(d[0]) == len(d), "a torn tap"
        taps.append(int(d[0]))
    elif r["type"] == "drop":
        assert r["reason"] in causes, r
        lost[r["reason"]] += r["count"]
    elif r["type"] == "end":
        assert (r["taps"], r["drops"]) == (len(taps), sum(lost.values())), r
assert len(set(taps)) == len(taps) and all(0 <= i < calls for i in taps), "a call twice"
print(len(taps), "taps", dict(lost))
assert len(taps) + sum(lost.values()) == calls
for cause in sys.argv[3:]:
    assert lost[cause] > 0, "none lost as " + cause
EOF
}

@test "modern jax: a program that outruns the JSONL writer: every call a tap or counted lost; taps whole" {
    # 2000 debug.callback calls of 256 KiB in one jitted loop, far faster
    # than JSONL is written: the 16 MiB ring overflows, and the lag limit
    # may hold the output back too; which, and how often, is the machine's
    run --separate-stderr "$HCBTRACE" record -b 16 -o "$T/rec.jsonl" -- \
        "$PY" "$ROOT/tests/jax/flood.py" 2000 65536
    assert_success
    [[ "$stderr" == *"target exited"* ]]
    assert_output "calls 2000"
    run check_flood "$T/rec.jsonl" 2000
    echo "# $output" >&3
    assert_success
}

# stopped PID: every thread of PID is stopped (state T)
stopped()
{
    ! grep -qv '^[0-9]* ([^)]*) T' /proc/"$1"/task/*/stat
}

# lines_past FILE N: FILE has more than N lines
lines_past()
{
    [ "$(wc -l <"$1")" -gt "$2" ]
}

@test "modern jax: the lag limit turns the jax-callback probe's packets away, counted by cause" {
    # each step made certain, not likely, whatever the machine's speed:
    # the program floods until told to stop; hcbtrace is held back while
    # it makes 1000 calls (a 16 MiB ring holds 64), so the ring overflows;
    # then, the limit on (--max-lag 1: 1 ms of writing, at least 256 KiB,
    # less than a tap), 200 taps more are written while it floods, and
    # every tap that comes while one is written is turned away.  The
    # jax-callback provider writes its drop records at the end.
    "$HCBTRACE" record -b 16 --max-lag 1 -o "$T/rec.jsonl" -- \
        "$PY" "$ROOT/tests/jax/flood.py" 500 65536 "$T/stop" >"$T/out" 2>"$T/err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.jsonl" '"type":"tap"' 300
    kill -STOP "$rec"
    retry 30 stopped "$rec"
    rounds=$(grep -c '^round' "$T/out" || true)
    retry 300 lines_past "$T/out" $((rounds + 1))
    kill -CONT "$rec"
    retry 600 lines_past "$T/rec.jsonl" $(( $(wc -l <"$T/rec.jsonl") + 200 ))
    touch "$T/stop"
    wait "$rec"
    grep -q "target exited" "$T/err"
    calls=$(sed -n 's/^calls //p' "$T/out")
    [ "$((calls % 500))" = 0 ]
    [ "$calls" -ge 1500 ]
    run check_flood "$T/rec.jsonl" "$calls" "ring buffer full" "output too far behind"
    echo "# $output" >&3
    assert_success
}

# attach_again_and_finish: a new session on the program started with
# --until takes 5 taps; then the program ends well, its output undisturbed
attach_again_and_finish()
{
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 5 "$MOD_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" = 5 ]
    touch "$T/stop"
    wait "$MOD_PID"
    grep -q '^done [1-9]' "$T/prog.out"
    refute grep -qi 'error\|traceback' "$T/prog.err"
}

@test "modern jax: attach, -c detach and SIGKILL leave the program running to its end; the next attach works" {
    start_modern --until "$T/stop"
    touch "$T/go"
    # attach, take 5 taps, detach
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 5 "$MOD_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" = 5 ]
    # killed: its probes go with it
    "$HCBTRACE" record -p "$MOD_PID" -o "$T/killed.jsonl" 2>/dev/null &
    rec=$!
    wait_for "$T/killed.jsonl" '"type":"tap"' 60
    kill -9 "$rec"
    wait "$rec" || true
    runs_on "$MOD_PID"
    # and the next session works as the first did
    attach_again_and_finish
}

# record_whole FILE: record a run of the program into FILE, again (five
# times at most) while the run lost calls: diff's pairing wants two whole
# runs, and a loaded machine can lose one (counted; modern.bats's first
# tests hold that)
record_whole()
{
    local try
    for try in 1 2 3 4 5; do
        touch "$T/go"
        "$HCBTRACE" record -q -o "$1" -- "$PY" "$PROG" "$T/go" "$T/truth.jsonl" >/dev/null
        grep -q '"type":"drop"' "$1" || return 0
        echo "# $1: a run with a loss, again" >&3
    done
    return 1
}

@test "modern jax: replay, convert and diff work on its recordings; diff pairs taps across two runs" {
    record_whole "$T/run1.jsonl"
    record_whole "$T/run2.jsonl"
    run "$HCBTRACE" diff "$T/run1.jsonl" "$T/run2.jsonl"
    echo "# $output" >&3
    assert_success
    [[ "$output" == *" 0 differ; 0 missing, 0 extra" ]]
    run "$HCBTRACE" convert "$T/run1.jsonl" -o "$T/run1.hcbcap"
    assert_success
    run "$HCBTRACE" diff "$T/run1.jsonl" "$T/run1.hcbcap"
    assert_success
    "$HCBTRACE" replay --no-wait "$T/run1.jsonl" >"$T/replay.txt"
    grep -Eq "^callback: $(site_re io_callback cpu:0 jit_f_kinds)\$" "$T/replay.txt"
}

@test "modern jax: list shows it, barrier says in one line why it cannot apply" {
    start_modern
    run "$HCBTRACE" list
    assert_success
    section=$(sed -n "/^$MOD_PID /,/^[0-9]/p" <<<"$output")
    grep -q '^  library: .*/jaxlib/libjax_common\.so$' <<<"$section"
    grep -Eq "^  jaxlib [0-9.]+: JAX's callbacks" <<<"$section"
    run --separate-stderr "$HCBTRACE" barrier "$MOD_PID"
    assert_failure 3
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ "$stderr" == *"'s callbacks, which count nothing hcbtrace can read: barrier needs libhcbtap"*"jax.effects_barrier()"* ]]
    finish_modern
}

# fake_jaxlib VERSION LIB: a process that maps LIB as jaxlib/libjax_common.so
# of VERSION; sets FAKE_PID
fake_jaxlib()
{
    mkdir -p "$T/fake/jaxlib"
    cp "$2" "$T/fake/jaxlib/libjax_common.so"
    echo "_version = \"$1\"" >"$T/fake/jaxlib/version.py"
    # the last one's "up" gone first: the new process empties the file only
    # once it runs, maybe after wait_for has looked
    rm -f "$T/fake.out"
    python3 -c 'import ctypes, sys, time; ctypes.CDLL(sys.argv[1]); print("up", flush=True); time.sleep(60)' \
        "$T/fake/jaxlib/libjax_common.so" >"$T/fake.out" &
    FAKE_PID=$!
    PIDS+=("$FAKE_PID")
    wait_for "$T/fake.out" up
}

@test "modern jax: a layout that fails its check is refused in one line; the program runs on, the next attach works" {
    # no jaxlib version is refused for its number: the layout is proven on
    # the process.  Shifted by a word (a test's knob), it cannot be.
    start_modern --until "$T/stop"
    touch "$T/go"
    HCBTRACE_TEST_JAXFFI_SHIFT=8 run --separate-stderr "$HCBTRACE" attach "$MOD_PID"
    assert_failure 3
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ "$stderr" == "hcbtrace: process $MOD_PID ("*") runs jaxlib "*", whose callbacks did not pass hcbtrace's layout check: the thunk's op and module names read as "*", which are no HLO names; hcbtrace reads no more of it" ]]
    # what it did show (calls no thunk named, read through the C API
    # only) is whole; the program goes on, and the next attach reads it
    [ -z "$(grep '^callback: ' <<<"$output" | grep -v ' module: unknown$')" ]
    attach_again_and_finish
}

@test "modern jax: a stripped jaxlib, one without the handlers: one line each" {
    zlib=$(ldconfig -p | awk '/libz\.so\.1 / { print $NF; exit }')
    # a supported version, stripped of its symbol table
    strip --strip-all -o "$T/stripped.so" "$zlib"
    fake_jaxlib 0.12.0.1 "$T/stripped.so"
    run --separate-stderr "$HCBTRACE" attach "$FAKE_PID"
    assert_failure 3
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ "$stderr" == *"runs jaxlib 0.12.0.1, whose library "*"/jaxlib/libjax_common.so is stripped (no symbol table)"* ]]
    kill "$FAKE_PID"
    # a symbol table, without the functions hcbtrace probes
    printf 'int not_jax(void) { return 1; }\n' >"$T/lib.c"
    cc -shared -fPIC -o "$T/plain.so" "$T/lib.c"
    fake_jaxlib 0.12.0.1 "$T/plain.so"
    run --separate-stderr "$HCBTRACE" attach "$FAKE_PID"
    assert_failure 3
    [ "$(wc -l <<<"$stderr")" = 1 ]
    [[ "$stderr" == *"lacks the functions hcbtrace probes: an unusual build"* ]]
}

@test "modern jax: a jaxlib without the handler's inner function: its taps as before, one notice" {
    # the handlers hcbtrace probes, and the inner function only when asked
    cat >"$T/lib.c" <<'C'
void thunk(void) __asm__("_ZN3xla3cpu15CustomCallThunk7ExecuteERKNS0_5Thunk13ExecuteParamsE");
void thunk(void) {}
void kXlaFfiPythonCpuCallback(void) {}
#ifdef INNER
void inner(void) __asm__("_ZN3jax23XlaFfiPythonCpuCallbackEPN3xla22FfiLoadedHostCallbacksEPNS_21CpuTransposePlanCacheEmNS0_3ffi13RemainingArgsENS5_13RemainingRetsE");
void inner(void) {}
#endif
C
    cc -shared -fPIC -o "$T/noinner.so" "$T/lib.c"
    fake_jaxlib 0.12.0.1 "$T/noinner.so"
    run --separate-stderr "$HCBTRACE" attach -d 1 "$FAKE_PID"
    assert_success
    [ "$(grep -c 'XlaFfiPythonCpuCallback' <<<"$stderr")" = 1 ]
    [[ "$stderr" == *"process $FAKE_PID: jaxlib 0.12.0.1 has no XlaFfiPythonCpuCallback hcbtrace knows: its callbacks are shown without the Python side"* ]]
    kill "$FAKE_PID"
    cc -shared -fPIC -DINNER -o "$T/inner.so" "$T/lib.c"
    fake_jaxlib 0.12.0.1 "$T/inner.so"
    run --separate-stderr "$HCBTRACE" attach -d 1 "$FAKE_PID"
    assert_success
    refute grep -q 'XlaFfiPythonCpuCallback' <<<"$stderr"
}

@test "modern jax: pmap on 4 host devices, a thread each, 2 cores: every call whole, none lost, none silently short" {
    # each device's thread calls back once a step: 12000 calls whose probe
    # runs overlap on the machine's few CPUs.  A probe that lost its own
    # state to another thread's call sent ~0.3% of them (~36 here) without
    # operands, counting none lost
    run --separate-stderr timeout 300 "$HCBTRACE" record --provider jax-callback \
        -o "$T/pm.jsonl" -- "$PY" "$ROOT/tests/jax/nan_loss.py" 100000 3000 --devices 4 --size 1
    assert_success
    [[ "$output" == *"done 3000"* ]]
    [[ "$stderr" != *"stopped after"* && "$stderr" != *"layout check failed"* ]] || {
        echo "$stderr" | head -5; false; }
    run env PYTHONPATH="$ROOT/python" "$PY" - "$T/pm.jsonl" <<'EOF2'
import sys
from hcbtap.recording import records

# the session record comes again as devices come: passed by
recs = list(records(sys.argv[1]))
recs = recs[:1] + [r for r in recs[1:] if r.kind != "session"]
kinds = [r.kind for r in recs]
assert kinds[0] == "session" and kinds[-1] == "end", (kinds[0], kinds[-1])
assert set(kinds[1:-1]) == {"tap"}, "taps only, no drop records: %r" % sorted(set(kinds))
per = {}
for t in recs[1:-1]:
    assert len(t.leaves) == 3, (t.device, t.seq, len(t.leaves))
    assert int(t.leaves[0].flat[0]) == t.seq, (t.device, t.seq, t.leaves[0])
    per.setdefault(t.device, []).append(t.seq)
assert sorted(per) == [0, 1, 2, 3], sorted(per)
for d, seqs in per.items():
    assert sorted(seqs) == list(range(3000)), (d, len(seqs))
assert recs[-1].taps == 12000 and recs[-1].drops == 0, (recs[-1].taps, recs[-1].drops)
print("12000 calls, all whole")
EOF2
    echo "# $output" >&3
    assert_success
}
