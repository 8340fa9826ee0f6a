#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# fleet.bats - one trigger, the whole job's lead-up across hosts (record
# --fleet-dir DIR, cli/trace_fleet.h, src/watch/fleet.h): two hcbtrace
# record, each in a UTS namespace of its own (unshare -u: two host names on
# this machine), each tracing its own tapping process, share DIR; a NaN in
# one's process fires both, the second's trigger record "fleet" naming the
# first's host and process.  DIR is anyone's: an earlier run's fire file is
# no firing, and a link, a FIFO, a huge, binary or malformed file is
# ignored and counted, never a hang; under --follow every followed
# process's ring is written.  Real processes
# (tests/tools/nan_tapper.c) through real BPF; the recordings read back
# through hcbtap.recording (python/).

load common

setup()
{
    _common_setup
    export HCBTRACE_RUNDIR=$T/run PYTHONPATH=$ROOT/python
    need_python "${HCB_VENV:-$BUILD/venv}" 'import numpy' "numpy"
    TAPPER=$TOOLS/nan_tapper
    command -v unshare >/dev/null || skip "needs unshare (util-linux)"
    mkdir "$T/fleet"
}

teardown()
{
    _common_teardown
}

# step_past FILE N: the tapper's --progress step in FILE is past N
step_past()
{
    [ -s "$1" ] && [ "$(od -An -t d8 "$1" | tr -d ' ')" -gt "$2" ]
}

# on_host HOST ARGS...: hcbtrace ARGS as host HOST would run it (its own
# UTS namespace, so its own host name); the pid is hcbtrace's (exec)
on_host()
{
    local host=$1
    shift
    exec unshare -u sh -c 'hostname "$0" && exec "$@"' "$host" "$HCBTRACE" "$@"
}

# two_hosts OUT_A OUT_B: tapper a (process 1 of 2 by SLURM's word, NaN at
# step 300 once $T/go exists) started by record -- CMD on host "hosta" into
# OUT_A, tapper b (tapping on) attached by record -p on "hostb" into OUT_B,
# both with --fleet-dir $T/fleet and under way; a, b the tappers, ra, rb
# the two hcbtrace
two_hosts()
{
    on_host hosta record --keep-last 1M --until nonfinite --fleet-dir "$T/fleet" -o "$1" -- \
        env SLURM_PROCID=1 SLURM_NTASKS=2 "$TAPPER" -n 1 -k 300 -s 1000000 -i 200 \
        --go "$T/go" --progress "$T/astep" 2>"$T/a.err" &
    ra=$!
    PIDS+=("$ra")
    "$TAPPER" -n 1 -s 1000000 -i 200 --progress "$T/bstep" 2>/dev/null &
    b=$!
    PIDS+=("$b")
    retry 60 step_past "$T/astep" 100
    a=$(pgrep -P "$ra" -f nan_tapper)
    PIDS+=("$a")
    on_host hostb record -p "$b" --keep-last 1M --until nonfinite --fleet-dir "$T/fleet" \
        -o "$2" 2>"$T/b.err" &
    rb=$!
    PIDS+=("$rb")
    wait_session "$b"
    s=$(od -An -t d8 "$T/bstep" | tr -d ' ')
    retry 60 step_past "$T/bstep" $((s + 100))
}

# check_fleet REC PID: REC holds over 50 taps, then a trigger "fleet" by
# process PID (index 1) of host "hosta"
check_fleet()
{
    "$PY" - "$1" "$2" <<'EOF'
import sys
from hcbtap.recording import records
r = list(records(sys.argv[1]))
assert [x.kind for x in r[-2:]] == ["trigger", "end"], [x.kind for x in r[-3:]]
t = r[-2]
assert t.condition == "fleet" and t.by_host == "hosta" and t.by_pid == int(sys.argv[2]), \
    (t.condition, t.by_host, t.by_pid)
assert t.by_process == 1 and t.seq is None and t.exit_status is None, (t.by_process, t.seq)
taps = [x for x in r if x.kind == "tap"]
steps = [int(x.leaves[0].flat[0]) for x in taps if x.name == "step"]
assert len(taps) > 50 and steps == sorted(steps) and r[-1].taps == len(taps), len(taps)
print("%d taps up to step %d, then fleet by host %s pid %d process %d"
      % (len(taps), steps[-1], t.by_host, t.by_pid, t.by_process))
EOF
}

