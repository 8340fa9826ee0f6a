#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# flight.bats - the flight recorder (record --keep-last, --until, --after,
# --until-signal; src/watch/flight.h): a program whose values go NaN at a step the
# test chooses (tests/tools/nan_tapper.c; tests/jax/nan_loss.py under jit)
# leaves a recording of the last steps before it and that step, whole, per
# device, in order, and a trigger record naming the leaf, element and value;
# and SIGUSR1 writes the ring of a running session.  Each recording is
# checked through hcbtap.recording (python/), .jsonl and .hcbcap alike.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run PYTHONPATH=$ROOT/python
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    TAPPER=$TOOLS/nan_tapper
}

teardown()
{
    _common_teardown
}

# check_window REC FIRST LAST DEVICES TRIGGER_DEVICE CONSUMER LEAF ELEMENT COND:
# the recording is the last steps before the NaN and its step, whole, per
# device, then the trigger (tests/tools/check_flight_window.py says how)
check_window()
{
    "$PY" "$ROOT/tests/tools/check_flight_window.py" "$@"
}

@test "flight: --keep-last 1M --until nonfinite: the last steps before the NaN and its step, whole, per device; a trigger record; .jsonl and .hcbcap" {
    for ext in jsonl hcbcap; do
        run --separate-stderr "$HCBTRACE" record --keep-last 1M --until nonfinite -o "$T/f.$ext" -- \
            "$TAPPER" -n 2 -k 400 -s 0 -i 200
        assert_success
        [[ "$stderr" == *"hcbtrace: trigger fired: "*", 0 lost"* ]]
        run check_window "$T/f.$ext" 0 400 2 1 values 0 3 nonfinite
        echo "# $output" >&3
        assert_success
    done
    # a window of 1 MiB: about 8 KiB a step, so some hundred steps of 400
    [ "$(stat -c %s "$T/f.hcbcap")" -lt $((2 << 20)) ]
    # replay prints the trigger as one line
    run "$HCBTRACE" replay --no-wait "$T/f.jsonl"
    assert_success
    assert_line --regexp '^trigger nonfinite: values on cpu:1 seq [0-9]+, leaf 0 element 3: nan$'
    # and convert keeps it
    "$HCBTRACE" convert "$T/f.jsonl" -o "$T/back.hcbcap"
    "$HCBTRACE" convert "$T/back.hcbcap" -o "$T/back.jsonl"
    diff <(grep '"trigger"' "$T/f.jsonl") <(grep '"trigger"' "$T/back.jsonl")
}

@test "flight: --after N records N more taps after the trigger; --until alone records everything up to it" {
    run --separate-stderr "$HCBTRACE" record --keep-last 64K --until 'values: max > 300' --after 3 \
        -o "$T/a.jsonl" -- "$TAPPER" -n 1 -k -1 -s 0 -i 200
    assert_success
    # values of step 300 reach 300.99: step 300's values fire, then step 301's
    # step tap, values tap and step 302's step tap follow
    run "$PY" - "$T/a.jsonl" <<'EOF'
import sys
from hcbtap.recording import records
recs = list(records(sys.argv[1]))
kinds = [r.kind for r in recs]
ti = kinds.index("trigger")
after = recs[ti + 1:-1]
assert [(t.name, int(t.leaves[0].flat[0])) for t in after] == [("step", 301), ("values", 301), ("step", 302)], after
assert recs[ti].condition == "values: max > 300" and recs[ti].element == 1023, vars(recs[ti]) if hasattr(recs[ti], "__dict__") else recs[ti].element
assert recs[-1].kind == "end" and recs[-1].taps == len(kinds) - 3
print("after: %d taps after the trigger" % len(after))
EOF
    assert_success
    # no --keep-last: every tap from the first, to the trigger
    run --separate-stderr "$HCBTRACE" record --until nonfinite -o "$T/all.jsonl" -- \
        "$TAPPER" -n 2 -k 50 -s 0 -i 200
    assert_success
    run check_window "$T/all.jsonl" -1 50 2 1 values 0 3 nonfinite
    echo "# $output" >&3
    assert_success
    [ "$(grep -c '"type":"tap"' "$T/all.jsonl")" -eq $((51 * 2 * 2)) ]
}

