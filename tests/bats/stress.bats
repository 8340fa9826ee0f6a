#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Under load: 4 devices tapping as fast as they can into a small ring
# buffer.  Whatever is lost is counted exactly, per device, and written as
# drop records in place; every record in the file stays valid.  Whether a
# loss happens at all is the machine's speed, so each test that needs one
# makes it certain: it holds hcbtrace back (SIGSTOP) until the program has
# issued more than the ring holds, or keeps the program tapping until the
# loss it looks for is in the file.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    CHECK="python3 $ROOT/tests/tools/check_delivery.py"
}

teardown()
{
    [ -n "${rec:-}" ] && kill -CONT "$rec" 2>/dev/null
    _common_teardown
}

# start_stress FILE FIELD INTERVAL_MS RECORD_OPTS...: record hcb-example (4
# devices, tapping until it is stopped) from its start, in the background;
# rec: hcbtrace, ex: the example, once the session is attached to it
start_stress()
{
    local file=$1 field=$2 interval=$3 i
    shift 3
    "$HCBTRACE" record "$@" -o "$file" -- "$EXAMPLE" --devices 4 --steps 0 --interval-ms "$interval" \
        --field-size "$field" --report-issued 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    ex=
    for i in $(seq 600); do
        ex=$(pgrep -P "$rec" hcb-example) && break
        sleep 0.05
    done
    [ -n "$ex" ]
    wait_session "$ex" 60
}

# stop_stress: the program stops on its own terms (every packet it issued
# passed the probe), hcbtrace with it; its issued counters in $T/issued
stop_stress()
{
    kill -TERM "$ex"
    wait "$rec"
    grep -q 'target exited' "$T/rec.err"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/rec.err" >"$T/issued"
    [ "$(wc -l <"$T/issued")" = 4 ]
    cat "$T/issued" >&3
}

# issued_now: the packets the example has issued so far, all devices
issued_now()
{
    python3 "$ROOT/tests/tools/read_issued.py" "$ex" | awk '{ n += $2 } END { print n + 0 }'
}

# stopped PID: every thread of PID is stopped (state T)
stopped()
{
    ! grep -qv '^[0-9]* ([^)]*) T' /proc/"$1"/task/*/stat
}

# hold_reader N: hcbtrace stopped until the example has issued N more
# packets, so a ring that holds fewer must overflow, however fast either
# is; counted from when no thread of hcbtrace can read any more
hold_reader()
{
    local from now i
    kill -STOP "$rec"
    retry 30 stopped "$rec"
    from=$(issued_now)
    for i in $(seq 6000); do
        now=$(issued_now)
        [ $((now - from)) -ge "$1" ] && break
        sleep 0.05
    done
    kill -CONT "$rec"
    echo "# held back while $((now - from)) packets were issued" >&3
    [ $((now - from)) -ge "$1" ]
}

# A packet takes 32 bytes of ring at the least (an 8-byte ring header, and
# an event that names its type, device, consumer and seq): a 1 MiB ring
# holds fewer than 32768.
SMALL_RING_OVER=70000

@test "stress: 4 devices at full rate, a soak, into a 1 MiB ring: issued == delivered + dropped, per device" {
    start_stress "$T/s.jsonl" 16 0 -b 1
    hold_reader $SMALL_RING_OVER
    # then a soak: the reader against the program at full rate for a
    # length of time, not until a condition (30 s; scripts/test: 10)
    sleep "${HCB_SOAK_SECONDS:-30}"
    stop_stress
    run $CHECK "$T/s.jsonl" "$T/issued" --exact
    echo "$output" >&3
    assert_success
    # the ring did overflow (the hold made sure), and the summary agrees with the file
    total_drops=$(sed -n 's/.*"type":"end","taps":[0-9]*,"drops":\([0-9]*\).*/\1/p' "$T/s.jsonl")
    [ "$total_drops" -gt 0 ]
    grep -q " $total_drops lost\$" "$T/rec.err"
    for d in 0 1 2 3; do
        dropped=$(awk -v d=$d '/^device / && $2 == d":" { print $8 }' <<<"$output" | tr -d ',')
        grep -Eq "^  cpu:$d +[0-9]+ taps +[0-9]+ bytes +$dropped dropped" "$T/rec.err"
    done
    # the file converts cleanly: no record is damaged
    run "$HCBTRACE" convert "$T/s.jsonl" -o "$T/s.hcbcap"
    assert_success
}

