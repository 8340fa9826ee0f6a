#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# What happens to a session when the target or hcbtrace itself meets
# trouble: the target exits, crashes, exec's or forks; hcbtrace is killed.
# (Output faults, a full disk and a closed pipe, are in faults.bats.)

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    ISSUED="python3 $ROOT/tests/tools/read_issued.py"
    CHECK="python3 $ROOT/tests/tools/check_delivery.py"
}

teardown()
{
    _common_teardown
}

@test "target faults: the target exits mid-capture: everything it issued is written, exit 0 with summary" {
    "$HCBTRACE" record -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 4 --steps 0 --interval-ms 1 \
        --field-size 1024 --report-issued 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.jsonl" '"type":"tap","device":3'
    pkill -TERM -P "$rec" hcb-example
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/rec.err" >"$T/issued"
    run $CHECK "$T/rec.jsonl" "$T/issued" --exact
    assert_success
    tail -1 "$T/rec.jsonl" | grep -q '"type":"end","taps":[1-9][0-9]*,"drops":0,'
}

@test "target faults: the target crashes mid-capture: what it sent is written, exit 0 with summary" {
    start_example --devices 4 --steps 0 --interval-ms 1 --field-size 1024
    "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/rec.jsonl" '"type":"tap","device":3'
    kill -STOP "$EX_PID"
    retry 60 stopped "$EX_PID"
    $ISSUED "$EX_PID" >"$T/issued"
    kill -SEGV "$EX_PID"
    kill -CONT "$EX_PID"
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    grep -Eq '^  cpu:3 +[1-9][0-9]* taps' "$T/rec.err"
    # up to the crash, nothing is missing (it issued nothing after the stop)
    run $CHECK "$T/rec.jsonl" "$T/issued"
    assert_success
    tail -1 "$T/rec.jsonl" | grep -q '"type":"end"'
}

@test "target faults: hcbtrace killed with SIGKILL: probes released, the target runs at full speed, the next attach works" {
    start_example --devices 2 --steps 0 --interval-ms 0 --field-size 16
    "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" 2>/dev/null &
    rec=$!
    wait_for "$T/rec.jsonl" '"type":"tap","device":1'
    [ "$(semaphore "$EX_PID")" != 0 ]
    kill -9 "$rec"
    wait "$rec" || true
    retry 60 semaphore_is "$EX_PID" 0
    # detached again: taps cost a semaphore check, so no more are issued.
    # The example never sleeps (--interval-ms 0): it shows that it runs by
    # the CPU time it takes.  The counts are read once it has run a while
    # (a tap that saw the semaphore set just before is issued by then),
    # and again after it has run as long again.
    busy_for "$EX_PID" 20
    a=$($ISSUED "$EX_PID" | md5sum)
    busy_for "$EX_PID" 20
    [ "$($ISSUED "$EX_PID" | md5sum)" = "$a" ]
    # the file the killed session left is valid up to its last line
    head -n -1 "$T/rec.jsonl" | python3 -c 'import json, sys; [json.loads(l) for l in sys.stdin]'
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 50 "$EX_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" = 50 ]
    kill -0 "$EX_PID"
}

# exec_session [WRAP...]: record a target that exec's a new program, hcbtrace
# run under WRAP (e.g. no_tracefs): the session ends at the exec, exit 0
exec_session()
{
    "$EXAMPLE" --devices 2 --steps 0 --interval-ms 100 --field-size 16 --exec-at 5 \
        >"$T/example.out" 2>"$T/example.err" &
    EX_PID=$!
    PIDS+=("$EX_PID")
    wait_registered "$EX_PID"
    run --separate-stderr "$@" timeout 120 "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl"
    assert_success
    [[ "$stderr" == *"target exec'd a new program (attach again to trace it)"* ]]
    [[ "$stderr" != *"cannot watch"* ]]
    # the new image (1 device, 3 steps) finishes on its own
    wait "$EX_PID"
    grep -q "exec'ing a new image" "$T/example.err"
    # the recording is the old program's only: seqs only grow, nothing after the exec
    python3 - "$T/rec.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[-1]["type"] == "end", recs[-1]
last = {}
for r in recs:
    if r["type"] == "tap":
        assert r["seq"] == last.get(r["device"], r["seq"] - 1) + 1, r["seq"]
        last[r["device"]] = r["seq"]
        assert r["name"] != "field" or r["arrays"][0]["shape"] == [16]
assert sorted(last) == [0, 1], last
PY
}

# exec_launch [WRAP...]: record -- CMD where CMD exec's: it runs to its end
exec_launch()
{
    run --separate-stderr "$@" timeout 120 "$HCBTRACE" record -o "$T/rec.jsonl" -- "$EXAMPLE" \
        --devices 2 --steps 0 --interval-ms 20 --field-size 16 --exec-at 3
    assert_success
    [[ "$stderr" == *"exec'ing a new image"* ]]
    [[ "$stderr" == *"target exec'd a new program"* ]]
    [[ "$stderr" != *"cannot watch"* ]]
    # device 0 exec'd after its 4th step of 5 taps; nothing of the new image
    # (whose one device has a 16-element field too, but starts at seq 0 again)
    [ "$(grep -c '"type":"tap","device":0,' "$T/rec.jsonl")" = 20 ]
    [ "$(grep -c '"type":"tap","device":0,"seq":0,' "$T/rec.jsonl")" = 1 ]
    grep -q '"type":"end","taps":[0-9]*,"drops":0,' "$T/rec.jsonl"
}

@test "target faults: the target exec's a new program: the session ends there, exit 0, the new program runs undisturbed" {
    exec_session
}

@test "target faults: exec's are seen without tracefs (a private mount namespace with none mounted)" {
    exec_session no_tracefs
}

@test "target faults: the target forks a tapping child: the session keeps to its pid, both processes run on" {
    "$HCBTRACE" record -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 20 --interval-ms 10 \
        --field-size 16 --fork-at 5 --report-issued 2>"$T/rec.err"
    grep -q 'forked child [0-9]* tapped and exited' "$T/rec.err"
    grep -q 'target exited' "$T/rec.err"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/rec.err" >"$T/issued"
    # 20 steps of 5 taps each on both devices: the child's 10 taps are not among them
    grep -qx 'issued cpu:0 100' "$T/issued"
    run $CHECK "$T/rec.jsonl" "$T/issued" --exact
    assert_success
    [ "$(grep -c '"type":"tap","device":0,' "$T/rec.jsonl")" = 100 ]
}

@test "target faults: under record -- CMD, a CMD that exec's runs to its end, and its status is returned" {
    exec_launch
}

@test "target faults: under record -- CMD, exec's are seen without tracefs" {
    exec_launch no_tracefs
}
