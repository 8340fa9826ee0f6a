#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# detached.bats - with no tracer attached a tap is a semaphore check: the
# semaphore reads 0 and the program makes no system call per tap.

load common

setup() { _common_setup; }
teardown() { _common_teardown; }

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