@test "flight: --keep-last 300ms: the taps of the last 300 ms before the NaN, by the taps' time" {
    run --separate-stderr "$HCBTRACE" record --keep-last 300ms --until nonfinite -o "$T/d.jsonl" -- \
        "$TAPPER" -n 2 -k 600 -s 0 -i 2000
    assert_success
    run check_window "$T/d.jsonl" 0 600 2 1 values 0 3 nonfinite
    echo "# $output" >&3
    assert_success
    # the window is 300 ms of the probe's clock, whatever the bytes allow
    # (a 256 MiB cap): a step every 2 ms or more, so 150 steps at most
    run "$PY" - "$T/d.jsonl" <<'EOF2'
import sys
from hcbtap.recording import records
taps = [r for r in records(sys.argv[1]) if r.kind == "tap"]
span = taps[-1].ts_ns - taps[0].ts_ns
steps = {int(t.leaves[0].flat[0]) for t in taps}
assert 200e6 < span <= 300e6, span
assert len(steps) <= 151, len(steps)
print("300ms: %d steps over %.1f ms" % (len(steps), span / 1e6))
EOF2
    echo "# $output" >&3
    assert_success
}

@test "flight: --rearm 3: a program that goes NaN every 100 steps leaves three recordings, each whole with its own lead-up" {
    run --separate-stderr "$HCBTRACE" record --keep-last 1M --until nonfinite --rearm 3 -o "$T/r.jsonl" -- \
        "$TAPPER" -n 2 -k 100 -e 100 -s 0 -i 200
    assert_success
    [[ "$stderr" == *"hcbtrace: $T/r.jsonl written: "*" taps, trigger fired"* ]]
    [[ "$stderr" == *"hcbtrace: $T/r.1.jsonl written: "*" taps, trigger fired"* ]]
    [[ "$stderr" == *"hcbtrace: trigger fired: "*", 0 lost"* ]]
    # the ring (about 120 steps) is emptied at each firing: the second
    # and third recordings start after the step that fired the one before
    run check_window "$T/r.jsonl" -1 100 2 1 values 0 3 nonfinite
    echo "# $output" >&3
    assert_success
    run check_window "$T/r.1.jsonl" 100 200 2 1 values 0 3 nonfinite
    echo "# $output" >&3
    assert_success
    [[ "$output" == *"steps {0: (101, 200), 1: (101, 200)}"* ]]
    run check_window "$T/r.2.jsonl" 200 300 2 1 values 0 3 nonfinite
    echo "# $output" >&3
    assert_success
    [ ! -e "$T/r.3.jsonl" ]
    # .hcbcap alike; and --rearm needs a ring
    run --separate-stderr "$HCBTRACE" record --keep-last 64K --until nonfinite --rearm 2 -o "$T/r.hcbcap" -- \
        "$TAPPER" -n 1 -k 50 -e 50 -s 0 -i 200
    assert_success
    run check_window "$T/r.1.hcbcap" 50 100 1 0 values 0 3 nonfinite
    assert_success
    run --separate-stderr "$HCBTRACE" record --until nonfinite --rearm 2 -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"--rearm arms the ring again after each firing: give --keep-last SIZE"* ]]
}

@test "flight: a long flood through a 64K ring never holds more than 64K plus one tap" {
    # 40000 steps of 2 devices, each a 4 KiB tap and an 8-byte one, as
    # fast as it goes: some 330 MB through the ring, the NaN at the end
    run --separate-stderr "$HCBTRACE" record --keep-last 64K --until nonfinite -o "$T/m.hcbcap" -- \
        "$TAPPER" -n 2 -k 40000 -s 40001 -i 0
    assert_success
    [[ "$stderr" == *"hcbtrace: trigger fired: "* ]]
    line=$(grep -o 'held at most [0-9]* bytes (--keep-last 65536 bytes)' <<<"$stderr")
    held=$(grep -o '[0-9]*' <<<"$line" | head -1)
    echo "# $line" >&3
    # whole taps of about 4 KiB: the ring is filled to within one of them
    [ "$held" -le 65536 ] && [ "$held" -gt $((65536 - 2 * 4096 - 1024)) ]
    # (a flood may lose taps on the way: only the trigger is checked here)
    run "$PY" -c 'import sys; from hcbtap.recording import records; print([r.kind for r in records(sys.argv[1])][-2:])' "$T/m.hcbcap"
    assert_output "['trigger', 'end']"
}