@test "fleet: a NaN on one host writes every host's lead-up, the other's trigger naming that host and process; an earlier run's fire file is none" {
    # an earlier run's firing, left in DIR (its time long before this
    # session): nothing fires on it
    printf '{"hcbtrace_fleet":1,"host":"old","hcbtrace_pid":1,"seq":1,"pid":7,"condition":"nonfinite","wall_ns":1000000000}\n' \
        >"$T/fleet/fire-old-1-1.json"
    two_hosts "$T/a.jsonl" "$T/b.hcbcap"
    touch "$T/go"
    wait "$ra"
    wait "$rb"
    cat "$T/a.err" "$T/b.err" >&3
    # the one that fired: its own trigger, no fleet's
    run "$PY" - "$T/a.jsonl" <<'EOF'
import sys
from hcbtap.recording import records
r = list(records(sys.argv[1]))
assert [x.kind for x in r[-3:]] == ["tap", "trigger", "end"], [x.kind for x in r[-3:]]
t = r[-2]
assert t.condition == "nonfinite" and t.by_host is None and t.by_pid is None, t.condition
assert int(r[-3].leaves[0].flat[0]) == 300
steps = [int(x.leaves[0].flat[0]) for x in r if x.kind == "tap" and x.name == "step"]
# its ring's last 1M: every step up to the NaN
assert len(steps) > 100 and steps == list(range(steps[0], 301)), (steps[:3], r[-1].taps)
print("%d taps: steps %d to its NaN at 300" % (r[-1].taps, steps[0]))
EOF
    echo "# hosta: $output" >&3
    assert_success
    run check_fleet "$T/b.hcbcap" "$a"
    echo "# hostb: $output" >&3
    assert_success
    grep -q "host hosta fired (pid $a, process 1: nonfinite): this host's rings are written" "$T/b.err"
    # both saw the earlier run's file, and neither took it for a firing
    grep -q "1 firing from before this session (an earlier run's) ignored" "$T/a.err"
    grep -q "1 firing from before this session (an earlier run's) ignored" "$T/b.err"
    # one fire file published, hosta's: hostb's firing was the fleet's, not told again
    run ls "$T/fleet"
    assert_output "fire-hosta-$ra-1.json
fire-old-1-1.json"
    run cat "$T/fleet/fire-hosta-$ra-1.json"
    assert_output --regexp "^\{\"hcbtrace_fleet\":1,\"host\":\"hosta\",\"hcbtrace_pid\":$ra,\"seq\":1,\"pid\":$a,\"process\":1,\"condition\":\"nonfinite\",\"wall_ns\":[0-9]+\}$"
    # replay and JSONL say it too
    run "$HCBTRACE" replay --no-wait "$T/b.hcbcap"
    assert_success
    assert_line "trigger fleet: fired by host hosta pid $a (process 1)"
    "$HCBTRACE" convert "$T/b.hcbcap" -o "$T/b.jsonl"
    run tail -n 2 "$T/b.jsonl"
    assert_line --index 0 --regexp "^\{\"type\":\"trigger\",\"condition\":\"fleet\",\"ts_ns\":[0-9]+,\"by_host\":\"hosta\",\"by_pid\":$a,\"by_process\":1\}$"
    # and Parquet's events (pyarrow: scripts/lib.sh's)
    HCB_PYTHON=$PY run --separate-stderr "$HCBTRACE" convert "$T/b.hcbcap" -o "$T/b.parquet"
    assert_success
    run "$PY" -c 'import sys, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1]).to_pylist()
print([(r["condition"], r["by_host"], r["by_pid"], r["by_process"]) for r in t if r["kind"] == "trigger"])' \
        "$T/b.events.parquet"
    assert_output "[('fleet', 'hosta', $a, 1)]"
}

