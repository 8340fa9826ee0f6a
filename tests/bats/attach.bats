#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# attach.bats - `hcbtrace attach` against real running hcb-example processes.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "attach: every tap of a 4-device example matches what it sent" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 4096 --truth "$T/truth.jsonl"
    # a count, not a duration: how many steps a time holds is the machine's speed
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 200 "$EX_PID"
    assert_success
    printf '%s\n' "$output" >"$T/cap.jsonl"
    # the example goes on; stop it so its truth file is complete
    kill -TERM "$EX_PID"; wait "$EX_PID" || true
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/cap.jsonl" "$T/truth.jsonl" --devices 4
    assert_success
    assert_output --partial "from 4 devices match the truth"
    # at least a few steps of all five consumers (200 taps: 40 steps)
    for c in loss power3 params status field; do
        [ "$(grep -c "\"name\":\"$c\"" "$T/cap.jsonl")" -ge 8 ]
    done
    head -1 "$T/cap.jsonl" | grep -q '^{"type":"session","version":1,"pid":'"$EX_PID"',"provider":"hcbtap"'
    tail -1 "$T/cap.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}

@test "attach: a 1 Mi-element array arrives whole and equal" {
    start_example --devices 2 --steps 0 --interval-ms 300 --truth "$T/truth.jsonl"
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 2 --consumer field "$EX_PID"
    assert_success
    printf '%s\n' "$output" >"$T/cap.jsonl"
    kill -TERM "$EX_PID"; wait "$EX_PID" || true
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/cap.jsonl" "$T/truth.jsonl"
    assert_success
    [ "$(grep -c '"type":"tap"' "$T/cap.jsonl")" -eq 2 ]
    grep '"type":"tap"' "$T/cap.jsonl" | head -1 | grep -q '"shape":\[1048576\]'
}

@test "attach: text output is id_print's layout" {
    start_example --devices 2 --steps 0 --interval-ms 20 --field-size 4096
    run --separate-stderr "$HCBTRACE" attach -c 40 "$EX_PID"
    assert_success
    # every tap starts with its sorted kwargs line, device included
    assert_line --regexp '^device: cpu:[01] what: x,x\^2$'
    assert_line --regexp '^device: cpu:[01] what: loss$'
    # power3: ( x x^2 ) with numpy's float formatting, e.g. ( 3. 9. ) or ( 3.5 12.25 )
    run python3 - "$output" <<'PY'
import sys, re
lines = sys.argv[1].split("\n")
n = 0
for i, l in enumerate(lines):
    if re.fullmatch(r"device: cpu:\d what: x,x\^2", l):
        m = re.fullmatch(r"\( (\S+) (\S+) \)", lines[i + 1])
        assert m, lines[i + 1]
        x, x2 = (float(v) for v in m.groups())
        assert x * x == x2, (x, x2)
        for v in m.groups():   # numpy: "3." for whole floats, no trailing zeros
            assert re.fullmatch(r"\d+\.\d*", v) and not v.endswith("0"), v
        n += 1
    if re.fullmatch(r"device: cpu:\d what: params", l):
        assert re.fullmatch(r"\{ b=\S+ w=\[.*\] \}", lines[i + 1]), lines[i + 1]
    if re.fullmatch(r"device: cpu:\d what: status", l):
        assert re.fullmatch(r"\[ \d+ (True|False) \S+ \]", lines[i + 1]), lines[i + 1]
assert n >= 4, n
print("ok", n)
PY
    assert_success
}

@test "attach: --device and --consumer filter, by name and by id" {
    start_example --devices 4 --steps 0 --interval-ms 10 --field-size 64
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 10 --device 2 --consumer loss "$EX_PID"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" -eq 10 ]
    [ "$(grep '"type":"tap"' <<<"$output" | grep -vc '"device":2,.*"name":"loss"')" -eq 0 ]
    id=$("$HCBTRACE" list | sed -n "/^$EX_PID /,/^[0-9]/p" | awk '$2 == "power3" { print $1 }')
    [ -n "$id" ]
    run --separate-stderr "$HCBTRACE" attach -f jsonl -c 6 --consumer "$id" --device 0 --device 3 "$EX_PID"
    assert_success
    [ "$(grep -c "\"consumer\":$id,\"name\":\"power3\"" <<<"$output")" -eq 6 ]
    [ "$(grep '"type":"tap"' <<<"$output" | grep -c '"device":[12],')" -eq 0 ]
    # a filter that matches nothing is most likely a typo: say so
    run --separate-stderr "$HCBTRACE" attach -d 0.5 --consumer los "$EX_PID"
    assert_success
    assert_output ''
    [[ "$stderr" == *"warning: --consumer 'los' matched none of the consumers seen: loss ("* ]]
}