@test "flight: a condition that does not parse names its column; --keep-last and --after need a trigger" {
    run --separate-stderr "$HCBTRACE" record --until 'max > one' -o "$T/x.jsonl" -- true
    assert_failure 2
    [ "$stderr" = "hcbtrace record: --until 'max > one': column 7: expected a number" ]
    run --separate-stderr "$HCBTRACE" record --keep-last 1M -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"--keep-last holds taps back until something fires"* ]]
    run --separate-stderr "$HCBTRACE" record --after 2 -o "$T/x.jsonl" -- true
    assert_failure 2
    run --separate-stderr "$HCBTRACE" record --keep-last 12X --until nonfinite -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"invalid --keep-last '12X'"* ]]
    for bad in 0s 0.5ms 200h -3s 5min; do
        run --separate-stderr "$HCBTRACE" record --keep-last "$bad" --until nonfinite -o "$T/x.jsonl" -- true
        assert_failure 2
        [[ "$stderr" == *"invalid --keep-last '$bad': expected bytes from 1K"*"or a duration from 1ms to 168h"* ]]
    done
    [ ! -e "$T/x.jsonl" ]
}

@test "flight: unfired, a session writes nothing and says so" {
    run --separate-stderr "$HCBTRACE" record --keep-last 64K --until nonfinite -o "$T/n.jsonl" -- \
        "$TAPPER" -n 1 -s 50 -i 0
    assert_success
    [[ "$stderr" == *"no tap met --until before the session ended: nothing was recorded"* ]]
    [ ! -s "$T/n.jsonl" ]
}

@test "flight: --until-signal: kill -USR1 writes the ring of a running session" {
    "$HCBTRACE" record --keep-last 64K --until-signal -o "$T/s.jsonl" -- \
        "$TAPPER" -n 2 -s 300 -i 0 --done "$T/done" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    # the program took every step, and the session has every tap in hand
    retry 60 test -s "$T/done"
    tapper=$(pgrep -P "$rec" -f nan_tapper)
    "$HCBTRACE" barrier "$tapper"
    kill -USR1 "$rec"
    wait "$rec"
    grep -q 'SIGUSR1: the ring written' "$T/rec.err"
    run "$PY" - "$T/s.jsonl" <<'EOF'
import sys
from hcbtap.recording import records
recs = list(records(sys.argv[1]))
kinds = [r.kind for r in recs]
assert kinds[0] == "session" and kinds[-2:] == ["trigger", "end"], kinds[-3:]
tr = recs[-2]
assert tr.condition == "signal" and tr.seq is None and tr.consumer is None, tr.condition
taps = recs[1:-2]
last = {t.device: int(t.leaves[0].flat[0]) for t in taps}
assert last == {0: 299, 1: 299}, last
assert int(taps[0].leaves[0].flat[0]) > 0 and recs[-1].taps == len(taps)
print("signal: %d taps, up to step 299 on both devices" % len(taps))
EOF
    echo "# $output" >&3
    assert_success
}

