#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# hostile.bats - hcbtrace against a target that lies to it through the real
# probe (tests/tools/hostile_tap.c, through a stand-in for libhcbtap that
# fires hcbtap:packet as libhcbtap does and checks nothing): device numbers
# past every bound, registrations that never finish, seqs that jump and go
# back.  hcbtrace counts and reports each, never crashes, keeps its output
# consistent and its memory bounded (docs/ARCHITECTURE.md, "What the target
# is trusted with: nothing").

load common

setup()
{
    _common_setup
    HOSTILE=$TOOLS/hostile_tap
    [ -x "$HOSTILE" ] || { echo "hostile_tap not built at $HOSTILE" >&2; return 1; }
}
teardown() { _common_teardown; }

# start_hostile ARGS...: start hostile_tap ARGS, wait until it is set up; HP
start_hostile()
{
    "$HOSTILE" "$@" >"$T/hostile.out" 2>"$T/hostile.err" &
    HP=$!
    PIDS+=("$HP")
    wait_for "$T/hostile.out" '^ready$'
}

# trace_hostile OUT CMD...: run hcbtrace CMD... -p HP in the background
# (stdout to OUT), let the target fire once the session is attached, and
# wait for its last packet (consumer "end") in OUT; TP: hcbtrace's pid
trace_hostile()
{
    local out=$1
    shift
    "$HCBTRACE" "$@" -p "$HP" >"$out" 2>"$T/trace.err" &
    TP=$!
    PIDS+=("$TP")
    wait_session "$HP" 30
    kill -USR1 "$HP"
    wait_for "$T/hostile.out" '^fired '
    wait_for "$out" '"name":"end"' 120
}

# end_hostile: let the target exit, and hcbtrace with it; RC: its status
end_hostile()
{
    kill -USR1 "$HP"
    RC=0
    wait "$TP" || RC=$?
}

# consistent FILE TAPS: FILE is a whole JSONL recording whose end record
# counts TAPS taps and as many drops as its drop records; prints the drops
consistent()
{
    python3 - "$1" "$2" <<'EOF'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["type"] == "session" and recs[-1]["type"] == "end", (recs[0], recs[-1])
taps = [r for r in recs if r["type"] == "tap"]
drops = sum(r["count"] for r in recs if r["type"] == "drop")
assert len(taps) == int(sys.argv[2]) == recs[-1]["taps"], (len(taps), recs[-1])
assert recs[-1]["drops"] == drops, (recs[-1], drops)
assert all(0 <= t["device"] < 256 for t in taps), taps
print(drops)
EOF
}

@test "hostile: devices 256 to 0xffffffff are refused and counted, 255 is a device" {
    start_hostile devices
    trace_hostile "$T/out.jsonl" attach -f jsonl
    end_hostile
    [ "$RC" -eq 0 ]
    # 255 twice (the long way, then inline), the end marker on 0; nothing else
    run consistent "$T/out.jsonl" 3
    assert_success
    [ "$(grep -v '"type":"session"' "$T/out.jsonl" | grep -c '"device":255')" -eq 2 ]
    # ten packets for five devices out of range: told, and summed up apart
    grep -q 'is for device 256; devices go up to 255' "$T/trace.err"
    grep -q "more 'device out of range' problems; the summary counts them" "$T/trace.err"
    grep -Eq '^  \(invalid\) +0 taps +0 bytes +0 dropped +0 gaps +10 bad$' "$T/trace.err"
    grep -q 'target exited: 3 taps (12 bytes) from 2 devices of process' "$T/trace.err"
}

# 150 consumers whose 1 MiB registrations end in an unmapped page, two
# packets each: every copy ends short.  hcbtrace held each until its copy
# ended, before: 1.1 MiB a registration, for good (71 MB peak where this
# bound is 48).  Its peak stays at its ring (mapped twice) and little more.
@test "hostile: a flood of registrations that never finish keeps hcbtrace's memory bounded" {
    start_hostile flood 150
    trace_hostile "$T/out.jsonl" record -b 16 -o "$T/out.jsonl"
    hwm=$(awk '/^VmHWM:/ { print $2 }' /proc/"$TP"/status)
    end_hostile
    [ "$RC" -eq 0 ]
    echo "hcbtrace's peak: $hwm kB" >&3
    [ "$hwm" -lt $(( 48 * 1024 )) ]
    run consistent "$T/out.jsonl" 1
    assert_success
    [ "$output" -eq 300 ]
    # the registrations did reach the decoder (the bound was tested): their
    # packets are counted, as unknown consumers, not silently gone
    bad=$(awk '$1 == "cpu:0" { print $(NF - 1) }' "$T/trace.err")
    [ "$bad" -ge 10 ]
    grep -q 'is for unknown consumer' "$T/trace.err"
    grep -q '1 written, 300 lost$' "$T/trace.err"
}

@test "hostile: seqs that jump and go back leave a consistent recording" {
    start_hostile seq
    trace_hostile "$T/out.jsonl" record -o "$T/out.jsonl"
    end_hostile
    [ "$RC" -eq 0 ]
    # every packet fired is a tap; a jump of 2^60 loses at most what the
    # probe counted firing on the device (8 packets), never 2^60
    run consistent "$T/out.jsonl" 8
    assert_success
    [ "${lines[-1]}" -le 8 ]
    grep -q '8 taps (32 bytes) from 1 device of process' "$T/trace.err"
    # the rest of the jump is told, and counted as a problem, not as drops
    grep -q 'a seq past what the probe handled' "$T/trace.err"
    grep -Eq '^  cpu:0 +8 taps +32 bytes +[0-8] dropped +0 gaps +1 bad$' "$T/trace.err"
}
