#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# detached.bats - with no tracer attached a tap is a semaphore check: the
# semaphore reads 0 and the program makes no system call per tap.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

# per_syscall FILE: strace -c's FILE as "SYSCALL CALLS" lines, futex left out
per_syscall()
{
    awk '$4 ~ /^[0-9]+$/ && $NF != "total" && $NF != "futex" { print $NF, $4 }' "$1" | sort
}

@test "detached: the semaphore is 0 with no tracer, 1 while attached, 0 after" {
    start_example --devices 2 --steps 0 --interval-ms 10 --field-size 8
    [ "$(semaphore "$EX_PID")" = 0 ]
    "$HCBTRACE" attach "$EX_PID" >"$T/out" 2>&1 &
    tracer=$!
    wait_for "$T/out" '^device: '
    [ "$(semaphore "$EX_PID")" = 1 ]
    kill -INT "$tracer"; wait "$tracer"
    [ "$(semaphore "$EX_PID")" = 0 ]
}

@test "detached: a million taps make no system call" {
    tapper=$BUILD/bench/tapper
    strace -f -qq -c -o "$T/s0" "$tapper" --count 0 >"$T/j0"
    strace -f -qq -c -o "$T/s1" "$tapper" --count 1000000 >"$T/j1"
    grep -q '"total_issued":0,"total_detached":1000000' "$T/j1"
    calls0=$(awk '$NF == "total" { print $4 }' "$T/s0")
    calls1=$(awk '$NF == "total" { print $4 }' "$T/s1")
    echo "system calls: $calls0 for no taps, $calls1 for a million" >&3
    [ -n "$calls0" ]
    [ "$calls0" -gt 0 ]
    # every system call as often in both runs, but futex: the start line
    # (a pthread barrier) and the join wait in the kernel or not by which
    # thread gets there first.  One call per tap would be a million.
    diff <(per_syscall "$T/s0") <(per_syscall "$T/s1")
    futex0=$(awk '$NF == "futex" { print $4 }' "$T/s0")
    futex1=$(awk '$NF == "futex" { print $4 }' "$T/s1")
    [ "$(( ${futex1:-0} - ${futex0:-0} ))" -le 8 ]
    [ "$(( ${futex0:-0} - ${futex1:-0} ))" -le 8 ]
}

@test "detached: a tap runs a handful of instructions and never the slow path" {
    tapper=$BUILD/bench/tapper
    # the attached path is never entered ...
    run valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        --toggle-collect=hcbtap_emit_attached "$tapper" --count 100000
    assert_success
    assert_output --partial 'Collected : 0'
    # ... and a detached tap costs the loop a few instructions (load, test, branch)
    i0=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tapper" --count 0 2>&1 |
         sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    i1=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$tapper" --count 1000000 2>&1 |
         sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    # instructions counted (callgrind), not time: the same on any machine
    per_tap=$(( (i1 - i0) / 1000000 ))
    echo "instructions per detached tap, loop included: $per_tap" >&3
    [ "$per_tap" -le 20 ]
}