@test "flight: --on-trigger stop leaves the program stopped at the trigger, whole recording written; SIGCONT resumes it and it finishes" {
    "$HCBTRACE" record --keep-last 1M --until nonfinite --on-trigger stop -o "$T/s.jsonl" -- \
        "$TAPPER" -n 2 -k 300 -s 600 -i 200 --progress "$T/step" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.err" "stopped at the trigger"
    tapper=$(pgrep -P "$rec" -f nan_tapper)
    retry 10 stopped "$tapper"
    # 4 KiB taps: too large for the probe, hcbtrace stops it
    grep -q "^hcbtrace: process $tapper stopped at the trigger (SIGSTOP once hcbtrace read the tap): .*resume it with: kill -CONT $tapper$" "$T/rec.err"
    # its own step counter: how far it ran past the step that went NaN
    step=$(od -An -t d8 "$T/step" | tr -d ' ')
    echo "# stopped at step $step: $((step - 300)) steps past the trigger's (one step: 2 taps a device, 200 us apart)" >&3
    [ "$step" -ge 300 ] && [ "$step" -lt 600 ]
    # the recording is whole while it is stopped
    wait_for "$T/s.jsonl" '"type":"end"'
    run check_window "$T/s.jsonl" 0 300 2 1 values 0 3 nonfinite
    assert_success
    stopped "$tapper"
    # resumed, it takes its last step and ends; record waited for it
    kill -CONT "$tapper"
    wait "$rec"
    [ "$(od -An -t d8 "$T/step" | tr -d ' ')" = 599 ]
    [ ! -e /proc/"$tapper" ]
    # usage: an action it knows, and a condition to act on
    run --separate-stderr "$HCBTRACE" record --keep-last 1M --until nonfinite --on-trigger pause -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"unknown --on-trigger action 'pause': expected none or stop"* ]]
    run --separate-stderr "$HCBTRACE" record --keep-last 1M --until-signal --on-trigger stop -o "$T/x.jsonl" -- true
    assert_failure 2
    [[ "$stderr" == *"--on-trigger stop acts when a tap meets --until COND"* ]]
}

@test "flight: --on-trigger stop on small taps: the probe stops the program at the NaN's tap itself, zero steps past, flat out; float32, float64, bfloat16" {
    # values of 64 floats (128 to 512 bytes): small enough for the probe
    for type in f32 f64 bf16; do
        rm -f "$T/rec.err"
        "$HCBTRACE" record --keep-last 1M --until nonfinite --on-trigger stop -o "$T/p-$type.jsonl" -- \
            "$TAPPER" -n 2 -k 3000 -s 100000 -i 0 -f 64 -t "$type" --progress "$T/step" 2>"$T/rec.err" &
        rec=$!
        PIDS+=("$rec")
        wait_for "$T/rec.err" "stopped at the trigger"
        tapper=$(pgrep -P "$rec" -f nan_tapper)
        retry 10 stopped "$tapper"
        grep -q "^hcbtrace: process $tapper stopped at the trigger (SIGSTOP in the probe, at the tap): " "$T/rec.err"
        step=$(od -An -t d8 "$T/step" | tr -d ' ')
        echo "# $type: stopped in the probe at step $step: $((step - 3000)) steps past the NaN's, with no pause between steps" >&3
        [ "$step" -eq 3000 ]
        wait_for "$T/p-$type.jsonl" '"type":"end"'
        # (check_window reads a step from each tap's first element: a
        # bfloat16 holds 3000 as 2992, so there only the trigger is checked)
        if [ "$type" != bf16 ]; then
            run check_window "$T/p-$type.jsonl" 0 3000 2 1 values 0 3 nonfinite
            assert_success
        fi
        grep -q '"type":"trigger".*"element":3' "$T/p-$type.jsonl"
        kill -CONT "$tapper"
        wait "$rec"
        [ "$(od -An -t d8 "$T/step" | tr -d ' ')" = 99999 ]
    done
}

