#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# run.bats - `hcbtrace run -- CMD`: nothing lost from the first tap, CMD's status.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "run: every tap from the very first one is captured" {
    run --separate-stderr "$HCBTRACE" run -f jsonl -- "$EXAMPLE" --devices 4 --steps 5 --interval-ms 0 \
        --field-size 1024 --truth "$T/truth.jsonl"
    assert_success
    printf '%s\n' "$output" >"$T/cap.jsonl"
    # every tap the example emitted was emitted attached (it has a seq) ...
    refute grep -q '"seq":null' "$T/truth.jsonl"
    [ "$(grep -c '"type":"tap"' "$T/truth.jsonl")" -eq 100 ]
    # ... starts at seq 0 on each device, and was captured identical
    for d in 0 1 2 3; do grep -q "\"type\":\"tap\",\"device\":$d,\"seq\":0," "$T/cap.jsonl"; done
    run python3 "$ROOT/tests/tools/compare_truth.py" "$T/cap.jsonl" "$T/truth.jsonl" --all --devices 4
    assert_success
    assert_output --partial "ok: 100 taps from 4 devices"
    [[ "$stderr" == *"target exited: 100 taps"* ]]
}

@test "run: prints taps as text and exits with the command's status" {
    run --separate-stderr "$HCBTRACE" run -- "$EXAMPLE" --devices 1 --steps 1 --interval-ms 0 --field-size 8
    assert_success
    assert_line 'device: cpu:0 what: x,x^2'
    assert_line '( 1. 1. )'
    assert_line --regexp '^\[ 0 False [0-9.]+ \]$'
    # a command that fails: its status comes back
    run --separate-stderr "$HCBTRACE" run -- "$EXAMPLE" --devices 1 --steps 1 --bogus
    assert_failure 2
    run --separate-stderr "$HCBTRACE" run -- sh -c 'exit 7'
    assert_failure 7
    [[ "$stderr" == *"exited without loading libhcbtap"* ]]
}

@test "run: a command that cannot be started" {
    run -127 --separate-stderr "$HCBTRACE" run -- /nonexistent/program --x
    assert_failure 127
    assert_equal "$stderr" "hcbtrace: cannot run '/nonexistent/program': No such file or directory"
}

@test "run: a command killed by a signal gives 128+N" {
    run --separate-stderr "$HCBTRACE" run -- sh -c 'kill -KILL $$'
    assert_failure 137
}

@test "run: -c stops tracing and ends the command" {
    run --separate-stderr timeout 20 "$HCBTRACE" run -c 3 -- "$EXAMPLE" --devices 2 --steps 0 --interval-ms 10 --field-size 8
    # the example was ended with SIGTERM and exits 0 on it
    assert_success
    [ "$(grep -c '^device: ' <<<"$output")" -eq 3 ]
    [[ "$stderr" == *"count reached"* ]]
}

@test "run: usage errors" {
    run --separate-stderr "$HCBTRACE" run
    assert_failure 2
    [[ "$stderr" == *"which command?"* ]]
}