@test "attach: -c stops after N taps, -d after SECS" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 64
    run --separate-stderr "$HCBTRACE" attach -c 7 "$EX_PID"
    assert_success
    [ "$(grep -c '^device: ' <<<"$output")" -eq 7 ]
    [[ "$stderr" == *"count reached"* ]]
    start=$(date +%s%N)
    run --separate-stderr "$HCBTRACE" attach -d 1.5 -f jsonl "$EX_PID"
    assert_success
    elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
    # -d ends the session (its clock starts once the probes are in place);
    # how long starting and ending take is the machine's, hence the slack
    [ "$elapsed" -ge 1400 ]
    [ "$elapsed" -lt 30000 ]
    [[ "$stderr" == *"duration reached"* ]]
    kill -0 "$EX_PID"    # the target runs on
}

@test "attach: Ctrl-C detaches, flushes and prints a per-device summary" {
    start_example --devices 4 --steps 0 --interval-ms 10 --field-size 64
    "$HCBTRACE" attach -f jsonl "$EX_PID" >"$T/cap.jsonl" 2>"$T/err" &
    tracer=$!
    wait_for "$T/cap.jsonl" '"type":"tap","device":3'
    kill -INT "$tracer"
    wait "$tracer"    # exit status 0, or the test fails here
    grep -q 'interrupted: [0-9]* taps' "$T/err"
    for d in 0 1 2 3; do grep -Eq "^  cpu:$d +[0-9]+ taps +[0-9]+ bytes +0 dropped +0 gaps +0 bad" "$T/err"; done
    tail -1 "$T/cap.jsonl" | grep -q '"type":"end"'
    kill -0 "$EX_PID"
    # the semaphore is back to 0: the target no longer pays for taps
    [ "$(semaphore "$EX_PID")" = 0 ]
}

@test "attach: the target exiting mid-capture ends the session with everything it sent" {
    start_example --devices 4 --steps 0 --interval-ms 30 --field-size 256 --truth "$T/truth.jsonl"
    "$HCBTRACE" attach -f jsonl "$EX_PID" >"$T/cap.jsonl" 2>"$T/err" &
    tracer=$!
    PIDS+=("$tracer")
    # the target ends once the session has taps from it (on SIGTERM the
    # example finishes its step and exits), not after a number of steps
    # that may all be over before the session has started
    wait_for "$T/cap.jsonl" '"type":"tap","device":3'
    kill -TERM "$EX_PID"
    wait "$EX_PID"
    wait "$tracer"    # exit status 0, or the test fails here
    grep -q "target exited" "$T/err"
    # from the first tap seen to the example's last one, nothing is missing
    python3 - "$T/cap.jsonl" "$T/truth.jsonl" <<'PY'
import json, sys
cap = [json.loads(l) for l in open(sys.argv[1])]
truth = [json.loads(l) for l in open(sys.argv[2])]
taps = [r for r in cap if r["type"] == "tap"]
for d in range(4):
    seqs = sorted(r["seq"] for r in taps if r["device"] == d)
    last = max(r["seq"] for r in truth if r["device"] == d and r["seq"] is not None)
    assert seqs and seqs[-1] == last, (d, seqs[-1:], last)
    assert seqs == list(range(seqs[0], last + 1)), d
PY
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/cap.jsonl" "$T/truth.jsonl" --devices 4
    assert_success
}