@test "flight: hcbtrace dump PID writes the ring of the --keep-last session tracing PID; by the session's own pid too; one message without a session or a ring" {
    "$HCBTRACE" record --keep-last 64K --until nonfinite --rearm 0 -o "$T/d.jsonl" -- \
        "$TAPPER" -n 2 -s 300 -i 0 --done "$T/done" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    retry 60 test -s "$T/done"
    tapper=$(pgrep -P "$rec" -f nan_tapper)
    "$HCBTRACE" barrier "$tapper"
    # no --until-signal: any --keep-last session writes its ring on a dump
    run --separate-stderr "$HCBTRACE" dump "$tapper"
    assert_success
    [[ "$stderr" == "hcbtrace: dump: session $rec ("*") wrote its ring to $T/d.jsonl" ]]
    run "$PY" - "$T/d.jsonl" <<'EOF2'
import sys
from hcbtap.recording import records
recs = list(records(sys.argv[1]))
kinds = [r.kind for r in recs]
assert kinds[0] == "session" and kinds[-2:] == ["trigger", "end"], kinds[-3:]
assert recs[-2].condition == "signal"
taps = recs[1:-2]
assert {t.device: int(t.leaves[0].flat[0]) for t in taps} == {0: 299, 1: 299}
assert int(taps[0].leaves[0].flat[0]) > 0 and recs[-1].taps == len(taps)
print("dump: %d taps up to step 299" % len(taps))
EOF2
    echo "# $output" >&3
    assert_success
    # re-armed, the ring is empty now: a dump by the session's own pid
    # writes the next recording, with no taps
    run --separate-stderr "$HCBTRACE" dump "$rec"
    assert_success
    run "$PY" -c 'import sys; from hcbtap.recording import records; print([r.kind for r in records(sys.argv[1])])' "$T/d.1.jsonl"
    assert_output "['session', 'trigger', 'end']"
    # Ctrl-C ends it between firings: CMD's SIGTERM is the exit status
    kill -INT "$rec"
    wait "$rec" || [ $? -eq 143 ]
    grep -q "d.1.jsonl written: 0 taps, SIGUSR1" "$T/rec.err"
    # no session: one message, exit 1
    run --separate-stderr "$HCBTRACE" dump "$tapper"
    assert_failure 1
    [ "$stderr" = "hcbtrace: no hcbtrace session traces process $tapper, nor is $tapper one: nothing to dump; start one first, e.g. 'hcbtrace record --keep-last 64M --until nonfinite -p $tapper -o nan.jsonl'" ]
    # a session with no ring: one message, exit 1, and it records on
    "$HCBTRACE" record -o "$T/plain.jsonl" -- "$TAPPER" -n 1 -s 10 -i 0 --done "$T/done2" 2>/dev/null &
    rec=$!
    PIDS+=("$rec")
    retry 60 test -s "$T/done2"
    tapper=$(pgrep -P "$rec" -f nan_tapper)
    "$HCBTRACE" barrier "$tapper"
    run --separate-stderr "$HCBTRACE" dump "$tapper"
    assert_failure 1
    [[ "$stderr" == "hcbtrace: the hcbtrace session of process $tapper (session $rec: "*") holds no ring to dump: only 'hcbtrace record --keep-last SIZE' keeps one" ]]
    kill -0 "$rec"
    kill -INT "$rec"
    wait "$rec" || [ $? -eq 143 ]
}

@test "flight: a jitted JAX loss goes NaN at step 300: the steps before it and it, the trigger naming the loss" {
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" 'import jax' "jax"
    JPY=$PY
    run --separate-stderr "$HCBTRACE" record --keep-last 64K --until nonfinite -o "$T/j.jsonl" -- \
        "$JPY" "$ROOT/tests/jax/nan_loss.py" 300 100000
    assert_success
    # the loop runs on flat out past the trigger until the session ends
    # it, and what the rings could not hold of those later steps is the
    # session's loss, not the recording's: the window's wholeness (no drop
    # record, consecutive seqs) is check_window's to prove
    [[ "$stderr" == *"hcbtrace: trigger fired: "*" written, "*" lost"* ]]
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    # one device, one call site: (step, loss, w); the loss is leaf 1, a
    # scalar; the site named by the program's function, seen (issue 29)
    run check_window "$T/j.jsonl" 0 300 1 0 seen 1 0 nonfinite
    echo "# $output" >&3
    assert_success
}

@test "flight: --on-trigger stop on a jitted JAX loss: the jax-callback probe stops the program at the NaN's call itself, zero steps past; SIGCONT resumes it" {
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" 'import jax' "jax"
    JPY=$PY
    "$HCBTRACE" record --keep-last 64K --until nonfinite --on-trigger stop -o "$T/js.jsonl" -- \
        "$JPY" "$ROOT/tests/jax/nan_loss.py" 3000 6000 "$T/step" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.err" "stopped at the trigger"
    prog=$(pgrep -P "$rec")
    retry 10 stopped "$prog"
    grep -q "^hcbtrace: process $prog stopped at the trigger (SIGSTOP in the probe, at the tap): " "$T/rec.err"
    # its own step counter, written before each step: the NaN step's
    step=$(od -An -t d8 "$T/step" | tr -d ' ')
    echo "# JAX: stopped in the probe at step $step: $((step - 3000)) steps past the NaN's" >&3
    [ "$step" -eq 3000 ]
    wait_for "$T/js.jsonl" '"type":"end"'
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    run check_window "$T/js.jsonl" 0 3000 1 0 seen 1 0 nonfinite
    assert_success
    stopped "$prog"
    kill -CONT "$prog"
    wait "$rec"
    [ "$(od -An -t d8 "$T/step" | tr -d ' ')" = 5999 ]
    [ ! -e /proc/"$prog" ]
}

