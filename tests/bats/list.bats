#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# list.bats - `hcbtrace list` finds processes with libhcbtap, with their
# devices and consumers, read from outside without attaching.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

@test "list: shows a running example's devices and consumers" {
    start_example --devices 3 --steps 0 --interval-ms 50 --field-size 1000
    run --separate-stderr "$HCBTRACE" list
    assert_success
    section=$(sed -n "/^$EX_PID /,/^[0-9]/p" <<<"$output")
    grep -q "^$EX_PID .*hcb-example --devices 3" <<<"$section"
    grep -q '^  library: .*libhcbtap\.so' <<<"$section"
    grep -q '^  devices: cpu:0 cpu:1 cpu:2$' <<<"$section"
    grep -q '^  consumers: 5$' <<<"$section"
    grep -Eq '^    [0-9]+ +loss +\* float32\[\] what: loss$' <<<"$section"
    grep -Eq '^    [0-9]+ +power3 +\( \* \* \) float32\[\],float32\[\] what: x,x\^2$' <<<"$section"
    grep -Eq '^    [0-9]+ +params +\{ b=\* w=\* \} float32\[\],float32\[4\] what: params$' <<<"$section"
    grep -Eq '^    [0-9]+ +field +\* float32\[1000\] what: field$' <<<"$section"
    # listing does not attach: the target's semaphore stays 0
    [ "$(semaphore "$EX_PID")" = 0 ]
}

@test "list: a process without libhcbtap is not listed" {
    sleep 60 &
    PIDS+=($!)
    run --separate-stderr "$HCBTRACE" list
    assert_success
    run grep -q "^$! " <<<"$output"
    assert_failure
}

@test "list: consumer ids are stable across runs of the same program" {
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 10
    first=$(sed -n "/^$EX_PID /,/^[0-9]/p" < <("$HCBTRACE" list) | awk '/^    [0-9]/ { print $1, $2 }' | sort)
    kill "$EX_PID"; wait "$EX_PID" || true
    start_example --devices 1 --steps 0 --interval-ms 50 --field-size 10
    second=$(sed -n "/^$EX_PID /,/^[0-9]/p" < <("$HCBTRACE" list) | awk '/^    [0-9]/ { print $1, $2 }' | sort)
    [ -n "$first" ]
    assert_equal "$second" "$first"
}

@test "list: shows the hcbtrace sessions attached to a process, the ones a barrier waits for" {
    export HCBTRACE_RUNDIR=$T/run
    start_example --devices 1 --steps 0 --interval-ms 20 --field-size 10
    section=$(sed -n "/^$EX_PID /,/^[0-9]/p" < <("$HCBTRACE" list))
    grep -q '^  sessions: none$' <<<"$section"
    "$HCBTRACE" record -p "$EX_PID" -o "$T/r.jsonl" 2>/dev/null &
    rec=$!
    PIDS+=("$rec")
    wait_for "$T/r.jsonl" '"type":"tap"'
    section=$(sed -n "/^$EX_PID /,/^[0-9]/p" < <("$HCBTRACE" list))
    grep -q '^  sessions: 1$' <<<"$section"
    grep -Eq "^    $rec +.*hcbtrace record -p $EX_PID -o $T/r.jsonl > $T/r.jsonl$" <<<"$section"
    kill -INT "$rec"
    wait "$rec"
    section=$(sed -n "/^$EX_PID /,/^[0-9]/p" < <("$HCBTRACE" list))
    grep -q '^  sessions: none$' <<<"$section"
}
