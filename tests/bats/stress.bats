#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Under load: 4 devices tapping as fast as they can into a small ring
# buffer.  Whatever is lost is counted exactly, per device, and written as
# drop records in place; every record in the file stays valid.

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run
    CHECK="python3 $ROOT/tests/tools/check_delivery.py"
}

teardown()
{
    _common_teardown
}

# stress SECS FIELD RING_MIB FILE: record hcb-example from its start, at full
# rate, stop it after SECS; its own issued counters end up in $T/issued.
stress()
{
    "$HCBTRACE" record -b "$3" -o "$4" -- "$EXAMPLE" --devices 4 --steps 0 --interval-ms 0 \
        --field-size "$2" --report-issued 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    local ex
    for i in $(seq 100); do
        ex=$(pgrep -P "$rec" hcb-example) && break
        sleep 0.05
    done
    [ -n "$ex" ]
    sleep "$1"
    # the program stops on its own terms: every packet it issued passed the probe
    kill -TERM "$ex"
    wait "$rec"
    grep -o 'issued cpu:[0-9]* [0-9]*' "$T/rec.err" >"$T/issued"
    [ "$(wc -l <"$T/issued")" = 4 ]
    cat "$T/issued" >&3
}

@test "stress: 4 devices at full rate for 30 s into a 1 MiB ring: issued == delivered + dropped, per device" {
    stress 30 16 1 "$T/s.jsonl"
    grep -q 'target exited' "$T/rec.err"
    run $CHECK "$T/s.jsonl" "$T/issued" --exact
    echo "$output" >&3
    assert_success
    # the ring did overflow (or this proves nothing), and the summary agrees with the file
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
    stress 2 16 1 "$T/s.hcbcap"
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
    # lag limit at its default: it comes on only once taps are lost
    example "$T/all.jsonl" 8 10 -b 256
    run $CHECK "$T/all.jsonl" "$T/issued" --exact
    assert_success
    ! grep -q '"type":"drop"' "$T/all.jsonl"
    grep -q ' 0 lost$' "$T/rec.err"
}

@test "stress: a program that outruns the JSONL writer for good: held to --max-lag, counted exactly" {
    # the bundled example as it comes, 200 steps: 3.1 GiB of taps in a second or two
    example "$T/lag.jsonl" 200 1
    run $CHECK "$T/lag.jsonl" "$T/issued" --exact
    echo "$output" >&3
    assert_success
    # the ring overflowed, then the limit turned taps away, each one counted
    grep -q '"reason":"output too far behind"' "$T/lag.jsonl"
    # the small taps get in beside the large ones (all 3200 as a rule)
    small=$(small_taps "$T/lag.jsonl")
    echo "small taps kept: $small of 3200" >&3
    [ "$small" -ge 2880 ]
    run "$HCBTRACE" convert "$T/lag.jsonl" -o "$T/lag.hcbcap"
    assert_success
    # without the limit, only the ring's size counts
    example "$T/nolag.jsonl" 200 1 --max-lag 0
    run $CHECK "$T/nolag.jsonl" "$T/issued" --exact
    assert_success
    grep -q '"reason":"ring buffer full"' "$T/nolag.jsonl"
    ! grep -q '"reason":"output too far behind"' "$T/nolag.jsonl"
}