# check_devices REC BAD DEVICES SIZE: a pmap run of nan_loss.py (each
# device's w starts at arange(SIZE) / SIZE + device and is scaled by 0.999
# a step) recorded up to its first NaN: per device, consecutive seqs and
# steps (one call a step), each tap whole, (step, loss, w) with w the
# device's own; nothing lost, no drop records; the first steps let go (the
# ring holds a few hundred steps); the trigger names the loss of the last
# tap of its device, at step BAD; the other devices end at BAD - 1 or BAD
# (theirs of step BAD may come after the one that fired).
check_devices()
{
    "$PY" - "$@" <<'EOF2'
import math
import sys
import numpy as np
from hcbtap.recording import records

rec, bad, devices, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
recs = list(records(rec))
kinds = [r.kind for r in recs]
assert kinds[0] == "session" and kinds[-2:] == ["trigger", "end"], kinds[:2] + kinds[-2:]
assert set(kinds[1:-2]) == {"tap"}, "taps only, no drop records: %r" % sorted(set(kinds))
taps, tr, end = recs[1:-2], recs[-2], recs[-1]
per = {}
for t in taps:
    assert t.name == "seen" and len(t.leaves) == 3, (t.name, len(t.leaves))
    step, loss, w = t.leaves
    s = int(step.flat[0])
    assert w.shape == (size,) and w.dtype == np.float32, (w.shape, w.dtype)
    # the device's own parameters, every element there
    want = (np.arange(size, dtype=np.float64) / size + t.device) * 0.999 ** s
    assert np.allclose(w, want, rtol=1e-3, atol=1e-6), (t.device, s, w[:3], want[:3])
    assert math.isnan(float(loss.flat[0])) == (s == bad), (t.device, s, loss)
    per.setdefault(t.device, []).append((t.seq, s))
assert sorted(per) == list(range(devices)), sorted(per)
for d, ts in per.items():
    seqs, steps = [q for q, _ in ts], [s for _, s in ts]
    assert seqs == steps, "device %d: seq is not the step" % d
    assert steps == list(range(steps[0], steps[0] + len(steps))), "device %d: a gap" % d
    assert steps[-1] == bad or (d != tr.device and steps[-1] == bad - 1), (d, steps[-1])
    assert steps[0] >= 1000 and 100 <= len(steps) <= 1000, (d, steps[0], len(steps))
assert (tr.condition, tr.device, tr.seq, tr.consumer) == ("nonfinite", tr.device, bad, "seen")
assert per[tr.device][-1] == (bad, bad)
assert tr.leaf == 1 and tr.element == 0 and math.isnan(tr.value), (tr.leaf, tr.element)
assert end.taps == len(taps) and end.drops == 0, (end.taps, end.drops)
print("%s: NaN at step %d, %d taps, steps %s, trigger on device %d"
      % (rec, bad, len(taps), {d: (ts[0][1], ts[-1][1]) for d, ts in sorted(per.items())},
         tr.device))
EOF2
}

@test "flight: a JAX loop on 2 devices (pmap) goes NaN at a random step of 2000 to 4000: --keep-last 64M holds each device's last steps up to it, whole, in order, nothing lost" {
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" 'import jax' "jax"
    JPY=$PY
    bad=$(( RANDOM % 2001 + 2000 ))
    # 2 callbacks a step of a 64 KiB array each: the ring holds ~510 steps
    run --separate-stderr "$HCBTRACE" record --keep-last 64M --until nonfinite -o "$T/jd.hcbcap" -- \
        "$JPY" "$ROOT/tests/jax/nan_loss.py" "$bad" 100000 --devices 2 --size 16384
    assert_success
    [[ "$stderr" == *"hcbtrace: trigger fired: "*" from 2 devices of process "* ]]
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    run check_devices "$T/jd.hcbcap" "$bad" 2 16384
    echo "# $output" >&3
    assert_success
}
