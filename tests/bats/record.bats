#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# record.bats - `hcbtrace record` writes what the program sent; `replay`
# reads it back exactly as attach printed it live.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "record -p: a recording of a running 4-device example equals what it sent" {
    start_example --devices 4 --steps 0 --interval-ms 20 --field-size 2048 --truth "$T/truth.jsonl"
    # a count, not a duration: how many taps a time holds is the machine's speed
    run --separate-stderr "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" -c 200
    assert_success
    assert_output ''
    kill -TERM "$EX_PID"; wait "$EX_PID" || true
    [ "$(stat -c %a "$T/rec.jsonl")" = 600 ]
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/rec.jsonl" "$T/truth.jsonl" --devices 4
    assert_success
    head -1 "$T/rec.jsonl" | grep -q '^{"type":"session","version":1,'
    tail -1 "$T/rec.jsonl" | grep -q '^{"type":"end","taps":[1-9]'
}

@test "record -- CMD: every tap from the first, and CMD's exit status" {
    run --separate-stderr "$HCBTRACE" record -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 4 \
        --interval-ms 0 --field-size 100 --truth "$T/truth.jsonl"
    assert_success
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/rec.jsonl" "$T/truth.jsonl" --all --devices 2
    assert_success
    assert_output --partial "ok: 40 taps"
    run --separate-stderr "$HCBTRACE" record -o "$T/rec2.jsonl" -- "$EXAMPLE" --steps 1 --nope
    assert_failure 2
}

@test "record: replay of a recording prints what attach printed live, byte for byte" {
    # the example is deterministic: with one device, two runs tap the same values in the same order
    args=(--devices 1 --steps 6 --interval-ms 0 --field-size 5000)
    "$HCBTRACE" run -q -- "$EXAMPLE" "${args[@]}" >"$T/live.txt"
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" "${args[@]}"
    run --separate-stderr "$HCBTRACE" replay --no-wait "$T/rec.jsonl"
    assert_success
    printf '%s\n' "$output" >"$T/replayed.txt"
    [ "$(wc -l <"$T/live.txt")" -gt 40 ]
    cmp "$T/live.txt" "$T/replayed.txt"
    # and with four devices (their interleaving differs run to run): the same taps per device
    args=(--devices 4 --steps 3 --interval-ms 0 --field-size 64)
    # again (five times at most) while a run lost a tap to the race
    # of a program that ends while another thread's copy of a consumer's
    # registration is still coming (counted, "unknown consumer"; the
    # decoder does not yet hold such a packet for it)
    for try in 1 2 3 4 5; do
        "$HCBTRACE" run -q -- "$EXAMPLE" "${args[@]}" >"$T/live4.txt" 2>"$T/live4.err"
        "$HCBTRACE" record -q -o "$T/rec4.jsonl" -- "$EXAMPLE" "${args[@]}" 2>>"$T/live4.err"
        grep -q 'unknown consumer' "$T/live4.err" || break
        echo "# a run lost a tap to the registration race, again" >&3
    done
    refute grep -q 'unknown consumer' "$T/live4.err"
    "$HCBTRACE" replay --no-wait "$T/rec4.jsonl" >"$T/replayed4.txt"
    per_device() { awk '/^device: / { key = $2 } { print key "\t" $0 }' "$1" | sort -s -k1,1; }
    diff <(per_device "$T/live4.txt") <(per_device "$T/replayed4.txt")
}

@test "record: replay -f jsonl re-emits the recording, and filters it" {
    "$HCBTRACE" record -q -o "$T/rec.jsonl" -- "$EXAMPLE" --devices 2 --steps 2 --interval-ms 0 --field-size 10
    run --separate-stderr "$HCBTRACE" replay --no-wait -f jsonl "$T/rec.jsonl"
    assert_success
    diff <(printf '%s\n' "$output") "$T/rec.jsonl"
    run --separate-stderr "$HCBTRACE" replay --no-wait -f jsonl --device 1 --consumer status "$T/rec.jsonl"
    assert_success
    [ "$(grep -c '"type":"tap"' <<<"$output")" -eq 2 ]
    [ "$(grep '"type":"tap"' <<<"$output" | grep -c '"device":1,.*"name":"status"')" -eq 2 ]
}

