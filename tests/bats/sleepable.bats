#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sleepable.bats - the hcbtap probe is sleepable so that it can fault in a
# payload the target never touched (src/providers/hcbtap/hcbtap.bpf.c).
# Four threads tap at once (tests/tools/fault_tapper.c) out of pages that
# are not in, on this machine's two CPUs, so that a run of the probe that
# sleeps in a fault is followed on its CPU by another thread's: every value
# must arrive in its own tap, whole, and nothing may be lost, run after
# run: HCB_SLEEP_RUNS in a row (20 by default; CI, whose every stop runs
# them again, 6: the fault below failed 16 runs of 18).
#
# This is the fault that kept a probe's state on the BPF stack: on 6.13
# and later the x86-64 JIT gave a frame of 64 bytes or more a private
# stack per CPU, which the sleeping run shared with the next, and the ring
# stopped ("ring buffer full" for every later tap; 16 of 18 runs of the
# -u case failed).  The state is the thread's now (src/bpf/state.bpf.h).

load common

RUNS=${HCB_SLEEP_RUNS:-20}

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
}

teardown()
{
    _common_teardown
}

# fault_run RUN FIELD TAPS ARGS...: one recording of fault_tapper with
# ARGS (4 threads, int64[FIELD] a tap, TAPS in all), checked against the
# truth: every tap, every value, none lost
fault_run()
{
    local n=$1 field=$2 taps=$3
    shift 3
    run "$HCBTRACE" record -b 256 --max-lag 0 -o "$T/rec.jsonl" -- \
        "$TOOLS/fault_tapper" -n 4 -f "$field" "$@"
    [ "$status" -eq 0 ] || { echo "# run $n: hcbtrace exit $status: $output" >&3; return 1; }
    grep '^issued ' <<<"$output" >"$T/issued"
    [ "$(wc -l <"$T/issued")" = 4 ]
    run python3 "$ROOT/tests/tools/check_fault_taps.py" "$T/rec.jsonl" "$T/issued" "$field"
    [[ "$output" == "taps $taps issued $taps dropped 0 bad 0"* ]] ||
        { echo "# run $n: $output" >&3; return 1; }
}

@test "sleepable: every fault of the probe sleeps (userfaultfd), 4 threads: every tap whole, run after run" {
    for n in $(seq "$RUNS"); do
        fault_run "$n" 2048 6000 -s 1500 -u
    done
    echo "# $RUNS runs: 6000 of 6000 taps each, every value in its own tap" >&3
}

@test "sleepable: 64 KiB taps out of evicted file pages, 4 threads at 100 taps/s each: every tap whole, run after run" {
    # a directory on the disk: pages evicted from the page cache must come
    # back from it (a tmpfs would keep them)
    local dir
    dir=$(mktemp -d /var/tmp/hcb-sleepable.XXXXXX)
    for n in $(seq "$RUNS"); do
        fault_run "$n" 8192 1200 -s 300 -e "$dir" -r 100 || { rm -rf "$dir"; false; }
    done
    rm -rf "$dir"
    echo "# $RUNS runs: 1200 of 1200 taps each, every value in its own tap" >&3
}

@test "sleepable: a kernel without sleepable uprobes (as if): one notice, and a tap not in memory is lost alone, counted unreadable" {
    # HCBTRACE_TEST_NOSLEEP loads the programs as on a kernel before 6.0,
    # which cannot fault a page in: every tap here is out of evicted pages
    local dir
    dir=$(mktemp -d /var/tmp/hcb-sleepable.XXXXXX)
    HCBTRACE_TEST_NOSLEEP=1 run --separate-stderr "$HCBTRACE" record -b 256 --max-lag 0 \
        -o "$T/rec.jsonl" -- "$TOOLS/fault_tapper" -n 4 -f 8192 -s 50 -e "$dir" -r 100
    rm -rf "$dir"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'no sleepable uprobe programs (Linux 6.0 on)' <<<"$stderr")" = 1 ]
    grep '^issued ' <<<"$output" >"$T/issued"
    run python3 "$ROOT/tests/tools/check_fault_taps.py" "$T/rec.jsonl" "$T/issued" 8192
    echo "# $output" >&3
    # every tap issued is a tap or a counted drop, and each drop says why
    [[ "$output" =~ ^taps\ ([0-9]+)\ issued\ 200\ dropped\ ([0-9]+)\ bad\ 0 ]]
    [ $(( BASH_REMATCH[1] + BASH_REMATCH[2] )) = 200 ]
    [ "${BASH_REMATCH[2]}" -gt 0 ]
    run grep -o '"reason":"[^"]*"' "$T/rec.jsonl"
    refute_output --partial 'ring buffer full'
    assert_output --partial 'target memory unreadable'
}
