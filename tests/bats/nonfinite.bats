#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# nonfinite.bats - `--nonfinite` of attach, run and replay (cli/print_flags.h,
# src/watch/nanwatch.h): only the taps holding NaN or inf are printed, the
# session's accounting is untouched, and the summary names per call site and
# device the first such tap (seq, time, leaf, element, value) and the count,
# checked against the program's own truth: the step at which it went NaN
# (tests/tools/nan_tapper.c: element 3 of "values" on its last device,
# values[0] being the step; tests/jax/nan_loss.py: the loss, leaf 1).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    TAPPER=$TOOLS/nan_tapper
}

teardown()
{
    _common_teardown
}

# check_taps JSONL FIRST RUN DEVICE: the tap records of JSONL are RUN taps
# of "values" on DEVICE whose steps run FIRST..FIRST+RUN-1, each with NaN at
# element 3 and nowhere else; the end record counts RUN taps.  Prints the
# first's seq and its time of day (UTC, microseconds) as the summary shows it.
check_taps()
{
    python3 - "$@" <<'EOF'
import json, sys, time
path, first, nrun, dev = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
recs = [json.loads(l) for l in open(path)]
taps = [r for r in recs if r["type"] == "tap"]
assert len(taps) == nrun, len(taps)
for k, t in enumerate(taps):
    assert (t["name"], t["device"]) == ("values", dev), (t["name"], t["device"])
    data = t["arrays"][0]["data"]
    assert data[0] == first + k, (data[0], first + k)
    bad = [i for i, v in enumerate(data) if isinstance(v, str)]
    assert bad == [3] and data[3] == "nan", bad
end = recs[-1]
assert end["type"] == "end" and end["taps"] == nrun, end
ts = taps[0]["ts_ns"]
print(taps[0]["seq"], time.strftime("%H:%M:%S", time.gmtime(ts // 10**9)) + ".%06d" % (ts % 10**9 // 1000))
EOF
}

@test "nonfinite: run prints only the taps holding NaN, and the first per call site and device" {
    run --separate-stderr "$HCBTRACE" run --nonfinite -- "$TAPPER" -n 2 -k 40 -e 1 -s 43 -i 0 -f 8
    assert_success
    # the three NaN steps of device 1, nothing else: header and array each
    [ "${#lines[@]}" -eq 6 ]
    assert_line --index 0 'device: cpu:1'
    assert_line --index 1 '[40.    40.125 40.25     nan 40.5   40.625 40.75  40.875]'
    assert_line --index 5 '[42.    42.125 42.25     nan 42.5   42.625 42.75  42.875]'
    # seq 81: a step and a values tap a step on each device, from seq 0
    [[ "$stderr" == *"hcbtrace: --nonfinite: 3 of 172 taps held NaN or inf; the first of each call site and device:"* ]]
    grep -Eq '^  values +cpu:1 +3 taps, first seq 81 at [0-9:.]+ UTC \([-+][0-9.]+ s\), leaf 0 element 3: nan$' <<<"$stderr"
    # the accounting is the session's: every tap read, 3 written
    [[ "$stderr" == *"target exited: 172 taps (3440 bytes) from 2 devices"*", 3 written, 0 lost"* ]]
    grep -Eq '^  cpu:0 +86 taps' <<<"$stderr"
}

@test "nonfinite: attach -f jsonl to a running program: the NaN taps whole, the summary's first is the first printed" {
    "$TAPPER" -n 2 -k 30 -e 1 -s 34 -i 500 -f 16 --go "$T/go" &
    tapper=$!
    PIDS+=("$tapper")
    "$HCBTRACE" attach --nonfinite -f jsonl "$tapper" >"$T/a.jsonl" 2>"$T/a.err" &
    PIDS+=("$!")
    att=$!
    wait_session "$tapper" 60
    # attached: now the values may go bad
    touch "$T/go"
    wait "$att"
    run check_taps "$T/a.jsonl" 30 4 1
    assert_success
    read -r seq tod <<<"$output"
    head -1 "$T/a.jsonl" | grep -q '^{"type":"session",'
    grep -q "hcbtrace: --nonfinite: 4 of [0-9]* taps held NaN or inf;" "$T/a.err"
    grep -Eq "^  values +cpu:1 +4 taps, first seq $seq at $tod UTC \([-+][0-9.]+ s\), leaf 0 element 3: nan\$" "$T/a.err"
    grep -q "target exited: .*, 4 written, 0 lost" "$T/a.err"
}

@test "nonfinite: replay of a whole recording finds the same taps; no NaN: says so" {
    "$HCBTRACE" record -q -o "$T/all.hcbcap" -- "$TAPPER" -n 3 -k 25 -e 1 -s 27 -i 0 -f 8
    run --separate-stderr "$HCBTRACE" replay --no-wait --nonfinite -f jsonl "$T/all.hcbcap"
    assert_success
    printf '%s\n' "$output" >"$T/r.jsonl"
    run check_taps "$T/r.jsonl" 25 2 2
    assert_success
    read -r seq tod <<<"$output"
    [ "$seq" -eq 51 ]
    # the summary alone on stderr: its head and one site
    [ "$(wc -l <<<"$stderr")" -eq 2 ]
    [[ "$stderr" == "hcbtrace: --nonfinite: 2 of 162 taps held NaN or inf; the first of each call site and device:"* ]]
    grep -Eq "^  values +cpu:2 +2 taps, first seq 51 at $tod UTC \([-+][0-9.]+ s\), leaf 0 element 3: nan\$" <<<"$stderr"
    # filters before it: device 0 holds none
    run --separate-stderr "$HCBTRACE" replay --no-wait --nonfinite --device 0 "$T/all.hcbcap"
    assert_success
    assert_output ''
    [ "$stderr" = "hcbtrace: --nonfinite: none of 54 taps held NaN or inf" ]
    # without it, everything, as before
    [ "$("$HCBTRACE" replay --no-wait "$T/all.hcbcap" | grep -c '^device: ')" -eq 162 ]
}

@test "nonfinite: a jitted JAX loss goes NaN at a random step: that step's tap alone, its loss named" {
    need_python "${HCB_VENV_MODERN:-${HCB_VENV_JAX12:-$BUILD/venv-jax12}}" 'import jax' "jax"
    bad=$(( RANDOM % 200 + 50 ))
    run --separate-stderr "$HCBTRACE" run --nonfinite -f jsonl -- "$PY" "$ROOT/tests/jax/nan_loss.py" "$bad" 300
    assert_success
    # the program prints "done 300" on the same stdout
    grep '^{' <<<"$output" >"$T/j.jsonl"
    # the program's truth: (step, loss, w) with the loss NaN at step $bad alone
    run python3 - "$T/j.jsonl" "$bad" <<'EOF'
import json, sys
bad = int(sys.argv[2])
taps = [r for r in map(json.loads, open(sys.argv[1])) if r["type"] == "tap"]
assert len(taps) == 1, len(taps)
t = taps[0]
# data: flat, a scalar's a list of one
(step,), (loss,), w = (a["data"] for a in t["arrays"])
assert step == bad and loss == "nan" and all(isinstance(v, float) for v in w), (step, loss)
print(t["name"], t["seq"])
EOF
    assert_success
    read -r name seq <<<"$output"
    [ "$seq" -eq "$bad" ]
    grep -Eq "^  $name +cpu:0 +1 tap, first seq $bad at [0-9:.]+ UTC \([-+][0-9.]+ s\), leaf 1 element 0: nan\$" <<<"$stderr"
    [[ "$stderr" == *"--nonfinite: 1 of 300 taps held NaN or inf"* ]]
    [[ "$stderr" == *"target exited: 300 taps"*", 1 written, 0 lost"* ]]
}