@test "record: a recorder killed with SIGKILL leaves a file readable up to its last record" {
    start_example --devices 2 --steps 0 --interval-ms 5 --field-size 20000 --truth "$T/truth.jsonl"
    "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" 2>/dev/null &
    rec=$!
    retry 60 lines_at_least "$T/rec.jsonl" '"device":1,"seq"' 50
    kill -9 "$rec"; wait "$rec" || true
    kill -TERM "$EX_PID"; wait "$EX_PID" || true
    # no end record; whole lines, but for the one a write(2) of was under
    # way when the kill came (the kernel stops a write at a page for a
    # fatal signal), which the reader names and passes over
    run --separate-stderr "$HCBTRACE" replay --no-wait -f jsonl "$T/rec.jsonl"
    assert_success
    complete=$(wc -l <"$T/rec.jsonl")
    if [ -n "$(tail -c1 "$T/rec.jsonl")" ]; then
        assert_equal "$stderr" "hcbtrace: warning: $T/rec.jsonl:$((complete + 1)): the recording ends in the middle of a line (truncated?); the $complete lines before it are complete"
    else
        assert_equal "$stderr" ""
    fi
    [[ "$(tail -1 "$T/rec.jsonl")" != *'"type":"end"'* ]]
    # every tap in the whole lines matches the truth
    head -n "$complete" "$T/rec.jsonl" >"$T/whole.jsonl"
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/whole.jsonl" "$T/truth.jsonl" --devices 2
    assert_success
}

@test "record: usage errors" {
    run --separate-stderr "$HCBTRACE" record -p 1
    assert_failure 2
    [[ "$stderr" == *"where to? give the recording with -o FILE.jsonl or -o FILE.hcbcap"* ]]
    run --separate-stderr "$HCBTRACE" record -o "$T/x.txt" -p 1
    assert_failure 2
    [[ "$stderr" == *"a recording is named FILE.jsonl or FILE.hcbcap"* ]]
    run --separate-stderr "$HCBTRACE" record -o "$T/x.jsonl"
    assert_failure 2
    [[ "$stderr" == *"what to record?"* ]]
    run --separate-stderr "$HCBTRACE" record -o "$T/x.jsonl" -p 1 -- true
    assert_failure 2
    run --separate-stderr "$HCBTRACE" record -o /nonexistent/dir/x.jsonl -p 1
    assert_failure 1
    [[ "$stderr" == *"cannot create '/nonexistent/dir/x.jsonl': No such file or directory"* ]]
}

@test "replay: original pacing, --speed and --no-wait" {
    # three taps recorded 2 s apart: gaps far longer than starting a
    # replay takes, however busy the machine, so that each bound below
    # tells the pacing apart, not the machine's speed
    {
        echo '{"type":"session","version":1,"pid":1,"provider":"hcbtap","platform":"cpu","start_ns":1}'
        for i in 0 1 2; do
            echo '{"type":"tap","device":0,"seq":'$i',"consumer":7,"name":"x","kwargs":{},"tree":"*","ts_ns":'$((1000000000 + i * 2000000000))',"arrays":[{"dtype":"int32","shape":[],"data":['$i']}]}'
        done
    } >"$T/paced.jsonl"
    ms() { local s; s=$(date +%s%N); "$@" >/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); }
    slow=$(ms "$HCBTRACE" replay "$T/paced.jsonl")
    fast=$(ms "$HCBTRACE" replay --speed 4 "$T/paced.jsonl")
    none=$(ms "$HCBTRACE" replay --no-wait "$T/paced.jsonl")
    echo "original ${slow} ms, --speed 4 ${fast} ms, --no-wait ${none} ms" >&3
    # the original's 4 s of gaps, a quarter of them, and none (a wait is
    # never shorter than asked; the rest is time to start and end)
    [ "$slow" -ge 3950 ]
    [ "$fast" -ge 950 ]
    [ "$fast" -lt 3950 ]
    [ "$none" -lt 2000 ]
    run "$HCBTRACE" replay --speed 0 "$T/paced.jsonl"
    assert_failure 2
}

@test "record --device: only that device's taps, every device's drop records, adding up to the end's" {
    # a 4 MiB field in a 1 MiB ring is lost on every device, every step
    run --separate-stderr "$HCBTRACE" record -b 1 --device 1 -o "$T/rec.jsonl" -- "$EXAMPLE" \
        --devices 2 --steps 3 --interval-ms 0 --field-size 1048576
    assert_success
    python3 - "$T/rec.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
taps = [r for r in recs if r["type"] == "tap"]
drops = [r for r in recs if r["type"] == "drop"]
assert taps and all(t["device"] == 1 for t in taps), taps[:3]
# the filter selects taps: device 0's losses are in the file too
assert {d["device"] for d in drops} == {0, 1}, drops
assert recs[-1]["type"] == "end" and recs[-1]["drops"] == sum(d["count"] for d in drops), recs[-1]
PY
    # and replay of it with the same filter keeps them as they are
    "$HCBTRACE" replay --no-wait -f jsonl --device 1 "$T/rec.jsonl" >"$T/again.jsonl"
    cmp <(grep '"type":"drop"' "$T/rec.jsonl") <(grep '"type":"drop"' "$T/again.jsonl")
}
