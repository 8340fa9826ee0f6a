#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sleepable.bats - the hcbtap probe is sleepable so that it can fault in a
# payload the target never touched (src/providers/hcbtap/hcbtap.bpf.c).  Four threads tap
# at once (tests/tools/fault_tapper.c) out of pages that are not in, into a
# ring that holds every tap: every value must arrive in its own tap, whole,
# and nothing may be lost.
#
# Not a test yet, a known fault (docs/ARCHITECTURE.md): with every fault
# of the probe made to sleep (a userfaultfd served by the target:
# fault_tapper -u), another thread's run of the probe can take its CPU
# while it sleeps, and on 6.18 the x86-64 JIT gives the probe a private
# stack per CPU (its stack is over 64 bytes), which that run shares: the
# ring stops, and every later tap is lost as "ring buffer full".
# fault_run -u below shows it (16 of 18 runs here); it becomes a test here
# when the probe keeps its state off that stack.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    FIELD=2048
}

teardown()
{
    _common_teardown
}

# fault_run ARGS...: 4 threads, 1500 taps each of int64[FIELD], into a
# 256 MiB ring (the 6000 taps take 100 MiB), checked against the truth.
fault_run()
{
    run "$HCBTRACE" record -b 256 --max-lag 0 -o "$T/rec.jsonl" -- \
        "$TOOLS/fault_tapper" -n 4 -s 1500 -f "$FIELD" "$@"
    [ "$status" -eq 0 ]
    grep '^issued ' <<<"$output" >"$T/issued"
    [ "$(wc -l <"$T/issued")" = 4 ]
    run python3 "$ROOT/tests/tools/check_fault_taps.py" "$T/rec.jsonl" "$T/issued" "$FIELD"
    echo "# $output" >&3
    [ "$status" -eq 0 ]
    [[ "$output" == "taps 6000 issued 6000 dropped 0 bad 0"* ]]
}

@test "sleepable: 4 threads tapping pages not in: every value in its own tap, nothing lost" {
    fault_run
}