@test "fleet: a link, a FIFO, a huge, binary or malformed file in DIR is ignored and counted once, never a hang" {
    local big
    mkfifo "$T/fleet/fire-fifo.json"
    ln -s /dev/zero "$T/fleet/fire-zero.json"
    ln -s "$T/fleet/fire-fifo.json" "$T/fleet/fire-tofifo.json"
    mkdir "$T/fleet/fire-dir.json"
    head -c 4M /dev/zero >"$T/fleet/fire-huge.json"
    printf '\x7b\x00\xff\xfe\n' >"$T/fleet/fire-binary.json"
    # a firing but for one byte more: not the form written
    printf '{"hcbtrace_fleet":1,"host":"x","hcbtrace_pid":1,"seq":1,"pid":7,"condition":"nonfinite","wall_ns":1000000000} \n' \
        >"$T/fleet/fire-x-1-1.json"
    # not named as a fire file: not looked at
    echo notes >"$T/fleet/README"
    two_hosts "$T/a.jsonl" "$T/b.jsonl"
    touch "$T/go"
    # polling went on past them: hostb fired by hosta's firing
    timeout 60 tail --pid="$rb" -f /dev/null
    wait "$rb"
    wait "$ra"
    cat "$T/b.err" >&3
    run check_fleet "$T/b.jsonl" "$a"
    assert_success
    for f in "$T/a.err" "$T/b.err"; do
        run grep -c "fleet-dir '$T/fleet': 7 files named fire-\*.json were no fire file (a link, a FIFO, too large or malformed): ignored" "$f"
        assert_output 1
    done
    # nothing read from the FIFO or written to it, and all left in place
    [ -p "$T/fleet/fire-fifo.json" ] && [ -L "$T/fleet/fire-zero.json" ]
}

@test "fleet: --fleet-dir needs --keep-last and --until; DIR missing or not writable is one message" {
    run --separate-stderr "$HCBTRACE" record -p $$ --until nonfinite --fleet-dir "$T/fleet" -o "$T/x.jsonl"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--fleet-dir tells the other hosts when this one's ring fires, and writes it when theirs do: give --keep-last SIZE and --until COND"* ]]
    run --separate-stderr "$HCBTRACE" record -p $$ --keep-last 1M --until-signal --fleet-dir "$T/fleet" -o "$T/x.jsonl"
    [ "$status" -eq 2 ]
    run --separate-stderr "$HCBTRACE" record -p $$ --keep-last 1M --until nonfinite --fleet-dir "$T/none" -o "$T/x.jsonl"
    [ "$status" -eq 1 ]
    [ "$stderr" = "hcbtrace: --fleet-dir '$T/none': No such file or directory: fire files are written there: give a directory that every host of the job shares and can write" ]
    # a directory no file can be made in
    run --separate-stderr "$HCBTRACE" record -p $$ --keep-last 1M --until nonfinite --fleet-dir /proc -o "$T/x.jsonl"
    [ "$status" -eq 1 ]
    [[ "$stderr" == "hcbtrace: --fleet-dir '/proc': cannot write in it: "* ]]
    [ ! -e "$T/x.jsonl" ]
    # --until exit alone is a --until
    run --separate-stderr "$HCBTRACE" record -p $$ --keep-last 1M --until exit --fleet-dir "$T/fleet" -o "$T/x.jsonl"
    [ "$status" -ne 2 ]
}

@test "fleet: record --follow: another host's fire file, put in DIR by a rename, writes every followed process's ring" {
    mkdir "$T/d"
    on_host hostb record --follow --keep-last 1M --until nonfinite --fleet-dir "$T/fleet" \
        -o "$T/d/%p.hcbcap" -- bash -c "
        '$TAPPER' -n 1 -s 1000000 -i 200 --progress '$T/astep' & echo \$! > '$T/a.pid'
        '$TAPPER' -n 1 -s 1000000 -i 200 --progress '$T/bstep' & echo \$! > '$T/b.pid'
        wait" 2>"$T/rec.err" &
    rec=$!
    PIDS+=("$rec")
    retry 30 test -s "$T/a.pid"
    retry 30 test -s "$T/b.pid"
    a=$(cat "$T/a.pid") b=$(cat "$T/b.pid")
    PIDS+=("$a" "$b")
    retry 60 step_past "$T/astep" 100
    retry 60 step_past "$T/bstep" 100
    # what hosta's hcbtrace would publish: written aside, renamed in
    printf '{"hcbtrace_fleet":1,"host":"hosta","hcbtrace_pid":5,"seq":1,"pid":77,"process":1,"condition":"nonfinite","wall_ns":%s}\n' \
        "$(date +%s%N)" >"$T/fleet/.fire-hosta-5-1.tmp"
    mv "$T/fleet/.fire-hosta-5-1.tmp" "$T/fleet/fire-hosta-5-1.json"
    wait "$rec"
    for p in "$a" "$b"; do
        run check_fleet "$T/d/$p.hcbcap" 77
        echo "# $p: $output" >&3
        assert_success
    done
    grep -q "host hosta fired (pid 77, process 1: nonfinite): this host's rings are written" "$T/rec.err"
    # a firing hostb did not begin is not published
    run ls "$T/fleet"
    assert_output "fire-hosta-5-1.json"
}