@test "stress: 4 devices at full rate into a 1 MiB ring, to .hcbcap: counted exactly, file intact" {
    start_stress "$T/s.hcbcap" 16 0 -b 1
    hold_reader $SMALL_RING_OVER
    stop_stress
    run "$HCBTRACE" convert "$T/s.hcbcap" -o "$T/s.jsonl"
    assert_success
    run $CHECK "$T/s.jsonl" "$T/issued" --exact
    echo "$output" >&3
    assert_success
    grep -q '"type":"drop"' "$T/s.jsonl"
}

# example FILE STEPS INTERVAL_MS RECORD_OPTS...: record hcb-example (4
# devices; a 4 MiB field tap and four small ones per step) from its start
# to its end; its issued counters in $T/issued.
example()
{
    local file=$1 steps=$2 interval=$3
    shift 3
    "$HCBTRACE" record "$@" -o "$file" -- "$EXAMPLE" --devices 4 --steps "$steps" \
        --interval-ms "$interval" --report-issued 2>"$T/rec.err"
    grep -q 'target exited' "$T/rec.err"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/rec.err" >"$T/issued"
    [ "$(wc -l <"$T/issued")" = 4 ]
}

# small_taps FILE: how many taps of the example's small consumers FILE holds
small_taps()
{
    grep -c '"type":"tap".*"name":"\(loss\|power3\|params\|status\)"' "$1"
}

@test "stress: a burst the ring holds is kept whole, though it outruns the JSONL writer" {
    # 8 steps of 16 MiB a step each 10 ms, into a 256 MiB ring, with the
    # lag limit at its default: it comes on only once taps are lost, and
    # 128 MiB cannot fill the ring, however slow the writer
    example "$T/all.jsonl" 8 10 -b 256
    run $CHECK "$T/all.jsonl" "$T/issued" --exact
    assert_success
    ! grep -q '"type":"drop"' "$T/all.jsonl"
    grep -q ' 0 lost$' "$T/rec.err"
}

@test "stress: a program that outruns the JSONL writer for good: held to --max-lag, counted exactly" {
    # the bundled example as it comes (16 MiB of taps a step, a step a
    # ms), until the limit has turned taps away
    start_stress "$T/lag.jsonl" 1048576 1
    wait_for "$T/lag.jsonl" '"reason":"output too far behind"' 300
    stop_stress
    run $CHECK "$T/lag.jsonl" "$T/issued" --exact
    echo "$output" >&3
    assert_success
    # the small taps get in beside the large ones: a figure, not a promise
    # (it is the machine's speed); bench/ measures it
    echo "# small taps kept: $(small_taps "$T/lag.jsonl") of $(( $(awk '{ n += $3 } END { print n }' "$T/issued") * 4 / 5 ))" >&3
    run "$HCBTRACE" convert "$T/lag.jsonl" -o "$T/lag.hcbcap"
    assert_success
    # without the limit, only the ring's size counts: held back while the
    # program issues 20 steps (320 MiB, five 64 MiB rings)
    start_stress "$T/nolag.jsonl" 1048576 1 --max-lag 0
    hold_reader 400
    stop_stress
    run $CHECK "$T/nolag.jsonl" "$T/issued" --exact
    assert_success
    grep -q '"reason":"ring buffer full"' "$T/nolag.jsonl"
    ! grep -q '"reason":"output too far behind"' "$T/nolag.jsonl"
}
