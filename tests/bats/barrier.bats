#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# hcbtrace barrier: every tap issued before it is written, by every session
# attached to the process, checked against libhcbtap's own counters read
# independently (tests/tools/read_issued.py).

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

# start_recorder UNTIL: hcbtrace record of the example to $T/rec.jsonl
# (stderr $T/rec.err), once a line matching UNTIL is in it; sets REC
start_recorder()
{
    "$HCBTRACE" record -p "$EX_PID" -o "$T/rec.jsonl" 2>"$T/rec.err" &
    REC=$!
    PIDS+=("$REC")
    wait_for "$T/rec.jsonl" "$1"
}

# barrier_requested FILE: a barrier has asked the session of status FILE
# (struct hcb_sess_shared in src/session/session.h: barrier_req, a u64 at byte 32)
barrier_requested()
{
    python3 -c 'import struct, sys; sys.exit(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(40), 32)[0] == 0)' "$1"
}

@test "barrier: on a stopped target, the recording holds every tap issued, gap-free, up to a barrier record" {
    start_example --devices 4 --steps 0 --interval-ms 2 --field-size 64
    start_recorder '"type":"tap","device":3'
    rec=$REC
    kill -STOP "$EX_PID"
    retry 60 stopped "$EX_PID"
    $ISSUED "$EX_PID" >"$T/issued"
    run --separate-stderr "$HCBTRACE" barrier "$EX_PID"
    assert_success
    [[ "$stderr" == *"is written by its 1 session"* ]]
    cp "$T/rec.jsonl" "$T/snap.jsonl"
    # exactly up to the last tap issued: nothing is left to come
    run $CHECK "$T/snap.jsonl" "$T/issued" --upto-barrier
    assert_success
    for d in 0 1 2 3; do
        n=$(awk -v d=$d '$1 == d { print $2 }' "$T/issued")
        [ "$n" -gt 0 ]
        [ "$(grep -c "\"type\":\"tap\",\"device\":$d,\"seq\":$((n - 1))," "$T/snap.jsonl")" = 1 ]
        refute grep -q "\"type\":\"tap\",\"device\":$d,\"seq\":$n," "$T/snap.jsonl"
    done
    tail -1 "$T/snap.jsonl" | grep -q '^{"type":"barrier","ts_ns":[0-9]*,"taps":[1-9][0-9]*}$'
    kill -CONT "$EX_PID"
    kill -INT "$rec"
    wait "$rec"
}

@test "barrier: two recorders and an attach on a busy target all take part and all have every tap" {
    start_example --devices 4 --steps 0 --interval-ms 1 --field-size 16
    "$HCBTRACE" record -p "$EX_PID" -o "$T/a.jsonl" 2>"$T/a.err" &
    a=$!
    "$HCBTRACE" record -p "$EX_PID" -o "$T/b.jsonl" 2>"$T/b.err" &
    b=$!
    "$HCBTRACE" attach -f jsonl "$EX_PID" >"$T/c.jsonl" 2>"$T/c.err" &
    c=$!
    PIDS+=("$a" "$b" "$c")
    for f in a b c; do wait_for "$T/$f.jsonl" '"type":"tap","device":3'; done
    for round in 1 2 3; do
        # read before the barrier starts: the barrier must cover at least these
        $ISSUED "$EX_PID" >"$T/issued"
        run --separate-stderr "$HCBTRACE" barrier -t 120 "$EX_PID"
        assert_success
        [[ "$stderr" == *"is written by its 3 sessions"* ]]
        for f in a b c; do
            cp "$T/$f.jsonl" "$T/$f.snap"
            [ "$(grep -c '"type":"barrier"' "$T/$f.snap")" = "$round" ]
            # up to the last barrier record, every tap issued before it
            awk -v n="$round" '{ print } /"type":"barrier"/ && ++k == n { exit }' "$T/$f.snap" >"$T/$f.upto"
            run $CHECK "$T/$f.upto" "$T/issued"
            assert_success
        done
    done
    # the target ran on at full speed meanwhile, and every session ends cleanly
    kill -0 "$EX_PID"
    kill -INT "$a" "$b" "$c"
    wait "$a"; wait "$b"; wait "$c"
    for f in a b c; do tail -1 "$T/$f.jsonl" | grep -q '"type":"end"'; done
    # and the sessions have withdrawn
    [ -z "$(ls "$HCBTRACE_RUNDIR")" ]
}