@test "attach: SIGKILL of hcbtrace leaves the target running, and a new attach works" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 64
    "$HCBTRACE" attach "$EX_PID" >"$T/out1" 2>&1 &
    tracer=$!
    wait_for "$T/out1" '^device: cpu:1'
    [ "$(semaphore "$EX_PID")" != 0 ]
    kill -9 "$tracer"
    wait "$tracer" || true
    kill -0 "$EX_PID"
    # the kernel released the probe with the tracer's last file descriptor
    retry 60 semaphore_is "$EX_PID" 0
    run --separate-stderr "$HCBTRACE" attach -c 5 "$EX_PID"
    assert_success
    [ "$(grep -c '^device: ' <<<"$output")" -eq 5 ]
    kill -0 "$EX_PID"
}

@test "attach: two sessions at once both receive every tap" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 64
    "$HCBTRACE" attach -f jsonl "$EX_PID" >"$T/a.jsonl" 2>/dev/null &
    a=$!
    "$HCBTRACE" attach -f jsonl "$EX_PID" >"$T/b.jsonl" 2>/dev/null &
    b=$!
    PIDS+=("$a" "$b")
    # both running at once, each with taps of its own, then both stopped
    retry 60 lines_at_least "$T/a.jsonl" '"type":"tap"' 21
    retry 60 lines_at_least "$T/b.jsonl" '"type":"tap"' 21
    kill -INT "$a" "$b"
    wait "$a"; wait "$b"
    tail -1 "$T/a.jsonl" >&3; tail -1 "$T/b.jsonl" >&3
    [ "$(grep -c '"type":"tap"' "$T/a.jsonl")" -gt 20 ]
    [ "$(grep -c '"type":"tap"' "$T/b.jsonl")" -gt 20 ]
    grep -q '"type":"end","taps":[1-9][0-9]*,"drops":0' "$T/a.jsonl"
    grep -q '"type":"end","taps":[1-9][0-9]*,"drops":0' "$T/b.jsonl"
}

@test "attach: -p A -p B prints both processes' taps on one stream, each under its process" {
    start_example --devices 1 --steps 0 --interval-ms 15 --field-size 16
    a=$EX_PID
    start_example --devices 3 --steps 0 --interval-ms 15 --field-size 16
    b=$EX_PID
    run --separate-stderr "$HCBTRACE" attach -p "$a" -p "$b" -c 60
    assert_success
    printf '%s\n' "$output" >"$T/both.txt"
    # each session's own summary, and its count
    [ "$(grep -c "count reached: .* of process $a .*, 60 written, 0 lost" <<<"$stderr")" = 1 ]
    [ "$(grep -c "count reached: .* of process $b .*, 60 written, 0 lost" <<<"$stderr")" = 1 ]
    # every tap after the line naming its process: process A has one
    # device, so a cpu:1 or cpu:2 under A's line is a tap told wrongly
    python3 - "$T/both.txt" "$a" "$b" <<'PY'
import collections, re, sys
path, a, b = sys.argv[1], sys.argv[2], sys.argv[3]
owner, taps, devs, switches = None, collections.Counter(), collections.defaultdict(set), 0
for line in open(path):
    m = re.match(r"# pid (\d+): \S+hcb-example --devices (\d)", line)
    if m:
        assert m.group(1) != owner, "a pid line that says nothing new"
        owner, switches = m.group(1), switches + 1
        continue
    m = re.match(r"device: (cpu:\d+) what: ", line)
    if m:
        assert owner in (a, b), line
        taps[owner] += 1
        devs[owner].add(m.group(1))
assert taps == {a: 60, b: 60}, taps
assert devs[a] == {"cpu:0"}, devs
assert devs[b] == {"cpu:0", "cpu:1", "cpu:2"}, devs
assert switches >= 2, switches
print(f"# {switches} switches between the two processes")
PY
}

@test "attach: -p given several times: JSONL refused, a pid twice refused" {
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 16
    run --separate-stderr "$HCBTRACE" attach -f jsonl -p "$EX_PID" -p 1
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"could not be told apart"*"-o 'run/taps-%p.jsonl'"* ]]
    run --separate-stderr "$HCBTRACE" attach -p "$EX_PID" -p "$EX_PID"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"process $EX_PID is given twice (-p)"* ]]
    run --separate-stderr "$HCBTRACE" attach -p "$EX_PID" -p 1 "$EX_PID"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"unexpected argument '$EX_PID'"* ]]
}