@test "barrier: a stalled session times out with a per-device table, then completes once it runs" {
    start_example --devices 2 --steps 0 --interval-ms 5 --field-size 16
    start_recorder '"type":"tap","device":1'
    rec=$REC
    kill -STOP "$rec"
    retry 60 stopped "$rec"
    # taps pile up behind the stalled session, on each device (a device
    # thread may be the one that got little CPU meanwhile)
    $ISSUED "$EX_PID" >"$T/issued"
    retry 60 issued_each_past "$EX_PID" "$T/issued" 5
    run --separate-stderr "$HCBTRACE" barrier -t 1 "$EX_PID"
    assert_failure 1
    # after -t's second and whatever the machine took besides
    [[ "$stderr" == *"barrier timed out after "*" s: 1 of 1 session of process $EX_PID"* ]]
    [[ "$stderr" == *"session $rec ("*"writing to $T/rec.jsonl): not done"* ]]
    grep -Eq '^    device +issued +delivered +dropped +missing$' <<<"$stderr"
    # what it still owes on each device is counted, not guessed at
    for d in 0 1; do
        grep -Eq "^    cpu:$d +[1-9][0-9]* +[0-9]+ +0 +[1-9][0-9]*$" <<<"$stderr"
    done
    kill -CONT "$rec"
    run --separate-stderr "$HCBTRACE" barrier -t 120 "$EX_PID"
    assert_success
    grep -q '"type":"barrier"' "$T/rec.jsonl"
    kill -INT "$rec"
    wait "$rec"
}

@test "barrier: with no session attached it says so and exits 2; a killed session's files are cleaned up" {
    start_example --devices 1 --steps 0 --interval-ms 10 --field-size 16
    run --separate-stderr "$HCBTRACE" barrier "$EX_PID"
    assert_failure 2
    [[ "$stderr" == "hcbtrace: no hcbtrace session is attached to process $EX_PID "*"start one first, e.g. 'hcbtrace record -p $EX_PID -o taps.jsonl'" ]]
    # a session killed with SIGKILL leaves its files behind: they do not count
    start_recorder '"type":"tap"'
    rec=$REC
    ls "$HCBTRACE_RUNDIR" | grep -q "^$EX_PID\.$rec\.session$"
    kill -9 "$rec"
    wait "$rec" || true
    run --separate-stderr "$HCBTRACE" barrier -t 2 "$EX_PID"
    assert_failure 2
    [[ "$stderr" == *"no hcbtrace session is attached"* ]]
    [ -z "$(ls "$HCBTRACE_RUNDIR")" ]
}

@test "barrier: a target that exits during the barrier lets its sessions finish it" {
    start_example --devices 2 --steps 0 --interval-ms 5 --field-size 16
    start_recorder '"type":"tap","device":1'
    rec=$REC
    kill -STOP "$rec"
    retry 60 stopped "$rec"
    # read before the barrier starts: the barrier must cover at least these
    $ISSUED "$EX_PID" >"$T/issued"
    "$HCBTRACE" barrier -t 120 "$EX_PID" 2>"$T/bar.err" &
    bar=$!
    PIDS+=("$bar")
    retry 60 barrier_requested "$HCBTRACE_RUNDIR/$EX_PID.$rec.session"
    kill -TERM "$EX_PID"
    kill -CONT "$rec"
    wait "$bar"
    wait "$rec"
    # one barrier record, after every tap issued before the barrier began;
    # the example finishes its step after SIGTERM, so taps issued since may
    # come after it, and the end record closes the file
    [ "$(grep -c '"type":"barrier"' "$T/rec.jsonl")" = 1 ]
    run $CHECK "$T/rec.jsonl" "$T/issued" --upto-barrier
    assert_success
    run $CHECK "$T/rec.jsonl" "$T/issued"
    assert_success
    tail -1 "$T/rec.jsonl" | grep -q '^{"type":"end",'
}

@test "barrier: bad pids and usage" {
    run --separate-stderr "$HCBTRACE" barrier 12ab
    assert_failure 2
    run --separate-stderr "$HCBTRACE" barrier 4000000
    assert_failure 3
    [[ "$stderr" == "hcbtrace: no process with pid 4000000" ]]
    sleep 30 &
    PIDS+=("$!")
    run --separate-stderr "$HCBTRACE" barrier "$!"
    assert_failure 3
    [[ "$stderr" == *"has no libhcbtap loaded"* ]]
    run --separate-stderr "$HCBTRACE" barrier
    assert_failure 2
    [[ "$stderr" == *"which process?"* ]]
    run --separate-stderr "$HCBTRACE" barrier -t x 1
    assert_failure 2
    [[ "$stderr" == *"invalid timeout 'x'"* ]]
}
